import Findings
import FoundationEssentials
import Glibc
public import StrictJSON

/// One thing ``AssetStore/verify()`` found.
public struct StoreProblem: Sendable, Hashable {
    /// What is wrong. The raw value is the finding code's suffix (`store.<kind>`).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A record names a blob that does not exist (error).
        case blobMissing
        /// A blob's size differs from its record's (error).
        case blobSizeMismatch
        /// A blob's content does not hash to its name (error).
        case blobHashMismatch
        /// A complete index record with a wrong checksum or invalid JSON (error).
        case corruptRecord
        /// An index record cut short by a crash; skipped by readers (warning, removed by gc).
        case tornRecord
        /// A temporary file no live writer holds: a killed download (warning, removed by gc).
        case strayTempFile
        /// A blob no record references: a crash between blob and record (warning, removed by gc).
        case orphanBlob
        /// A file in `objects/` that is not named like a blob, or something other than a regular file (a directory,
        /// a symlink, a FIFO) where a blob belongs (warning; gc removes the latter, the next fetch of its URL moves
        /// it aside; anything else the store ignores).
        case unexpectedFile
        /// A staging or replaced directory an interrupted `export` left next to its target (`.DIR.export-PID-*`,
        /// `.DIR.old-PID-*`; its process is gone and nobody holds its lock): warning, removed by gc and by the next
        /// export to the same target.
        case staleExport
    }

    /// What is wrong.
    public var kind: Kind
    /// Errors mean lost or wrong data; warnings are debris of interrupted runs that gc cleans up.
    public var severity: Severity
    /// The file concerned (for records: `…/records.log@<byte offset>`).
    public var path: String
    /// The URL concerned, when there is one (unredacted; ``finding`` redacts it).
    public var url: String?
    /// A precise human description (URLs redacted).
    public var message: String

    /// The problem as a finding with code `store.<kind>`.
    public var finding: Finding { Finding(severity, "store." + kind.rawValue, message, path: path) }
}

/// The result of ``AssetStore/verify()``.
public struct VerifyReport: Sendable, Hashable {
    /// Everything found, errors first, then by path.
    public var problems: [StoreProblem]
    /// Blob files hashed.
    public var blobsChecked: Int
    /// Bytes hashed.
    public var bytesChecked: Int
    /// Index records read (including superseded ones).
    public var recordsChecked: Int
    /// Live URL entries checked against their blobs.
    public var entriesChecked: Int

    /// No data is lost or wrong (warnings about crash debris may remain).
    public var isClean: Bool { !problems.contains { $0.severity == .error } }

    /// Not even debris: nothing for gc to do either.
    public var isSpotless: Bool { problems.isEmpty }

    /// The problems as findings.
    public var findings: [Finding] { problems.map(\.finding) }

    /// The report as JSON for `store verify --format json`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("clean", .bool(isClean)), ("blobsChecked", .int(blobsChecked)), ("bytesChecked", .int(bytesChecked)),
                ("recordsChecked", .int(recordsChecked)), ("entriesChecked", .int(entriesChecked)),
                ("problems", .array(problems.map(\.finding.json))),
            ]))
    }
}

/// The result of ``AssetStore/gc(maxBytes:orphanGrace:)``.
public struct GCReport: Sendable, Hashable {
    /// Temporary files of dead writers removed.
    public var removedTempFiles = 0
    /// Orphan blobs (referenced by no record) removed.
    public var removedOrphans = 0
    /// Orphan blobs kept because they are younger than the grace period.
    public var keptYoungOrphans = 0
    /// URLs evicted to fit the size budget, least recently used first.
    public var evictedURLs: [String] = []
    /// Blobs removed because their last record was evicted.
    public var removedEvictedBlobs = 0
    /// Records dropped because their blob was missing or had the wrong size.
    public var droppedRecords = 0
    /// Bytes freed on disk (blobs and temporary files).
    public var freedBytes = 0
    /// Bytes of blobs left in the store.
    public var bytesAfter = 0
    /// Whether the index log was rewritten.
    public var compacted = false
    /// Things other than regular files where blobs belong (directories, symlinks, FIFOs) removed.
    public var removedNonFiles = 0
    /// Staging and replaced directories of interrupted exports removed (`.DIR.export-PID-*`, `.DIR.old-PID-*`).
    public var removedExportStaging = 0
    /// Blobs kept because a live process holds them (its lease in `STORE/leases/`): orphans it is about to record,
    /// and blobs of entries the budget would otherwise have evicted (those entries stay too).
    public var keptHeld = 0

    /// The report as JSON (evicted URLs redacted).
    public var json: JSONValue {
        .object(
            JSONObject([
                ("removedTempFiles", .int(removedTempFiles)), ("removedOrphans", .int(removedOrphans)),
                ("keptYoungOrphans", .int(keptYoungOrphans)),
                ("evicted", .array(evictedURLs.map { .string(Redaction.redactURL($0)) })),
                ("removedEvictedBlobs", .int(removedEvictedBlobs)), ("droppedRecords", .int(droppedRecords)),
                ("freedBytes", .int(freedBytes)), ("bytesAfter", .int(bytesAfter)), ("compacted", .bool(compacted)),
                ("removedNonFiles", .int(removedNonFiles)), ("removedExportStaging", .int(removedExportStaging)),
                ("keptHeld", .int(keptHeld)),
            ]))
    }
}

/// The result of ``AssetStore/stats()``.
public struct StoreStats: Sendable, Hashable {
    /// Live URL entries.
    public var entries = 0
    /// Blob files.
    public var blobs = 0
    /// Bytes in blob files.
    public var bytes = 0
    /// Blobs no entry references.
    public var orphans = 0
    /// Bytes in orphan blobs.
    public var orphanBytes = 0
    /// Files in `tmp/` (live downloads and debris).
    public var tempFiles = 0
    /// Records in the index log, superseded ones included (compaction shrinks this to `entries`).
    public var records = 0
    /// Index records skipped as torn or corrupt.
    public var damagedRecords = 0
    /// Size of the index log.
    public var indexBytes = 0

    /// Creates empty statistics (an empty store's).
    public init() {}

    /// The statistics as JSON.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("entries", .int(entries)), ("blobs", .int(blobs)), ("bytes", .int(bytes)), ("orphans", .int(orphans)),
                ("orphanBytes", .int(orphanBytes)), ("tempFiles", .int(tempFiles)), ("records", .int(records)),
                ("damagedRecords", .int(damagedRecords)), ("indexBytes", .int(indexBytes)),
            ]))
    }
}

/// A blob file found on disk.
struct BlobOnDisk {
    var path: String
    var size: Int
    var modified: Double
}

extension AssetStore {
    /// Re-hashes every blob and checks every record: missing blobs, size and hash mismatches, corrupt
    /// and torn records, stray temporary files, orphan blobs, unexpected files. Read-only (it removes
    /// nothing); runs under the shared store lock so that gc cannot change the store underneath it.
    public func verify() throws(StoreError) -> VerifyReport {
        flushWaiting()
        let lock = try self.lock(exclusive: false)
        defer { lock?.release() }
        let state = try loadIndex()
        var problems: [StoreProblem] = []
        for damage in state.damage {
            problems.append(
                StoreProblem(
                    kind: damage.kind == .torn ? .tornRecord : .corruptRecord,
                    severity: damage.kind == .torn ? .warning : .error, path: "\(logPath)@\(damage.offset)", url: nil,
                    message: "index record at byte \(damage.offset) (\(damage.length) bytes) skipped: \(damage.reason)")
            )
        }
        var blobs: [String: (size: Int, intact: Bool)] = [:]
        var bytesChecked = 0
        let (found, junk) = try scanObjects()
        for path in junk {
            problems.append(
                StoreProblem(
                    kind: .unexpectedFile, severity: .warning, path: path, url: nil,
                    message: "file in the object directory is not named like a blob"))
        }
        let referenced = Dictionary(grouping: state.entries, by: { $0.value.entry.blob.sha256 })
        for (sha256, blob) in found.sorted(by: { $0.key < $1.key }) {
            guard let check = try Self.hashFile(blob.path) else { continue }  // removed meanwhile
            bytesChecked += check.size
            let intact = check.sha256 == sha256
            blobs[sha256] = (check.size, intact)
            if !intact {
                let users = referenced[sha256]?.count ?? 0
                problems.append(
                    StoreProblem(
                        kind: .blobHashMismatch, severity: .error, path: blob.path, url: nil,
                        message:
                            "blob content hashes to \(check.sha256), not its name (\(check.size) bytes; "
                            + "\(users) URL\(users == 1 ? "" : "s") use it)"))
            } else if referenced[sha256] == nil {
                problems.append(
                    StoreProblem(
                        kind: .orphanBlob, severity: .warning, path: blob.path, url: nil,
                        message: "blob (\(check.size) bytes) is referenced by no record"))
            }
        }
        for (url, indexed) in state.entries.sorted(by: { $0.key < $1.key }) {
            let blob = indexed.entry.blob
            let path = blobPath(blob.sha256)
            let shown = Redaction.redactURL(url)
            guard let actual = blobs[blob.sha256] else {
                problems.append(
                    StoreProblem(
                        kind: .blobMissing, severity: .error, path: path, url: url,
                        message: "record for \(shown) names blob \(blob.sha256), which is missing"))
                continue
            }
            if actual.size != blob.size {
                problems.append(
                    StoreProblem(
                        kind: .blobSizeMismatch, severity: .error, path: path, url: url,
                        message: "record for \(shown) says \(blob.size) bytes, blob has \(actual.size)"))
            }
        }
        for (path, size) in try strayTempFiles() {
            let aside = FileSystem.lastComponent(path).hasPrefix(Self.asidePrefix)
            problems.append(
                StoreProblem(
                    kind: .strayTempFile, severity: .warning, path: path, url: nil,
                    message: aside
                        ? "something that was not a blob, moved out of objects/ so that the blob could be stored there"
                        : "temporary file (\(size) bytes) left by an interrupted write"))
        }
        for (_, target) in registeredExports() {
            guard let target else { continue }
            for debris in ExportTarget.findDebris(nextTo: target) {
                problems.append(
                    StoreProblem(
                        kind: .staleExport, severity: .warning, path: debris.path, url: nil,
                        message:
                            "\(debris.isOldExport ? "replaced" : "staging") directory of an interrupted export to "
                            + "\(target) (process \(debris.pid) is gone)"))
            }
        }
        problems.sort { ($0.severity, $1.path) > ($1.severity, $0.path) }
        return VerifyReport(
            problems: problems, blobsChecked: blobs.count, bytesChecked: bytesChecked, recordsChecked: state.records,
            entriesChecked: state.entries.count)
    }

    /// Removes what is no longer needed: temporary files of dead writers, orphan blobs (older than
    /// `orphanGrace`), records whose blob is gone, and — with `maxBytes` — least-recently-used entries
    /// until the blobs fit the budget (an entry's blob goes with it unless another entry still uses it).
    /// Rewrites the index log compactly (new file, fsync, rename). Holds the exclusive store lock.
    ///
    /// Never removes a blob another open store holds (see ``LeaseState``) — an orphan it is about to record, a blob
    /// it found or read — and never evicts an entry whose blob is held: a concurrent run never fails because of gc.
    /// The budget is then met as far as it can be (``GCReport/keptHeld``); the next gc after the run takes the rest.
    /// - Parameters:
    ///   - maxBytes: Size budget for blobs, or `nil` for no eviction.
    ///   - orphanGrace: Orphans younger than this are kept: another process may have just committed the
    ///     blob and be about to record it. Pass `.zero` when no other process can be writing.
    public func gc(maxBytes: Int? = nil, orphanGrace: Duration = .seconds(900)) throws(StoreError) -> GCReport {
        flushWaiting()
        let lock = try self.lock(exclusive: true)
        defer { lock?.release() }
        var report = GCReport()
        for (path, size) in try strayTempFiles() {
            FileSystem.removeTree(path)
            report.removedTempFiles += 1
            report.freedBytes += size
        }
        report.removedExportStaging = cleanExports()
        let state = try loadIndex()
        let (blobs, junk) = try scanObjects()
        // After listing the blobs: a new blob is named in its store's lease before it is linked (see LeaseState).
        let held = heldByOthers()
        for path in junk where Self.isBlobPath(path) {
            // Named like a blob but not a regular file: damage that only hides the blob (a directory here made every
            // read of it fail). Files not named like blobs are left alone: the store did not make them.
            var info = stat()
            guard lstat(path, &info) == 0, !FileSystem.isRegularFile(info) else { continue }
            FileSystem.removeTree(path)
            report.removedNonFiles += 1
        }
        var live: [(url: String, indexed: IndexedEntry)] = []
        for (url, indexed) in state.entries {
            if let blob = blobs[indexed.entry.blob.sha256], blob.size == indexed.entry.blob.size {
                live.append((url, indexed))
            } else {
                report.droppedRecords += 1
            }
        }
        var users: [String: Int] = [:]
        for item in live { users[item.indexed.entry.blob.sha256, default: 0] += 1 }
        let graceSeconds =
            Double(orphanGrace.components.seconds) + Double(orphanGrace.components.attoseconds) / 1e18
        let now = Date().timeIntervalSince1970
        var doomed: [String] = []
        var total = 0
        for (sha256, blob) in blobs {
            if users[sha256] != nil {
                total += blob.size
            } else if held.contains(sha256) {
                total += blob.size
                report.keptHeld += 1
            } else if now - blob.modified >= graceSeconds {
                doomed.append(sha256)
                report.removedOrphans += 1
            } else {
                total += blob.size
                report.keptYoungOrphans += 1
            }
        }
        if let maxBytes, total > maxBytes {
            // Least recently used first; the URL breaks ties so the order is deterministic.
            live.sort { ($0.indexed.accessedAt, $0.url) < ($1.indexed.accessedAt, $1.url) }
            var kept: [(url: String, indexed: IndexedEntry)] = []
            var keptHeld: Set<String> = []
            var next = 0
            while total > maxBytes, next < live.count {
                let victim = live[next]
                next += 1
                let sha256 = victim.indexed.entry.blob.sha256
                // A live run uses this blob (it may look the URL up again, to read or export it): it stays, and so
                // does every entry that names it.
                if held.contains(sha256) {
                    kept.append(victim)
                    keptHeld.insert(sha256)
                    continue
                }
                report.evictedURLs.append(victim.url)
                users[sha256]! -= 1
                if users[sha256] == 0 {
                    users[sha256] = nil
                    doomed.append(sha256)
                    report.removedEvictedBlobs += 1
                    total -= blobs[sha256]!.size
                }
            }
            live = kept + live[next...]
            report.keptHeld += keptHeld.count
        }
        if state.records != live.count || !state.damage.isEmpty {
            try compact(live.sorted { $0.url < $1.url })
            report.compacted = true
        }
        // Records first, blobs second: a crash in between leaves orphans, never records without blobs.
        for sha256 in doomed {
            let blob = blobs[sha256]!
            try FileSystem.remove(blob.path)
            report.freedBytes += blob.size
        }
        report.bytesAfter = total
        return report
    }

    /// Removes what interrupted exports left next to every target ``registerExport(_:)`` noted, and forgets targets
    /// that are gone with nothing left next to them.
    /// - Returns: how many directories were removed.
    private func cleanExports() -> Int {
        var removed = 0
        for (file, target) in registeredExports() {
            guard let target else {
                // Torn by a crash (or a temporary file whose writer is gone): nothing to learn from it.
                if let pid = Self.temporaryWriter(file), !ExportTarget.processIsGone(pid) { continue }
                unlink(file)
                continue
            }
            removed += ExportTarget.cleanDebris(nextTo: target).removed.count
            let parent = FileSystem.parentDirectory(target)
            let name = FileSystem.lastComponent(target)
            let leftovers = (try? FileSystem.list(parent))?.contains { ExportTarget.parse($0, name: name) != nil }
            var targetGone = false
            do throws(StoreError) { targetGone = try FileSystem.linkStatus(target) == nil } catch {}
            if targetGone, leftovers != true { unlink(file) }
        }
        return removed
    }

    /// The process id in `exports/.tmp-PID-TOKEN`, if `file` is such a name.
    private static func temporaryWriter(_ file: String) -> pid_t? {
        let name = FileSystem.lastComponent(file)
        guard name.hasPrefix(".tmp-") else { return nil }
        return name.dropFirst(".tmp-".count).split(separator: "-").first.flatMap { pid_t($0) }
    }

    /// Whether `path` is `objects/sha256/ab/<64 hex starting ab>`.
    static func isBlobPath(_ path: String) -> Bool {
        let name = FileSystem.lastComponent(path)
        let prefix = FileSystem.lastComponent(FileSystem.parentDirectory(path))
        return Hex.isDigest(name) && prefix.utf8.count == 2 && name.hasPrefix(prefix)
    }

    /// Counts entries, blobs, bytes and debris without hashing anything.
    public func stats() throws(StoreError) -> StoreStats {
        flushWaiting()
        let state = try loadIndex()
        let (blobs, _) = try scanObjects()
        var stats = StoreStats()
        stats.entries = state.entries.count
        stats.records = state.records
        stats.damagedRecords = state.damage.count
        stats.indexBytes = try FileSystem.status(logPath).map { Int($0.st_size) } ?? 0
        let referenced = Set(state.entries.values.map(\.entry.blob.sha256))
        for (sha256, blob) in blobs {
            stats.blobs += 1
            stats.bytes += blob.size
            if !referenced.contains(sha256) {
                stats.orphans += 1
                stats.orphanBytes += blob.size
            }
        }
        stats.tempFiles = try FileSystem.list(tempDirectory).count
        return stats
    }

    /// Blob files by hash, and files in `objects/` that are not blobs.
    func scanObjects() throws(StoreError) -> (blobs: [String: BlobOnDisk], junk: [String]) {
        var blobs: [String: BlobOnDisk] = [:]
        var junk: [String] = []
        for prefix in try FileSystem.list(objectsDirectory).sorted() {
            let directory = objectsDirectory + "/" + prefix
            guard prefix.utf8.count == 2, Hex.isDigest(prefix + String(repeating: "0", count: 62)) else {
                junk.append(directory)
                continue
            }
            for name in try FileSystem.list(directory).sorted() {
                let path = directory + "/" + name
                var info = stat()
                // lstat: a symlink is not a blob, whatever it points at.
                guard Hex.isDigest(name), name.hasPrefix(prefix), lstat(path, &info) == 0,
                    FileSystem.isRegularFile(info)
                else {
                    junk.append(path)
                    continue
                }
                blobs[name] = BlobOnDisk(
                    path: path, size: Int(info.st_size), modified: FileSystem.modificationTime(info))
            }
        }
        return (blobs, junk)
    }

    /// Temporary files whose writer is gone: nobody holds their `flock` (a live ``BlobWriter`` does), plus
    /// index files a killed compaction left (callers hold the store lock, so no compaction is running).
    func strayTempFiles() throws(StoreError) -> [(path: String, size: Int)] {
        var stray: [(String, Int)] = []
        for name in try FileSystem.list(tempDirectory).sorted() {
            let path = tempDirectory + "/" + name
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            if fd < 0 {
                // A symlink is never a writer's file; anything that vanished was committed or aborted.
                var info = stat()
                if errno == ELOOP, lstat(path, &info) == 0 { stray.append((path, Int(info.st_size))) }
                continue
            }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { continue }
            if FileSystem.isRegularFile(info) && flock(fd, LOCK_EX | LOCK_NB) != 0 { continue }  // live writer
            stray.append((path, Int(info.st_size)))
        }
        for name in try FileSystem.list(indexDirectory).sorted() where name.hasPrefix("records.log.compact-") {
            let path = indexDirectory + "/" + name
            var info = stat()
            if lstat(path, &info) == 0 { stray.append((path, Int(info.st_size))) }
        }
        return stray
    }

    /// Rewrites the index with one record per live entry: temp file, fsync, rename, directory fsync.
    private func compact(_ entries: [(url: String, indexed: IndexedEntry)]) throws(StoreError) {
        var bytes = IndexCodec.encode(.generation(id: FileSystem.randomToken() + FileSystem.randomToken()))
        for item in entries {
            bytes += IndexCodec.encode(
                .put(url: item.url, entry: item.indexed.entry, accessedAt: item.indexed.accessedAt))
        }
        let temp = indexDirectory + "/records.log.compact-\(getpid())-\(FileSystem.randomToken())"
        let fd = try FileSystem.open(temp, O_WRONLY | O_CREAT | O_EXCL, operation: "create index")
        do throws(StoreError) {
            defer { close(fd) }
            try withBytes(bytes) { (raw) throws(StoreError) in
                try FileSystem.writeAll(fd, raw.baseAddress!, raw.count, path: temp)
            }
            try FileSystem.sync(fd, path: temp)
            try FileSystem.rename(temp, logPath)
        } catch {
            unlink(temp)
            throw error
        }
        try FileSystem.syncDirectory(indexDirectory)
    }
}
