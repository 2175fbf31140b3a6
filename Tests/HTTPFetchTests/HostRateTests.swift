import FixtureServer
import Testing

@testable import HTTPFetch

/// `--host-rate N`: transfers to one host start at most N a second, whatever `--host-concurrency` allows.
struct HostRateTests {
    /// Each response takes 100 ms; at 2 requests a second they start 500 ms apart, so the server never sees two
    /// at once — without the rate the same four run together.
    @Test(arguments: [nil, 2.0] as [Double?])
    func theRateSpacesTransfersToOneHost(rate: Double?) async throws {
        let harness = try Harness()
        let engine = try FetchEngine(
            options: harness.options {
                $0.hostConcurrency = 6
                $0.hostRate = rate
            })
        let outcomes = await withTaskGroup(of: FetchOutcome.self) { group in
            for index in 0..<4 { group.addTask { await engine.probe(harness.url("/delay/100/bytes/10?i=\(index)")) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        await engine.shutdown()
        #expect(outcomes.allSatisfy { $0.isOK })
        if rate == nil {
            #expect(harness.server.stats.maxConcurrentRequests > 1)
        } else {
            #expect(harness.server.stats.maxConcurrentRequests == 1)
        }
    }
}
