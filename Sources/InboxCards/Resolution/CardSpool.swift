public import StrictJSON

#if canImport(Glibc)
    import Glibc
#endif

/// `resolve`'s cards serialized once, as the first read resolves them, into an unlinked temporary file, and copied
/// into the report with their feed positions: resolving every card a second time to write it cost a third of
/// `resolve`'s time, and the file costs no memory (it is the page cache's, on disk or tmpfs). Each card is written
/// as its report writes it (a pretty JSON element at the `cards` array's depth, or a compact NDJSON `card` line)
/// with `"feedPosition": null`, the last member; the copy puts the position in its place.
public final class CardSpool {
    /// The report a spool is for.
    public enum Format: Sendable {
        /// `resolve --format json`: pretty elements of the top-level `cards` array.
        case json
        /// `resolve --format ndjson`: compact `{"type":"card",…}` lines.
        case ndjson
    }

    /// A failed write or read of the spool file, or of the feed positions it is copied with (its `errno`).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var code: Int32
        /// The feed positions' file (``FeedPositions``, when the run spilled) failed, not the spool.
        public var positions = false
        public var description: String {
            "cannot \(positions ? "read the feed positions back" : "write the card spool") in $TMPDIR: "
                + "\(CampaignFile.ReadError(code: code))"
        }
    }

    /// The most the spool writes (2 GiB: about a million cards of a pretty JSON report). Past it the spool stops, as
    /// a full `$TMPDIR` stops it, and the report resolves the cards again: a resolve of ten million messages would
    /// otherwise put its whole report, a hundred gigabytes, in `$TMPDIR` first.
    public static let limit = 2 << 30

    let format: Format
    private let file: SpillFile
    private var pending: [UInt8] = []
    private var failure: Int32?
    /// Cards spooled.
    public private(set) var count = 0

    /// The most this spool writes (``limit``; tests: less).
    private let capacity: Int

    /// An empty spool in `$TMPDIR` (else `/tmp`), unlinked at once (``SpillFile``): it goes with the process.
    public convenience init(format: Format) throws(Failure) { try self.init(format: format, capacity: Self.limit) }

    init(format: Format, capacity: Int) throws(Failure) {
        self.format = format
        self.capacity = capacity
        guard let file = SpillFile(.standard, name: "cards") else { throw Failure(code: errno) }
        self.file = file
        pending.reserveCapacity(1 << 20)
    }

    /// Serializes the next card of the run (its feed position not known yet); nothing once the spool has stopped.
    public func add(_ card: ResolvedCard) {
        guard failure == nil else { return }
        guard card.feedPosition == nil else {
            var unplaced = card
            unplaced.feedPosition = nil
            return add(unplaced)
        }
        var writer = JSONWriter(pretty: format == .json)
        if format == .json {
            // At the depth of the report's `cards` array, so that its indentation is the report's.
            writer.beginObject()
            writer.key("cards")
            writer.beginArray()
            card.write(to: &writer)
        } else {
            card.write(to: &writer, type: "card")
        }
        let bytes = writer.bytes
        // Past the document's own `{` and the comma and new line the element's place put before it.
        let start = bytes[(format == .json ? 1 : 0)...].firstIndex(of: UInt8(ascii: "{"))!
        var length = UInt32(bytes.count - start).littleEndian
        withUnsafeBytes(of: &length) { pending.append(contentsOf: $0) }
        pending.append(contentsOf: bytes[start...])
        count += 1
        if pending.count >= 1 << 20 { drain() }
    }

    private func drain() {
        guard failure == nil else { return pending.removeAll(keepingCapacity: true) }
        failure = file.size + pending.count > capacity ? EFBIG : pending.withUnsafeBytes { file.append($0) }
        pending.removeAll(keepingCapacity: true)
    }

    /// Whether every card reached the file (a full `$TMPDIR` or ``limit`` stops it): if not, the report resolves them
    /// again.
    public var isComplete: Bool {
        drain()
        return failure == nil
    }

    /// Writes every spooled card into `writer` (inside the `cards` array, or as NDJSON lines), each with its place
    /// in `positions`.
    /// - Throws: the spool's first failed write or read (a full `$TMPDIR`): the report is then incomplete.
    public func write(to writer: inout JSONWriter, positions: FeedPositions) throws(Failure) {
        drain()
        if let failure { throw Failure(code: failure) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        // The positions in card order (from files, when the run spilled).
        var cursor = positions.cursor()
        var filled = 0
        var start = 0
        var offset = 0
        var index = 0
        // The spooled card ends `null}` (NDJSON) or `null\n    }` (pretty, at the depth of the `cards` array's
        // elements): the position goes where `null` is.
        let tail = format == .json ? 1 + 4 + 1 : 1
        while index < count {
            // The next record whole in the buffer: its length, then its bytes.
            var need = 4
            if filled - start >= 4 {
                need += Int(
                    buffer.withUnsafeBytes {
                        UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: start, as: UInt32.self))
                    })
            }
            if filled - start < need {
                if start > 0 {
                    buffer.withUnsafeMutableBytes { raw in
                        raw.baseAddress!.copyMemory(from: raw.baseAddress! + start, byteCount: filled - start)
                    }
                    filled -= start
                    start = 0
                }
                if need > buffer.count { buffer += [UInt8](repeating: 0, count: need - buffer.count) }
                let got = buffer.withUnsafeMutableBytes {
                    file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]), at: offset)
                }
                if got < 0 { throw Failure(code: errno) }
                if got == 0 { throw Failure(code: EIO) }
                filled += got
                offset += got
                continue
            }
            let body = start + 4..<start + need
            let null = body.upperBound - tail - 4
            let position: Int32
            do throws(SpillError) {
                position = try cursor.position(of: index)
            } catch {
                throw Failure(code: error.code, positions: true)
            }
            if position < 0 {
                buffer.withUnsafeBytes { writer.serialized(UnsafeRawBufferPointer(rebasing: $0[body])) }
            } else {
                var card = Array(buffer[body.lowerBound..<null])
                card += Array(String(position).utf8)
                card += buffer[null + 4..<body.upperBound]
                card.withUnsafeBytes { writer.serialized($0) }
            }
            if format == .ndjson { writer.raw("\n") }
            start += need
            index += 1
        }
    }
}
