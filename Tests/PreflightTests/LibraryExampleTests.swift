import FixtureServer
import Foundation
import HTTPFetch
import Preflight
import Testing

/// The library example in README.md ("Using the library") is LibraryExample.swift verbatim: it compiles with the
/// tests, and it works against the fixture server.
struct LibraryExampleTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func readmeShowsThisExample() throws {
        let example = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("LibraryExample.swift"), encoding: .utf8)
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("```swift\n" + example + "```"), "README.md must show the example verbatim")
    }

    @Test func exampleChecksTheDemoCampaign() async throws {
        let server = try FixtureServer(root: Self.packageRoot.appendingPathComponent("Fixtures/www").path)
        defer { server.stop() }
        let network = FetchOptions(
            retries: 0, connectTo: ["cdn.example.com:443:127.0.0.1:\(server.httpsPort!)"], caFile: server.caFilePath)
        let report = try await preflight(
            campaign: Self.packageRoot.appendingPathComponent("Fixtures/campaigns/demo.json").path, network: network)
        #expect(report.summary.cards == 21)
        #expect(report.summary.degraded == 5)
        #expect(report.summary.broken == 5)
        #expect(report.passes.count == 1 && report.passes[0].verification.valid == false)
    }
}
