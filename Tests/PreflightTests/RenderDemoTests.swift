import Foundation
import InboxCards
import Preflight
import StrictJSON
import Testing
import WalletPass

/// The real pipeline on the demo campaign against the loopback fixture server, rendered in every format this
/// module owns: the JSON validates against the schema, the JUnit XML parses with one failure per error, the HTML
/// embeds the fetched images, names every card and leaks no secret, and Chromium draws it.
@Suite(.serialized)
struct RenderDemoTests {
    static func demoOutcome(_ resolve: ResolveOptions = ResolveOptions()) async throws -> CheckPipeline.Outcome {
        try await RenderFixtures.withDemoPipeline(CheckOptions(resolve: resolve)) { await $0.run($1) }
    }

    @Test func demoReportInEveryFormat() async throws {
        let outcome = try await Self.demoOutcome()
        let report = outcome.report
        #expect(report.summary.broken > 0 && report.summary.degraded > 0)

        let validator = try #require(SchemaTests.validator)
        #expect(validator.validate(try JSON.parse(report.json.serialized())) == [])

        // A failure exactly for each failing card (and failing pass), listing the failing codes.
        let root = try #require(XMLTree.parse(JUnitReport.render(report)))
        let failingPasses = report.passes.filter { $0.verification.findings.contains { $0.verdict?.failing == true } }
        #expect(root.all("failure").count == report.summary.failingCards + failingPasses.count)
        #expect(
            report.summary.failingCards
                == report.cards.filter { $0.allFindings.contains { $0.severity == .error } }.count)

        var asked = 0
        let html = HTMLReport.render(report) { url in
            asked += 1
            return outcome.body(for: url)
        }
        #expect(asked > 0)
        #expect(html.contains(";base64,"))
        // Every card is in its language's feed; a card without a language is in every language's feed.
        let drawn = RenderHTMLTests.values(of: "data-card-id", in: html)
        #expect(Set(drawn) == Set(report.cards.map(\.card.id)))
        #expect(drawn.count >= report.cards.count)
        // demo.json's `auth` and its `?token=` values (a pass URL and a button URL).
        let outputs = [html, JUnitReport.render(report), report.json.serialized()]
        for secret in ["DEMO-API-TOKEN", "b7f3c9e1a2d4", "9c2f1e"] {
            #expect(outputs.allSatisfy { !$0.contains(secret) }, "\(secret) leaked")
        }

        guard Chromium.path != nil else { return }  // the DOM check below needs the browser (see RenderChromiumTests)
        let dom = try await RenderChromiumTests.withTemporaryDirectory { directory in
            let page = directory.appendingPathComponent("demo.html")
            try html.write(to: page, atomically: true, encoding: .utf8)
            return String(decoding: try await Chromium.run(["--dump-dom"], page: page, in: directory), as: UTF8.self)
        }
        #expect(dom.components(separatedBy: "<article ").count - 1 == drawn.count)
    }
}
