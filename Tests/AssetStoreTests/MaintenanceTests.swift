import AssetStore
import Foundation
import Glibc
import Testing

/// Ways a blob gets damaged on disk.
enum BlobTamper: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case flipFirstByte, flipLastByte, truncate, extend, empty, delete

    var testDescription: String { rawValue }

    func apply(to path: String) throws {
        var bytes = fileBytes(path)
        switch self {
        case .flipFirstByte: bytes[0] ^= 0x80
        case .flipLastByte: bytes[bytes.count - 1] ^= 0x01
        case .truncate: bytes.removeLast(bytes.count / 3)
        case .extend: bytes.append(0)
        case .empty: bytes = []
        case .delete:
            try FileManager.default.removeItem(atPath: path)
            return
        }
        try writeFile(path, bytes)
    }

    var verifyKind: StoreProblem.Kind {
        switch self {
        case .flipFirstByte, .flipLastByte: .blobHashMismatch
        case .truncate, .extend, .empty: .blobSizeMismatch
        case .delete: .blobMissing
        }
    }
}

struct TamperTests {
    @Test(arguments: BlobTamper.allCases)
    func tamperedBlobIsDetectedByVerifyAndByRead(_ tamper: BlobTamper) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let bytes = pseudoRandomBytes(400_000, seed: 7)
        let url = "https://cdn.test/pass.pkpass"
        let blob = try ingest(store, url: url, bytes)
        try tamper.apply(to: store.blobPath(blob.sha256))

        let report = try store.verify()
        #expect(!report.isClean)
        #expect(report.problems.contains { $0.kind == tamper.verifyKind && $0.severity == .error })
        #expect(report.findings.allSatisfy { $0.code.hasPrefix("store.") })

        switch try store.read(blob) {
        case .intact: Issue.record("a tampered blob was returned as intact")
        case .missing: #expect(tamper == .delete)
        case .damaged(let damage):
            #expect(tamper != .delete)
            #expect(damage.blob == blob)
            #expect(damage.finding.code == "asset.storeDamaged")
            #expect(damage.finding.severity == .error)
        }
        // The damaged copy is gone, so fetching again heals the store.
        #expect(try store.path(blob) == .missing)
        try ingest(store, url: url, bytes)
        #expect(try store.read(blob).bytes == bytes)
        #expect(try store.verify().isSpotless)
    }

    @Test(arguments: ["fifo", "directory", "symlink"])
    func somethingElseWhereABlobBelongsIsDamageNotAHang(kind: String) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let bytes = Array("real content".utf8)
        let blob = try ingest(store, url: "https://odd.test/x", bytes)
        let path = store.blobPath(blob.sha256)
        try FileManager.default.removeItem(atPath: path)
        try writeFile(directory.path + "/decoy", bytes)
        switch kind {
        case "fifo": #expect(mkfifo(path, 0o644) == 0)
        case "directory": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        default:
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: directory.path + "/decoy")
        }
        #expect(mkfifo(directory.path + "/tmp/blob-1-fifo", 0o644) == 0)

        let report = try store.verify()
        #expect(!report.isClean)
        #expect(report.problems.contains { $0.kind == .blobMissing })
        #expect(report.problems.contains { $0.kind == .unexpectedFile && $0.path == path })
        if case .intact = try store.path(blob) { Issue.record("\(kind) accepted as a blob") }
        let out = TemporaryDirectory()
        #expect(try store.export(urls: ["https://odd.test/x"], to: out.path + "/e").assets.isEmpty)
        // Reading it moved it out of the way (a directory into tmp/, the rest unlinked); gc removes what is there.
        _ = try store.gc(orphanGrace: .zero)
        #expect(entries(of: directory.path + "/tmp").isEmpty)
        try ingest(store, url: "https://odd.test/x", bytes)
        #expect(try store.read(blob).bytes == bytes)
        #expect(try store.verify().isSpotless)
    }

    @Test func pathDetectsAFlippedByteInALargeBlob() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let blob = try store.put(bytes: pseudoRandomBytes(2_000_000, seed: 8))
        let path = store.blobPath(blob.sha256)
        var bytes = fileBytes(path)
        bytes[1_500_000] ^= 0x10
        try writeFile(path, bytes)
        guard case .damaged(let damage) = try store.path(blob) else {
            Issue.record("flipped byte not detected")
            return
        }
        #expect(damage.actualSize == blob.size)
        #expect(damage.actualSHA256 != nil && damage.actualSHA256 != blob.sha256)
    }

    @Test(arguments: [TemporaryFiles.named, .unnamed])
    func verifyReportsStrayTempFilesButNotLiveWriters(_ files: TemporaryFiles) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        files.apply(to: store)
        let live = try store.beginBlob()
        try live.write([1, 2, 3])
        try writeFile(directory.path + "/tmp/blob-999999-dead", [1, 2])
        try writeFile(directory.path + "/index/records.log.compact-1-dead", [1, 2])
        try FileManager.default.createDirectory(
            atPath: directory.path + "/tmp/odd-dir/x", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: directory.path + "/tmp/odd-link", withDestinationPath: "/etc")
        try writeFile(directory.path + "/objects/sha256/not-a-prefix", [0])
        let report = try store.verify()
        #expect(report.isClean)
        #expect(report.problems.filter { $0.kind == .unexpectedFile }.count == 1)
        let stray = report.problems.filter { $0.kind == .strayTempFile }.map {
            String($0.path.split(separator: "/").last!)
        }
        #expect(stray.sorted() == ["blob-999999-dead", "odd-dir", "odd-link", "records.log.compact-1-dead"])
        let gc = try store.gc()
        #expect(gc.removedTempFiles == 4)
        #expect(
            entries(of: directory.path + "/index") == ["records.log"] || entries(of: directory.path + "/index").isEmpty)
        #expect(FileManager.default.fileExists(atPath: "/etc/passwd"))
        // The live writer's file is still there (an unnamed one never shows in tmp/).
        #expect(entries(of: directory.path + "/tmp").count == (files == .named ? 1 : 0))
        _ = try live.commit()
        #expect(entries(of: directory.path + "/tmp").isEmpty)
    }
}

struct GCTests {
    @Test func orphansAreRemovedOnlyAfterTheGracePeriod() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        try ingest(store, url: "https://a.test/kept", [1])
        _ = try store.put(bytes: [2, 2])  // committed, never recorded: a crash between blob and record
        let young = try store.gc()
        #expect(young.removedOrphans == 0 && young.keptYoungOrphans == 1)
        #expect(try store.stats().orphans == 1)
        let old = try store.gc(orphanGrace: .zero)
        #expect(old.removedOrphans == 1 && old.freedBytes == 2)
        let stats = try store.stats()
        #expect(stats.orphans == 0 && stats.blobs == 1 && stats.entries == 1)
    }

    @Test func recordsWhoseBlobVanishedAreDropped() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let blob = try ingest(store, url: "https://a.test/gone", [1, 2, 3])
        try ingest(store, url: "https://a.test/here", [4])
        try FileManager.default.removeItem(atPath: store.blobPath(blob.sha256))
        let report = try store.gc()
        #expect(report.droppedRecords == 1 && report.compacted)
        #expect(try store.list().map(\.url) == ["https://a.test/here"])
        #expect(try store.verify().isSpotless)
    }

    @Test func budgetEvictsLeastRecentlyUsedEntriesOnly() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        // Five 1000-byte blobs; "shared" is used by two URLs, one old and one recent.
        for (index, name) in ["a", "b", "c", "d"].enumerated() {
            try ingest(store, url: "https://lru.test/\(name)", pseudoRandomBytes(1_000, seed: UInt64(index)))
        }
        let shared = pseudoRandomBytes(1_000, seed: 99)
        try ingest(store, url: "https://lru.test/shared-old", shared)
        try ingest(store, url: "https://lru.test/shared-new", shared)
        let order = ["shared-old", "c", "a", "d", "shared-new", "b"]  // least to most recently used
        for (rank, name) in order.enumerated() {
            try store.touch("https://lru.test/\(name)", at: base.addingTimeInterval(Double(rank) * 60))
        }

        let report = try store.gc(maxBytes: 3_000, orphanGrace: .zero)
        // shared-old goes but its blob stays (shared-new uses it); c and a go with their blobs.
        #expect(report.evictedURLs == ["shared-old", "c", "a"].map { "https://lru.test/\($0)" })
        #expect(report.removedEvictedBlobs == 2 && report.bytesAfter == 3_000 && report.freedBytes == 2_000)
        #expect(try store.list().map(\.url) == ["b", "d", "shared-new"].map { "https://lru.test/\($0)" })
        let shareRef = try #require(try store.lookup("https://lru.test/shared-new"))
        #expect(try store.read(shareRef.blob).bytes == shared)
        #expect(try store.verify().isSpotless)

        let roomy = try store.gc(maxBytes: 1_000_000, orphanGrace: .zero)
        #expect(roomy.evictedURLs.isEmpty && roomy.bytesAfter == 3_000)
        let none = try store.gc(maxBytes: 0, orphanGrace: .zero)
        #expect(none.evictedURLs.count == 3 && none.bytesAfter == 0)
        let empty = try store.stats()
        #expect(empty.entries == 0 && empty.records == 0 && empty.blobs == 0 && empty.bytes == 0)
    }

    @Test func reportsAsJSONNeverShowSecrets() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let secretURL = "https://cdn.test/a.png?token=hunter2&w=1"
        let blob = try ingest(store, url: secretURL, [1, 2, 3])
        try ingest(store, url: "https://user:pa55@cdn.test/b.png", [4])
        try FileManager.default.removeItem(atPath: store.blobPath(blob.sha256))
        let verify = try store.verify()
        let text = verify.json.serialized()
        #expect(text.contains("store.blobMissing") && text.contains("token=REDACTED"))
        #expect(verify.json["clean"] == .bool(false))
        let gc = try store.gc(maxBytes: 0, orphanGrace: .zero)
        let all =
            text + gc.json.serialized() + (try store.list().map { $0.json.serialized() }.joined())
            + verify.findings.map(\.message).joined()
        #expect(!all.contains("hunter2") && !all.contains("pa55"))
        #expect(gc.json["evicted"] == .array(["https://REDACTED@cdn.test/b.png"]))  // the user name goes too
    }

    @Test(arguments: [TemporaryFiles.named, .unnamed])
    func statsCountEverything(_ files: TemporaryFiles) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        files.apply(to: store)
        try ingest(store, url: "https://s.test/1", [1, 2, 3])
        try ingest(store, url: "https://s.test/2", [1, 2, 3])
        try ingest(store, url: "https://s.test/1", [4, 5])
        let writer = try store.beginBlob()
        try writer.write([9])
        let stats = try store.stats()
        #expect(stats.entries == 2 && stats.records == 3 && stats.blobs == 2 && stats.bytes == 5)
        #expect(stats.orphans == 0 && stats.damagedRecords == 0 && stats.indexBytes > 0)
        #expect(stats.tempFiles == (files == .named ? 1 : 0))
        #expect(stats.json["entries"] == .int(2))
        writer.abort()
        _ = try store.gc()
        #expect(try store.stats().records == 2)
    }
}
