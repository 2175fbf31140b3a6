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

    @Test func suitePerInputFileTestcasePerCardFailurePerError() throws {
        let xml = JUnitReport.render(Self.report)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "))
        let root = try #require(XMLTree.parse(xml))
        #expect(root.name == "testsuites")
        let suites = root.all("testsuite")
        #expect(suites.map { $0.attributes["name"] } == ["c.json", "passes"])

        let cards = suites[0].all("testcase").filter {
            $0.name == "testcase" && !($0.attributes["name"] ?? "").hasSuffix("[input]")
        }
        #expect(cards.count == Self.report.cards.count)
        #expect(cards.allSatisfy { $0.attributes["classname"] == "c.json" })
        #expect(cards.first?.attributes["name"] == "c.json#request.notifications[0] [7.2 ios]")

        // The plain push is an input finding: its own testcase in the file's suite.
        let inputs = suites[0].all("testcase").filter { ($0.attributes["name"] ?? "").hasSuffix("[input]") }
        #expect(inputs.map { $0.attributes["name"] } == ["c.json#request.notifications[7] [input]"])

        // The broken carousel fails twice: the card's `card.broken` and the slide's 404, with path and asset.
        let broken = try #require(cards.first { $0.attributes["name"]?.contains("notifications[3]") == true })
        let failures = broken.all("failure")
        #expect(failures.map { $0.attributes["type"] } == ["card.broken", "asset.httpStatus"])
        #expect(failures[1].attributes["message"] == "HTTP 404 for https://cdn.example.com/missing.png?sig=REDACTED")
        #expect(failures[1].text.contains("path: request.notifications[3].data.carousel[1].image"))
        #expect(failures[1].text.contains("asset: carouselSlide[1] https://cdn.example.com/missing.png?sig=REDACTED"))
        #expect(property(broken, "broken") == "true")

        // The degraded carousel passes (a warning), but says so in properties and output.
        let degraded = try #require(cards.first { $0.attributes["name"]?.contains("notifications[6]") == true })
        #expect(degraded.all("failure").isEmpty)
        #expect(property(degraded, "degraded") == "true")
        #expect(property(degraded, "degradeReason") == "no title/body")
        #expect(property(degraded, "resolved") == "classic")
        let out = try #require(degraded.all("system-out").first).text
        #expect(out.hasPrefix("carousel → classic — degraded: no title/body\nSDK log: Inbox cell degraded — "))
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

    /// Nothing is dropped: every error finding of the report is one `<failure>`, with its code as type.
    @Test(arguments: [ResolveOptions(), ResolveOptions(profiles: SDKProfile.allCases, platforms: Platform.allCases)])
    func everyErrorIsOneFailure(options: ResolveOptions) throws {
        let report = RenderFixtures.report(options: options)
        let root = try #require(XMLTree.parse(JUnitReport.render(report)))
        let errors = report.allFindings.filter { $0.severity == .error }
        #expect(root.all("failure").map { $0.attributes["type"] ?? "" }.sorted() == errors.map(\.code).sorted())
    }

    @Test func secretsNeverAppear() {
        let xml = JUnitReport.render(Self.report)
        #expect(!xml.contains("SECRET"))
        #expect(xml.contains("token=REDACTED"))
    }

    @Test func everyCardPlatformAndProfileIsNamed() throws {
        let options = ResolveOptions(profiles: [.v7_1, .v7_2], platforms: [.ios, .android])
        let report = RenderFixtures.report(options: options)
        let root = try #require(XMLTree.parse(JUnitReport.render(report)))
        let names = root.all("testcase").compactMap { $0.attributes["name"] }
        #expect(names.contains("c.json#request.notifications[1] [7.1 ios]"))
        #expect(names.contains("c.json#request.notifications[1] [6.13 android]"))
        #expect(names.filter { !$0.hasSuffix("[input]") && $0.hasPrefix("c.json#") }.count == report.cards.count)
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
        #expect(failure.attributes["message"] == expected)
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

    private func property(_ testCase: XMLNode, _ name: String) -> String? {
        testCase.all("property").first { $0.attributes["name"] == name }?.attributes["value"]
    }
}
