import Findings
import InboxCards

/// `check --format junit`: the report as JUnit XML for CI test reporters (Jenkins, GitLab, GitHub actions), valid
/// against the `junit-10.xsd` of Jenkins' xunit plugin.
///
/// Layout, chosen for how those tools group and track results:
/// - one `<testsuite>` per input file (the part of a card id before `#`), so a CI page groups by campaign;
/// - in it, one `<testcase>` per card, `classname` = the input file, `name` = the card's title (or its message
///   code, or its id) and requested kind and target: `"Summer sale" captioned [7.2 ios en]`; a name two cards of
///   a file share gets the message's JSON path appended. The name never carries the outcome, so a card keeps its
///   test history when it starts or stops failing;
/// - a `<failure>` exactly when ``Verdict`` says the card fails at `--fail-on` (after `ignore` rules and the
///   baseline): `type` = the first failing code, `message` = the failing codes, text = each failing finding with
///   its path and asset; a card that does not fail only because of suppressed or known findings is `<skipped>`
///   (the reasons); every other finding, and the card's outcome, are lines of `<system-out>`;
/// - findings about inputs become one testcase per source (`… [input]`) in its file's suite;
/// - verified passes form a last suite, `passes`, one testcase per pass URL.
///
/// Every URL and message is redacted; every string is escaped for XML 1.0, characters XML cannot carry
/// (control characters) are replaced by U+FFFD. The output is deterministic (no timestamps, `time="0"`).
public enum JUnitReport {
    /// The whole document, UTF-8 text starting with the XML declaration. Reads the verdict ``Verdict/apply(to:)``
    /// wrote; a report without one is judged at `--fail-on error` first.
    public static func render(_ report: CheckReport) -> String {
        var report = report
        if report.failOn == nil { Verdict(policy: .error).apply(to: &report) }
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
        var names: [String: Int] = [:]  // "suite\u{0}name" → how many cards have it
        for card in report.cards {
            names["\(inputFile(of: card.card.id))\u{0}\(caseName(card.card))", default: 0] += 1
        }
        for card in report.cards {
            let index = suite(named: inputFile(of: card.card.id))
            var testCase = testCase(for: card, className: suites[index].name)
            if names["\(suites[index].name)\u{0}\(testCase.name)", default: 0] > 1 {
                let path = card.card.id.firstIndex(of: "#").map { String(card.card.id[$0...]) } ?? card.card.id
                testCase.name += " (\(Redaction.redactURL(path)))"
            }
            suites[index].cases.append(testCase)
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
        out += " errors=\"0\" time=\"0\">\n"
        for suite in suites { suite.write(to: &out) }
        out += "</testsuites>\n"
        return out
    }

    /// `"Summer sale" captioned [7.2 ios en]`: the title (or message code, or id), the requested kind, the target.
    static func caseName(_ card: ResolvedCard) -> String {
        let target = [card.profileName, card.platform.rawValue, card.language].compactMap { $0 }
        let label: String
        if let title = card.title, !title.isEmpty {
            label = "\"\(Redaction.redactText(title))\""
        } else if let code = card.code, !code.isEmpty {
            label = Redaction.redactText(code)
        } else {
            label = Redaction.redactURL(card.id)
        }
        return "\(label) \(card.requested.rawValue) [\(target.joined(separator: " "))]"
    }

    /// The input file a source id names: `c.json#request.notifications[2]` → `c.json`.
    static func inputFile(of source: String) -> String {
        let file = source.firstIndex(of: "#").map { String(source[..<$0]) } ?? source
        return Redaction.redactURL(file.isEmpty ? "-" : file)
    }

    private static func testCase(for check: CardCheck, className: String) -> TestCase {
        let card = check.card
        var testCase = TestCase(name: caseName(card), className: className)
        testCase.output.append("id: \(Redaction.redactURL(card.id))" + (card.code.map { " code: \($0)" } ?? ""))
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
        var headline = verification.valid ? "valid pass" : "invalid pass"
        if let style = verification.summary?.style { headline += ", style \(style)" }
        if let type = verification.signer?.passTypeIdentifier { headline += ", \(type)" }
        testCase.output.append(headline)
        for finding in verification.findings { testCase.add(finding, context: nil) }
        return testCase
    }

    private struct Suite {
        var name: String
        var cases: [TestCase] = []

        var failedCases: Int { cases.reduce(0) { $0 + ($1.failures.isEmpty ? 0 : 1) } }
        var skippedCases: Int { cases.reduce(0) { $0 + ($1.skipped ? 1 : 0) } }

        func write(to out: inout String) {
            // `failures` counts failed testcases, not failing findings: that is what the reporters sum up.
            out += "  <testsuite name=\"\(Markup.attribute(name))\" tests=\"\(cases.count)\""
            out += " failures=\"\(failedCases)\" errors=\"0\" skipped=\"\(skippedCases)\" time=\"0\">\n"
            for testCase in cases { testCase.write(to: &out) }
            out += "  </testsuite>\n"
        }
    }

    private struct TestCase {
        var name: String
        var className: String
        /// The failing findings (``FindingVerdict/failing``) and the asset each is about.
        var failures: [(finding: Finding, context: String?)] = []
        /// Why findings that would fail are excused (suppression reasons, known in the baseline).
        var excused: [String] = []
        /// Lines for `<system-out>`: the outcome, the SDK log line, every finding that does not fail.
        var output: [String] = []

        init(name: String, className: String) {
            self.name = name
            self.className = className
        }

        var skipped: Bool { failures.isEmpty && !excused.isEmpty }

        mutating func add(_ finding: Finding, context: String?) {
            if finding.verdict?.failing == true {
                failures.append((finding, context))
                return
            }
            if let excuse = finding.verdict?.excuse { excused.append(excuse) }
            var line = Self.line(finding, context: context)
            if let reason = finding.verdict?.suppressed { line += " [suppressed: \(Redaction.redactText(reason))]" }
            if finding.verdict?.baseline == .known { line += " [known]" }
            output.append(line)
        }

        /// `severity code [platform]: message (at path) — context`, redacted: one finding in `<system-out>` or a
        /// `<failure>`'s text.
        static func line(_ finding: Finding, context: String?) -> String {
            var line = "\(finding.severity.rawValue) \(Redaction.redactText(finding.code))"
            if let label = finding.platformLabel { line += " [\(label)]" }
            line += ": " + Redaction.redactText(finding.message)
            if let path = finding.path { line += " (at \(Redaction.redactURL(path)))" }
            if let context { line += " — \(context)" }
            return line
        }

        func write(to out: inout String) {
            out += "    <testcase name=\"\(Markup.attribute(name))\" classname=\"\(Markup.attribute(className))\""
            out += " time=\"0\">\n"
            if let first = failures.first {
                var codes: [String] = []
                for (finding, _) in failures where !codes.contains(finding.code) { codes.append(finding.code) }
                let message = "\(failures.count) failing: " + codes.map(Redaction.redactText).joined(separator: ", ")
                out += "      <failure type=\"\(Markup.attribute(Redaction.redactText(first.finding.code)))\""
                out += " message=\"\(Markup.attribute(message))\">"
                var details: [String] = []
                for (finding, context) in failures {
                    var line = Self.line(finding, context: context)
                    if finding.verdict?.baseline == .new { line += " [new]" }
                    details.append(line)
                }
                out += Markup.text(details.joined(separator: "\n"))
                out += "</failure>\n"
            } else if skipped {
                var reasons: [String] = []
                for reason in excused where !reasons.contains(reason) { reasons.append(reason) }
                let message = reasons.map(Redaction.redactText).joined(separator: "; ")
                out += "      <skipped message=\"\(Markup.attribute(message))\"/>\n"
            }
            if !output.isEmpty {
                out += "      <system-out>\(Markup.text(output.joined(separator: "\n")))</system-out>\n"
            }
            out += "    </testcase>\n"
        }
    }
}
