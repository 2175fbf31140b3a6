import Glibc

/// How an ``AssetStore`` appends index records.
///
/// `immediate` (the default) appends every record before ``AssetStore/record(url:entry:)`` returns, under its own
/// store lock. A run that stores thousands of assets batches them instead: records wait in memory (visible to this
/// process's lookups at once) and are appended together — one store lock, one `fsync` of each fan-out directory the
/// batch's blobs went into, one `write` per 64 KiB of records and one `fdatasync` of the log — when `maxRecords` are
/// waiting, when a record arrives more than `maxDelay` after the oldest waiting one, or on ``AssetStore/flush()``.
/// Until then other processes do not see them, and a crash of this process loses them: their blobs become orphans
/// for gc, and the next run fetches those URLs again. A flushed batch survives even a power loss.
public struct RecordBatching: Sendable, Hashable {
    /// Records kept waiting at most (1 = append each one at once).
    public var maxRecords: Int
    /// How long the oldest waiting record may wait before the next record flushes the batch.
    public var maxDelay: Duration

    /// Creates a batching policy; `maxRecords` below 1 counts as 1.
    public init(maxRecords: Int, maxDelay: Duration) {
        self.maxRecords = max(1, maxRecords)
        self.maxDelay = maxDelay
    }

    /// Every record is appended before `record` returns (not fsync'd: a process crash loses nothing, a power loss
    /// may lose the newest records).
    public static let immediate = RecordBatching(maxRecords: 1, maxDelay: .zero)

    /// For a prefetch run: up to 1,024 records or a quarter of a second per batch.
    public static let run = RecordBatching(maxRecords: 1024, maxDelay: .milliseconds(250))

    var isImmediate: Bool { maxRecords <= 1 }
}

/// A record a batched flush could not append: the URL stays as the index had it before (its new blob, if any, is an
/// orphan for gc; fetching the URL again stores it).
public struct UnrecordedURL: Sendable, Hashable {
    /// The URL whose record was dropped (unredacted).
    public var url: String
    /// Why: `.blobMissing` when the blob vanished before the record was appended (a concurrent gc with no grace
    /// period), else the file system's error.
    public var error: StoreError
}

/// The process-local view of the index log: which file (device, inode, first bytes) and how far it was parsed, kept
/// open between lookups so that an unchanged log costs one `stat`. The first bytes matter because a compacted log may
/// get the inode number of one replaced earlier (or a log may be rewritten in place); compaction starts every log
/// with a random generation record, so the prefix tells them apart.
struct LogView {
    static let prefixLength = 64
    var fd: Int32 = -1
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var prefix: [UInt8] = []
    /// Bytes parsed (up to the last complete record).
    var offset = 0
    /// The log's size when it was last looked at: an unchanged size means nothing new to read.
    var seenSize = 0
    var state = IndexState()

    /// Forgets everything parsed (the log was replaced or rewritten); keeps nothing open.
    mutating func reset() {
        if fd >= 0 { close(fd) }
        self = LogView()
    }

    /// Reads whatever was appended since the last call.
    /// - Returns: whether the state changed (records parsed, or everything thrown away because the log was replaced,
    ///   rewritten or removed), so that records not yet in the log must be applied again on top.
    mutating func refresh(_ store: AssetStore) throws(StoreError) -> Bool {
        let logPath = store.logPath
        var info = stat()
        if fstatat(store.indexFD, AssetStore.logName, &info, 0) != 0 {
            guard errno == ENOENT || errno == ENOTDIR else {
                throw StoreError.system("stat", path: logPath, errno: errno)
            }
            // No log (yet): nothing to read, and nothing to throw away unless a log was read before.
            guard fd >= 0 || offset > 0 else { return false }
            reset()
            return true
        }
        let size = Int(info.st_size)
        let sameFile = fd >= 0 && UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
        if sameFile && size == seenSize { return false }
        var discarded = false
        if !sameFile {
            reset()
            discarded = true
            fd = try FileSystem.open(
                at: store.indexFD, AssetStore.logName, O_RDONLY | O_NONBLOCK, path: logPath, operation: "open index")
            var opened = stat()
            guard fstat(fd, &opened) == 0 else { throw StoreError.system("stat", path: logPath, errno: errno) }
            device = UInt64(opened.st_dev)
            inode = UInt64(opened.st_ino)
        }
        let head = try FileSystem.readRange(fd, from: 0, count: min(size, Self.prefixLength), path: logPath)
        if size < offset || !head.starts(with: prefix) {
            // Rewritten in place (or truncated): start over on the same descriptor.
            let (keptFD, keptDevice, keptInode) = (fd, device, inode)
            self = LogView()
            (fd, device, inode) = (keptFD, keptDevice, keptInode)
            discarded = true
        }
        if prefix.count < head.count { prefix = head }
        seenSize = size
        guard size > offset else { return discarded }
        let bytes = try FileSystem.readRange(fd, from: offset, count: size - offset, path: logPath)
        offset += IndexCodec.parse(bytes, base: offset, into: &state, final: false)
        return true
    }
}

/// A record waiting for the next flush.
struct PendingRecord {
    var record: IndexRecord
    var url: String
    var line: [UInt8]
    /// The blob the record names, checked to exist when the record is appended.
    var blob: BlobRef?
}

/// Everything an ``AssetStore`` keeps about its index, behind one mutex: the view of the log, the records waiting to
/// be appended, and the fan-out directories that received blobs since the last flush (fsync'd before any record that
/// could name those blobs is written).
struct IndexCache {
    var view = LogView()
    var pending: [PendingRecord] = []
    var oldestPending: ContinuousClock.Instant?
    var dirtyDirectories: Set<String> = []
    /// Records an automatic flush dropped, handed out by the next ``AssetStore/flush()``.
    var unrecorded: [UnrecordedURL] = []
    /// Records a flush took and is appending outside the mutex: applied on top of the view, as pending ones are,
    /// until they are in the log.
    var inFlight: [PendingRecord] = []

    /// Brings the view up to date; records still waiting stay applied on top of it. They belong there whatever
    /// other processes appended meanwhile: they will be appended after all of that, and the newest record wins.
    mutating func refresh(_ store: AssetStore) throws(StoreError) {
        if try view.refresh(store) {
            for waiting in inFlight { view.state.apply(waiting.record) }
            for waiting in pending { view.state.apply(waiting.record) }
        }
    }

    /// Queues a record and applies it to the view at once (no need to read the log first: see ``refresh(_:)``).
    mutating func enqueue(_ waiting: PendingRecord) {
        view.state.apply(waiting.record)
        pending.append(waiting)
    }

    /// Appends every waiting record (see ``RecordBatching``) while the caller holds the mutex. Returns the records it
    /// could not append. (``AssetStore`` flushes outside the mutex instead: ``takeBatch()``, ``append(_:to:durable:)``,
    /// ``finish(_:_:)``.)
    mutating func flush(_ store: AssetStore, durable: Bool) -> [UnrecordedURL] {
        guard let batch = takeBatch() else { return [] }
        return finish(batch, Self.append(batch, to: store, durable: durable))
    }

    /// Hands every waiting record to a flush: they stay applied on top of the view (``inFlight``) until it ends.
    /// Flushes must not overlap (``AssetStore`` serialises them), so that batches reach the log in the order taken.
    mutating func takeBatch() -> FlushBatch? {
        guard !pending.isEmpty else { return nil }
        let batch = FlushBatch(records: pending, directories: dirtyDirectories)
        inFlight = pending
        pending = []
        oldestPending = nil
        dirtyDirectories = []
        return batch
    }

    /// Appends a batch to the log — the fan-out directories fsync'd first, every blob checked to be there — without
    /// the mutex: records keep arriving (and lookups keep answering) meanwhile.
    static func append(_ batch: FlushBatch, to store: AssetStore, durable: Bool) -> FlushOutcome {
        let logPath = store.logPath
        do throws(StoreError) {
            // Shared store lock: gc cannot delete a blob between the check below and the append, nor compact the
            // log underneath it (the log is opened by path under the lock, after any rename).
            let lock = try store.lock(exclusive: false)
            defer { lock?.release() }
            for fanOut in batch.directories.sorted() where !store.objectsVolatile {
                let path = store.objectsDirectory + "/" + fanOut
                let fd = try FileSystem.open(
                    at: store.objectsFD, fanOut, O_RDONLY | O_DIRECTORY, path: path,
                    operation: "open directory")
                defer { close(fd) }
                try FileSystem.sync(fd, path: path)
            }
            var dropped: [UnrecordedURL] = []
            var lines: [[UInt8]] = []
            lines.reserveCapacity(batch.records.count)
            for waiting in batch.records {
                if let blob = waiting.blob {
                    var info = stat()
                    let relative = blob.sha256.prefix(2) + "/" + blob.sha256
                    if fstatat(store.objectsFD, relative, &info, 0) != 0 && errno != ENOENT && errno != ENOTDIR {
                        throw StoreError.system("stat", path: store.blobPath(blob.sha256), errno: errno)
                    }
                    guard FileSystem.isRegularFile(info), Int(info.st_size) == blob.size else {
                        dropped.append(
                            UnrecordedURL(
                                url: waiting.url,
                                error: StoreError(
                                    .blobMissing, "blob \(blob.sha256) is not in the store; commit it first",
                                    path: store.blobPath(blob.sha256))))
                        continue
                    }
                }
                lines.append(waiting.line)
            }
            guard !lines.isEmpty else { return .appended(dropped: dropped, written: nil) }
            let fd = try FileSystem.open(
                at: store.indexFD, AssetStore.logName, O_WRONLY | O_APPEND | O_CREAT, path: logPath,
                operation: "open index")
            defer { close(fd) }
            // One write per 64 KiB of whole records: O_APPEND keeps each write whole against other appenders.
            // Where the writes landed: one unbroken span means nobody else appended in between.
            var written: (start: Int, end: Int, unbroken: Bool)? = nil
            var chunk: [UInt8] = []
            func write(_ bytes: [UInt8]) throws(StoreError) {
                try withBytes(bytes) { (raw) throws(StoreError) in
                    try FileSystem.writeAll(fd, raw.baseAddress!, raw.count, path: logPath)
                }
                let end = Int(lseek(fd, 0, SEEK_CUR))
                if let previous = written {
                    written = (previous.start, end, previous.unbroken && end - bytes.count == previous.end)
                } else {
                    written = (end - bytes.count, end, true)
                }
            }
            for line in lines {
                if !chunk.isEmpty && chunk.count + line.count > 64 * 1024 {
                    try write(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
                chunk += line
            }
            if !chunk.isEmpty { try write(chunk) }
            if durable && !store.indexVolatile {
                while fdatasync(fd) != 0 {
                    if errno == EINTR { continue }
                    throw StoreError.system("fsync", path: logPath, errno: errno)
                }
            }
            return .appended(dropped: dropped, written: written)
        } catch {
            return .failed(error)
        }
    }

    /// Ends a flush (with the mutex): the view moves past the records when they landed right where it stopped
    /// (it need not read back what it has applied already), and forgets what was dropped or failed. Returns the
    /// records that could not be appended.
    mutating func finish(_ batch: FlushBatch, _ outcome: FlushOutcome) -> [UnrecordedURL] {
        inFlight = []
        switch outcome {
        case .failed(let error):
            dirtyDirectories.formUnion(batch.directories)
            view.reset()
            return batch.records.map { UnrecordedURL(url: $0.url, error: error) }
        case .appended(let dropped, let written):
            // Dropped records were applied to the view (as is everything when nothing was written): read the log
            // afresh to forget them. The pending records are applied again on top of it.
            guard dropped.isEmpty, let written else {
                view.reset()
                return dropped
            }
            if written.unbroken && view.fd >= 0 && view.offset == written.start && view.seenSize == written.start {
                view.offset = written.end
                view.seenSize = written.end
            }
            return []
        }
    }
}

/// The records one flush appends, and the fan-out directories their blobs went into.
struct FlushBatch {
    var records: [PendingRecord]
    var directories: Set<String>
}

/// What appending a ``FlushBatch`` came to.
enum FlushOutcome {
    /// Appended, except `dropped` (their blobs were gone). `written`: where the writes landed in the log (`nil` when
    /// nothing was written), and whether they formed one unbroken run (no other appender's records in between).
    case appended(dropped: [UnrecordedURL], written: (start: Int, end: Int, unbroken: Bool)?)
    /// Nothing appended.
    case failed(StoreError)
}
