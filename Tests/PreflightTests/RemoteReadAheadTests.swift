import AssetStore
import Foundation
import HTTPFetch
import Preflight
import TestSupport
import Testing

/// ``RemoteTier/readAhead(_:limit:batch:)`` reads `/ac/` records before the run asks for them; ``RemoteTier/records(for:)``
/// must then answer exactly as a fresh read would, without asking the remote again for what was read ahead.
@Suite("Remote records read ahead", .ownThread)
struct RemoteReadAheadTests {
    /// A remote holding a record for every third of `count` URLs (`url N`), and the tier reading it.
    static func remote(_ count: Int) async throws -> (Nginx, RemoteTier, [String], [String: [UInt8]]) {
        let urls = (0..<count).map { "https://cdn.example.com/img-\($0).png" }
        var records: [String: [UInt8]] = [:]
        var files: [String: [UInt8]] = [:]
        for (index, url) in urls.enumerated() where index % 3 == 0 {
            records[url] = Array("{\"n\":\(index)}".utf8)
            files["r/ac/" + RemoteTier.key(url)] = records[url]
        }
        let nginx = try await Nginx(files: files, mode: .webDAV(extra: ""))
        let tier = RemoteTier(cache: RemoteCache(options: RemoteCacheOptions(url: nginx.url("r"), readConnections: 4)))
        return (nginx, tier, urls, records)
    }

    static func gets(_ nginx: Nginx, atLeast count: Int) throws -> [String] {
        try nginx.accessLog(atLeast: count).filter { $0.contains(" GET /r/ac/") }
    }

    @Test func recordsReadAheadAreTakenNotReadAgain() async throws {
        let (nginx, tier, urls, records) = try await Self.remote(100)
        // The first 60 are read ahead (a repeat is read once), in batches of 16; 10 of them are never asked for.
        tier.readAhead(Array(urls[0..<60]) + [urls[0], urls[5]], limit: 60, batch: 16)
        // Asked for in another order, mixed with 40 that were not read ahead.
        let asked = Array(urls[10..<100].reversed())
        let answers = await tier.records(for: asked)
        #expect(answers.count == asked.count)
        for (url, answer) in zip(asked, answers) { #expect(answer == records[url], "\(url)") }
        // 60 read ahead + 40 read now: each once.
        let log = try Self.gets(nginx, atLeast: 100)
        #expect(log.count == 100, "\(log.count) reads")
        #expect(Set(log.map { $0.split(separator: " ").last(where: { $0.contains("/r/ac/") }) ?? "" }).count == 100)
        // Taken once: asking again reads again.
        #expect(await tier.records(for: [urls[12]]) == [records[urls[12]]])
        #expect(try Self.gets(nginx, atLeast: 101).count == 101)
    }

    @Test func concurrentCallersShareABatchReadAhead() async throws {
        let (nginx, tier, urls, records) = try await Self.remote(64)
        tier.readAhead(urls, limit: 64, batch: 64)
        // Two callers take the halves of the one batch at once; the second may finish first.
        async let first = tier.records(for: Array(urls[0..<32]))
        async let second = tier.records(for: Array(urls[32..<64]))
        let answers = await first + second
        for (url, answer) in zip(urls, answers) { #expect(answer == records[url], "\(url)") }
        #expect(try Self.gets(nginx, atLeast: 64).count == 64)
    }

    @Test func theLimitBoundsWhatIsReadAhead() async throws {
        let (nginx, tier, urls, _) = try await Self.remote(50)
        tier.readAhead(urls, limit: 20, batch: 8)
        tier.readAhead([], limit: 20, batch: 8)
        // Taking the 20 waits for their reads; nothing else was read ahead (a stray read would be logged by now).
        _ = await tier.records(for: Array(urls[0..<20]))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try Self.gets(nginx, atLeast: 20).count == 20)
        _ = await tier.records(for: Array(urls[20..<50]))
        #expect(try Self.gets(nginx, atLeast: 50).count == 50, "the other 30 are read when asked for")
    }

    /// Called as the messages are read: the limit counts over every call, and a URL is read ahead once.
    @Test func theLimitHoldsOverManyCallsAndNoURLIsReadAheadTwice() async throws {
        let (nginx, tier, urls, records) = try await Self.remote(50)
        tier.readAhead(Array(urls[0..<12]), limit: 30, batch: 8)
        tier.readAhead(Array(urls[6..<24]), limit: 30, batch: 8)  // 6 seen before: 12 new
        tier.readAhead(Array(urls[24..<50]), limit: 30, batch: 8)  // only 6 more fit
        let answers = await tier.records(for: Array(urls[0..<30]))
        for (url, answer) in zip(urls, answers) { #expect(answer == records[url], "\(url)") }
        try await Task.sleep(for: .milliseconds(300))
        let log = try Self.gets(nginx, atLeast: 30)
        #expect(log.count == 30, "\(log.count) reads")
        #expect(Set(log.map { $0.split(separator: " ").last(where: { $0.contains("/r/ac/") }) ?? "" }).count == 30)
    }

    @Test func theRetrieverReadsAheadOnlyWhatItWouldAskTheRemoteFor() async throws {
        let (nginx, tier, urls, records) = try await Self.remote(6)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-readahead-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try AssetStore(directory: directory)
        // The local store has the first URL: its retrieval never asks the remote first.
        try store.record(
            url: urls[0],
            entry: StoreEntry(
                blob: try store.put(bytes: [1, 2, 3]), contentType: nil, etag: nil, lastModified: nil,
                cacheControl: "max-age=60", fetchedAt: Date(), httpStatus: 200))
        let engine = try FetchEngine(options: FetchOptions(timeout: 5, retries: 0))
        let retriever = AssetRetriever(fetcher: engine, store: store, remote: tier)
        // Besides: an empty URL and one with a control character (never requested, so never looked up).
        retriever.readAhead(urls + ["", "https://cdn.example.com/a\u{1}b.png"])
        let answers = await tier.records(for: Array(urls[1...]))
        for (url, answer) in zip(urls[1...], answers) { #expect(answer == records[url], "\(url)") }
        try await Task.sleep(for: .milliseconds(300))
        let log = try Self.gets(nginx, atLeast: 5)
        #expect(log.count == 5, "the 5 URLs the store lacks, each once: \(log)")
        #expect(!log.contains { $0.contains(RemoteTier.key(urls[0])) }, "not the one the store has")
        await engine.shutdown()
    }

    @Test func aRemoteThatIsDownAnswersNothingReadAheadOrNot() async throws {
        let (nginx, tier, urls, _) = try await Self.remote(30)
        nginx.stop()
        tier.readAhead(Array(urls[0..<10]), limit: 10, batch: 4)
        let answers = await tier.records(for: urls)
        #expect(answers.count == 30 && answers.allSatisfy { $0 == nil })
        #expect(tier.finding != nil, "one warning for the run")
    }
}
