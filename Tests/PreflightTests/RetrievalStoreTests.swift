import AssetStore
import Findings
import Foundation
import HTTPFetch
import Preflight
import Synchronization
import Testing

/// AssetRetriever against the real fixture server and a real store: what is requested, what is stored.
@Suite(.serialized) struct RetrievalStoreTests {
    static let fresh = "/cache/max-age%3D3600/inbox/hero.png"

    @Test func firstFetchStoresAndAFreshEntryMakesNoRequest() async throws {
        let harness = try RetrievalHarness()
        let url = harness.url(Self.fresh)
        let first = try await harness.counting { try await harness.retriever().retrieve(url) }
        #expect(first.requests == 1)
        #expect(first.result.source == .network)
        #expect(first.result.isOK)
        #expect(first.result.findings.isEmpty)
        let expected = try harness.fileBytes("inbox/hero.png")
        #expect(first.result.body(limit: 1 << 20) == expected)
        #expect(first.result.entry?.cacheControl == "max-age=3600")
        #expect(first.result.bytesFetched == expected.count)
        #expect(try harness.store().lookup(url)?.blob.size == expected.count)

        let second = try await harness.counting { try await harness.retriever().retrieve(url) }
        #expect(second.requests == 0)
        #expect(second.result.source == .store)
        #expect(second.result.bytesFetched == 0)
        #expect(second.result.body(limit: 1 << 20) == expected)
        #expect(second.result.file().map { try? Data(contentsOf: URL(fileURLWithPath: $0)) } == Data(expected))
    }

    @Test func aBatchedStoreHasEveryRecordInTheLogWhenRetrieveAllReturns() async throws {
        let harness = try RetrievalHarness()
        let batching = RecordBatching(maxRecords: 1_000, maxDelay: .seconds(3_600))
        let urls = ["/inbox/hero.png", "/inbox/banner.jpg", "/inbox/slide-1.jpg"].map(harness.url)
        for run in 0..<2 {
            // The same store directory twice: first fetched, then revalidated (304) — both kinds of record.
            let store = try AssetStore(directory: harness.storeDirectory, batching: batching)
            let retriever = AssetRetriever(fetcher: harness.engine, store: store)
            let assets = await retriever.retrieveAll(urls)
            let expected: RetrievedAsset.Source = run == 0 ? .network : .revalidated
            #expect(assets.map(\.isOK) == [true, true, true])
            #expect(assets.map(\.source) == [expected, expected, expected])
            // Another store on the same directory (another process, in effect) sees them while this one lives.
            let other = try harness.store()
            for (url, asset) in zip(urls, assets) {
                #expect(try other.lookup(url)?.blob == asset.entry?.blob)
                #expect(try other.lookup(url)?.fetchedAt == asset.entry?.fetchedAt)
            }
            withExtendedLifetime(store) {}
        }
        #expect(try harness.store().verify().isSpotless)
    }

    @Test func staleEntriesAreRevalidatedWithoutABody() async throws {
        let harness = try RetrievalHarness()
        let url = harness.url("/cache/max-age%3D60/inbox/banner.jpg")
        let first = try await harness.retriever().retrieve(url)
        let fetchedAt = try #require(first.entry?.fetchedAt)
        // Two minutes later the one-minute max-age has passed.
        let later = try harness.retriever(now: { Date().addingTimeInterval(120) })
        let second = await harness.counting { await later.retrieve(url) }
        #expect(second.requests == 1)
        #expect(second.bodyBytes == 0)
        #expect(harness.server.stats.responsesByStatus[304] == 1)
        #expect(second.result.source == .revalidated)
        #expect(second.result.isOK)
        #expect(second.result.outcome?.notModified == true)
        let entry = try #require(try harness.store().lookup(url))
        #expect(entry.blob == first.entry?.blob)
        #expect(entry.fetchedAt > fetchedAt.addingTimeInterval(100))
        #expect(second.result.body(limit: 1 << 20) == (try harness.fileBytes("inbox/banner.jpg")))
    }

    @Test func anEntryWithoutMaxAgeIsRevalidatedEveryRun() async throws {
        let harness = try RetrievalHarness()
        let url = harness.url("/inbox/slide-1.jpg")
        _ = try await harness.retriever().retrieve(url)
        let second = try await harness.counting { try await harness.retriever().retrieve(url) }
        #expect(second.result.source == .revalidated)
        #expect(second.requests == 1)
        #expect(second.bodyBytes == 0)
    }

    @Test func noStoreResponsesAreKeptInMemoryAndNotRecorded() async throws {
        let harness = try RetrievalHarness()
        let url = harness.url("/cache/no-store/inbox/hero.png")
        let asset = try await harness.retriever().retrieve(url)
        #expect(asset.source == .memory)
        #expect(asset.isOK)
        #expect(asset.findings.map(\.code) == ["asset.noStore"])
        #expect(asset.findings.first?.severity == .warning)
        #expect(asset.body(limit: 1 << 20) == (try harness.fileBytes("inbox/hero.png")))
        #expect(asset.body(limit: 10) == nil, "a body over the caller's limit is not returned")
        #expect(try harness.store().lookup(url) == nil)
        // So the next run asks again.
        let again = try await harness.counting { try await harness.retriever().retrieve(url) }
        #expect(again.requests == 1)
        #expect(try harness.store().verify().isClean)
    }

    @Test func aNoStoreBodyOverTheMemoryLimitIsAnError() async throws {
        let harness = try RetrievalHarness()
        let asset = try await harness.retriever(memoryLimit: 100).retrieve(
            harness.url("/cache/no-store/inbox/hero.png"))
        #expect(asset.source == .missing)
        #expect(!asset.isOK)
        #expect(asset.findings.map(\.code) == ["asset.noStore"])
        #expect(asset.findings.first?.severity == .error)
    }

    @Test func aTamperedBlobIsDetectedAndFetchedAgain() async throws {
        let harness = try RetrievalHarness()
        let url = harness.url(Self.fresh)
        let first = try await harness.retriever().retrieve(url)
        let blob = try #require(first.entry?.blob)
        let path = try harness.store().blobPath(blob.sha256)
        var bytes = try harness.fileBytes("inbox/hero.png")
        bytes[bytes.count / 2] ^= 0xff
        try FileManager.default.removeItem(atPath: path)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let second = try await harness.counting { try await harness.retriever().retrieve(url) }
        #expect(second.requests == 1, "fresh, but damaged: fetched again")
        #expect(second.result.source == .network)
        #expect(second.result.isOK)
        #expect(second.result.findings.map(\.code) == ["asset.storeDamaged"])
        #expect(second.result.findings.first?.severity == .warning)
        #expect(second.result.body(limit: 1 << 20) == (try harness.fileBytes("inbox/hero.png")))
        #expect(try harness.store().verify().isClean)
    }

    @Test func offlineUsesOnlyTheStoreAndReportsWhatIsMissing() async throws {
        let harness = try RetrievalHarness()
        let stored = harness.url("/inbox/slide-2.png")
        _ = try await harness.retriever().retrieve(stored)
        let offline = try harness.retriever(offline: true)
        let run = await harness.counting {
            await offline.retrieveAll([stored, harness.url("/inbox/poster.jpg?token=SECRET")])
        }
        #expect(run.requests == 0)
        #expect(run.result[0].source == .store, "stale, but offline: the stored copy is used")
        #expect(run.result[0].isOK)
        #expect(run.result[1].source == .missing)
        #expect(run.result[1].findings.map(\.code) == ["asset.notInStore"])
        #expect(run.result[1].findings.first?.severity == .error)
        #expect(!run.result[1].findings[0].message.contains("SECRET"))
    }

    @Test func offlineWithADeletedBlobReportsItMissing() async throws {
        let harness = try RetrievalHarness()
        let url = harness.url("/inbox/hero.png")
        let first = try await harness.retriever().retrieve(url)
        try FileManager.default.removeItem(atPath: try harness.store().blobPath(try #require(first.entry).blob.sha256))
        let asset = try await harness.retriever(offline: true).retrieve(url)
        #expect(asset.source == .missing)
        #expect(asset.findings.map(\.code) == ["asset.storeMissing"])
    }

    @Test func offlineADamagedBlobIsAnErrorAndNoRequestIsMade() async throws {
        let harness = try RetrievalHarness()
        let url = harness.url("/inbox/hero.png")
        let first = try await harness.retriever().retrieve(url)
        let path = try harness.store().blobPath(try #require(first.entry).blob.sha256)
        try FileManager.default.removeItem(atPath: path)
        try Data("not the picture".utf8).write(to: URL(fileURLWithPath: path))
        let offline = try await harness.counting { try await harness.retriever(offline: true).retrieve(url) }
        #expect(offline.requests == 0)
        #expect(offline.result.source == .missing)
        #expect(offline.result.findings.map(\.code) == ["asset.storeDamaged"])
        #expect(offline.result.findings.first?.severity == .error)
        #expect(!FileManager.default.fileExists(atPath: path), "the damaged copy is removed")
    }

    @Test func theJSONViewRedactsSecrets() async throws {
        let harness = try RetrievalHarness()
        let asset = try await harness.retriever().retrieve(harness.url("/inbox/hero.png?token=SECRET"))
        let json = asset.json.serialized()
        #expect(!json.contains("SECRET"))
        #expect(asset.json["url"] == .string(harness.url("/inbox/hero.png?token=REDACTED")))
        #expect(asset.json["source"] == "network")
        #expect(asset.json["bytes"] == .int(try harness.fileBytes("inbox/hero.png").count))
        #expect(asset.json["contentType"] == "image/png")
    }

    @Test(arguments: [
        ("/status/404", "asset.httpStatus"),
        ("/status/500", "asset.httpStatus"),
        ("/redirect-loop", "asset.tooManyRedirects"),
        ("/short/1000/10", "asset.truncated"),
        ("/reset/100", "asset.reset"),
        ("/redirect-to?url=file:///etc/passwd", "asset.scheme"),
    ])
    func failuresCarryTheirCodes(path: String, code: String) async throws {
        let harness = try RetrievalHarness()
        let url = harness.url(path)
        let asset = try await harness.retriever().retrieve(url)
        #expect(asset.source == .missing)
        #expect(!asset.isOK)
        #expect(asset.findings.map(\.code) == [code])
        #expect(asset.body(limit: 1 << 20) == nil)
        #expect(try harness.store().lookup(url) == nil, "a failure records nothing")
        let stats = try harness.store().stats()
        #expect(stats.tempFiles == 0, "nothing half-written stays behind")
    }

    @Test func aRefusedConnectionIsAConnectFailure() async throws {
        let harness = try RetrievalHarness()
        let asset = try await harness.retriever().retrieve("http://127.0.0.1:1/a.png")
        #expect(asset.findings.map(\.code) == ["asset.connect"])
    }

    @Test func retrieveAllKeepsInputOrderFetchesDuplicatesOnceAndReportsProgress() async throws {
        let harness = try RetrievalHarness()
        let paths = ["/inbox/hero.png", "/inbox/banner.jpg", "/status/404", "/inbox/hero.png", "/bytes/300000"]
        let urls = paths.map(harness.url)
        let snapshots = Mutex<[ProgressSnapshot]>([])
        let run = try await harness.counting {
            try await harness.retriever().retrieveAll(urls) { snapshot in snapshots.withLock { $0.append(snapshot) } }
        }
        #expect(run.requests == 4)
        #expect(run.result.map(\.url) == urls)
        #expect(run.result.map(\.isOK) == [true, true, false, true, true])
        #expect(run.result[4].size == 300_000)
        let last = try #require(snapshots.withLock { $0.last })
        #expect(last.done == 4)
        #expect(last.total == 4)
        #expect(last.failed == 1)
        #expect(
            last.bytes == 300_000 + (try harness.fileBytes("inbox/hero.png").count)
                + (try harness.fileBytes("inbox/banner.jpg").count))
        #expect(snapshots.withLock { $0.map(\.done) } == [1, 2, 3, 4])
    }

    @Test func withoutAStoreBodiesStayInMemory() async throws {
        let harness = try RetrievalHarness()
        let retriever = try harness.retriever(memoryOnly: true, memoryLimit: 1000)
        let small = await retriever.retrieve(harness.url("/inbox/hero.png"))
        #expect(small.source == .memory)
        #expect(small.body(limit: 1000) == (try harness.fileBytes("inbox/hero.png")))
        #expect(small.file() == nil)
        let large = await retriever.retrieve(harness.url("/bytes/5000"))
        #expect(large.findings.map(\.code) == ["asset.tooLarge"])
        #expect(!FileManager.default.fileExists(atPath: harness.storeDirectory))
        let offline = await (try harness.retriever(offline: true, memoryOnly: true)).retrieve(
            harness.url("/inbox/hero.png"))
        #expect(offline.findings.map(\.code) == ["asset.notInStore"])
    }

    @Test func aChangedResourceIsDownloadedAgainOnRevalidation() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ia-www-\(UUID())").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("version one".utf8).write(to: URL(fileURLWithPath: root + "/a.txt"))
        let harness = try RetrievalHarness(root: root)
        let url = harness.url("/a.txt")
        _ = try await harness.retriever().retrieve(url)
        try Data("version two!".utf8).write(to: URL(fileURLWithPath: root + "/a.txt"))
        let second = try await harness.retriever().retrieve(url)
        #expect(second.source == .network)
        #expect(second.body(limit: 100) == Array("version two!".utf8))
        #expect(try harness.store().lookup(url)?.blob.size == 12)
    }

    @Test func aReadOnlyStoreIsReportedBeforeAnyDownloadWhenWritingIsTheJob() async throws {
        let harness = try RetrievalHarness()
        let retriever = try harness.retriever(unwritableStore: .fail)
        try retriever.checkStoreWritable()
        // Root ignores permission bits, so make the temp directory something no file can be created in.
        let temp = harness.storeDirectory + "/tmp"
        try FileManager.default.removeItem(atPath: temp)
        try Data().write(to: URL(fileURLWithPath: temp))
        #expect(throws: StoreError.self) { try retriever.checkStoreWritable() }
        let asset = await retriever.retrieve(harness.url("/inbox/hero.png"))
        #expect(asset.findings.map(\.code) == ["asset.storeFailed"])
        #expect(asset.storeError != nil)
        #expect(!asset.isOK)
        #expect(retriever.storeFinding == nil, "prefetch stops on the error instead")
    }
}
