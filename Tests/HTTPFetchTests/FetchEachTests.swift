import FixtureServer
import Foundation
import HTTPFetch
import Synchronization
import Testing

/// `FetchEngine.fetchEach` hands downloads with their own sinks and validators to the engine a window at a time
/// (the retriever's path into the store); the default `AssetFetching` version runs one task per request. Both must
/// answer every request exactly once, with its own body in its own sink.
@Suite("fetchEach: many downloads, each into its own sink")
struct FetchEachTests {
    /// `AssetFetching`'s default `fetchEach` (one task per request) over the real engine's `get`.
    struct OneTaskPerRequest: AssetFetching {
        let engine: FetchEngine
        func probe(_ url: String, validators: Validators) async -> FetchOutcome {
            await engine.probe(url, validators: validators)
        }
        func get(_ url: String, into sink: any FetchSink, validators: Validators, range: ClosedRange<Int>?) async
            -> FetchOutcome
        {
            await engine.get(url, into: sink, validators: validators, range: range)
        }
    }

    enum Path: String, CaseIterable, Sendable {
        case engine, defaultImplementation
    }

    private func fetchEach(
        _ path: Path, _ engine: FetchEngine, _ requests: [FetchRequest], window: Int
    ) async -> [Int: FetchOutcome] {
        var outcomes: [Int: FetchOutcome] = [:]
        var calls = 0
        let body = { (index: Int, outcome: FetchOutcome) in
            calls += 1
            outcomes[index] = outcome
        }
        switch path {
        case .engine: await engine.fetchEach(requests, window: window, body)
        case .defaultImplementation: await OneTaskPerRequest(engine: engine).fetchEach(requests, window: window, body)
        }
        #expect(calls == requests.count, "every request answered exactly once")
        return outcomes
    }

    @Test(
        "300 downloads through a window of 16: each body lands in its own sink and hashes like the file",
        arguments: Path.allCases)
    func bodiesInTheirOwnSinks(_ path: Path) async throws {
        let harness = try Harness()
        let sizes = (0..<300).map { 1 + ($0 * 7919) % 20_000 }
        let engine = try FetchEngine(
            options: harness.options {
                $0.concurrency = 4
                $0.hostConcurrency = 4
            })
        let sinks = sizes.map { _ in MemorySink() }
        // Every third URL repeats an earlier one: in flight together they share a transfer, each sink still gets
        // the whole body.
        let requests = sizes.indices.map { index in
            let size = sizes[index - index % 3]
            return FetchRequest(url: harness.url("/bytes/\(size)?i=\(index - index % 3)"), sink: sinks[index])
        }
        let outcomes = await fetchEach(path, engine, requests, window: 16)
        await engine.shutdown()
        #expect(outcomes.count == requests.count)
        for index in requests.indices {
            let outcome = try #require(outcomes[index])
            let size = sizes[index - index % 3]
            #expect(outcome.isOK, "\(index): \(outcome.errorText ?? "")")
            #expect(outcome.url == requests[index].url)
            #expect(outcome.bytes == size)
            #expect(sinks[index].bytes == (0..<size).map { UInt8($0 % 251) }, "\(index)")
        }
        #expect(harness.server.stats.maxConcurrentRequests <= 4)
    }

    @Test("Validators travel with each request: unchanged files answer 304 and send no body", arguments: Path.allCases)
    func validatorsPerRequest(_ path: Path) async throws {
        let harness = try Harness()
        let engine = try FetchEngine(options: harness.options())
        let first = await engine.get(harness.url("/img/hero.png"))
        #expect(first.isOK)
        harness.server.resetCounters()
        let requests = [
            FetchRequest(
                url: harness.url("/img/hero.png"), validators: Validators(etag: first.etag), sink: MemorySink()),
            FetchRequest(url: harness.url("/hello.txt"), sink: MemorySink()),
            FetchRequest(
                url: harness.url("/img/hero.png"), validators: Validators(lastModified: first.lastModified),
                sink: MemorySink()),
        ]
        let outcomes = await fetchEach(path, engine, requests, window: 2)
        await engine.shutdown()
        #expect(outcomes[0]?.notModified == true)
        #expect(outcomes[2]?.notModified == true)
        #expect(outcomes[1]?.notModified == false)
        #expect((requests[0].sink as? MemorySink)?.bytes.isEmpty == true)
        #expect((requests[1].sink as? MemorySink)?.bytes == Array("hello, inbox\n".utf8))
        #expect(harness.server.stats.responsesByStatus[304] == 2)
        #expect(harness.server.stats.bodyBytesSent == "hello, inbox\n".utf8.count)
    }

    @Test("Cancelling mid-list answers every request once, the unfinished and the never handed over cancelled")
    func cancelMidList() async throws {
        let harness = try Harness()
        let engine = try FetchEngine(
            options: harness.options {
                $0.concurrency = 2
                $0.timeout = 60
            })
        let quick = (0..<4).map { FetchRequest(url: harness.url("/bytes/10?quick=\($0)"), sink: MemorySink()) }
        let stalled = (0..<200).map {
            FetchRequest(url: harness.url("/delay/30000/bytes/10?i=\($0)"), sink: MemorySink())
        }
        let answered = Mutex<[Int: FetchOutcome]>([:])
        let calls = Atomic<Int>(0)
        let task = Task {
            // A window of 8: most requests are still with this task, not the engine, when it is cancelled.
            await engine.fetchEach(quick + stalled, window: 8) { index, outcome in
                calls.add(1, ordering: .relaxed)
                answered.withLock { $0[index] = outcome }
            }
        }
        for _ in 0..<500 where !(calls.load(ordering: .relaxed) == 4 && harness.server.stats.inFlightRequests == 2) {
            try await Task.sleep(for: .milliseconds(10))
        }
        task.cancel()
        await task.value
        let outcomes = answered.withLock { $0 }
        #expect(calls.load(ordering: .relaxed) == 204)
        #expect(outcomes.count == 204)
        #expect((0..<4).allSatisfy { outcomes[$0]?.isOK == true })
        #expect((4..<204).allSatisfy { outcomes[$0]?.failure == .cancelled })
        // Both slots are free again, and only the two stalled requests that were running reached the server.
        #expect(await engine.probe(harness.url("/bytes/10?after")).isOK)
        await engine.shutdown()
        #expect(harness.server.stats.totalRequests == 4 + 2 + 1)
    }

    @Test("After shutdown every request is answered cancelled at once")
    func afterShutdown() async throws {
        let harness = try Harness()
        let engine = try FetchEngine(options: harness.options())
        await engine.shutdown()
        let requests = (0..<10).map { FetchRequest(url: harness.url("/bytes/10?i=\($0)"), sink: MemorySink()) }
        let outcomes = await fetchEach(.engine, engine, requests, window: 4)
        #expect(outcomes.count == 10)
        #expect(outcomes.values.allSatisfy { $0.failure == .cancelled })
        #expect(harness.server.stats.totalRequests == 0)
    }
}
