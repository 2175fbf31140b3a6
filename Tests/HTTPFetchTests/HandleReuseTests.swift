import FixtureServer
import Foundation
import HTTPFetch
import TestSupport
import Testing

/// Pooled easy handles keep their shared options between transfers and get only the per-flight ones again:
/// nothing one request set may reach the next one on the same handle.
@Suite("Pooled handles", .ownThread)
struct HandleReuseTests {
    @Test("On one handle, a range, validators and a HEAD do not carry over to the requests after them")
    func nothingCarriesOver() async throws {
        let harness = try Harness()
        // One slot, so every call below runs on the same pooled handle, one after the other.
        let engine = try FetchEngine(options: harness.options { $0.concurrency = 1 })
        let ranged = MemorySink()
        let rangedOutcome = await engine.get(harness.url("/echo"), into: ranged, range: 0...3)
        let afterRange = MemorySink()
        let plain = await engine.get(harness.url("/echo"), into: afterRange)
        let conditional = MemorySink()
        _ = await engine.get(harness.url("/echo"), into: conditional, validators: Validators(etag: "\"v1\""))
        let afterValidators = MemorySink()
        _ = await engine.get(harness.url("/echo"), into: afterValidators)
        let head = await engine.probe(harness.url("/bytes/10"))
        let afterHead = MemorySink()
        let get = await engine.get(harness.url("/bytes/10"), into: afterHead)
        let port = closedPort()
        let missing = await engine.get("http://127.0.0.1:\(port)/")
        let afterFailure = await engine.get(harness.url("/hello.txt"))
        await engine.shutdown()

        func text(_ sink: MemorySink) -> String { String(decoding: sink.bytes, as: UTF8.self) }
        #expect(rangedOutcome.bytes == 4)
        #expect(plain.isOK && text(afterRange).hasPrefix("GET /echo\n") && !text(afterRange).contains("Range"))
        #expect(text(conditional).contains("If-None-Match: \"v1\"\n"))
        #expect(!text(afterValidators).contains("If-None-Match"))
        #expect(head.isOK && head.bytes == nil)
        #expect(get.isOK && get.bytes == 10 && afterHead.bytes.count == 10)
        #expect(harness.server.stats.requestsByMethod == ["GET": 6, "HEAD": 1])
        // curl's own detailed error text (its error buffer, not just curl_easy_strerror) reaches the outcome on a
        // pooled handle too, and the next transfer on it is clean.
        #expect(missing.failure == .connect && missing.errorText?.contains("port \(port)") == true)
        #expect(afterFailure.isOK && afterFailure.errorText == nil)
    }
}

/// Transfers wait for a connection being set up to the same host (CURLOPT_PIPEWAIT) so HTTP/2 multiplexes;
/// an HTTPS server that only speaks HTTP/1.1 must still get one connection per slot.
@Suite("Connection sharing", .ownThread)
struct ConnectionSharingTests {
    @Test("HTTPS to an HTTP/1.1-only server still runs the per-host limit's worth of requests at once")
    func httpsHTTP1StillParallel() async throws {
        let harness = try Harness(https: true)
        let engine = try FetchEngine(options: harness.options { $0.hostConcurrency = 3 })
        let urls = (0..<9).map { harness.url("/delay/300/bytes/10?i=\($0)", tls: .valid) }
        let outcomes = await engine.fetchAll(urls)
        await engine.shutdown()
        #expect(outcomes.allSatisfy { $0.isOK && $0.httpVersion == "1.1" })
        #expect(harness.server.stats.maxConcurrentRequests == 3)
        #expect(harness.server.stats.totalConnections == 3)
    }

    // Waiting for the first connection to a host to show whether it multiplexes (CURLOPT_PIPEWAIT) must not
    // hold the others back while that first response streams: libcurl 7.88 parked every later plain-http
    // transfer to the host until the first one ended, so one long video held back every image from its CDN.
    @Test(
        "Every slot of a host is used while the first response still streams (http and https)",
        arguments: [false, true])
    func slotsDoNotWaitForAStreamingResponse(https: Bool) async throws {
        let harness = try Harness(https: https)
        let engine = try FetchEngine(options: harness.options { $0.hostConcurrency = 3 })
        let urls = (0..<6).map { harness.url("/endless?i=\($0)", tls: https ? .valid : nil) }
        let task = Task(executorPreference: OwnThread.current) { await engine.fetchAll(urls, kind: .get) }
        for _ in 0..<1_000 where harness.server.stats.inFlightRequests < 3 {
            try await Task.sleep(for: .milliseconds(10))
        }
        let inFlight = harness.server.stats.inFlightRequests
        await engine.shutdown()
        let outcomes = await task.value
        #expect(inFlight == 3, "streaming responses at once (the per-host limit is 3)")
        #expect(harness.server.stats.totalConnections == 3)
        #expect(outcomes.allSatisfy { $0.failure == .cancelled })
    }
}
