import StrictJSON

#if canImport(Glibc)
    import Glibc
#endif

/// One campaign input as ``CampaignReader/stream(_:options:message:)`` reads it: bytes already in memory (standard
/// input, a pipe), or a regular file, read again from its start each time it is read and never held whole when it
/// is NDJSON.
public struct CampaignInput: Sendable {
    /// The name as given (`-` for standard input): it starts every message's source id.
    public let name: String
    let storage: Storage

    enum Storage: Sendable {
        case bytes([UInt8])
        case file(CampaignFile)
    }

    /// An input whose bytes are read already.
    public init(name: String, bytes: [UInt8]) {
        self.name = name
        storage = .bytes(bytes)
    }

    /// A regular file, read each time the input is read.
    public init(name: String, file: CampaignFile) {
        self.name = name
        storage = .file(file)
    }

    /// Whether it reads the same as when it was first read: bytes always; a file whose size and modification time
    /// are those it was opened with.
    public var isUnchanged: Bool {
        switch storage {
        case .bytes: true
        case .file(let file): file.isUnchanged
        }
    }

    /// What an index of positions in it (``JSONPositions``, SARIF's lines and columns) needs of it: a file read as
    /// NDJSON gives its first line only — the index of an NDJSON text covers its first value and no more — so that a
    /// report of a feed of millions of lines does not read it whole; anything else is read whole.
    public func positionBytes() throws(CampaignFile.ReadError) -> [UInt8] {
        guard case .file(let file) = storage else { return try bytes() }
        var head = [UInt8](repeating: 0, count: min(NDJSONFile.chunk, max(file.size, 1)))
        let filled = try file.read(at: 0, into: &head, from: 0)
        var parser = JSONDocumentParser()
        guard NDJSONFile.isNDJSON(head[..<filled], parser: &parser), let newline = head.firstIndex(of: 0x0A) else {
            return try file.readAll()
        }
        return Array(head[...newline])
    }

    /// Its bytes, whole (a file is read from its start, up to the size it had when opened).
    /// - Throws: the `errno` of a failed read.
    public func bytes() throws(CampaignFile.ReadError) -> [UInt8] {
        switch storage {
        case .bytes(let bytes): bytes
        case .file(let file): try file.readAll()
        }
    }
}

/// A regular file opened once, read with `pread` from any offset as often as needed; closed when the last
/// reference goes. Reads stop at the size the file had when it was opened, so every read of it sees the same
/// length.
public final class CampaignFile: Sendable {
    /// A failed `pread` (its `errno`).
    public struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
        public var code: Int32

        /// `strerror`'s text with a lowercase first letter (`input/output error`).
        public var description: String {
            let text = String(cString: strerror(code))
            return text.prefix(1).lowercased() + text.dropFirst()
        }
    }

    private let descriptor: Int32
    /// The size when opened.
    public let size: Int
    private let modified: (seconds: Int, nanoseconds: Int)

    /// Takes over `descriptor`, an open regular file (it is closed with this object).
    /// - Throws: the `errno` of `fstat`, or `EINVAL` when it is not a regular file (the descriptor is closed then).
    public init(descriptor: Int32) throws(ReadError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw ReadError(code: code)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw ReadError(code: EINVAL)
        }
        self.descriptor = descriptor
        size = Int(status.st_size)
        modified = (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec))
    }

    deinit { close(descriptor) }

    /// Whether its size and modification time are still those it was opened with.
    public var isUnchanged: Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return Int(status.st_size) == size && Int(status.st_mtim.tv_sec) == modified.seconds
            && Int(status.st_mtim.tv_nsec) == modified.nanoseconds
    }

    /// Reads up to `buffer.count` bytes at `offset` (never past ``size``); fewer only at the end.
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ReadError) -> Int {
        let wanted = min(buffer.count, max(0, size - offset))
        var done = 0
        while done < wanted {
            let got = pread(descriptor, buffer.baseAddress! + done, wanted - done, off_t(offset + done))
            if got > 0 {
                done += got
            } else if got == 0 {
                break  // shorter than when opened: what is there
            } else if errno != EINTR {
                throw ReadError(code: errno)
            }
        }
        return done
    }

    /// Reads into `bytes[from...]` from `offset`; the count read.
    func read(at offset: Int, into bytes: inout [UInt8], from start: Int) throws(ReadError) -> Int {
        let result: Result<Int, ReadError> = bytes.withUnsafeMutableBytes { raw in
            Result { () throws(ReadError) in
                try read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: raw[start...]))
            }
        }
        return try result.get()
    }

    /// The whole file (up to ``size``).
    func readAll() throws(ReadError) -> [UInt8] {
        var failure: ReadError?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            do throws(ReadError) {
                count = try read(at: 0, into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }
}
