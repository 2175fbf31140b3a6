import HTTPFetch
import Testing

/// A URL holding a control character never reaches curl (which would cut it at a NUL) nor the server.
@Suite("Control characters in URLs")
struct ControlCharacterURLTests {
    @Test(arguments: ["\u{0}b.png", "\u{1B}[2J", "\u{7F}", "\t", "\r\nX-Injected: 1"])
    func refusedBeforeAnyRequest(_ tail: String) async throws {
        let harness = try Harness()
        let engine = try FetchEngine(options: harness.options())
        let url = harness.url("/bytes/16") + tail
        let get = await engine.get(url)
        let probe = await engine.probe(url)
        let batch = await engine.fetchAll([url, harness.url("/bytes/3")], kind: .get)
        await engine.shutdown()
        for outcome in [get, probe, batch[0]] {
            #expect(outcome.failure == .invalidURL)
            #expect(outcome.errorText?.contains("control character") == true)
        }
        #expect(batch[1].isOK)
        #expect(harness.server.requests(for: "/bytes/16") == 0)
        #expect(harness.server.stats.totalRequests == 1)
    }
}
