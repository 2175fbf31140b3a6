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
        let summary = report.summary
        let policy = report.failOn?.rawValue ?? "error"
        var out = "## inbox-assets check: "
        out += summary.failing ? "❌ failing at `--fail-on \(policy)`\n\n" : "✅ passing at `--fail-on \(policy)`\n\n"
        var counts = [
            plural(summary.messages, "message"), plural(summary.cards, "card"), "\(summary.degraded) degraded",
            "\(summary.broken) broken", plural(summary.errors, "error"), plural(summary.warnings, "warning"),
            "\(summary.failingCards) failing " + (summary.failingCards == 1 ? "card" : "cards"),
        ]
        if summary.suppressed > 0 { counts.append("\(summary.suppressed) suppressed") }
        if let fixed = report.baselineFixed {
            counts.append("\(summary.known) known, \(fixed.count) fixed since the baseline")
        }
        out += counts.joined(separator: " · ") + "\n\n"

        let noteworthy = report.cards.filter { $0.failing || $0.broken || $0.card.degraded }
            .sorted { ($0.failing ? 0 : 1) < ($1.failing ? 0 : 1) }
        if !noteworthy.isEmpty {
            out += "### Failing, broken and degraded cards\n\n"
            out += "| card | kind | target | status | reason |\n|---|---|---|---|---|\n"
            for check in noteworthy.prefix(maxRows) {
                let card = check.card
                let kind =
                    card.requested == card.resolved ? card.resolved.rawValue : "\(card.requested) → \(card.resolved)"
                let target = [card.profileName, card.platform.rawValue, card.language].compactMap { $0 }
                    .joined(separator: " ")
                var status = check.broken ? "BROKEN" : card.degraded ? "DEGRADED" : "ok"
                if check.failing { status = "**\(status) (failing)**" }
                let reason =
                    card.degraded
                    ? card.degradeReason ?? ""
                    : check.allFindings.first { $0.verdict?.failing == true || $0.severity == .error }?.message ?? ""
                let name = card.title.map { "“\(cell($0))”" } ?? cell(card.code ?? card.id)
                out += "| \(name) | \(kind) | \(target) | \(status) | \(cell(reason)) |\n"
            }
            if noteworthy.count > maxRows { out += "\n… and \(noteworthy.count - maxRows) more cards.\n" }
            out += "\n"
        }

        if !report.rootCauses.isEmpty {
            out += "### Root causes\n\n"
            for cause in report.rootCauses.prefix(maxRows) {
                out += "- \(span(cause.code)) \(cell(cause.finding.message))\n"
            }
            if report.rootCauses.count > maxRows { out += "\n… and \(report.rootCauses.count - maxRows) more.\n" }
            out += "\n"
        }
        let lines = findingLines(report)
        if !lines.isEmpty {
            out += "<details><summary>\(plural(lines.count, "finding")) (once per message)</summary>\n\n"
            for line in lines.prefix(maxFindings) { out += "- \(line)\n" }
            if lines.count > maxFindings { out += "\n… and \(lines.count - maxFindings) more findings.\n" }
            out += "\n</details>\n\n"
        }
        if let fixed = report.baselineFixed, !fixed.isEmpty {
            out += "<details><summary>\(plural(fixed.count, "baseline entry")) fixed</summary>\n\n"
            for entry in fixed.prefix(maxFindings) { out += "- \(span(entry.code)) \(cell(entry.hint))\n" }
            if fixed.count > maxFindings { out += "\n… and \(fixed.count - maxFindings) more.\n" }
            out += "\n</details>\n"
        }
        return out
    }

    /// One line per distinct finding (by fingerprint), failing ones first.
    static func findingLines(_ report: CheckReport) -> [String] {
        var seen = Set<String>()
        var failing: [String] = []
        var others: [String] = []
        func add(_ finding: Finding, _ id: String) {
            guard let verdict = finding.verdict, seen.insert(verdict.fingerprint).inserted else { return }
            let only = finding.platformLabel.map { " _(\($0))_" } ?? ""
            var line =
                "**\(finding.severity.rawValue)** \(span(finding.code))\(only) \(cell(finding.message)) — \(span(id))"
            if let reason = verdict.suppressed { line += " _(suppressed: \(cell(reason)))_" }
            if verdict.baseline == .known { line += " _(known)_" }
            if verdict.failing { failing.append(line) } else { others.append(line) }
        }
        for sourced in report.inputFindings { add(sourced.finding, sourced.source) }
        // Assets under a root cause are counted there, not listed one by one.
        let caused = Set(report.rootCauses.flatMap(\.urls))
        for check in report.cards {
            let causedText = check.assets.filter { caused.contains($0.url) }.map { Redaction.redactURL($0.url) }
            for finding in check.findings
            where finding.code != AssetFindingCode.cardBroken
                || !causedText.contains(where: { finding.message.contains($0) })
            {
                add(finding, check.card.id)
            }
            for asset in check.assets where !caused.contains(asset.url) {
                for finding in asset.findings { add(finding, check.card.id) }
            }
        }
        for pass in report.passes {
            for finding in pass.verification.findings where finding.severity != .info { add(finding, pass.url) }
        }
        return failing + others
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
