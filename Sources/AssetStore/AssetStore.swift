import Findings
public import FoundationEssentials
import Glibc
import Synchronization

/// The content-addressed asset store: response bodies as immutable blobs named by their SHA-256, and an
/// index from URL to blob plus the HTTP metadata needed to revalidate it.
///
/// ## Layout
/// ```
/// STORE/objects/sha256/ab/<64 hex>   immutable blobs (mode 0444), named by the SHA-256 of their content
/// STORE/index/records.log            append-only, checksummed index records; newest record per URL wins
/// STORE/tmp/                         blobs being written: unnamed (`O_TMPFILE`) where the file system allows,
///                                    else one named file per writer, flock'd while alive
/// STORE/leases/PID-TOKEN             the blobs one open store holds against gc, flock'd while it is open
/// STORE/lock                         flock: shared for writers, exclusive for gc
/// ```
///
/// ## Crash safety
/// A blob is written to a temporary file, fsync'd and linked (or renamed) into `objects/`; before any index record
/// is appended, every fan-out directory that received a blob since the last append is fsync'd. A crash therefore
/// leaves at worst an orphan blob (or a named temporary file) — both removed by ``gc(maxBytes:orphanGrace:)`` —
/// never a record without its blob. A record is written whole (one `write` of whole records) with a length and a
/// checksum; a record torn by a crash is skipped by every reader and counted. With ``RecordBatching/immediate``
/// records are appended one by one and not fsync'd (a process crash loses nothing, the page cache survives it; a
/// power loss may lose the newest records, whose blobs then become orphans). With batching, records wait in memory
/// until their batch is appended and fdatasync'd (see ``RecordBatching``): a crash loses the waiting ones (orphans
/// again), a power loss nothing that was flushed. Compaction and blob deletion are ordered the same way: the new
/// index is fsync'd and renamed before any blob it no longer references is removed.
///
/// ## Two processes, one store
/// Index records are appended with `O_APPEND`, whole records per `write`, so concurrent appenders never
/// interleave inside a record. `gc` rewrites the index (compaction: new file, fsync, rename) and deletes
/// blobs under an exclusive `flock` on `STORE/lock`; record appends hold it shared and check under it that each
/// record's blob exists. So gc can never delete a blob between that check and the append, nor lose an append to a
/// compaction (appenders open the log by path under the lock, after any rename). Linking a new blob needs no lock
/// (`linkat` never replaces a file); replacing a damaged copy or reusing an existing one holds it shared. Downloads
/// themselves hold no store lock, so a long download never blocks gc, and gc never blocks a download for long.
/// Orphan blobs younger than the gc grace period are kept: another process may be about to record them.
///
/// ## gc never fails a concurrent run
/// Every store names the blobs it commits or reads in a lease file of its own (see ``LeaseState``), and gc neither
/// removes a blob a live process names nor evicts an entry that uses one. So a run that finds a blob another run
/// wrote, and records it a batch later, still finds it when its record is appended; a run that looked an entry up
/// reads, checks and exports the same bytes afterwards. A blob gc removed before a run named it is missing when the
/// run looks: a miss, fetched again, never a failure.
///
/// ## Reads
/// ``read(_:)`` and ``path(_:)`` re-hash the blob and answer ``BlobRead/damaged(_:)`` instead of returning
/// wrong bytes; the damaged file is removed so that fetching the URL again can store a good copy.
///
/// One `AssetStore` may be shared by many threads (its in-memory view of the index is behind a mutex),
/// and any number of `AssetStore`s in any number of processes may open the same directory.
public final class AssetStore: Sendable {
    /// The store's root directory (absolute).
    public let directory: String
    let objectsDirectory: String
    let indexDirectory: String
    let tempDirectory: String
    /// `STORE/exports/`: the export targets gc looks after (see ``registerExport(_:)``); made by the first export.
    let exportsDirectory: String
    /// `STORE/leases/`: what open stores hold against gc (see ``LeaseState``); made by the first lease.
    let leasesDirectory: String
    let logPath: String
    let lockPath: String
    /// The index log's name in `index/`.
    static let logName = "records.log"
    /// How records reach the log (see ``RecordBatching``).
    public let batching: RecordBatching
    /// Whether blobs are written to unnamed temporary files (`O_TMPFILE`, linked into `objects/` through
    /// `/proc/self/fd`); cleared the first time the file system refuses them.
    let anonymousTemporaryFiles: Atomic<Bool>
    /// Whether `linkat(fd, "", …, AT_EMPTY_PATH)` links an unnamed file (Linux 6.10+ without privileges); else the
    /// file is linked through its `/proc/self/fd` path, which costs a longer path walk.
    let linkByDescriptor = Atomic(true)
    /// Descriptors of `objects/sha256`, `index` and `tmp`, open for the store's lifetime: the per-asset calls name
    /// files relative to them (`ab/<hex>`, `records.log`) instead of walking the whole path every time.
    let objectsFD: Int32
    let indexFD: Int32
    let tempFD: Int32
    /// Whether `objects/` and `index/` are on a file system that keeps nothing across a reboot (tmpfs, as CI work
    /// directories often are): there `fsync` is a no-op, and blobs, fan-out directories and the log skip it. Nothing
    /// changes for another process: what is written is visible at once either way.
    let objectsVolatile: Bool
    let indexVolatile: Bool
    private let cache = Mutex(IndexCache())
    /// Held while a batch of records is appended outside ``cache``'s mutex (``flushBatch(wait:)``): one flush at a
    /// time, so batches reach the log in the order they were taken. Taken before ``cache``, never while holding it.
    private let flushing = Mutex(())
    /// This store's lease file and the blobs it names (see ``LeaseState``).
    let leases = Mutex(LeaseState())

    /// Opens (creating if needed) the store at `directory`, or at ``defaultDirectory(environment:)``.
    /// - Parameters:
    ///   - directory: An explicit store directory (`--store DIR`); overrides the default.
    ///   - environment: Where to look up `XDG_CACHE_HOME` and `HOME`; the process environment when `nil`.
    ///   - batching: When index records are appended: each at once (the default), or in batches for a run that
    ///     stores many assets (then call ``flush()`` when the run ends).
    /// - Throws: ``StoreError`` when the directories cannot be created (a read-only store that already
    ///   exists opens fine: it can be read, verified and exported, and writing fails with `.readOnly`).
    public init(
        directory: String? = nil, environment: [String: String]? = nil, batching: RecordBatching = .immediate
    ) throws(StoreError) {
        var root = directory ?? ""
        if directory == nil { root = try Self.defaultDirectory(environment: environment) }
        root = FileSystem.absolute(root)
        self.directory = root
        self.objectsDirectory = root + "/objects/sha256"
        self.indexDirectory = root + "/index"
        self.tempDirectory = root + "/tmp"
        self.exportsDirectory = root + "/exports"
        self.leasesDirectory = root + "/leases"
        self.logPath = root + "/index/records.log"
        self.lockPath = root + "/lock"
        self.batching = batching
        self.anonymousTemporaryFiles = Atomic(access("/proc/self/fd", X_OK) == 0)
        var descriptors: [Int32] = []
        for path in [objectsDirectory, indexDirectory, tempDirectory] {
            try FileSystem.makeDirectories(path)
            do throws(StoreError) {
                descriptors.append(try FileSystem.open(path, O_RDONLY | O_DIRECTORY, operation: "open directory"))
            } catch {
                for fd in descriptors { close(fd) }
                throw error
            }
        }
        (objectsFD, indexFD, tempFD) = (descriptors[0], descriptors[1], descriptors[2])
        objectsVolatile = FileSystem.isVolatile(objectsFD)
        indexVolatile = FileSystem.isVolatile(indexFD)
    }

    deinit {
        cache.withLock { cache in
            _ = cache.flush(self, durable: true)
            cache.view.reset()
        }
        // After the flush: the waiting records' blobs are held until their records are in the log.
        releaseLease()
        for fd in [objectsFD, indexFD, tempFD] { close(fd) }
    }

    /// The default store location: `$XDG_CACHE_HOME/inbox-assets` when that is set to an absolute path
    /// (as the XDG spec requires), else `$HOME/.cache/inbox-assets`.
    /// - Throws: `.noDefaultLocation` when neither variable is usable.
    public static func defaultDirectory(environment: [String: String]? = nil) throws(StoreError) -> String {
        func variable(_ name: String) -> String? {
            if let environment { return environment[name] }
            return getenv(name).map { String(cString: $0) }
        }
        if let cache = variable("XDG_CACHE_HOME"), cache.hasPrefix("/") {
            return cache + "/inbox-assets"
        }
        if let home = variable("HOME"), home.hasPrefix("/") {
            return (home == "/" ? "" : home) + "/.cache/inbox-assets"
        }
        throw StoreError(.noDefaultLocation, "neither XDG_CACHE_HOME nor HOME is set; pass a store directory")
    }

    // MARK: Ingest

    /// Starts streaming a new blob. Feed it with `write`, then `commit()` and ``record(url:entry:)``.
    /// - Parameters:
    ///   - hashing: `false` when the caller hashes the bytes itself as it writes them (the fetch engine
    ///     does) and hands the digest to ``BlobWriter/commit(sha256:)``: the bytes are then hashed once, not twice.
    ///     Reads and `verify` still re-hash every blob, so a wrong digest is found, never served.
    ///   - sizeHint: The size the body is expected to have (a `Content-Length`): the writer's buffer is no larger
    ///     than that needs (256 KiB at most). More bytes are fine, only written in more pieces.
    ///   - deferred: `true` to create the temporary file only when bytes must reach the disk (the buffer is full, or
    ///     at commit): a body that fits the buffer then costs the thread streaming it no file system call at all,
    ///     and the file's creation moves to whoever commits. Its failures then surface at `write` or `commit`.
    /// - Throws: ``StoreError`` when the temporary file cannot be created (read-only store, no space, …).
    public func beginBlob(hashing: Bool = true, sizeHint: Int? = nil, deferred: Bool = false) throws(StoreError)
        -> BlobWriter
    {
        try BlobWriter(store: self, hashing: hashing, sizeHint: sizeHint, deferred: deferred)
    }

    /// Stores `bytes` as a blob (convenience over ``beginBlob(hashing:sizeHint:deferred:)``).
    public func put(bytes: [UInt8]) throws(StoreError) -> BlobRef {
        try put(bytes: bytes[...])
    }

    /// Stores `bytes` as a blob (convenience over ``beginBlob(hashing:sizeHint:deferred:)``).
    public func put(bytes: ArraySlice<UInt8>) throws(StoreError) -> BlobRef {
        // The smallest write buffer (4 KiB): bytes at hand that fill it go to the file as they are, without a copy
        // (a 5 KB inline blob from the remote need not be copied into a buffer of its own size first).
        let writer = try beginBlob(sizeHint: 0)
        try writer.write(bytes)
        return try writer.commit()
    }

    /// Records that `url` is answered by `entry` — after its blob was committed.
    ///
    /// With ``RecordBatching/immediate`` the record is in the log when this returns. With batching it is visible
    /// to this store's lookups at once and reaches the log with its batch (see ``flush()``).
    /// - Throws: `.blobMissing` when the blob is not in the store (never commit a record without its
    ///   blob), `.invalidArgument` for a URL too long to fit one record, or the file system's error. A batched
    ///   record that cannot be appended later is reported by ``flush()`` instead.
    public func record(url: String, entry: StoreEntry) throws(StoreError) {
        try append(.put(url: url, entry: entry, accessedAt: Millis.from(Date())), checking: entry.blob)
    }

    /// Appends every waiting batched record now (a no-op with ``RecordBatching/immediate``): one store lock, one
    /// `fsync` per fan-out directory that received blobs, the records, one `fdatasync` of the log. Afterwards other
    /// processes see them, and they survive a crash or a power loss.
    /// - Returns: the records that could not be appended — in this flush or in an automatic one since the last
    ///   call — with the reason; their URLs stay as the index had them before.
    @discardableResult
    public func flush() -> [UnrecordedURL] {
        let dropped = flushBatch(wait: true) ?? []
        return cache.withLock { cache in
            let failed = cache.unrecorded + dropped
            cache.unrecorded = []
            return failed
        }
    }

    /// Appends the waiting records: taken from the cache, appended without its mutex — other threads go on recording
    /// and looking up meanwhile, instead of waiting a whole batch's checks and writes — and the view brought up to
    /// date. Returns what could not be appended, or `nil` when `wait` is false and another flush is running (its
    /// caller's records are then appended by a later one).
    private func flushBatch(wait: Bool) -> [UnrecordedURL]? {
        func run() -> [UnrecordedURL] {
            guard let batch = cache.withLock({ $0.takeBatch() }) else { return [] }
            let outcome = IndexCache.append(batch, to: self, durable: true)
            return cache.withLock { $0.finish(batch, outcome) }
        }
        return wait ? flushing.withLock { _ in run() } : flushing.withLockIfAvailable { _ in run() }
    }

    /// On a `304 Not Modified`: rewrites only the record (new `fetchedAt`, and any validators or
    /// `Cache-Control` the 304 carried); the blob stays as it is.
    /// - Parameters:
    ///   - url: The revalidated URL.
    ///   - at: When the 304 arrived.
    ///   - etag: A new `ETag`, or `nil` to keep the stored one.
    ///   - lastModified: A new `Last-Modified`, or `nil` to keep the stored one.
    ///   - cacheControl: A new `Cache-Control`, or `nil` to keep the stored one.
    /// - Returns: The updated entry, or `nil` when the store has no entry for `url`.
    @discardableResult
    public func revalidated(
        _ url: String, at: Date, etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil
    ) throws(StoreError) -> StoreEntry? {
        guard var entry = try lookup(url) else { return nil }
        entry.fetchedAt = Millis.round(at)
        if let etag { entry.etag = etag }
        if let lastModified { entry.lastModified = lastModified }
        if let cacheControl { entry.cacheControl = cacheControl }
        try append(.put(url: url, entry: entry, accessedAt: Millis.from(Date())), checking: entry.blob)
        return entry
    }

    /// Notes that `url` was used now (or `at`), for least-recently-used eviction. No-op for unknown URLs.
    public func touch(_ url: String, at: Date = Date()) throws(StoreError) {
        guard try lookup(url) != nil else { return }
        try append(.touch(url: url, accessedAt: Millis.from(at)), checking: nil)
    }

    /// Forgets `url` (its blob stays until gc finds it unreferenced). No-op for unknown URLs.
    public func remove(_ url: String) throws(StoreError) {
        guard try lookup(url) != nil else { return }
        try append(.remove(url: url), checking: nil)
    }

    // MARK: Reads

    /// The newest entry recorded for `url`, or `nil`.
    public func lookup(_ url: String) throws(StoreError) -> StoreEntry? {
        try withIndex { $0.entries[url]?.entry }
    }

    /// The newest entry of each URL (`nil` for one not recorded), in order: one look at the log for all of them,
    /// where a ``lookup(_:)`` per URL checks the log for news every time.
    public func lookup(_ urls: [String]) throws(StoreError) -> [StoreEntry?] {
        try withIndex { state in urls.map { state.entries[$0]?.entry } }
    }

    /// Every indexed URL with its entry and last access, sorted by URL.
    public func list() throws(StoreError) -> [StoredURL] {
        try withIndex { state in
            state.entries.map {
                StoredURL(url: $0.key, entry: $0.value.entry, lastAccess: Millis.date($0.value.accessedAt))
            }
        }.sorted { $0.url < $1.url }
    }

    /// The blob's bytes after checking its size and SHA-256. The blob is held from now on (until this store is
    /// released): no gc in another process removes it while this run may read it again.
    /// - Returns: `.intact(bytes)`, `.missing`, or `.damaged` (the damaged file is removed so that a
    ///   new fetch can replace it).
    /// - Throws: ``StoreError`` only when the file exists but cannot be read.
    public func read(_ blob: BlobRef) throws(StoreError) -> BlobRead {
        let path = blobPath(blob.sha256)
        hold(blob.sha256, ordering: .lockIfNeeded)
        let fd: Int32
        let info: stat
        switch try FileSystem.openBlob(path) {
        case .absent: return .missing
        case .notAFile(let found):
            return .damaged(quarantine(blob, path: path, info: found, actualSize: 0, actualSHA256: nil))
        case .file(let opened, let found):
            fd = opened
            info = found
        }
        defer { close(fd) }
        let actualSize = Int(info.st_size)
        guard actualSize == blob.size else {
            return .damaged(quarantine(blob, path: path, info: info, actualSize: actualSize, actualSHA256: nil))
        }
        var failure: StoreError?
        let bytes = [UInt8](unsafeUninitializedCapacity: actualSize) { buffer, initialized in
            var filled = 0
            while filled < actualSize {
                do throws(StoreError) {
                    let got = try FileSystem.read(fd, buffer.baseAddress! + filled, actualSize - filled, path: path)
                    if got == 0 { break }
                    filled += got
                } catch {
                    failure = error
                    break
                }
            }
            initialized = filled
        }
        if let failure { throw failure }
        let actual = SHA256Hasher.hex(bytes)
        guard bytes.count == blob.size, actual == blob.sha256 else {
            return .damaged(quarantine(blob, path: path, info: info, actualSize: bytes.count, actualSHA256: actual))
        }
        return .intact(bytes)
    }

    /// The blob's file path after checking its size and SHA-256 (streamed, in bounded memory), for
    /// readers that want a file (libzip, large videos). Do not modify the file: blobs are shared. Held, as by
    /// ``read(_:)``: no gc removes the file while this store is open.
    /// - Returns: `.intact(path)`, `.missing`, or `.damaged` (the damaged file is removed).
    public func path(_ blob: BlobRef) throws(StoreError) -> BlobFile {
        let path = blobPath(blob.sha256)
        hold(blob.sha256, ordering: .lockIfNeeded)
        guard let check = try Self.hashFile(path) else { return .missing }
        guard check.size == blob.size, check.sha256 == blob.sha256 else {
            return .damaged(
                quarantine(blob, path: path, info: check.info, actualSize: check.size, actualSHA256: check.sha256))
        }
        return .intact(path)
    }

    /// Where the blob with this hash lives (whether or not it exists). Unverified: prefer ``path(_:)``.
    public func blobPath(_ sha256: String) -> String {
        objectsDirectory + "/" + sha256.prefix(2) + "/" + sha256
    }

    // MARK: Internals shared with the maintenance and export code

    /// Takes the store lock (see the type's documentation); `nil` on a read-only store without one.
    func lock(exclusive: Bool) throws(StoreError) -> FileLock? {
        try FileLock.acquire(lockPath, exclusive: exclusive)
    }

    /// Moves a finished, fsync'd temporary file into `objects/` (see ``BlobWriter/commit(sha256:)``): an unnamed
    /// one (`tempPath == nil`) is linked, a named one renamed. The fan-out directory is fsync'd before the next index
    /// record is appended (a record is what makes a blob reachable), not once per blob.
    func install(fd: Int32, tempPath: String?, blob: BlobRef) throws(StoreError) {
        let fanOut = String(blob.sha256.prefix(2))
        let relative = fanOut + "/" + blob.sha256
        var destination: String { objectsDirectory + "/" + relative }  // for errors and the named path only
        if let tempPath {
            try installNamed(tempPath, fanOut: fanOut, destination: destination, blob: blob)
            return
        }
        // No store lock: linkat never replaces a file, so it cannot race with gc or quarantine removing one (a
        // name they are about to remove makes it fail with EEXIST, handled under the lock below). Held first: from
        // the moment the blob is in objects/ until this store is released, no gc removes it (nor evicts an entry
        // another run records for it meanwhile), however long its record waits for its batch.
        hold(blob.sha256, ordering: .beforeLink)
        var createdDirectory = false
        var movedAside = false
        while true {
            if link(fd, toFD: objectsFD, relative) == 0 {
                markDirty(fanOut)
                return
            }
            let failure = errno
            if failure == EINTR { continue }
            if failure == ENOENT && !createdDirectory {
                createdDirectory = true
                if try FileSystem.makeDirectories(objectsDirectory + "/" + fanOut), !objectsVolatile {
                    try FileSystem.syncDirectory(objectsDirectory)
                }
                continue
            }
            if failure == ENOENT && linkByDescriptor.load(ordering: .relaxed) {
                // The directory is there, so AT_EMPTY_PATH is what the kernel refused (before Linux 6.10 it wants
                // CAP_DAC_READ_SEARCH and says ENOENT): link through /proc from now on.
                linkByDescriptor.store(false, ordering: .relaxed)
                continue
            }
            guard failure == EEXIST else { throw StoreError.system("link blob", path: destination, errno: failure) }
            // A directory where the blob belongs can be neither linked nor renamed over: move it out of the way
            // (into tmp/, for gc) and link again.
            var existing = stat()
            if !movedAside, fstatat(objectsFD, relative, &existing, AT_SYMLINK_NOFOLLOW) == 0,
                FileSystem.isDirectory(existing)
            {
                movedAside = true
                moveAside(path: destination, info: existing)
                continue
            }
            break
        }
        let lock = try self.lock(exclusive: false)
        defer { lock?.release() }
        if try holdsIntactCopy(destination, of: blob) {
            // The content is already here (held above: no gc can have removed it since the check). Its mtime is
            // refreshed too, for a gc of an earlier version sharing the store, which knows no leases and honours only
            // the orphan grace period; its directory may still await its writer's fsync.
            utimensat(objectsFD, relative, nil, AT_SYMLINK_NOFOLLOW)
            markDirty(fanOut)
            return
        }
        // Absent now (gc or quarantine removed it meanwhile), or a damaged copy (wrong size or bytes, a symlink, a
        // FIFO): give the file a temporary name and rename it over, atomically.
        let name = "blob-\(getpid())-\(FileSystem.randomToken())"
        while link(fd, toFD: tempFD, name) != 0 {
            if errno == EINTR { continue }
            throw StoreError.system("link temp file", path: tempDirectory + "/" + name, errno: errno)
        }
        if renameat(tempFD, name, objectsFD, relative) != 0 {
            let failure = errno
            unlinkat(tempFD, name, 0)
            throw StoreError.system("rename \(tempDirectory)/\(name) to", path: destination, errno: failure)
        }
        markDirty(fanOut)
    }

    /// `linkat` of an unnamed file to `name` in the directory `directory`, by descriptor or through `/proc`.
    private func link(_ fd: Int32, toFD directory: Int32, _ name: String) -> Int32 {
        if linkByDescriptor.load(ordering: .relaxed) {
            return linkat(fd, "", directory, name, FileSystem.emptyPathFlag)
        }
        return linkat(AT_FDCWD, "/proc/self/fd/\(fd)", directory, name, AT_SYMLINK_FOLLOW)
    }

    /// The named-temporary-file path of ``install(fd:tempPath:blob:)`` (file systems without `O_TMPFILE`).
    private func installNamed(_ tempPath: String, fanOut: String, destination: String, blob: BlobRef)
        throws(StoreError)
    {
        let directory = objectsDirectory + "/" + fanOut
        var existing = stat()
        if lstat(destination, &existing) == 0, FileSystem.isDirectory(existing) {
            // rename(2) cannot replace a directory with a file: move it out of the way first (into tmp/, for gc).
            moveAside(path: destination, info: existing)
        }
        let lock = try self.lock(exclusive: false)
        defer { lock?.release() }
        // Under the lock: held before gc can look again, whether the copy here is kept or replaced.
        hold(blob.sha256, ordering: .locked)
        if try holdsIntactCopy(destination, of: blob) {
            try FileSystem.remove(tempPath)
            utimensat(AT_FDCWD, destination, nil, 0)
            markDirty(fanOut)
            return
        }
        // Absent, or a damaged copy (wrong size or bytes, a symlink, a FIFO): the rename replaces it atomically.
        if Glibc.rename(tempPath, destination) != 0 {
            guard errno == ENOENT else {
                throw StoreError.system("rename \(tempPath) to", path: destination, errno: errno)
            }
            if try FileSystem.makeDirectories(directory) { try FileSystem.syncDirectory(objectsDirectory) }
            try FileSystem.rename(tempPath, destination)
        }
        markDirty(fanOut)
    }

    /// Whether the regular file at `path` already holds the blob: its size and — because a copy of the right size may
    /// still be damaged (a flipped bit), and keeping it would make the new record point at wrong bytes — its SHA-256.
    /// Reached only when a commit finds its blob already there (the same content stored under another URL, or by
    /// another writer), so the re-hash costs nothing on the usual path.
    private func holdsIntactCopy(_ path: String, of blob: BlobRef) throws(StoreError) -> Bool {
        var existing = stat()
        guard lstat(path, &existing) == 0, FileSystem.isRegularFile(existing), Int(existing.st_size) == blob.size
        else { return false }
        guard let check = try Self.hashFile(path) else { return false }
        return check.size == blob.size && check.sha256 == blob.sha256
    }

    /// Notes a fan-out directory (`ab`) that received a blob: fsync'd before the next record is appended.
    private func markDirty(_ fanOut: String) {
        cache.withLock { _ = $0.dirtyDirectories.insert(fanOut) }
    }

    /// Queues one record (appending it at once unless batching) after checking what can be checked now.
    private func append(_ record: IndexRecord, checking blob: BlobRef?) throws(StoreError) {
        let url: String
        switch record {
        case .put(let recorded, _, _), .touch(let recorded, _), .remove(let recorded): url = recorded
        case .generation: return
        }
        guard !url.isEmpty else { throw StoreError(.invalidArgument, "an index record needs a non-empty URL") }
        let line = IndexCodec.encode(record)
        guard line.count <= IndexCodec.maxRecordBytes else {
            throw StoreError(.invalidArgument, "URL too long for an index record (\(line.count) bytes)")
        }
        let waiting = PendingRecord(record: record, url: url, line: line, blob: blob)
        let due = try cache.withLock { (cache) throws(StoreError) -> Bool in
            cache.enqueue(waiting)
            if batching.isImmediate {
                if let failure = cache.flush(self, durable: false).first { throw failure.error }
                return false
            }
            let now = ContinuousClock.now
            if cache.oldestPending == nil { cache.oldestPending = now }
            return cache.pending.count >= batching.maxRecords || now - cache.oldestPending! >= batching.maxDelay
        }
        // A batch is due: appended outside the cache's mutex, so the other threads' records do not wait for it.
        if due, let dropped = flushBatch(wait: false), !dropped.isEmpty {
            cache.withLock { $0.unrecorded += dropped }
        }
    }

    /// Removes a damaged blob (if the file is still the one that was checked) and describes the damage. A
    /// directory where the blob belongs is moved into `tmp/` (gc removes it there), anything else is unlinked, so
    /// that fetching the URL again can store a good copy. On a store this process cannot write, nothing is removed.
    func quarantine(_ blob: BlobRef, path: String, info: stat, actualSize: Int, actualSHA256: String?)
        -> BlobDamage
    {
        // Under the exclusive lock no commit can be renaming a fresh copy into place at the same moment.
        if let lock = try? self.lock(exclusive: true) {
            removeIfUnchanged(path: path, info: info)
            lock.release()
        }
        return BlobDamage(blob: blob, path: path, actualSize: actualSize, actualSHA256: actualSHA256)
    }

    /// Moves a directory found where a blob belongs out of `objects/`, under the exclusive store lock (as
    /// ``quarantine(_:path:info:actualSize:actualSHA256:)`` does). Callers must not hold the store lock themselves.
    func moveAside(path: String, info: stat) {
        guard let lock = try? self.lock(exclusive: true) else { return }
        removeIfUnchanged(path: path, info: info)
        lock.release()
    }

    /// Removes `path` when it is still the file system object `info` describes (same device and inode): a directory
    /// is renamed into `tmp/` as `aside-PID-TOKEN` (a rename is one call, whatever the directory holds; gc removes it
    /// with its contents), anything else is unlinked. Called under the exclusive store lock.
    private func removeIfUnchanged(path: String, info: stat) {
        var now = stat()
        guard lstat(path, &now) == 0, now.st_ino == info.st_ino, now.st_dev == info.st_dev else { return }
        guard FileSystem.isDirectory(now) else {
            unlink(path)
            return
        }
        let aside = tempDirectory + "/\(Self.asidePrefix)\(getpid())-\(FileSystem.randomToken())"
        if Glibc.rename(path, aside) != 0 {
            // Another file system under objects/ (a mount point): remove it where it is instead.
            FileSystem.removeTree(path)
        }
    }

    /// The name prefix of entries ``removeIfUnchanged(path:info:)`` moved from `objects/` into `tmp/`.
    static let asidePrefix = "aside-"

    /// Checks that this process can write the store: creates (and drops) a temporary file in `tmp/` and opens the
    /// index log for appending without writing to it. A store on a read-only mount, another user's store or one
    /// made read-only with `chmod` fails here, before any download; a full disk is found only when bytes are written.
    /// - Throws: the ``StoreError`` (`.readOnly`, `.permissionDenied`, …).
    public func checkWritable() throws(StoreError) {
        let writer = try beginBlob()
        writer.abort()
        let fd = Glibc.openat(indexFD, Self.logName, O_WRONLY | O_APPEND | O_CLOEXEC)
        if fd >= 0 {
            close(fd)
        } else if errno == ENOENT {
            // No log yet: the first record creates it, which needs a writable index directory.
            if faccessat(indexFD, ".", W_OK, AT_EACCESS) != 0 {
                throw StoreError.system("write to", path: indexDirectory, errno: errno)
            }
        } else {
            throw StoreError.system("open index", path: logPath, errno: errno)
        }
    }

    /// Streams a file through SHA-256; `nil` when it does not exist, size 0 and an empty hash when it is
    /// not a regular file (a symlink, directory or FIFO: never followed, never read).
    static func hashFile(_ path: String) throws(StoreError) -> (size: Int, sha256: String, info: stat)? {
        let fd: Int32
        let info: stat
        switch try FileSystem.openBlob(path) {
        case .absent: return nil
        case .notAFile(let found): return (0, "", found)
        case .file(let opened, let found):
            fd = opened
            info = found
        }
        defer { close(fd) }
        let hasher = try SHA256Hasher()
        let expected = Int(info.st_size)
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: min(FileSystem.chunkSize, max(expected, 1)), alignment: 16)
        defer { buffer.deallocate() }
        var size = 0
        // Up to the size fstat saw (as read(_:) does): a small blob costs one read, not a second one to see EOF.
        while size < expected {
            let got = try FileSystem.read(fd, buffer.baseAddress!, min(buffer.count, expected - size), path: path)
            if got == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            size += got
        }
        return (size, hasher.finish(), info)
    }

    // MARK: Index cache

    /// Runs `body` on the index, first reading whatever other processes (or threads) appended since
    /// the last call. Only new bytes are parsed, unless gc replaced the log file.
    func withIndex<Result: Sendable>(_ body: (IndexState) -> Result) throws(StoreError) -> Result {
        try cache.withLock { (cache) throws(StoreError) -> Result in
            try cache.refresh(self)
            return body(cache.view.state)
        }
    }

    /// Appends waiting batched records before verify, gc or stats read the log from disk (what they cannot append
    /// is reported by the next ``flush()``). Call before taking the store lock: the flush takes it shared.
    func flushWaiting() {
        guard let dropped = flushBatch(wait: true), !dropped.isEmpty else { return }
        cache.withLock { $0.unrecorded += dropped }
    }

    /// Reads the whole log afresh (verify and gc want every damaged record, including a torn tail).
    func loadIndex() throws(StoreError) -> IndexState {
        var state = IndexState()
        let bytes: [UInt8]
        do throws(StoreError) {
            bytes = try FileSystem.readFile(logPath)
        } catch  where error.code == .notFound {
            return state
        }
        _ = IndexCodec.parse(bytes, base: 0, into: &state, final: true)
        return state
    }
}

/// The outcome of ``AssetStore/read(_:)``.
public enum BlobRead: Sendable, Hashable {
    /// The bytes, size and SHA-256 checked.
    case intact([UInt8])
    /// No such blob in the store: fetch the URL again.
    case missing
    /// The blob's size or hash is wrong (it has been removed): fetch the URL again.
    case damaged(BlobDamage)
}

/// The outcome of ``AssetStore/path(_:)``.
public enum BlobFile: Sendable, Hashable {
    /// The path of a blob whose size and SHA-256 were checked.
    case intact(String)
    /// No such blob in the store: fetch the URL again.
    case missing
    /// The blob's size or hash is wrong (it has been removed): fetch the URL again.
    case damaged(BlobDamage)
}

/// A blob whose content does not match its name.
public struct BlobDamage: Sendable, Hashable {
    /// What the blob should be.
    public var blob: BlobRef
    /// Where it was.
    public var path: String
    /// Its actual size.
    public var actualSize: Int
    /// Its actual SHA-256, when it was computed (not when the size already differed).
    public var actualSHA256: String?

    /// The damage as a finding (`asset.storeDamaged`, error).
    public var finding: Finding {
        let what =
            actualSize != blob.size
            ? "size \(actualSize) instead of \(blob.size)" : "SHA-256 \(actualSHA256 ?? "?") instead of \(blob.sha256)"
        return .error(
            "asset.storeDamaged", "stored blob \(blob.sha256) is damaged (\(what)); fetch it again", path: path)
    }
}
