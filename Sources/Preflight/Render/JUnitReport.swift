import Findings
import InboxCards

/// `check --format junit`: the report as JUnit XML for CI test reporters (Jenkins, GitLab, GitHub actions).
///
/// Layout, chosen for how those tools group and track results:
/// - one `<testsuite>` per input file (the part of a card id before `#`), so a CI page groups by campaign;
/// - in it, one `<testcase>` per card, `classname` = the input file, `name` = the card id plus its target
///   (`c.json#request.notifications[2] [7.2 ios en]`). The name never carries the outcome, so a card keeps
///   its test history when it starts or stops degrading;
/// - one `<failure>` per **error** finding of the card or its assets (`type` = the finding code, `message` =
///   the redacted message, text = path and the asset it is about). Only errors fail a testcase: a degraded
///   card (a warning) or a broken card without an error passes, and shows as such in its `<properties>`
///   (`requested`, `resolved`, `degraded`, `degradeReason`, `broken`) and in the first line of its
///   `<system-out>`, followed by the SDK log line and every warning and info finding;
/// - findings about inputs become one testcase per source (`… [input]`) in its file's suite;
/// - verified passes form a last suite, `passes`, one testcase per pass URL.
///
/// Every URL and message is redacted; every string is escaped for XML 1.0, characters XML cannot carry
/// (control characters) are replaced by U+FFFD. The output is deterministic (no timestamps, `time="0"`).
public enum JUnitReport {
    /// The whole document, UTF-8 text starting with the XML declaration.
    public static func render(_ report: CheckReport) -> String {
        var suites: [Suite] = []
        var suiteIndex: [String: Int] = [:]
        func suite(named name: String) -> Int {
            if let index = suiteIndex[name] { return index }
            suites.append(Suite(name: name))
            suiteIndex[name] = suites.count - 1
            return suites.count - 1
        }
        var inputCases: [String: Int] = [:]  // source → its testcase's index in its suite: one testcase per source
        for sourced in report.inputFindings {
            let index = suite(named: inputFile(of: sourced.source))
            let key = sourced.source
            if let caseIndex = inputCases[key] {
                suites[index].cases[caseIndex].add(sourced.finding, context: nil)
            } else {
                var testCase = TestCase(
                    name: "\(Redaction.redactURL(sourced.source)) [input]", className: suites[index].name)
                testCase.add(sourced.finding, context: nil)
                suites[index].cases.append(testCase)
                inputCases[key] = suites[index].cases.count - 1
            }
        }
        for card in report.cards {
            let index = suite(named: inputFile(of: card.card.id))
            suites[index].cases.append(testCase(for: card, className: suites[index].name))
        }
        if !report.passes.isEmpty {
            let index = suite(named: "passes")
            for pass in report.passes {
                suites[index].cases.append(testCase(for: pass))
            }
        }
        if suites.isEmpty { suites.append(Suite(name: "inbox-assets check")) }

        let tests = suites.reduce(0) { $0 + $1.cases.count }
        let failures = suites.reduce(0) { $0 + $1.failedCases }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"inbox-assets check\" tests=\"\(tests)\" failures=\"\(failures)\""
        out += " errors=\"0\" skipped=\"0\" time=\"0\">\n"
        for suite in suites { suite.write(to: &out) }
        out += "</testsuites>\n"
        return out
    }

    /// The input file a source id names: `c.json#request.notifications[2]` → `c.json`.
    static func inputFile(of source: String) -> String {
        let file = source.firstIndex(of: "#").map { String(source[..<$0]) } ?? source
        return Redaction.redactURL(file.isEmpty ? "-" : file)
    }

    private static func testCase(for check: CardCheck, className: String) -> TestCase {
        let card = check.card
        let target = [card.profileName, card.platform.rawValue, card.language].compactMap { $0 }
        var testCase = TestCase(
            name: "\(Redaction.redactURL(card.id)) [\(target.joined(separator: " "))]", className: className)
        testCase.properties = [
            ("requested", card.requested.rawValue), ("resolved", card.resolved.rawValue),
            ("degraded", String(card.degraded)), ("broken", String(check.broken)),
        ]
        if let reason = card.degradeReason { testCase.properties.append(("degradeReason", reason)) }
        if let code = card.code { testCase.properties.append(("code", code)) }

        var headline = card.requested == card.resolved ? card.resolved.rawValue : "\(card.requested) → \(card.resolved)"
        if card.degraded { headline += " — degraded" + (card.degradeReason.map { ": \($0)" } ?? "") }
        if check.broken { headline += " — broken: a needed asset failed" }
        testCase.output.append(headline)
        if let log = card.sdkLog { testCase.output.append("SDK log: \(Redaction.redactText(log))") }
        for finding in check.findings { testCase.add(finding, context: nil) }
        for asset in check.assets {
            var context = "asset: \(asset.role.rawValue)\(asset.index.map { "[\($0)]" } ?? "") "
            context += "\(Redaction.redactURL(asset.url)) (\(asset.status.rawValue)"
            if let status = asset.httpStatus { context += ", HTTP \(status)" }
            if let failure = asset.failure { context += ", \(failure)" }
            context += ")"
            for finding in asset.findings { testCase.add(finding, context: context) }
        }
        return testCase
    }

    private static func testCase(for pass: PassCheck) -> TestCase {
        var testCase = TestCase(name: Redaction.redactURL(pass.url), className: "passes")
        let verification = pass.verification
        testCase.properties = [("valid", String(verification.valid))]
        if let style = verification.summary?.style { testCase.properties.append(("style", style)) }
        if let type = verification.signer?.passTypeIdentifier {
            testCase.properties.append(("passTypeIdentifier", type))
        }
        testCase.output.append(verification.valid ? "valid pass" : "invalid pass")
        for finding in verification.findings { testCase.add(finding, context: nil) }
        return testCase
    }

    private struct Suite {
        var name: String
        var cases: [TestCase] = []

        var failedCases: Int { cases.reduce(0) { $0 + ($1.failures.isEmpty ? 0 : 1) } }

        func write(to out: inout String) {
            // `failures` counts failed testcases, not <failure> elements: that is what the reporters sum up.
            out += "  <testsuite name=\"\(Markup.attribute(name))\" tests=\"\(cases.count)\""
            out += " failures=\"\(failedCases)\" errors=\"0\" skipped=\"0\" time=\"0\">\n"
            for testCase in cases { testCase.write(to: &out) }
            out += "  </testsuite>\n"
        }
    }

    private struct TestCase {
        var name: String
        var className: String
        var properties: [(name: String, value: String)] = []
        var failures: [(finding: Finding, context: String?)] = []
        /// Lines for `<system-out>`: the card's outcome, its SDK log line, its warnings and infos.
        var output: [String] = []

        init(name: String, className: String) {
            self.name = name
            self.className = className
        }

        mutating func add(_ finding: Finding, context: String?) {
            if finding.severity == .error {
                failures.append((finding, context))
            } else {
                var line =
                    "\(finding.severity.rawValue) \(Redaction.redactText(finding.code)): \(Redaction.redactText(finding.message))"
                if let path = finding.path { line += " (at \(Redaction.redactURL(path)))" }
                if let context { line += " — \(context)" }
                output.append(line)
            }
        }

        func write(to out: inout String) {
            out += "    <testcase name=\"\(Markup.attribute(name))\" classname=\"\(Markup.attribute(className))\""
            out += " time=\"0\">\n"
            if !properties.isEmpty {
                out += "      <properties>\n"
                for property in properties {
                    out += "        <property name=\"\(Markup.attribute(property.name))\""
                    out += " value=\"\(Markup.attribute(Redaction.redactText(property.value)))\"/>\n"
                }
                out += "      </properties>\n"
            }
            for (finding, context) in failures {
                out += "      <failure type=\"\(Markup.attribute(Redaction.redactText(finding.code)))\""
                out += " message=\"\(Markup.attribute(Redaction.redactText(finding.message)))\">"
                var details = ["\(finding.severity.rawValue) \(finding.code)"]
                if let path = finding.path { details.append("path: \(Redaction.redactURL(path))") }
                if let context { details.append(context) }
                out += Markup.text(details.joined(separator: "\n"))
                out += "</failure>\n"
            }
            if !output.isEmpty {
                out += "      <system-out>\(Markup.text(output.joined(separator: "\n")))</system-out>\n"
            }
            out += "    </testcase>\n"
        }
    }
}
