import FixtureServer
// README-EXAMPLE-BEGIN
import Foundation
import HTTPFetch
import Preflight
import Testing
import WalletPass

/// Runs the whole pre-flight on one campaign file and returns the report (the same model every format renders).
func preflight(campaign path: String, network: FetchOptions) async throws -> CheckReport {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let engine = try FetchEngine(options: network)
    let pipeline = CheckPipeline(
        options: CheckOptions(),  // SDK 7.2 on iOS, as `check` without options
        retriever: AssetRetriever(fetcher: engine, store: nil),  // or an AssetStore to keep and revalidate assets
        passVerifier: try PassVerifier())  // Apple's anchors are built in
    let outcome = await pipeline.run([(name: path, bytes: bytes)])
    await engine.shutdown()
    return outcome.report
}
// README-EXAMPLE-END

/// The library example in README.md ("Using the library") compiles (it is this file's first block, checked
/// verbatim against the README) and works against the fixture server.
struct LibraryExampleTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func readmeShowsThisExample() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let begin = try #require(source.range(of: "// README-EXAMPLE-BEGIN\n"))
        let end = try #require(source.range(of: "// README-EXAMPLE-END"))
        let example = String(source[begin.upperBound..<end.lowerBound])
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
        #expect(report.summary.cards == 16)
        #expect(report.summary.degraded == 5)
        #expect(report.summary.broken == 4)
        #expect(report.passes.count == 1 && report.passes[0].verification.valid == false)
    }
}
