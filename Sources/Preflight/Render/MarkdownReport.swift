import Findings
import InboxCards

/// `check --format markdown`: a compact report for `$GITHUB_STEP_SUMMARY` and merge-request comments — the
/// verdict line and counts, a table of failing, broken and degraded cards (title, kind, target, status, reason),
/// the root causes, then the findings (once per message, not per profile and language) in a `<details>` block.
///
/// Bounded whatever the campaign: at most ``maxRows`` card rows and ``maxFindings`` finding lines, each cut to
/// ``maxCell`` characters, with "… and N more" — under 64 KiB (GitHub's job-summary limit is 1 MiB per step, a
/// comment's 64 K characters) for 10,000 cards. Campaign text is escaped for Markdown and HTML.
public enum MarkdownReport {
    public static let maxRows = 50
    public static let maxFindings = 150
    public static let maxCell = 160

    public static func render(_ report: CheckReport) -> String {
        var report = report
        if report.failOn == nil { Verdict(policy: .error).apply(to: &report) }
        var page = Page(rootCauses: report.rootCauses, inputFindings: report.inputFindings, keepingAll: true)
        for check in report.cards { page.add(check) }
        page.add(report.passes)
        return page.text(report.summary, policy: report.failOn ?? .error, fixed: report.baselineFixed)
    }

    /// The report of a prepared check judged by `verdict`, from one walk over its cards: only the rows and
    /// finding lines it shows and the findings' fingerprints (to list each once) are kept. The same text as
    /// ``render(_:)`` of the judged report.
    public static func render(
        _ prepared: PreparedCheck, verdict: Verdict, keepingBaselineEntries: Bool = false
    ) -> (text: String, result: CheckReportStream.Result) {
        var walk = CheckWalk(prepared, verdict: verdict, keepingBaselineEntries: keepingBaselineEntries)
        var page = Page(
            rootCauses: prepared.rootCauses.causes, inputFindings: walk.inputFindings,
            keepingAll: prepared.inputsNamedAlike)
        prepared.cards.forEach { page.add(walk.next($0)) }
        page.add(walk.passes)
        let result = walk.result
        return (page.text(result.summary, policy: verdict.policy, fixed: result.baselineFixed), result)
    }

    /// What the page shows, collected a card at a time: the first rows of failing and of other noteworthy cards,
    /// the first finding lines of failing and of other findings, and how many there are of each.
    private struct Page {
        let rootCauses: [RootCause]
        /// Assets under a root cause are counted there, not listed one by one.
        let caused: Set<String>
        var failingRows: [String] = []
        var otherRows: [String] = []
        var rowCount = 0
        /// Fingerprints of the findings listed (or counted) so far: each is listed once.
        var seen: MessageFingerprints
        var failingLines: [String] = []
        var otherLines: [String] = []

        init(rootCauses: [RootCause], inputFindings: [SourcedFinding], keepingAll: Bool) {
            seen = MessageFingerprints(keepingAll: keepingAll)
            self.rootCauses = rootCauses
            caused = Set(rootCauses.flatMap(\.urls))
            for sourced in inputFindings { add(sourced.finding, sourced.source) }
        }

        mutating func add(_ check: CardCheck) {
            seen.enter(check.card.id)
            if check.failing || check.broken || check.card.degraded {
                rowCount += 1
                if check.failing {
                    if failingRows.count < maxRows { failingRows.append(MarkdownReport.row(check)) }
                } else if otherRows.count < maxRows {
                    otherRows.append(MarkdownReport.row(check))
                }
            }
            let causedText = check.assets.filter { caused.contains($0.url) }.map { Redaction.redactURL($0.url) }
            for finding in check.findings
            where finding.code != AssetFindingCode.cardBroken
                || !causedText.contains(where: { finding.message.containsBytes($0) })
            {
                add(finding, check.card.id)
            }
            for asset in check.assets where !caused.contains(asset.url) {
                for finding in asset.findings { add(finding, check.card.id) }
            }
        }

        mutating func add(_ passes: [PassCheck]) {
            for pass in passes {
                for finding in pass.verification.findings where finding.severity != .info { add(finding, pass.url) }
            }
        }

        /// One line per distinct finding (by fingerprint), failing ones first.
        private mutating func add(_ finding: Finding, _ id: String) {
            guard let verdict = finding.verdict, seen.insert(verdict.fingerprint) else { return }
            guard (verdict.failing ? failingLines : otherLines).count < maxFindings else { return }
            let only = finding.platformLabel.map { " _(\($0))_" } ?? ""
            var line =
                "**\(finding.severity.rawValue)** \(span(finding.code))\(only) \(cell(finding.message)) — \(span(id))"
            if let reason = verdict.suppressed { line += " _(suppressed: \(cell(reason)))_" }
            if verdict.baseline == .known { line += " _(known)_" }
            if verdict.failing { failingLines.append(line) } else { otherLines.append(line) }
        }

        func text(_ summary: CheckSummary, policy: FailPolicy, fixed: [Baseline.Entry]?) -> String {
            var out = "## inbox-assets check: "
            out +=
                summary.failing
                ? "❌ failing at `--fail-on \(policy.rawValue)`\n\n" : "✅ passing at `--fail-on \(policy.rawValue)`\n\n"
            var counts = [
                plural(summary.messages, "message"), plural(summary.cards, "card"), "\(summary.degraded) degraded",
                "\(summary.broken) broken", plural(summary.errors, "error"), plural(summary.warnings, "warning"),
                "\(summary.failingCards) failing " + (summary.failingCards == 1 ? "card" : "cards"),
            ]
            if summary.suppressed > 0 { counts.append("\(summary.suppressed) suppressed") }
            if let fixed { counts.append("\(summary.known) known, \(fixed.count) fixed since the baseline") }
            out += counts.joined(separator: " · ") + "\n\n"

            if rowCount > 0 {
                out += "### Failing, broken and degraded cards\n\n"
                out += "| card | kind | target | status | reason |\n|---|---|---|---|---|\n"
                for row in (failingRows + otherRows).prefix(maxRows) { out += row }
                if rowCount > maxRows { out += "\n… and \(rowCount - maxRows) more cards.\n" }
                out += "\n"
            }
            if !rootCauses.isEmpty {
                out += "### Root causes\n\n"
                for cause in rootCauses.prefix(maxRows) {
                    out += "- \(span(cause.code)) \(cell(cause.finding.message))\n"
                }
                if rootCauses.count > maxRows { out += "\n… and \(rootCauses.count - maxRows) more.\n" }
                out += "\n"
            }
            let lineCount = seen.count
            if lineCount > 0 {
                out += "<details><summary>\(plural(lineCount, "finding")) (once per message)</summary>\n\n"
                for line in (failingLines + otherLines).prefix(maxFindings) { out += "- \(line)\n" }
                if lineCount > maxFindings { out += "\n… and \(lineCount - maxFindings) more findings.\n" }
                out += "\n</details>\n\n"
            }
            if let fixed, !fixed.isEmpty {
                out += "<details><summary>\(plural(fixed.count, "baseline entry")) fixed</summary>\n\n"
                for entry in fixed.prefix(maxFindings) { out += "- \(span(entry.code)) \(cell(entry.hint))\n" }
                if fixed.count > maxFindings { out += "\n… and \(fixed.count - maxFindings) more.\n" }
                out += "\n</details>\n"
            }
            return out
        }
    }

    /// A noteworthy card's table row: title, kind, target, status, reason.
    private static func row(_ check: CardCheck) -> String {
        let card = check.card
        let kind = card.requested == card.resolved ? card.resolved.rawValue : "\(card.requested) → \(card.resolved)"
        let target = [card.profileName, card.platform.rawValue, card.language].compactMap { $0 }.joined(separator: " ")
        var status = check.broken ? "BROKEN" : card.degraded ? "DEGRADED" : "ok"
        if check.failing { status = "**\(status) (failing)**" }
        let reason =
            card.degraded
            ? card.degradeReason ?? ""
            : check.allFindings.first { $0.verdict?.failing == true || $0.severity == .error }?.message ?? ""
        let name = card.title.map { "“\(cell($0))”" } ?? cell(card.code ?? card.id)
        return "| \(name) | \(kind) | \(target) | \(status) | \(cell(reason)) |\n"
    }

    /// Campaign or server text made safe for a Markdown table cell: redacted, one line, HTML and `|` and
    /// backticks escaped, control characters escaped, at most ``maxCell`` characters.
    static func cell(_ text: String) -> String {
        var out = ""
        var count = 0
        for character in ControlCharacters.escaped(Redaction.redactText(text), keepingNewlines: true) {
            if count == maxCell {
                out += "…"
                break
            }
            count += 1
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "|": out += "\\|"
            case "`": out += "'"
            case "\n", "\r": out += " "
            case "*", "_", "[", "]", "#", "\\": out += "\\" + String(character)
            default: out.append(character)
            }
        }
        return out
    }

    /// A code span: redacted, one line, no backtick (Markdown and HTML are literal inside it).
    static func span(_ text: String) -> String {
        var inner = String(ControlCharacters.escaped(Redaction.redactURL(text)).prefix(maxCell))
        inner = inner.replacingOccurrences(of: "`", with: "'").replacingOccurrences(of: "\n", with: " ")
        return "`" + inner + "`"
    }

    static func plural(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun.hasSuffix("y") ? noun.dropLast() + "ies" : noun + "s")"
    }
}
