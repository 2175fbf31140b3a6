import Glibc
import Synchronization

/// Streams one blob into the store: bytes are hashed (SHA-256) as they arrive and written through a buffer of up to
/// 256 KiB to a temporary file in `STORE/tmp/`, so memory stays bounded whatever the size.
///
/// The temporary file is unnamed (`O_TMPFILE`) where the file system allows it: it never appears in `tmp/`, and a
/// killed process leaves nothing behind. Elsewhere it is a unique named file, on which the writer holds an exclusive
/// `flock` while it exists: that is how `gc` and `verify` tell a live download from the debris of a killed process
/// (a file nobody holds locked).
///
/// ``commit(sha256:)`` fsyncs the file and links (or renames) it to `objects/sha256/ab/<hex>` (an existing blob of the
/// same size means the content is already there: the temporary file is dropped). ``abort()`` — or letting the
/// writer go without committing — removes the temporary file. Any write failure (a full disk, an I/O
/// error) removes the temporary file before the error is thrown, so nothing half-written stays behind.
///
/// Not Sendable: one writer is fed by one thread at a time (it owns a file descriptor, an OpenSSL digest
/// context and a buffer). Hand it to another thread by transferring it (`sending`), not by sharing it.
public final class BlobWriter {
    private enum State { case open, committed, aborted }

    private let store: AssetStore
    /// The named temporary file, or `nil` for an unnamed one (or none yet).
    private var tempPath: String?
    /// The temporary file, or -1 while a deferred writer has not needed one yet.
    private var fd: Int32 = -1
    private let hasher: SHA256Hasher?
    private let buffer: UnsafeMutableRawBufferPointer
    private var buffered = 0
    private var state = State.open

    /// Bytes written so far.
    public private(set) var size = 0

    init(store: AssetStore, hashing: Bool = true, sizeHint: Int? = nil, deferred: Bool = false) throws(StoreError) {
        self.store = store
        self.hasher = hashing ? try SHA256Hasher() : nil
        // A body announced as small gets a small buffer: 10,000 images of 5 KB need not allocate 256 KiB each.
        let capacity =
            sizeHint.map { min(FileSystem.chunkSize, max(4_096, ($0 + 4_095) & ~4_095)) } ?? FileSystem.chunkSize
        // The file first: nothing to undo when it cannot be created.
        if !deferred { (fd, tempPath) = try Self.createFile(in: store) }
        self.buffer = .allocate(byteCount: capacity, alignment: 16)
    }

    /// Creates the temporary file of a deferred writer when the first bytes must reach the disk.
    private func openFile() throws(StoreError) {
        (fd, tempPath) = try Self.createFile(in: store)
    }

    /// Creates a temporary file: unnamed where the file system allows, else named and flock'd.
    private static func createFile(in store: AssetStore) throws(StoreError) -> (fd: Int32, path: String?) {
        if let unnamed = FileSystem.temporaryFileFlag, store.anonymousTemporaryFiles.load(ordering: .relaxed) {
            var fd: Int32
            repeat {
                fd = openat(store.tempFD, ".", unnamed | O_WRONLY | O_CLOEXEC, 0o444)
            } while fd < 0 && errno == EINTR
            if fd >= 0 { return (fd, nil) }
            let failure = errno
            // Kernels or file systems without O_TMPFILE: use named files from now on.
            guard failure == EOPNOTSUPP || failure == EISDIR || failure == EINVAL else {
                throw StoreError.system("create temp file", path: store.tempDirectory + "/", errno: failure)
            }
            store.anonymousTemporaryFiles.store(false, ordering: .relaxed)
        }
        let path = store.tempDirectory + "/blob-\(getpid())-\(FileSystem.randomToken())"
        // The store lock keeps gc from judging the file stray between its creation and its flock.
        let lock = try store.lock(exclusive: false)
        let fd = try FileSystem.open(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o444, operation: "create temp file")
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            close(fd)
            unlink(path)
            throw StoreError.system("lock temp file", path: path, errno: failure)
        }
        lock?.release()
        return (fd, path)
    }

    deinit {
        if state == .open { discard() }
        buffer.deallocate()
    }

    /// Appends bytes to the blob.
    /// - Throws: ``StoreError`` when the disk refuses them (the temporary file is already removed), or
    ///   `.writerFinished` after ``commit()``/``abort()``/a failure.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(StoreError) {
        guard state == .open else { throw finished() }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        hasher?.update(bytes)
        size += bytes.count
        do throws(StoreError) {
            if buffered == 0 && bytes.count >= buffer.count {
                // Nothing pending and a whole buffer's worth: write it as it is (no copy; found by make bench).
                if fd < 0 { try openFile() }
                try FileSystem.writeAll(fd, base, bytes.count, path: shownPath)
            } else if buffered + bytes.count <= buffer.count {
                (buffer.baseAddress! + buffered).copyMemory(from: base, byteCount: bytes.count)
                buffered += bytes.count
                if buffered == buffer.count { try flush() }
            } else {
                try flush()
                if bytes.count >= buffer.count {
                    if fd < 0 { try openFile() }
                    try FileSystem.writeAll(fd, base, bytes.count, path: shownPath)  // big chunk: no copy
                } else {
                    buffer.baseAddress!.copyMemory(from: base, byteCount: bytes.count)
                    buffered = bytes.count
                }
            }
        } catch {
            discard()
            throw error
        }
    }

    /// Appends bytes to the blob. See ``write(_:)-(UnsafeRawBufferPointer)``.
    public func write(_ bytes: [UInt8]) throws(StoreError) {
        try withBytes(bytes) { (raw) throws(StoreError) in try write(raw) }
    }

    /// Appends bytes to the blob. See ``write(_:)-(UnsafeRawBufferPointer)``.
    public func write(_ bytes: ArraySlice<UInt8>) throws(StoreError) {
        try withBytes(bytes) { (raw) throws(StoreError) in try write(raw) }
    }

    /// Makes the blob durable and addressable: flush, `fsync`, link (or rename) into `objects/sha256/ab/<hex>`; the
    /// directory is fsync'd before the next index record is appended. Record the URL with
    /// ``AssetStore/record(url:entry:)`` afterwards.
    /// - Parameter sha256: The digest the caller computed over the same bytes: required when the writer was begun
    ///   with `hashing: false` (it names the blob), else compared with the writer's own.
    /// - Returns: the blob's hash and size.
    /// - Throws: ``StoreError`` when the disk fails, `.invalidArgument` when a needed `sha256` is missing or
    ///   malformed, `.ioFailure` when it differs from the writer's own hash (the temporary file is removed in
    ///   every case).
    public func commit(sha256 claimed: String? = nil) throws(StoreError) -> BlobRef {
        guard state == .open else { throw finished() }
        do throws(StoreError) {
            let sha256: String
            if let hasher {
                sha256 = hasher.finish()
                if let claimed, claimed != sha256 {
                    throw StoreError(.ioFailure, "the bytes written hash to \(sha256), not \(claimed)")
                }
            } else {
                guard let claimed, Hex.isDigest(claimed) else {
                    throw StoreError(.invalidArgument, "a blob written without hashing needs its SHA-256 at commit")
                }
                sha256 = claimed
            }
            try flush()
            if fd < 0 { try openFile() }  // an empty blob of a deferred writer
            if !store.objectsVolatile { try FileSystem.sync(fd, path: shownPath) }
            let blob = BlobRef(trusted: sha256, size: size)
            try store.install(fd: fd, tempPath: tempPath, blob: blob)
            state = .committed
            close(fd)
            fd = -1
            return blob
        } catch {
            discard()
            throw error
        }
    }

    /// Gives up on the blob and removes the temporary file. Safe to call more than once.
    public func abort() {
        if state == .open { discard() }
    }

    private func flush() throws(StoreError) {
        guard buffered > 0 else { return }
        if fd < 0 { try openFile() }
        try FileSystem.writeAll(fd, buffer.baseAddress!, buffered, path: shownPath)
        buffered = 0
    }

    private func discard() {
        state = .aborted
        if let tempPath { unlink(tempPath) }
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// The path errors name: the temporary file, or the directory an unnamed one lives in.
    private var shownPath: String { tempPath ?? store.tempDirectory + "/" }

    private func finished() -> StoreError {
        StoreError(.writerFinished, "the blob writer was already committed or aborted", path: shownPath)
    }
}
