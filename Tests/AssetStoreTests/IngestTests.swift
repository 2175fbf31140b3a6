import AssetStore
import Dispatch
import Foundation
import Synchronization
import Testing

/// Sizes around the writer's 256 KiB buffer, fed in awkward chunk sizes.
struct RoundTripCase: Sendable, CustomTestStringConvertible {
    var size: Int
    var chunk: Int
    var testDescription: String { "\(size) bytes in chunks of \(chunk)" }
}

struct IngestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func hashesMatchPublishedVectors(text: String, sha256: String) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let blob = try store.put(bytes: Array(text.utf8))
        #expect(blob.sha256 == sha256)
        #expect(blob.size == text.utf8.count)
        #expect(fileBytes(store.blobPath(sha256)) == Array(text.utf8))
    }

    @Test(arguments: [
        RoundTripCase(size: 1, chunk: 1),
        RoundTripCase(size: 262_143, chunk: 4_096),
        RoundTripCase(size: 262_144, chunk: 262_144),
        RoundTripCase(size: 262_145, chunk: 100_000),
        RoundTripCase(size: 1_000_003, chunk: 300_000),
        RoundTripCase(size: 3_000_000, chunk: 16_384),
    ])
    func streamedBlobRoundTrips(_ testCase: RoundTripCase) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let bytes = pseudoRandomBytes(testCase.size, seed: UInt64(testCase.size))
        let url = "https://cdn.example/round/\(testCase.size).bin"
        let blob = try ingest(store, url: url, bytes, chunk: testCase.chunk)
        #expect(blob.sha256 == (try coreutilsSHA256(bytes)))
        #expect(blob.size == testCase.size)
        let found = try #require(try store.lookup(url))
        #expect(found == entry(blob))
        #expect(try store.read(blob).bytes == bytes)
        #expect(try store.path(blob) == .intact(store.blobPath(blob.sha256)))
        #expect(entries(of: directory.path + "/tmp").isEmpty)
    }

    @Test func storeSurvivesReopening() throws {
        let directory = TemporaryDirectory()
        let blob = try ingest(try AssetStore(directory: directory.path), url: "https://a.test/x.png", [1, 2, 3])
        let reopened = try AssetStore(directory: directory.path)
        #expect(try reopened.lookup("https://a.test/x.png")?.blob == blob)
        #expect(try reopened.read(blob).bytes == [1, 2, 3])
    }

    @Test(arguments: [TemporaryFiles.unnamed, .named])
    func abortAndAbandonRemoveTheTemporaryFile(_ files: TemporaryFiles) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        files.apply(to: store)
        let aborted = try store.beginBlob()
        try aborted.write([1, 2, 3])
        // An unnamed (O_TMPFILE) file never shows in tmp/; a named one does while it is written.
        #expect(entries(of: directory.path + "/tmp").count == (files == .named ? 1 : 0))
        aborted.abort()
        aborted.abort()
        #expect(entries(of: directory.path + "/tmp").isEmpty)
        #expect(throws: StoreError(.writerFinished, "")) { try aborted.write([4]) }
        #expect(throws: StoreError(.writerFinished, "")) { try aborted.commit() }

        do {
            let abandoned = try store.beginBlob()
            try abandoned.write(pseudoRandomBytes(300_000, seed: 1))
        }
        #expect(entries(of: directory.path + "/tmp").isEmpty)
        #expect(try store.stats().blobs == 0)
    }

    @Test func writerRefusesUseAfterCommit() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let writer = try store.beginBlob()
        try writer.write([9])
        _ = try writer.commit()
        #expect(throws: StoreError(.writerFinished, "")) { try writer.write([1]) }
        #expect(throws: StoreError(.writerFinished, "")) { try writer.commit() }
    }

    @Test func recordWithoutItsBlobIsRefused() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let phantom = try #require(BlobRef(sha256: String(repeating: "ab", count: 32), size: 10))
        #expect(throws: StoreError(.blobMissing, "")) {
            try store.record(url: "https://a.test/p", entry: entry(phantom))
        }
        let real = try store.put(bytes: [1, 2, 3])
        let wrongSize = try #require(BlobRef(sha256: real.sha256, size: 4))
        #expect(throws: StoreError(.blobMissing, "")) {
            try store.record(url: "https://a.test/p", entry: entry(wrongSize))
        }
        #expect(try store.lookup("https://a.test/p") == nil)
    }

    @Test(arguments: ["", "abc", String(repeating: "a", count: 63), String(repeating: "A", count: 64)])
    func blobRefRejectsMalformedHashes(sha256: String) {
        #expect(BlobRef(sha256: sha256, size: 1) == nil)
    }

    @Test(arguments: [
        "https://cdn.test/plain.png",
        "https://cdn.test/ünïcödé/图片.png?q=é",
        "https://cdn.test/\"quoted\"/back\\slash",
        "https://cdn.test/line\nbreak\ttab\u{0}nul",
        "https://cdn.test/" + String(repeating: "long/", count: 8_000),
        "not a URL at all",
    ])
    func anyURLTextRoundTripsThroughTheIndex(url: String) throws {
        let directory = TemporaryDirectory()
        let blob = try ingest(try AssetStore(directory: directory.path), url: url, [7])
        let reopened = try AssetStore(directory: directory.path)
        #expect(try reopened.lookup(url)?.blob == blob)
        #expect(try reopened.list().map(\.url) == [url])
        #expect(try reopened.verify().isSpotless)
    }

    @Test func emptyURLIsRefused() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let blob = try store.put(bytes: [1])
        #expect(throws: StoreError(.invalidArgument, "")) { try store.record(url: "", entry: entry(blob)) }
        #expect(try store.stats().records == 0)
    }

    @Test(arguments: [
        Date.distantPast, .distantFuture, Date(timeIntervalSince1970: -1.5), Date(timeIntervalSince1970: .infinity),
    ])
    func extremeDatesAreStoredWithoutTrapping(date: Date) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let blob = try store.put(bytes: [1])
        try store.record(url: "https://a.test/d", entry: entry(blob, fetchedAt: date))
        let stored = try #require(try store.lookup("https://a.test/d"))
        if date.timeIntervalSince1970.isFinite {
            #expect(abs(stored.fetchedAt.timeIntervalSince(date)) < 0.001)
        }
        _ = stored.cacheDecision(at: Date())
    }

    @Test func urlTooLongForOneRecordIsRefused() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let blob = try store.put(bytes: [1])
        let url = "https://a.test/" + String(repeating: "x", count: 70_000)
        #expect(throws: StoreError(.invalidArgument, "")) { try store.record(url: url, entry: entry(blob)) }
    }

    @Test func twoWritersRacingOnTheSameContentShareOneBlob() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let bytes = pseudoRandomBytes(700_000, seed: 42)
        let results = Mutex<[Result<BlobRef, StoreError>]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let outcome = Result { () throws(StoreError) -> BlobRef in
                let writer = try store.beginBlob()
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + 10_000 + index * 997)
                    try writer.write(bytes[offset..<end])
                    offset = end
                }
                let blob = try writer.commit()
                try store.record(url: "https://race.test/\(index)", entry: entry(blob))
                return blob
            }
            results.withLock { $0.append(outcome) }
        }
        let blobs = try results.withLock { try $0.map { try $0.get() } }
        #expect(Set(blobs).count == 1)
        #expect(try store.read(blobs[0]).bytes == bytes)
        let stats = try store.stats()
        #expect(stats.blobs == 1 && stats.entries == 8 && stats.tempFiles == 0)
        #expect(try store.verify().isSpotless)
    }

    @Test func manyThreadsIngestingConcurrentlyLeaveAConsistentStore() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let payloads = (0..<20).map { pseudoRandomBytes(1_000 + $0 * 7_919, seed: UInt64($0)) }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for item in 0..<40 {
                let payload = payloads[(thread * 7 + item) % payloads.count]
                do {
                    try ingest(store, url: "https://many.test/\(thread)/\(item)", payload, chunk: 1_500 + item)
                    if item % 5 == 0 { try store.touch("https://many.test/\(thread)/\(item - 1)") }
                    _ = try store.lookup("https://many.test/\((thread + 1) % 8)/\(item)")
                } catch {
                    failures.withLock { $0.append("\(thread)/\(item): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let report = try store.verify()
        #expect(report.isSpotless, "\(report.problems)")
        #expect(report.entriesChecked == 320 && report.blobsChecked == 20)
        for thread in 0..<8 {
            for item in [0, 39] {
                let found = try #require(try store.lookup("https://many.test/\(thread)/\(item)"))
                #expect(try store.read(found.blob).bytes == payloads[(thread * 7 + item) % payloads.count])
            }
        }
    }

    @Test func newestRecordWinsAndRemoveForgets() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let url = "https://a.test/hero.jpg"
        let first = try ingest(store, url: url, [1, 1, 1])
        let second = try ingest(store, url: url, [2, 2])
        #expect(try store.lookup(url)?.blob == second)
        #expect(first != second)
        try store.remove(url)
        #expect(try store.lookup(url) == nil)
        #expect(try store.list().isEmpty)
        try store.remove("https://never.test/")
        #expect(try store.stats().orphans == 2)
    }

    @Test func anotherInstanceSeesAppendsAndCompaction() throws {
        let directory = TemporaryDirectory()
        let reader = try AssetStore(directory: directory.path)
        let writer = try AssetStore(directory: directory.path)
        #expect(try reader.lookup("https://a.test/1") == nil)
        try ingest(writer, url: "https://a.test/1", [1])
        try ingest(writer, url: "https://a.test/2", [2])
        #expect(try reader.lookup("https://a.test/1") != nil)
        try writer.remove("https://a.test/1")
        _ = try writer.gc(orphanGrace: .zero)
        #expect(try reader.lookup("https://a.test/1") == nil)
        #expect(try reader.lookup("https://a.test/2") != nil)
        try ingest(writer, url: "https://a.test/3", [3])
        #expect(try reader.list().map(\.url) == ["https://a.test/2", "https://a.test/3"])
    }

    @Test(arguments: [
        (["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"], "/x/cache/inbox-assets"),
        (["XDG_CACHE_HOME": "relative/cache", "HOME": "/home/u"], "/home/u/.cache/inbox-assets"),
        (["XDG_CACHE_HOME": "", "HOME": "/home/u"], "/home/u/.cache/inbox-assets"),
        (["HOME": "/root"], "/root/.cache/inbox-assets"),
    ])
    func defaultLocationFollowsXDG(environment: [String: String], expected: String) throws {
        #expect(try AssetStore.defaultDirectory(environment: environment) == expected)
    }

    @Test func noDefaultLocationWithoutHome() {
        #expect(throws: StoreError(.noDefaultLocation, "")) { try AssetStore.defaultDirectory(environment: [:]) }
    }

    @Test func explicitDirectoryOverridesTheDefault() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path + "/nested/store", environment: ["HOME": "/nonexistent"])
        #expect(store.directory == directory.path + "/nested/store")
        #expect(entries(of: store.directory) == ["index", "objects", "tmp"])
    }
}
