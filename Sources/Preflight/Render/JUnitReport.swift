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
        var out = ""
        let layout = Layout(inputFindings: report.inputFindings, passes: report.passes) { visit in
            for card in report.cards { visit(card) }
        }
        layout.write(
            cards: { suite, visit in
                for card in report.cards where layout.suite(of: card.card) == suite { visit(card) }
            }, to: { out += $0 })
        return out
    }

    /// The document of a prepared check, judged by `verdict`, handed to `sink` a piece at a time (about 64 KiB
    /// each): the cards are checked and judged once to count the suites (their headers carry the counts) and once
    /// more as they are written, so no testcase of every card and no whole document is held. The same text as
    /// ``render(_:)`` of the judged report.
    public static func write(
        _ prepared: PreparedCheck, verdict: Verdict, keepingBaselineEntries: Bool = false,
        to sink: (String) -> Void
    ) -> CheckReportStream.Result {
        // JUnit names no fingerprint.
        var verdict = verdict
        verdict.fingerprints = false
        var counting = CheckWalk(prepared, verdict: verdict, keepingBaselineEntries: keepingBaselineEntries)
        let layout = Layout(inputFindings: counting.inputFindings, passes: counting.passes) { visit in
            prepared.cards.forEach { visit(counting.next($0)) }
        }
        // A walk per suite that has cards (an input file's cards are one run of the report order, so one walk each).
        var writing = CheckWalk(prepared, verdict: verdict)
        var buffer = ""
        let cards: (Int, (CardCheck) -> Void) -> Void = { suite, visit in
            prepared.cards.forEach { card in
                if layout.suite(of: card) == suite { visit(writing.next(card)) }
            }
        }
        layout.write(cards: cards) { piece in
            buffer += piece
            if buffer.utf8.count >= 1 << 16 {
                sink(buffer)
                buffer = ""
            }
        }
        if !buffer.isEmpty { sink(buffer) }
        return counting.result
    }

    /// What the document's headers need, counted in one pass over the judged cards: the suites in order with
    /// their counts, the input testcases (few), and which card names two cards of a suite share. A card's suite is
    /// found again from its id when it is written (``suite(of:)``).
    private struct Layout {
        var suites: [Suite] = []
        var suiteIndex: [String: Int] = [:]
        /// Per suite, how many of its testcases are cards, failing cards and skipped cards.
        var cardCounts: [(tests: Int, failed: Int, skipped: Int)] = []
        /// The card names (`suite\u{0}name`) two or more cards share, by their 64-bit FNV-1a hash: found by sorting
        /// the hashes of every card's name instead of counting every name, in sorted runs on disk past half a million
        /// cards (``RepeatedValues``). Two names alike to 64 bits would only add the JSON path to a name that did not
        /// need it.
        var shared = Set<UInt64>()
        var passes: [PassCheck]
        /// The suite the passes' testcases end (`passes`), when there are passes.
        var passesSuite: Int?

        init(inputFindings: [SourcedFinding], passes: [PassCheck], cards: ((CardCheck) -> Void) -> Void) {
            self.passes = passes
            var inputCases: [String: Int] = [:]  // source → its testcase's index in its suite
            for sourced in inputFindings {
                let index = suite(named: JUnitReport.inputFile(of: sourced.source))
                if let caseIndex = inputCases[sourced.source] {
                    suites[index].cases[caseIndex].add(sourced.finding, context: nil)
                } else {
                    var testCase = TestCase(
                        name: "\(Redaction.redactURL(sourced.source)) [input]", className: suites[index].name)
                    testCase.add(sourced.finding, context: nil)
                    suites[index].cases.append(testCase)
                    inputCases[sourced.source] = suites[index].cases.count - 1
                }
            }
            var names = RepeatedValues()
            cards { check in
                let index = suite(named: JUnitReport.inputFile(of: check.card.id))
                cardCounts[index].tests += 1
                if check.failing {
                    cardCounts[index].failed += 1
                } else if TestCase.excuses(check) {
                    cardCounts[index].skipped += 1
                }
                names.add(Self.hash(suites[index].name, JUnitReport.caseName(check.card)))
            }
            shared = names.repeated()
            if !passes.isEmpty { passesSuite = suite(named: "passes") }
            if suites.isEmpty { _ = suite(named: "inbox-assets check") }
        }

        static func hash(_ suite: String, _ name: String) -> UInt64 {
            var hash = FNV1a()
            hash.add(suite)
            hash.add(0)
            hash.add(name)
            return hash.value
        }

        /// The suite `card` is written in.
        func suite(of card: ResolvedCard) -> Int? { suiteIndex[JUnitReport.inputFile(of: card.id)] }

        private mutating func suite(named name: String) -> Int {
            if let index = suiteIndex[name] { return index }
            suites.append(Suite(name: name))
            cardCounts.append((0, 0, 0))
            suiteIndex[name] = suites.count - 1
            return suites.count - 1
        }

        /// Writes the document: `cards(s, visit)` hands `visit` the judged cards of suite `s` in report order; it is
        /// asked once for each suite that has cards.
        func write(cards: (Int, (CardCheck) -> Void) -> Void, to out: (String) -> Void) {
            let passCases = passes.map(TestCase.init(pass:))
            var tests = passCases.count
            var failures = passCases.count { !$0.failures.isEmpty }
            for (index, suite) in suites.enumerated() {
                tests += suite.cases.count + cardCounts[index].tests
                failures += suite.failedCases + cardCounts[index].failed
            }
            var head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            head += "<testsuites name=\"inbox-assets check\" tests=\"\(tests)\" failures=\"\(failures)\""
            head += " errors=\"0\" time=\"0\">\n"
            out(head)
            for (index, suite) in suites.enumerated() {
                let passCases = index == passesSuite ? passCases : []
                var piece = ""
                suite.writeHead(
                    to: &piece, tests: suite.cases.count + cardCounts[index].tests + passCases.count,
                    failures: suite.failedCases + cardCounts[index].failed + passCases.count { !$0.failures.isEmpty },
                    skipped: suite.skippedCases + cardCounts[index].skipped + passCases.count(where: \.skipped))
                for testCase in suite.cases { testCase.write(to: &piece) }
                out(piece)
                if cardCounts[index].tests > 0 {
                    withoutActuallyEscaping(out) { out in
                        cards(index) { check in
                            var testCase = TestCase(check, className: suite.name)
                            if shared.contains(Self.hash(suite.name, testCase.name)) {
                                let id = check.card.id
                                let path = id.firstIndex(of: "#").map { String(id[$0...]) } ?? id
                                testCase.name += " (\(Redaction.redactURL(path)))"
                            }
                            var text = ""
                            testCase.write(to: &text)
                            out(text)
                        }
                    }
                }
                piece = ""
                for testCase in passCases { testCase.write(to: &piece) }
                out(piece + "  </testsuite>\n")
            }
            out("</testsuites>\n")
        }
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

    fileprivate struct Suite {
        var name: String
        var cases: [TestCase] = []

        var failedCases: Int { cases.reduce(0) { $0 + ($1.failures.isEmpty ? 0 : 1) } }
        var skippedCases: Int { cases.reduce(0) { $0 + ($1.skipped ? 1 : 0) } }

        /// The `<testsuite>` start tag. `failures` counts failed testcases, not failing findings: that is what the
        /// reporters sum up.
        func writeHead(to out: inout String, tests: Int, failures: Int, skipped: Int) {
            out += "  <testsuite name=\"\(Markup.attribute(name))\" tests=\"\(tests)\""
            out += " failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"0\">\n"
        }
    }

    fileprivate struct TestCase {
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

extension JUnitReport.TestCase {
    /// A card's testcase: its outcome, its SDK log line and every finding of the judged card.
    init(_ check: CardCheck, className: String) {
        let card = check.card
        var testCase = JUnitReport.TestCase(name: JUnitReport.caseName(card), className: className)
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
        self = testCase
    }

    /// A verified pass's testcase (suite `passes`).
    init(pass: PassCheck) {
        var testCase = JUnitReport.TestCase(name: Redaction.redactURL(pass.url), className: "passes")
        let verification = pass.verification
        var headline = verification.valid ? "valid pass" : "invalid pass"
        if let style = verification.summary?.style { headline += ", style \(style)" }
        if let type = verification.signer?.passTypeIdentifier { headline += ", \(type)" }
        testCase.output.append(headline)
        for finding in verification.findings { testCase.add(finding, context: nil) }
        self = testCase
    }

    /// Whether a card that does not fail has a finding that would fail but is excused (its testcase is
    /// `<skipped>`): what ``add(_:context:)`` collects, without building the testcase.
    static func excuses(_ check: CardCheck) -> Bool {
        check.findings.contains { $0.verdict?.excuse != nil }
            || check.assets.contains { $0.findings.contains { $0.verdict?.excuse != nil } }
    }
}
