import Findings
import Foundation
import InboxCards
import Testing

@testable import Preflight

/// `check --format markdown`: the verdict line agrees with the run, campaign text cannot break the Markdown,
/// and a 10,000-card campaign stays under 64 KiB.
struct RenderMarkdownTests {
    @Test(arguments: FailPolicy.allCases)
    func verdictLineTableAndDetails(policy: FailPolicy) throws {
        var report = RenderFixtures.report()
        Verdict(policy: policy).apply(to: &report)
        let markdown = MarkdownReport.render(report)
        let verdict = report.failing ? "❌ failing at `--fail-on \(policy)`" : "✅ passing at `--fail-on \(policy)`"
        #expect(markdown.hasPrefix("## inbox-assets check: \(verdict)\n"))
        #expect(markdown.contains("\(report.summary.failingCards) failing card"))
        // Every failing, broken or degraded card is a row; the rest are not.
        let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| card ") }
        #expect(rows.count == report.cards.filter { $0.failing || $0.broken || $0.card.degraded }.count)
        #expect(rows.filter { $0.contains("(failing)") }.count == report.summary.failingCards)
        #expect(markdown.contains("| “Slides” | carousel | 7.2 ios | **BROKEN (failing)** |") == (policy != .never))
        #expect(markdown.contains("<details><summary>"))
        #expect(!markdown.contains("SECRET"))
    }

    @Test func campaignTextIsEscaped() {
        #expect(MarkdownReport.cell("a|b <script> *x* `c`\nd") == "a\\|b &lt;script&gt; \\*x\\* 'c' d")
        #expect(MarkdownReport.cell(String(repeating: "x", count: 500)).count == MarkdownReport.maxCell + 1)
        #expect(MarkdownReport.span("c.json#[0]`x") == "`c.json#[0]'x`")
    }

    @Test func tenThousandCardsStayUnder64KiB() {
        let notification =
            #"{"ios_title": "Sale %d with a long title to make rows wide", "content": "b", "inbox_days": 1, "inbox_image": "https://cdn.example.com/missing-%d.png", "data": {"displayType": "captioned"}}"#
        let notifications = (0..<10_000).map { notification.replacingOccurrences(of: "%d", with: String($0)) }
        var report = RenderFixtures.report(
            #"{"request": {"notifications": ["# + notifications.joined(separator: ",") + "]}}", passes: [])
        Verdict(policy: .error).apply(to: &report)
        #expect(report.cards.count == 10_000)
        let markdown = MarkdownReport.render(report)
        #expect(markdown.utf8.count < 64 * 1024, "\(markdown.utf8.count) bytes")
        #expect(markdown.contains("… and \(10_000 - MarkdownReport.maxRows) more cards."))
        #expect(markdown.contains("more findings."))
    }
}
