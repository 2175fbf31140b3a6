import Foundation
import Glibc
import Testing

@testable import AssetStore

/// Issue 31 in the library: what an open store commits or reads it holds (`STORE/leases/`), and no gc of another
/// store removes a held blob or evicts an entry that uses it, whatever its budget and grace.
struct LeaseTests {
    /// The files in `STORE/leases/`.
    static func leases(_ store: AssetStore) -> [String] { entries(of: store.directory + "/leases") }

    @Test(arguments: TemporaryFiles.allCases)
    func aBlobFoundAlreadyThereSurvivesAnotherStoresGCUntilItsRecordIsIn(_ files: TemporaryFiles) throws {
        let directory = TemporaryDirectory()
        let first = try AssetStore(directory: directory.path)
        let bytes = pseudoRandomBytes(5_000, seed: 31)
        try ingest(first, url: "https://l.test/first", bytes)
        // The second run finds the blob already stored and records its own URL a batch later.
        let second = try AssetStore(
            directory: directory.path, batching: RecordBatching(maxRecords: 100, maxDelay: .seconds(60)))
        files.apply(to: second)
        let writer = try second.beginBlob()
        try writer.write(bytes)
        let blob = try writer.commit()
        // Between the commit and the record, a cron job's gc with the tightest budget and no grace.
        let gc = try AssetStore(directory: directory.path).gc(maxBytes: 0, orphanGrace: .zero)
        #expect(gc.evictedURLs.isEmpty && gc.keptHeld == 1 && gc.bytesAfter == 5_000)
        try second.record(url: "https://l.test/second", entry: entry(blob))
        #expect(second.flush().isEmpty, "the record finds its blob")
        #expect(try second.read(blob).bytes == bytes)
        #expect(try AssetStore(directory: directory.path).verify().isSpotless)
    }

    @Test func whatAStoreReadIsNeitherEvictedNorRemovedUntilItIsLetGo() throws {
        let directory = TemporaryDirectory()
        let urls = (0..<4).map { "https://l.test/\($0)" }
        do {
            let filler = try AssetStore(directory: directory.path)
            for (index, url) in urls.enumerated() {
                try ingest(filler, url: url, pseudoRandomBytes(1_000, seed: UInt64(index)))
            }
            // Two URLs, one body: holding the blob keeps both entries.
            try ingest(filler, url: "https://l.test/same", pseudoRandomBytes(1_000, seed: 0))
        }
        let gcStore = try AssetStore(directory: directory.path)
        do {
            let reader = try AssetStore(directory: directory.path)
            #expect(Self.leases(reader).isEmpty, "a lease is made by the first blob held, not by opening the store")
            let held = try #require(try reader.lookup(urls[0]))
            #expect(try reader.read(held.blob).bytes == pseudoRandomBytes(1_000, seed: 0))
            #expect(Self.leases(reader).count == 1)
            let gc = try gcStore.gc(maxBytes: 0, orphanGrace: .zero)
            #expect(gc.evictedURLs.sorted() == Array(urls[1...]))
            #expect(gc.keptHeld == 1 && gc.bytesAfter == 1_000)
            #expect(try gcStore.list().map(\.url) == [urls[0], "https://l.test/same"])
            // The run reads it again, exports it: still there.
            #expect(try reader.path(held.blob) == .intact(reader.blobPath(held.blob.sha256)))
            let out = TemporaryDirectory()
            #expect(try reader.export(urls: [urls[0]], to: out.path + "/e").assets.count == 1)
        }
        #expect(entries(of: directory.path + "/leases").isEmpty, "a store let go removes its lease")
        let after = try gcStore.gc(maxBytes: 0, orphanGrace: .zero)
        #expect(after.keptHeld == 0 && after.bytesAfter == 0)
        #expect(try gcStore.verify().isSpotless)
    }

    @Test func aLeaseNobodyHoldsIsRemovedAndHoldsNothing() throws {
        let directory = TemporaryDirectory()
        let blob = try ingest(try AssetStore(directory: directory.path), url: "https://l.test/a", [1, 2, 3])
        // What a killed run leaves: a lease naming the blob, which no process holds locked.
        let dead = directory.path + "/leases/999999-dead"
        try writeFile(dead, Array((blob.sha256 + "\n").utf8))
        let store = try AssetStore(directory: directory.path)
        let gc = try store.gc(maxBytes: 0, orphanGrace: .zero)
        #expect(gc.evictedURLs == ["https://l.test/a"] && gc.keptHeld == 0)
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(try store.lookup("https://l.test/a") == nil)
        #expect(try store.read(blob) == .missing, "gone: a miss, fetched again")
    }

    @Test func aStoreThatCannotKeepALeaseStillReadsAndWrites() throws {
        let directory = TemporaryDirectory()
        let blob = try ingest(try AssetStore(directory: directory.path), url: "https://l.test/a", [7, 7])
        // Not a directory where the leases belong: nothing can be held, everything else works.
        try FileManager.default.removeItem(atPath: directory.path + "/leases")
        try writeFile(directory.path + "/leases", [0])
        let store = try AssetStore(directory: directory.path)
        #expect(try store.read(blob).bytes == [7, 7])
        try ingest(store, url: "https://l.test/b", [8])
        #expect(try store.list().count == 2)
        #expect(store.leases.withLock { $0.unavailable })
    }
}
