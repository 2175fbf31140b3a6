import FixtureServer
import Foundation
import HTTPFetch
import InboxCards
import StrictJSON
import Testing
import WalletPass

@testable import Preflight

/// Issue 17 items 6 and 7 through the pipeline: a URL with a control character is refused by the plan and never
/// reaches the server; campaign text cannot drive the terminal; no credential form reaches any report format.
@Suite struct HostileURLTests {
    static func campaign(_ notifications: [String]) -> [UInt8] {
        Array(
            #"{"request": {"auth": "AUTH-SECRET", "notifications": [\#(notifications.joined(separator: ","))]}}"#.utf8)
    }

    /// A banner whose hero is `url` (JSON-escaped by the caller), with the given title.
    static func banner(_ url: String, title: String = "Sale") -> String {
        #"{"ios_title": "\#(title)", "content": "b", "inbox_days": 1, "inbox_image": "\#(url)", "data": {"displayType": "banner"}}"#
    }

    @Test func thePlanRefusesControlCharactersAndKeepsCleanURLs() {
        let cards = RetrievalPlanTests.cards([
            Self.banner(#"https://cdn.example.com/png/a\u0000b"#), Self.banner("https://cdn.example.com/ok.png"),
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "video", "video": {"url": "https://cdn.example.com/v.mp4", "poster": "https://cdn.example.com/p\u001b.jpg"}}}"#,
        ])
        let plan = AssetPlan.make(cards)
        #expect(plan.urls(.download) == ["https://cdn.example.com/ok.png"])
        #expect(plan.urls(.video) == ["https://cdn.example.com/v.mp4"])
        #expect(
            plan.refused.map(\.url) == ["https://cdn.example.com/png/a\u{0}b", "https://cdn.example.com/p\u{1B}.jpg"])
        let refused = plan.refusedAssets()
        #expect(refused.allSatisfy { !$0.isOK && $0.outcome?.failure == .invalidURL })
        #expect(refused.map { $0.findings.map(\.code) } == [[CardFindingCode.badURL], [CardFindingCode.badURL]])
        #expect(refused[0].findings[0].message.contains(#"control character \x00 at byte 29"#))
    }

    @Test func checkNeverRequestsAURLWithANUL() async throws {
        let harness = try RetrievalHarness()
        let cut = harness.url("/bytes/16")  // what a request cut at the NUL would ask for
        let pipeline = CheckPipeline(
            options: CheckOptions(), retriever: try harness.retriever(memoryOnly: true),
            passVerifier: try PassVerifier())
        let input = Self.campaign([Self.banner(cut + #"\u0000b.png"#), Self.banner(harness.url("/bytes/32"))])
        let (outcome, requests, _) = await harness.counting { await pipeline.run([("c.json", input)]) }
        await harness.engine.shutdown()
        #expect(harness.server.requests(for: "/bytes/16") == 0)
        #expect(harness.server.requests(for: "/bytes/32") == 1)
        #expect(requests == 1)
        let card = try #require(outcome.report.cards.first)
        #expect(card.broken)
        #expect(card.card.findings.contains { $0.code == CardFindingCode.badURL && $0.severity == .error })
        let asset = try #require(card.assets.first)
        #expect(asset.status == .failed && asset.failure == "invalid-url")
        #expect(asset.findings.map(\.code) == [CardFindingCode.badURL])
        #expect(outcome.report.summary.assetsFailed == 2)  // the NUL one, and /bytes/32 which is no image
        // The text report names the URL with the NUL escaped, never raw.
        let text = CheckTextReport.render(outcome.report, style: TextStyle(color: false))
        #expect(!text.utf8.contains(0))
        #expect(text.contains(#"/bytes/16\x00b.png"#))
    }

    /// Terminal escape sequences in campaign data, in every text renderer.
    static let hostile = #"\u001b]0;owned\u0007\u001b[2J"#
    static let hostileShown = #"\x1b]0;owned\x07\x1b[2J"#

    static func hostileRun() throws -> ResolveRun {
        // action_params is JSON inside a JSON string: its escapes are escaped once more.
        let inner = hostile.replacingOccurrences(of: "\\", with: "\\\\")
        let feed = #"""
            [{"inbox_id": "id\#(hostile)", "order": 1, "send_date": 1700000000, "rt": 4102444800, "action_type": 0,
              "status": 1, "title": "t", "text": "b", "action_params": "{\"displayType\": \"banner\"}"},
             {"inbox_id": "i2", "order": 2, "send_date": 1700000000, "rt": 4102444800, "action_type": 0,
              "status": 1, "title": "t", "text": "b", "action_params": "{\"displayType\": \"ban\#(inner)ner\"}"}]
            """#
        let perLanguage = #"""
            {"ios_title": {"en": "Hi", "x\#(hostile)": "Evil"}, "content": {"en": "b", "x\#(hostile)": "b"},
             "inbox_days": 1, "inbox_image": "https://cdn.example.com/a\#(hostile).png"}
            """#
        return ResolveJob(options: ResolveOptions()).run([
            ("feed\u{1B}[31m.json", Array(feed.utf8)), ("c.json", Self.campaign([perLanguage])),
        ]).run
    }

    @Test func resolveTextEscapesCampaignData() throws {
        let run = try Self.hostileRun()
        #expect(!run.cards.isEmpty)
        for color in [false, true] {
            let text = ResolveTextReport.render(run, style: TextStyle(color: color))
            let escapes = text.utf8.filter { $0 == 0x1B }.count
            // With colour the report's own SGR codes are the only ESC bytes; without, there is none at all.
            if !color { #expect(escapes == 0, "\(text.debugDescription)") }
            #expect(!text.utf8.contains(0x07))
            #expect(!text.contains("\u{1B}]0;") && !text.contains("\u{1B}[2J") && !text.contains("\u{1B}[31m.json"))
            #expect(text.contains(#"feed\x1b[31m.json"#))  // the id, in the table and the finding headings
            #expect(text.contains("x" + Self.hostileShown))  // the language
            #expect(text.contains("ban" + Self.hostileShown + "ner"))  // a finding message quoting the displayType
            #expect(text.contains("id" + Self.hostileShown))  // the SDK log line's message code
        }
    }

    @Test func checkAndPrefetchTextEscapeCampaignData() async throws {
        let harness = try RetrievalHarness()
        let pipeline = CheckPipeline(
            options: CheckOptions(), retriever: try harness.retriever(memoryOnly: true),
            passVerifier: try PassVerifier())
        let url = harness.url("/status/404?q=") + Self.hostile
        let outcome = await pipeline.run([("c.json", Self.campaign([Self.banner(url)]))])
        let text = CheckTextReport.render(outcome.report, style: TextStyle(color: false))
        #expect(!text.utf8.contains(0x1B) && !text.utf8.contains(0x07), "\(text.debugDescription)")
        #expect(text.contains("q=" + Self.hostileShown))

        let refused = AssetPlan.make(outcome.report.cards.map(\.card)).refusedAssets()
        let prefetch = RetrievalReport.text(
            refused, summary: RetrievalSummary(refused), store: nil, style: TextStyle(color: false))
        #expect(!prefetch.utf8.contains(0x1B) && prefetch.contains("q=" + Self.hostileShown))
        await harness.engine.shutdown()
    }

    @Test func tableCellsAreEscapedAndStayAligned() {
        var table = TextTable(header: ["A", "B"])
        table.append(["x\u{1B}[2Jy", "1"])
        table.append(["tab\there", "2"])
        // Widths count the escaped text: `tab\x09here` is 11 characters wide.
        let expected =
            "A" + String(repeating: " ", count: 12) + "B\n" + #"x\x1b[2Jy    1"# + "\n" + #"tab\x09here  2"# + "\n"
        #expect(table.render(TextStyle(color: false)) == expected)
    }

    /// Every credential form, planted in a campaign's URLs, never appears in any format.
    @Test func noCredentialFormReachesAnyFormat() async throws {
        let harness = try RetrievalHarness()
        let port = harness.server.httpPort
        let secrets = ["USERPW1", "BARETOK2", "FRAGTOK3", "MATRIXSIG4", "ENCTOK5", "LINKTOK6"]
        let notifications = [
            Self.banner("http://user:USERPW1@127.0.0.1:\(port)/bytes/16"),
            Self.banner("http://BARETOK2@127.0.0.1:\(port)/bytes/17#access_token=FRAGTOK3&state=ok"),
            Self.banner("http://127.0.0.1:\(port)/bytes/18;sig=MATRIXSIG4?page=2&to%6Ben=ENCTOK5"),
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"buttons": [{"title": "Go", "action": "openURL", "url": "myapp://x#TOKEN=LINKTOK6"}]}}"#,
        ]
        let pipeline = CheckPipeline(
            options: CheckOptions(), retriever: try harness.retriever(memoryOnly: true),
            passVerifier: try PassVerifier())
        let outcome = await pipeline.run([("c.json", Self.campaign(notifications))])
        await harness.engine.shutdown()
        let report = outcome.report
        let outputs = [
            ("text", CheckTextReport.render(report, style: TextStyle(color: false))),
            ("json", report.json.serialized()),
            ("junit", JUnitReport.render(report)),
            ("html", HTMLReport.render(report) { outcome.body(for: $0) }),
            (
                "resolve",
                ResolveTextReport.render(
                    ResolveJob(options: ResolveOptions()).run([("c.json", Self.campaign(notifications))]).run,
                    style: TextStyle(color: false))
            ),
        ]
        for (format, output) in outputs {
            for secret in secrets + ["AUTH-SECRET"] {
                #expect(!output.contains(secret), "\(secret) leaked in \(format)")
            }
            if format != "resolve" { #expect(output.contains("REDACTED"), "\(format)") }
        }
        #expect(outputs[1].1.contains("page=2"))  // ordinary parameters stay
    }
}
