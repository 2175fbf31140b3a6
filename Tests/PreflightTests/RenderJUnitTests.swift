import Findings
import Foundation
import FoundationXML
import InboxCards
import Testing

@testable import Preflight

/// A parsed XML element: what a CI reporter would see.
final class XMLNode {
    let name: String
    let attributes: [String: String]
    var children: [XMLNode] = []
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// Every element below this one (depth first) with this name.
    func all(_ name: String) -> [XMLNode] {
        children.flatMap { ($0.name == name ? [$0] : []) + $0.all(name) }
    }
}

/// Parses with Foundation's XMLParser (libxml2): a document it rejects is not well-formed XML.
final class XMLTree: NSObject, XMLParserDelegate {
    private var stack: [XMLNode] = [XMLNode(name: "#document", attributes: [:])]

    static func parse(_ text: String) -> XMLNode? {
        let tree = XMLTree()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = tree
        guard parser.parse(), tree.stack.count == 1 else { return nil }
        return tree.stack[0].children.first
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let node = XMLNode(name: elementName, attributes: attributes)
        stack[stack.count - 1].children.append(node)
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { stack[stack.count - 1].text += string }
}

struct RenderJUnitTests {
    static let report = RenderFixtures.report()

    @Test func suitePerInputFileTestcasePerCardFailureWhenTheCardFails() throws {
        let xml = JUnitReport.render(Self.report)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "))
        #expect(!xml.contains("<properties"))
        let root = try #require(XMLTree.parse(xml))
        #expect(root.name == "testsuites")
        let suites = root.all("testsuite")
        #expect(suites.map { $0.attributes["name"] } == ["c.json", "passes"])

        let cards = suites[0].all("testcase").filter {
            $0.name == "testcase" && !($0.attributes["name"] ?? "").hasSuffix("[input]")
        }
        #expect(cards.count == Self.report.cards.count)
        #expect(cards.allSatisfy { $0.attributes["classname"] == "c.json" })
        // Named by title (or message code, or id), requested kind and target.
        #expect(cards.first?.attributes["name"] == "c.json#request.notifications[0] banner [7.2 ios]")
        #expect(cards.contains { $0.attributes["name"] == "\"Slides\" carousel [7.2 ios]" })

        // The plain push is an input finding: its own testcase in the file's suite.
        let inputs = suites[0].all("testcase").filter { ($0.attributes["name"] ?? "").hasSuffix("[input]") }
        #expect(inputs.map { $0.attributes["name"] } == ["c.json#request.notifications[7] [input]"])

        // The broken carousel fails once, its message listing the failing codes; the text has path and asset.
        let broken = try #require(cards.first { $0.attributes["name"] == "\"Slides\" carousel [7.2 ios]" })
        let failures = broken.all("failure")
        #expect(failures.map { $0.attributes["type"] } == ["card.broken"])
        #expect(failures.first?.attributes["message"] == "2 failing: card.broken, asset.httpStatus")
        let text = try #require(failures.first).text
        #expect(text.contains("HTTP 404 for https://cdn.example.com/missing.png?sig=REDACTED"))
        #expect(text.contains("(at request.notifications[3].data.carousel[1].image)"))
        #expect(text.contains("asset: carouselSlide[1] https://cdn.example.com/missing.png?sig=REDACTED"))

        // The degraded carousel passes at --fail-on error (a warning) and says so in its output.
        let degraded = try #require(cards.first { $0.attributes["name"]?.hasPrefix("\"No body\"") == true })
        #expect(degraded.all("failure").isEmpty)
        let out = try #require(degraded.all("system-out").first).text
        #expect(out.contains("carousel → classic — degraded: no title/body\nSDK log: Inbox cell degraded — "))
        #expect(out.contains("warning card.degraded"))

        // Counts: testcases, and failed testcases (the broken carousel and the invalid pass).
        let total = suites.reduce(0) { $0 + $1.all("testcase").count }
        #expect(root.attributes["tests"] == String(total))
        #expect(root.attributes["failures"] == "2")
        #expect(suites[0].attributes["failures"] == "1")
        #expect(suites[1].attributes["failures"] == "1")
        #expect(
            suites[1].all("testcase").map { $0.attributes["name"] } == [
                "https://cdn.example.com/good.pkpass?token=REDACTED",
                "https://cdn.example.com/bad.pkpass?token=REDACTED",
            ])
    }

    /// A `<failure>` exactly when the verdict says the card fails, at every `--fail-on`; nothing failing is dropped.
    @Test(
        arguments: FailPolicy.allCases,
        [
            ResolveOptions(), ResolveOptions(profiles: SDKProfile.allCases, platforms: Platform.allCases),
        ])
    func failureExactlyWhenTheCardFails(policy: FailPolicy, options: ResolveOptions) throws {
        var report = RenderFixtures.report(options: options)
        Verdict(policy: policy).apply(to: &report)
        let root = try #require(XMLTree.parse(JUnitReport.render(report)))
        let cases = root.all("testsuite").flatMap { $0.all("testcase") }
        for card in report.cards {
            let name = JUnitReport.caseName(card.card)
            let testCase = try #require(cases.first { $0.attributes["name"]?.hasPrefix(name) == true }, "\(name)")
            #expect(testCase.all("failure").isEmpty == !card.failing, "\(name) at \(policy)")
        }
        let failedCases = cases.filter { !$0.all("failure").isEmpty }.count
        #expect(root.attributes["failures"] == String(failedCases))
        #expect((failedCases > 0) == report.failing)
        let failingCodes = Set(report.allFindings.filter { $0.verdict?.failing == true }.map(\.code))
        var listed = Set<String>()
        for failure in root.all("failure") {
            let message = failure.attributes["message"] ?? ""
            let codes = message.firstRange(of: ": ").map { message[$0.upperBound...] } ?? ""
            listed.formUnion(codes.split(separator: ", ").map(String.init))
        }
        #expect(listed == failingCodes)
    }

    /// A card that would fail but whose failing findings are all suppressed is `<skipped>` with the reason.
    @Test func suppressedCardIsSkipped() throws {
        var report = Self.report
        let rules = FindingRules(ignore: [
            IgnoreRule(input: "c.json#request.notifications[3]", reason: "slide 2 is being re-uploaded")
        ])
        Verdict(policy: .error, rules: rules).apply(to: &report)
        let root = try #require(XMLTree.parse(JUnitReport.render(report)))
        let broken = try #require(
            root.all("testcase").first { $0.attributes["name"] == "\"Slides\" carousel [7.2 ios]" })
        #expect(broken.all("failure").isEmpty)
        #expect(broken.all("skipped").first?.attributes["message"] == "slide 2 is being re-uploaded")
        #expect(root.all("testsuite").first?.attributes["skipped"] == "1")
        #expect(
            try #require(broken.all("system-out").first).text.contains("[suppressed: slide 2 is being re-uploaded]"))
    }

    @Test func secretsNeverAppear() {
        let xml = JUnitReport.render(Self.report)
        #expect(!xml.contains("SECRET"))
        #expect(xml.contains("token=REDACTED"))
    }

    @Test func everyCardPlatformAndProfileIsNamedOnce() throws {
        let options = ResolveOptions(profiles: [.v7_1, .v7_2], platforms: [.ios, .android])
        let report = RenderFixtures.report(options: options)
        let root = try #require(XMLTree.parse(JUnitReport.render(report)))
        let names = root.all("testcase").compactMap { $0.attributes["name"] }
        #expect(names.contains("\"Sale <b>& \"more\"\" captioned [7.1 ios]"))
        #expect(names.contains("c.json#request.notifications[1] captioned [6.13 android]"))
        #expect(Set(names).count == names.count)
        #expect(names.filter { !$0.hasSuffix("[input]") && !$0.hasPrefix("https://") }.count == report.cards.count)
    }

    @Test func emptyReportIsOneEmptySuite() throws {
        let report = CheckReport(
            options: ResolveOptions(), summary: CheckSummary(), inputFindings: [], cards: [], passes: [])
        let root = try #require(XMLTree.parse(JUnitReport.render(report)))
        #expect(root.attributes["tests"] == "0")
        #expect(root.all("testsuite").map { $0.attributes["name"] } == ["inbox-assets check"])
    }

    /// Hostile text in every place a string reaches the XML: the document stays well-formed and says the same.
    @Test(arguments: [
        ("markup", "<b>&amp; \"quoted\" 'single' ]]>", "<b>&amp; \"quoted\" 'single' ]]>"),
        (
            "control characters", "nul\u{0} bell\u{7} esc\u{1B} del\u{7F}",
            "nul\u{FFFD} bell\u{FFFD} esc\u{FFFD} del\u{7F}"
        ),
        ("noncharacters", "a\u{FFFE}b\u{FFFF}c", "a\u{FFFD}b\u{FFFD}c"),
        ("white space", "tab\tline\nreturn\r.", "tab\tline\nreturn\r."),
        ("emoji and accents", "📌 Café — ✓", "📌 Café — ✓"),
        ("secret", "see https://x.example/a?token=abc", "see https://x.example/a?token=REDACTED"),
    ])
    func hostileTextStaysWellFormed(name: String, text: String, expected: String) throws {
        let finding = Finding.error(text, text, path: text)
        let warning = Finding.warning("w", text)
        let source = "in\(text).json#[0]"
        let report = CheckReport(
            options: ResolveOptions(), summary: CheckSummary(),
            inputFindings: [
                SourcedFinding(source: source, finding: finding), SourcedFinding(source: source, finding: warning),
            ],
            cards: [], passes: [])
        let xml = JUnitReport.render(report)
        let root = try #require(XMLTree.parse(xml), "\(name): not well-formed:\n\(xml)")
        let failure = try #require(root.all("failure").first)
        #expect(failure.attributes["type"] == expected)
        #expect(failure.attributes["message"] == "1 failing: \(expected)")
        let outText = try #require(root.all("system-out").first).text
        // Element text: XML turns a lone CR into LF; attributes keep tabs and line breaks as written.
        #expect(outText == "warning w: \(expected.replacingOccurrences(of: "\r", with: "\n"))")
    }

    @Test(arguments: [
        ("plain", "plain"), ("a<b>&c", "a&lt;b&gt;&amp;c"), ("\"'", "\"'"),
        ("\u{1}\u{8}\u{B}\u{C}", "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"),
    ])
    func escapesElementText(input: String, expected: String) {
        #expect(Markup.text(input) == expected)
    }

    @Test(arguments: [
        ("plain", "plain"), ("\"'<&", "&quot;&#39;&lt;&amp;"), ("\t\n\r", "&#9;&#10;&#13;"),
    ])
    func escapesAttributes(input: String, expected: String) {
        #expect(Markup.attribute(input) == expected)
    }

}
