import Findings
import Foundation
import InboxCards
import StrictJSON
import TestSupport
import Testing

@testable import Preflight

/// The one verdict: `--fail-on` × severity × suppressed × baseline → failing, and every format says the same.
struct VerdictTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var policy: FailPolicy
        var severity: Severity
        var code = "asset.httpStatus"
        var suppressed = false
        var known = false
        var failing: Bool
        var testDescription: String {
            "\(policy) \(severity) \(code)\(suppressed ? " suppressed" : "")\(known ? " known" : "") → \(failing)"
        }
    }

    static let table: [Row] = [
        Row(policy: .error, severity: .error, failing: true),
        Row(policy: .error, severity: .warning, failing: false),
        Row(policy: .error, severity: .info, failing: false),
        Row(policy: .error, severity: .error, suppressed: true, failing: false),
        Row(policy: .error, severity: .error, known: true, failing: false),
        Row(policy: .error, severity: .error, suppressed: true, known: true, failing: false),
        Row(policy: .warning, severity: .error, failing: true),
        Row(policy: .warning, severity: .warning, failing: true),
        Row(policy: .warning, severity: .info, failing: false),
        Row(policy: .warning, severity: .warning, suppressed: true, failing: false),
        Row(policy: .warning, severity: .warning, known: true, failing: false),
        Row(policy: .degrade, severity: .error, failing: true),
        Row(policy: .degrade, severity: .warning, failing: false),
        Row(policy: .degrade, severity: .warning, code: "card.degraded", failing: true),
        Row(policy: .degrade, severity: .warning, code: "card.degraded", suppressed: true, failing: false),
        Row(policy: .degrade, severity: .warning, code: "card.degraded", known: true, failing: false),
        Row(policy: .error, severity: .warning, code: "card.degraded", failing: false),
        Row(policy: .never, severity: .error, failing: false),
        Row(policy: .never, severity: .warning, code: "card.degraded", failing: false),
    ]

    /// A report whose only finding is the row's, judged with an ignore rule and a baseline when the row asks.
    static func judged(_ row: Row) -> CheckReport {
        let finding = Finding(row.severity, row.code, "the finding", path: "request.notifications[0]")
        let source = "c.json#request.notifications[0]"
        var report = CheckReport(
            options: ResolveOptions(), summary: CheckSummary(),
            inputFindings: [SourcedFinding(source: source, finding: finding)], cards: [], passes: [])
        let rules = FindingRules(ignore: row.suppressed ? [IgnoreRule(code: row.code, reason: "accepted")] : [])
        let fingerprint = Baseline.fingerprint(finding, FindingContext(id: source))
        let baseline = Baseline(
            entries: row.known ? [Baseline.Entry(fingerprint: fingerprint, code: row.code, hint: source)] : [])
        Verdict(policy: row.policy, rules: rules, baseline: baseline).apply(to: &report)
        return report
    }

    @Test(arguments: table)
    func verdictTable(row: Row) throws {
        let report = Self.judged(row)
        let verdict = try #require(report.inputFindings.first?.finding.verdict)
        #expect(verdict.failing == row.failing)
        #expect(verdict.baseline == (row.known ? .known : .new))
        #expect((verdict.suppressed != nil) == row.suppressed)
        #expect(report.failing == row.failing)
        #expect(report.summary.failingFindings == (row.failing ? 1 : 0))
    }

    /// A verdict without fingerprints (what the JSON and JUnit walks judge with) says the same but names none,
    /// unless a baseline or the entries kept for `--write-baseline` need it.
    @Test(arguments: table, [false, true])
    func fingerprintsOnlyWhereRead(row: Row, keepingEntries: Bool) throws {
        let finding = Finding(row.severity, row.code, "the finding", path: "request.notifications[0]")
        let context = FindingContext(id: "c.json#request.notifications[0]")
        let rules = FindingRules(ignore: row.suppressed ? [IgnoreRule(code: row.code, reason: "accepted")] : [])
        for baseline in [nil, Baseline(entries: [])] {
            let full = Verdict(policy: row.policy, rules: rules, baseline: baseline)
            var bare = full
            bare.fingerprints = false
            var fullTally = Verdict.Tally(baseline: baseline, keepingEntries: keepingEntries)
            var bareTally = Verdict.Tally(baseline: baseline, keepingEntries: keepingEntries)
            var judged = finding
            var bareJudged = finding
            full.judge(&judged, context, tally: &fullTally)
            bare.judge(&bareJudged, context, tally: &bareTally)
            let verdict = try #require(judged.verdict)
            let bareVerdict = try #require(bareJudged.verdict)
            #expect(verdict.fingerprint == Baseline.fingerprint(finding, context))
            let needed = baseline != nil || keepingEntries
            #expect(bareVerdict.fingerprint == (needed ? verdict.fingerprint : ""))
            #expect(bareVerdict.failing == verdict.failing && bareVerdict.suppressed == verdict.suppressed)
            #expect(bareVerdict.baseline == verdict.baseline)
            #expect(bareTally.counts == fullTally.counts)
            #expect(bareTally.entries?.map(\.fingerprint) == fullTally.entries?.map(\.fingerprint))
        }
    }

    /// JSON, JUnit and the text summary read the same verdict.
    @Test(arguments: table)
    func everyFormatAgrees(row: Row) throws {
        let report = Self.judged(row)
        let json = try JSON.parse(report.json.serialized())
        #expect(json["summary"]?["failing"] == .bool(row.failing))
        #expect(json["findings"]?[0]?["failing"] == .bool(row.failing))
        let junit = try #require(XMLTree.parse(JUnitReport.render(report)))
        #expect(junit.attributes["failures"] == (row.failing ? "1" : "0"))
        #expect(
            junit.all("skipped").isEmpty == !(row.suppressed || row.known)
                || row.policy.counts(
                    Finding(row.severity, row.code, "")) == false
        )
        let sarif = try JSON.parse(SarifReport.render(report, version: "0"))
        let result = sarif["runs"]?[0]?["results"]?[0]
        #expect(result?["properties"]?["failing"] == .bool(row.failing))
        #expect((result?["suppressions"] != nil) == row.suppressed)
        #expect(result?["baselineState"]?.stringValue == (row.known ? "unchanged" : "new"))
        let markdown = MarkdownReport.render(report)
        #expect(markdown.hasPrefix("## inbox-assets check: \(row.failing ? "❌ failing" : "✅ passing")"))
        let text = CheckTextReport.render(report, style: TextStyle(color: false))
        #expect(text.contains("failing (--fail-on \(row.policy.rawValue))  \(row.failing ? "yes" : "no")"))
        let html = HTMLReport.render(report, image: { _ in nil })
        #expect(html.contains("data-failing=\"\(row.failing)\""))
        #expect(html.contains(row.failing ? "Fails at --fail-on \(row.policy.rawValue)" : "Passes at --fail-on"))
        #expect(html.contains("suppressed: accepted") == row.suppressed)
        #expect(html.contains("known (baseline)") == row.known)
    }

    /// The preview marks what fails the run: the FAILING tag on exactly the failing cards, and each root cause once
    /// at the top.
    @Test func thePreviewMarksFailingCardsAndRootCauses() throws {
        var report = SchemaTests.hostAnswering503()
        Verdict(policy: .error).apply(to: &report)
        let html = HTMLReport.render(report, image: { _ in nil })
        let failing = report.cards.filter(\.failing).count
        #expect(failing == 2)
        #expect(html.components(separatedBy: "<span class=\"tag bad\">FAILING</span>").count - 1 == failing)
        #expect(html.components(separatedBy: "data-root-cause=").count - 1 == 1)
        #expect(html.contains("data-root-cause=\"asset.hostStatus down.example.com\""))
        #expect(html.contains("Fails at --fail-on error</b>: 2 cards"))

        var never = SchemaTests.hostAnswering503()
        Verdict(policy: .never).apply(to: &never)
        let calm = HTMLReport.render(never, image: { _ in nil })
        #expect(!calm.contains(">FAILING<"))
        #expect(calm.contains("Passes at --fail-on never"))
    }

    @Test(arguments: [
        ("asset.*", "asset.httpStatus", true), ("asset.*", "card.broken", false), ("a?c", "abc", true),
        ("*", "", true), ("https://cdn.example.com/*", "https://cdn.example.com/a/b.png", true),
        ("*.png", "https://x/a.png?x=1", false), ("*a*b*", "xxaxxbxx", true), ("ab", "abc", false),
    ])
    func globs(pattern: String, text: String, matches: Bool) {
        #expect(Glob.matches(pattern, text) == matches)
    }

    /// Ignore rules match on code, URL, input file or message id, and kind; every matcher a rule has must match.
    @Test func ignoreRulesMatchEveryField() throws {
        var report = RenderFixtures.report()
        let rules = FindingRules(
            ignore: [
                IgnoreRule(url: "https://cdn.example.com/missing.png*", reason: "slide re-upload"),
                IgnoreRule(code: "card.broken", kind: "carousel", reason: "carousel broken is known"),
                IgnoreRule(code: "pass.*", input: "https://cdn.example.com/bad.pkpass*", reason: "old pass"),
            ], severity: ["card.degraded": .error])
        Verdict(policy: .error, rules: rules).apply(to: &report)
        let all = report.allFindings
        let reasons = Set(all.compactMap { $0.verdict?.suppressed })
        #expect(reasons == ["slide re-upload", "carousel broken is known", "old pass"])
        // The override makes the degraded card's finding an error: it fails now.
        let degraded = try #require(report.cards.first { $0.card.degraded })
        #expect(degraded.failing)
        #expect(degraded.card.findings.first { $0.code == "card.degraded" }?.severity == .error)
        #expect(report.summary.errors == all.count(.error))
    }

    /// `input` also matches the finding's own JSON path in its file (`file#path`).
    @Test func ignoreByTheFindingsJSONPath() throws {
        var report = RenderFixtures.report()
        let rule = IgnoreRule(input: "c.json#request.notifications[6].data.*", reason: "carousel copy pending")
        Verdict(policy: .degrade, rules: FindingRules(ignore: [rule])).apply(to: &report)
        let degraded = try #require(report.cards.first { $0.card.degraded })
        let finding = try #require(degraded.card.findings.first { $0.code == "card.degraded" })
        #expect(finding.path?.hasPrefix("request.notifications[6].data") == true)
        #expect(finding.verdict?.suppressed == "carousel copy pending")
        #expect(!degraded.failing)
    }

    /// The baseline written from a run makes the same run pass; a new finding still fails, a gone one is fixed.
    @Test func baselineRoundTrip() throws {
        var first = RenderFixtures.report()
        Verdict(policy: .warning).apply(to: &first)
        #expect(first.failing)
        let text = Baseline.of(first).text
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(
            lines.map(String.init)
                == lines.map(String.init).sorted { a, b in
                    let (x, y) = (a.split(separator: " "), b.split(separator: " "))
                    return (x[1], x.dropFirst(2).joined(separator: " "), x[0]) < (
                        y[1], y.dropFirst(2).joined(separator: " "), y[0]
                    )
                })
        let baseline = try Baseline.parse(text)
        #expect(baseline == Baseline.of(first))
        #expect(Baseline(entries: baseline.entries).text == text)

        var again = RenderFixtures.report()
        Verdict(policy: .warning, baseline: baseline).apply(to: &again)
        #expect(!again.failing)
        #expect(again.allFindings.allSatisfy { $0.verdict?.baseline == .known })
        #expect(again.baselineFixed == [])

        // One entry gone from the campaign (fixed), one finding new.
        let extra = Baseline.Entry(fingerprint: "00000000000000ff", code: "asset.httpStatus", hint: "gone")
        var changed = RenderFixtures.report()
        changed.inputFindings.append(
            SourcedFinding(source: "c.json#[9]", finding: .warning("input.new", "a new warning")))
        Verdict(policy: .warning, baseline: Baseline(entries: baseline.entries + [extra])).apply(to: &changed)
        #expect(changed.failing)
        #expect(changed.summary.failingFindings == 1)
        #expect(changed.baselineFixed == [extra])
        let json = changed.json.serialized()
        #expect(json.contains("\"fixed\":[{\"fingerprint\":\"00000000000000ff\""))
    }

    @Test(arguments: [
        ("zz not-a-fingerprint", 1), ("# comment\n\n0123456789abcdef\n", 3), ("0123456789abcdeg code", 1),
    ])
    func baselineParseErrorsNameTheLine(text: String, line: Int) {
        #expect(throws: Baseline.ParseError.self) { try Baseline.parse(text) }
        do {
            _ = try Baseline.parse(text)
        } catch {
            #expect(error.line == line)
        }
    }

    /// Judging piece by piece with a tally (as a streamed report does) counts what ``Verdict/apply(to:)`` counts,
    /// finds the same fixed baseline entries, and keeps no baseline entries unless asked to.
    @Test func aTallyCountsWhatApplyCounts() {
        let findings = Self.table.enumerated().map { index, row in
            SourcedFinding(
                source: "c.json#request.notifications[\(index)]",
                finding: Finding(row.severity, row.code, "finding \(index)", path: "request.notifications[\(index)]"))
        }
        let known = Baseline.fingerprint(findings[0].finding, FindingContext(id: findings[0].source))
        let baseline = Baseline(entries: [
            Baseline.Entry(fingerprint: known, code: findings[0].finding.code, hint: "known"),
            Baseline.Entry(fingerprint: "00000000000000aa", code: "asset.httpStatus", hint: "fixed since"),
        ])
        let verdict = Verdict(
            policy: .warning, rules: FindingRules(ignore: [IgnoreRule(code: "card.degraded", reason: "accepted")]),
            baseline: baseline)
        let ignored = findings.filter { $0.finding.code == "card.degraded" }.count
        var report = CheckReport(
            options: ResolveOptions(), summary: CheckSummary(), inputFindings: findings, cards: [], passes: [])
        verdict.apply(to: &report)

        var tally = Verdict.Tally(baseline: baseline, keepingEntries: false)
        var inputFindings = findings
        var passes: [PassCheck] = []
        verdict.judge(inputFindings: &inputFindings, passes: &passes, tally: &tally)
        var summary = CheckSummary()
        verdict.finish(&summary, tally)
        #expect(summary == report.summary)
        #expect(summary.known == 1 && summary.suppressed == ignored && summary.failing)
        #expect(tally.counts.new == report.newFindings && report.newFindings == findings.count - 1)
        #expect(inputFindings == report.inputFindings, "the same verdict on every finding")
        #expect(
            verdict.fixed(tally)?.map(\Baseline.Entry.hint) == ["fixed since"]
                && report.baselineFixed == verdict.fixed(tally))
        #expect(tally.entries == nil && report.findingEntries.count == findings.count - ignored)
    }
}

/// Real outputs against the schemas CI tools use, with PyPI `xmlschema` and `jsonschema` (Makefile test-deps).
struct CISchemaTests {
    static let schemas = "\(RenderFixtures.root)/Tests/Schemas"

    /// Runs a Python validator on `document`; returns its error output, empty when the document is valid.
    static func validate(_ script: String, schema: String, document: String, suffix: String) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ci-\(UUID().uuidString)\(suffix)")
        try Data(document.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Child.run("/usr/bin/env", ["python3", "-c", script, schema, file.path], timeout: 120)
        return result.status == 0 ? "" : result.errors + result.output
    }

    static let xsdScript = "import sys, xmlschema; xmlschema.XMLSchema(sys.argv[1]).validate(sys.argv[2])"

    @Test(arguments: FailPolicy.allCases)
    func junitIsValidAgainstJenkinsXunitXSD(policy: FailPolicy) async throws {
        var report = RenderFixtures.report(
            options: ResolveOptions(profiles: SDKProfile.allCases, platforms: Platform.allCases))
        let rules = FindingRules(ignore: [IgnoreRule(code: "pass.*", reason: "old pass")])
        Verdict(policy: policy, rules: rules, baseline: Baseline(entries: [])).apply(to: &report)
        let errors = try await Self.validate(
            Self.xsdScript, schema: "\(Self.schemas)/junit-10.xsd", document: JUnitReport.render(report), suffix: ".xml"
        )
        #expect(errors == "")
    }

    /// Surefire's report XSD has one `<testsuite>` per file: each suite of the document, on its own, is valid.
    @Test func everySuiteIsValidAgainstSurefiresXSD() async throws {
        var report = RenderFixtures.report(
            options: ResolveOptions(profiles: SDKProfile.allCases, platforms: Platform.allCases))
        Verdict(policy: .warning, rules: FindingRules(ignore: [IgnoreRule(code: "pass.*", reason: "old")]))
            .apply(to: &report)
        let script = """
            import sys, xmlschema, xml.etree.ElementTree as ET
            schema = xmlschema.XMLSchema(sys.argv[1])
            suites = ET.parse(sys.argv[2]).getroot().findall("testsuite")
            assert len(suites) == 2, len(suites)
            for suite in suites: schema.validate(ET.tostring(suite, encoding="unicode"))
            """
        let errors = try await Self.validate(
            script, schema: "\(Self.schemas)/surefire-test-report.xsd", document: JUnitReport.render(report),
            suffix: ".xml")
        #expect(errors == "")
    }

    /// The validator really validates: the old layout (`<properties>` in a testcase) is refused.
    @Test func theXSDRefusesPropertiesInATestcase() async throws {
        let bad = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x">
            <properties><property name="a" value="b"/></properties></testcase></testsuite></testsuites>
            """
        let errors = try await Self.validate(
            Self.xsdScript, schema: "\(Self.schemas)/junit-10.xsd", document: bad, suffix: ".xml")
        #expect(errors.contains("properties"))
    }

}
