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
/// STORE/tmp/                         blobs being written (one file per writer, flock'd while alive)
/// STORE/lock                         flock: shared for writers, exclusive for gc
/// ```
///
/// ## Crash safety
/// A blob is written to `tmp/`, fsync'd, renamed into `objects/` and the directory fsync'd; only then is
/// its index record appended. A crash therefore leaves at worst a temporary file or an orphan blob (both
/// removed by ``gc(maxBytes:orphanGrace:)``), never a record without its blob. A record is one `write`
/// with a length and a checksum; a record torn by a crash is skipped by every reader and counted.
/// Records are not fsync'd one by one (that would cost a disk flush per asset): a process crash loses
/// nothing (the page cache survives it), a power loss may lose the newest records — whose blobs, fsync'd
/// before them, then become orphans for gc. Compaction and blob deletion are ordered the same way: the
/// new index is fsync'd and renamed before any blob it no longer references is removed.
///
/// ## Two processes, one store
/// Index records are appended with `O_APPEND`, one `write` per record, so concurrent appenders never
/// interleave inside a record. `gc` rewrites the index (compaction: new file, fsync, rename) and deletes
/// blobs under an exclusive `flock` on `STORE/lock`; blob installation and record appends hold it shared,
/// and ``record(url:entry:)`` checks under that shared lock that the blob exists. So gc can never delete
/// a blob between that check and the append, nor lose an append to a compaction (appenders open the log
/// by path under the lock, after any rename). Downloads themselves hold no store lock — only their own
/// temporary file's lock — so a long download never blocks gc, and gc never blocks a download for long.
/// Orphan blobs younger than the gc grace period are kept: another process may be about to record them.
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
    let logPath: String
    let lockPath: String
    private let cache = Mutex(IndexCache())

    /// Opens (creating if needed) the store at `directory`, or at ``defaultDirectory(environment:)``.
    /// - Parameters:
    ///   - directory: An explicit store directory (`--store DIR`); overrides the default.
    ///   - environment: Where to look up `XDG_CACHE_HOME` and `HOME`; the process environment when `nil`.
    /// - Throws: ``StoreError`` when the directories cannot be created (a read-only store that already
    ///   exists opens fine: it can be read, verified and exported, and writing fails with `.readOnly`).
    public init(directory: String? = nil, environment: [String: String]? = nil) throws(StoreError) {
        var root = directory ?? ""
        if directory == nil { root = try Self.defaultDirectory(environment: environment) }
        root = FileSystem.absolute(root)
        self.directory = root
        self.objectsDirectory = root + "/objects/sha256"
        self.indexDirectory = root + "/index"
        self.tempDirectory = root + "/tmp"
        self.logPath = root + "/index/records.log"
        self.lockPath = root + "/lock"
        for path in [objectsDirectory, indexDirectory, tempDirectory] {
            try FileSystem.makeDirectories(path)
        }
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
    /// - Throws: ``StoreError`` when the temporary file cannot be created (read-only store, no space, …).
    public func beginBlob() throws(StoreError) -> BlobWriter {
        try BlobWriter(store: self)
    }

    /// Stores `bytes` as a blob (convenience over ``beginBlob()``).
    public func put(bytes: [UInt8]) throws(StoreError) -> BlobRef {
        let writer = try beginBlob()
        try writer.write(bytes)
        return try writer.commit()
    }

    /// Records that `url` is answered by `entry` — after its blob was committed.
    /// - Throws: `.blobMissing` when the blob is not in the store (never commit a record without its
    ///   blob), `.invalidArgument` for a URL too long to fit one record, or the file system's error.
    public func record(url: String, entry: StoreEntry) throws(StoreError) {
        try append(.put(url: url, entry: entry, accessedAt: Millis.from(Date())), checking: entry.blob)
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

    /// Every indexed URL with its entry and last access, sorted by URL.
    public func list() throws(StoreError) -> [StoredURL] {
        try withIndex { state in
            state.entries.map {
                StoredURL(url: $0.key, entry: $0.value.entry, lastAccess: Millis.date($0.value.accessedAt))
            }
        }.sorted { $0.url < $1.url }
    }

    /// The blob's bytes after checking its size and SHA-256.
    /// - Returns: `.intact(bytes)`, `.missing`, or `.damaged` (the damaged file is removed so that a
    ///   new fetch can replace it).
    /// - Throws: ``StoreError`` only when the file exists but cannot be read.
    public func read(_ blob: BlobRef) throws(StoreError) -> BlobRead {
        let path = blobPath(blob.sha256)
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
    /// readers that want a file (libzip, large videos). Do not modify the file: blobs are shared.
    /// - Returns: `.intact(path)`, `.missing`, or `.damaged` (the damaged file is removed).
    public func path(_ blob: BlobRef) throws(StoreError) -> BlobFile {
        let path = blobPath(blob.sha256)
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

    /// Moves a finished temporary file into `objects/` (see ``BlobWriter/commit()``).
    func install(tempPath: String, blob: BlobRef) throws(StoreError) {
        let directory = objectsDirectory + "/" + blob.sha256.prefix(2)
        let destination = directory + "/" + blob.sha256
        let lock = try self.lock(exclusive: false)
        defer { lock?.release() }
        if try FileSystem.makeDirectories(directory) {
            try FileSystem.syncDirectory(objectsDirectory)
        }
        var existing = stat()
        if lstat(destination, &existing) == 0, FileSystem.isRegularFile(existing), Int(existing.st_size) == blob.size {
            // Same name, same size: the content is already here. Refresh its mtime so that gc's orphan
            // grace period protects it until this process records it.
            try FileSystem.remove(tempPath)
            utimensat(AT_FDCWD, destination, nil, 0)
            return
        }
        // Absent, or a damaged copy (wrong size, a symlink, a FIFO): the rename replaces it atomically.
        try FileSystem.rename(tempPath, destination)
        try FileSystem.syncDirectory(directory)
    }

    /// Appends one record under the shared store lock; checks first that `blob` is installed.
    private func append(_ record: IndexRecord, checking blob: BlobRef?) throws(StoreError) {
        switch record {
        case .put(let url, _, _), .touch(let url, _), .remove(let url):
            guard !url.isEmpty else { throw StoreError(.invalidArgument, "an index record needs a non-empty URL") }
        case .generation: break
        }
        let line = IndexCodec.encode(record)
        guard line.count <= IndexCodec.maxRecordBytes else {
            throw StoreError(.invalidArgument, "URL too long for an index record (\(line.count) bytes)")
        }
        let lock = try self.lock(exclusive: false)
        defer { lock?.release() }
        if let blob {
            let path = blobPath(blob.sha256)
            guard let info = try FileSystem.status(path), Int(info.st_size) == blob.size else {
                throw StoreError(.blobMissing, "blob \(blob.sha256) is not in the store; commit it first", path: path)
            }
        }
        let fd = try FileSystem.open(logPath, O_WRONLY | O_APPEND | O_CREAT, operation: "open index")
        defer { close(fd) }
        try withBytes(line) { (raw) throws(StoreError) in
            try FileSystem.writeAll(fd, raw.baseAddress!, raw.count, path: logPath)
        }
    }

    /// Removes a damaged blob (if the file is still the one that was checked) and describes the damage.
    func quarantine(_ blob: BlobRef, path: String, info: stat, actualSize: Int, actualSHA256: String?)
        -> BlobDamage
    {
        // Under the exclusive lock no commit can be renaming a fresh copy into place at the same moment.
        if let lock = try? self.lock(exclusive: true) {
            var now = stat()
            if lstat(path, &now) == 0, now.st_ino == info.st_ino, now.st_dev == info.st_dev {
                unlink(path)  // fails harmlessly for a directory, which verify keeps reporting
            }
            lock.release()
        }
        return BlobDamage(blob: blob, path: path, actualSize: actualSize, actualSHA256: actualSHA256)
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
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileSystem.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var size = 0
        while true {
            let got = try FileSystem.read(fd, buffer.baseAddress!, buffer.count, path: path)
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
            try cache.refresh(logPath: logPath)
            return body(cache.state)
        }
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

/// The process-local view of the index log: which file (device, inode, first bytes) and how far it was
/// parsed. The first bytes matter because a compacted log may get the inode number of one replaced
/// earlier; compaction starts every log with a random generation record, so the prefix tells them apart.
struct IndexCache {
    static let prefixLength = 64
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var prefix: [UInt8] = []
    var offset = 0
    var state = IndexState()

    mutating func refresh(logPath: String) throws(StoreError) {
        let fd: Int32
        do throws(StoreError) {
            fd = try FileSystem.open(logPath, O_RDONLY | O_NONBLOCK, operation: "open index")
        } catch  where error.code == .notFound {
            self = IndexCache()
            return
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.system("stat", path: logPath, errno: errno) }
        let size = Int(info.st_size)
        let head = try FileSystem.readRange(fd, from: 0, count: min(size, Self.prefixLength), path: logPath)
        if UInt64(info.st_dev) != device || UInt64(info.st_ino) != inode || size < offset
            || !head.starts(with: prefix)
        {
            self = IndexCache()
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
        if prefix.count < head.count { prefix = head }
        guard size > offset else { return }
        let bytes = try FileSystem.readRange(fd, from: offset, count: size - offset, path: logPath)
        offset += IndexCodec.parse(bytes, base: offset, into: &state, final: false)
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
