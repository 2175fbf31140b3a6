import FixtureServer
import Foundation
import HTTPFetch
import Synchronization
import TestSupport
import Testing

/// `FetchEngine.fetchAll` hands its whole list to the engine thread in one command and gets the outcomes back a
/// poll round at a time; these pin that nothing is lost, reordered or left waiting on the way.
@Suite("Batch hand-over", .ownThread)
struct BatchHandOverTests {
    /// Waits (bounded) until `condition` holds: for a transfer to be under way before cancelling it.
    /// Polls `condition` every 10 ms for up to 20 s; a condition never met is a test failure, not a silent pass.
    private func eventually(
        _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for _ in 0..<2_000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        try #require(condition(), "the condition did not hold within 20 s", sourceLocation: sourceLocation)
    }

    @Test(
        "2,000 URLs handed over at once come back in order, each with its own outcome, within the limits",
        arguments: [FetchKind.probe, .get])
    func manyAtOnce(_ kind: FetchKind) async throws {
        let harness = try Harness()
        let sizes = [1, 100, 1000, 4096, 10_000]
        for size in sizes {
            try Data((0..<size).map { UInt8($0 % 251) }).write(
                to: URL(fileURLWithPath: harness.site.root + "/p\(size)"))
        }
        var expectedHash: [Int: String] = [:]
        for size in sizes { expectedHash[size] = try await harness.site.sha256(of: "p\(size)") }
        let engine = try FetchEngine(
            options: harness.options {
                $0.concurrency = 8
                $0.hostConcurrency = 4
            })
        // Per index: a distinct small body, a 404, the same URL over and over (single-flight), a refused scheme,
        // and now and then a URL curl cannot parse.
        let urls = (0..<2000).map { index -> String in
            switch index % 10 {
            case 7: harness.url("/status/404?i=\(index)")
            case 8: harness.url("/bytes/100")
            case 9: index % 20 == 9 ? "ftp://127.0.0.1/\(index)" : "http://[::1/\(index)"
            default: harness.url("/bytes/\(sizes[index % sizes.count])?i=\(index)")
            }
        }
        let progress = Mutex<[Int]>([])
        let outcomes = await engine.fetchAll(urls, kind: kind) { done, total in
            progress.withLock { $0.append(done * 10_000 + total) }
        }
        await engine.shutdown()

        #expect(outcomes.count == urls.count)
        #expect(outcomes.map(\.url) == urls)
        #expect(progress.withLock { $0 } == (1...urls.count).map { $0 * 10_000 + urls.count })
        for (index, outcome) in outcomes.enumerated() {
            #expect(outcome.kind == kind)
            switch index % 10 {
            case 7:
                #expect(outcome.failure == .httpStatus && outcome.httpStatus == 404, "\(index)")
            case 8:
                #expect(outcome.isOK && outcome.contentLength == 100, "\(index)")
            case 9:
                #expect(outcome.failure == (index % 20 == 9 ? .scheme : .invalidURL), "\(index)")
            default:
                let size = sizes[index % sizes.count]
                #expect(outcome.isOK && outcome.httpStatus == 200 && outcome.contentLength == size, "\(index)")
                if kind == .get {
                    #expect(outcome.bytes == size && outcome.sha256 == expectedHash[size], "\(index)")
                } else {
                    #expect(outcome.bytes == nil && outcome.sha256 == nil, "\(index)")
                }
            }
        }
        let stats = harness.server.stats
        // The server counts a request until its thread is back from writing the response, while the client may
        // already have read it and sent the next one: under load the count can run one ahead of the client's 4
        // (a host limit that did not hold would show the global 8).
        #expect(stats.maxConcurrentRequests <= 4 + 1)
        if kind == .get {
            // (A probe's cut-off GET fallback closes its connection; the server notices the close a moment
            // later, so its count of open connections can run ahead of the client's while requests stay bounded.)
            #expect(stats.maxConcurrentConnections <= 4)
        }
        #expect(harness.server.requests(for: "/bytes/100") == 1, "200 copies of one URL share one request")
        // 1,400 distinct bodies, 200 404s (a probe's HEAD 404 falls back to GET: two requests) and /bytes/100.
        #expect(stats.totalRequests == 1400 + (kind == .probe ? 400 : 200) + 1)
    }

    @Test("A batch member shares the request of a single call already in flight for the same URL")
    func batchJoinsSingleCall() async throws {
        let harness = try Harness()
        // A long delay (and a stall limit above it) so the single call is still in flight however loaded the machine.
        let engine = try FetchEngine(options: harness.options { $0.timeout = 20 })
        let url = harness.url("/delay/6000/bytes/10")
        let single = Task(executorPreference: OwnThread.current) { await engine.probe(url) }
        try await eventually { harness.server.stats.inFlightRequests > 0 }
        let batch = await engine.fetchAll([url, url])
        #expect(await single.value.isOK)
        await engine.shutdown()
        #expect(batch.map(\.isOK) == [true, true])
        #expect(harness.server.requests(for: "/delay/6000/bytes/10") == 1)
    }

    @Test("Cancelling the task mid-batch answers every URL (the unfinished ones cancelled) and frees every slot")
    func cancelMidBatch() async throws {
        let harness = try Harness()
        // A stall limit far above any wait here: the stalled requests must still be running when cancelled.
        let engine = try FetchEngine(
            options: harness.options {
                $0.concurrency = 2
                $0.timeout = 60
            })
        let quick = (0..<4).map { harness.url("/bytes/10?quick=\($0)") }
        let stalled = (0..<100).map { harness.url("/delay/30000/bytes/10?i=\($0)") }
        let done = Atomic<Int>(0)
        let task = Task(executorPreference: OwnThread.current) {
            await engine.fetchAll(quick + stalled, kind: .get) { finished, _ in
                done.store(finished, ordering: .relaxed)
            }
        }
        try await eventually { done.load(ordering: .relaxed) == 4 && harness.server.stats.inFlightRequests == 2 }
        task.cancel()
        let outcomes = await task.value
        #expect(outcomes.count == 104)
        #expect(outcomes.prefix(4).allSatisfy { $0.isOK })
        #expect(outcomes.dropFirst(4).allSatisfy { $0.failure == .cancelled })
        #expect(done.load(ordering: .relaxed) == 104)
        // Both slots are free again: a new call does not wait behind the cancelled batch.
        #expect(await engine.probe(harness.url("/bytes/10?after")).isOK)
        await engine.shutdown()
        #expect(harness.server.stats.totalRequests == 4 + 2 + 1)
    }

    @Test("Shutdown mid-batch answers every URL cancelled and leaves no socket open")
    func shutdownMidBatch() async throws {
        let harness = try Harness()
        let engine = try FetchEngine(options: harness.options { $0.timeout = 30 })
        let urls = (0..<50).map { harness.url("/endless?i=\($0)") }
        let task = Task(executorPreference: OwnThread.current) { await engine.fetchAll(urls, kind: .get) }
        try await eventually { harness.server.stats.inFlightRequests == 6 }
        await engine.shutdown()
        let outcomes = await task.value
        #expect(outcomes.map(\.url) == urls)
        #expect(outcomes.allSatisfy { $0.failure == .cancelled })
        for _ in 0..<100 where openSockets(port: harness.server.httpPort) > 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(openSockets(port: harness.server.httpPort) == 0)
    }

    @Test("A batch after shutdown, or from a cancelled task, answers every URL cancelled without a request")
    func batchRefused() async throws {
        let harness = try Harness()
        let engine = try FetchEngine(options: harness.options())
        let urls = (0..<3).map { harness.url("/bytes/10?i=\($0)") }
        let cancelledTask = Task(executorPreference: OwnThread.current) {
            withUnsafeCurrentTask { $0?.cancel() }
            return await engine.fetchAll(urls)
        }
        let fromCancelled = await cancelledTask.value
        await engine.shutdown()
        let calls = Mutex<[Int]>([])
        let afterShutdown = await engine.fetchAll(urls) { done, _ in calls.withLock { $0.append(done) } }
        #expect(fromCancelled.map(\.url) == urls && fromCancelled.allSatisfy { $0.failure == .cancelled })
        #expect(afterShutdown.map(\.url) == urls && afterShutdown.allSatisfy { $0.failure == .cancelled })
        #expect(calls.withLock { $0 } == [1, 2, 3])
        #expect(await engine.fetchAll([]).isEmpty)
        #expect(harness.server.stats.totalRequests == 0)
    }
}
