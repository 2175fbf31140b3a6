import Findings
public import InboxCards

/// The human report of a resolve run: a table of cards (id, target, requested → resolved, reason), then
/// the findings of each card that has any (with the SDK's WARN line for degraded cards), the findings
/// about the inputs, and a one-line summary.
public enum ResolveTextReport {
    /// Renders `run`. Info findings are listed too (dimmed on a terminal): they are cheap to skip and
    /// they are where accessibility notes live.
    public static func render(_ run: ResolveRun, style: TextStyle) -> String {
        var text = ""
        let profiles = run.options.profiles.map(\.rawValue).joined(separator: ", ")
        let platforms = run.options.platforms.map(\.rawValue).joined(separator: ", ")
        text += style.bold("inbox-assets resolve") + " — \(plural(run.messagesRead, "message")), "
        text += "\(plural(run.cards.count, "card")) (SDK \(profiles); \(platforms))\n\n"

        if !run.cards.isEmpty {
            var table = TextTable(header: ["CARD", "SDK", "PLATFORM", "LANG", "REQUESTED → RESOLVED", "REASON"])
            for card in run.cards {
                let change = "\(card.requested) → \(card.resolved)"
                let reason = card.degradeReason ?? (card.forced ? "forced" : "")
                let mark: Tone = card.degraded ? .yellow : .plain
                table.append(
                    [card.id, card.sdk?.rawValue ?? "-", card.platform.rawValue, card.language ?? "-", change, reason],
                    tones: [.plain, .plain, .plain, .plain, mark, mark])
            }
            text += table.render(style) + "\n"
        }

        let withFindings = run.cards.filter { !$0.findings.isEmpty }
        if !withFindings.isEmpty {
            text += style.bold("Findings") + "\n"
            for card in withFindings {
                let target = [card.sdk?.rawValue, card.platform.rawValue, card.language].compactMap { $0 }
                text += "  \(card.id) [\(target.joined(separator: " "))]\n"
                for finding in card.findings { text += "    " + line(finding, style: style) + "\n" }
                if let log = card.sdkLog { text += "    " + style.dim("SDK log: \(log)") + "\n" }
            }
            text += "\n"
        }
        if !run.inputFindings.isEmpty {
            text += style.bold("Inputs") + "\n"
            for sourced in run.inputFindings {
                text += "  \(sourced.source)\n    " + line(sourced.finding, style: style) + "\n"
            }
            text += "\n"
        }
        let all = run.allFindings
        let summary =
            "Summary: \(plural(run.cards.count, "card")), \(run.degradedCount) degraded, "
            + "\(plural(all.count(.error), "error")), \(plural(all.count(.warning), "warning")), "
            + "\(all.count(.info)) info"
        let worst = all.maxSeverity
        let tone: Tone = worst == .error ? .red : run.degradedCount > 0 ? .yellow : .green
        text += style.apply(tone, summary)
        return text + "\n"
    }

    static func line(_ finding: Finding, style: TextStyle) -> String {
        let label: String
        switch finding.severity {
        case .error: label = style.red("error  ")
        case .warning: label = style.yellow("warning")
        case .info: label = style.dim("info   ")
        }
        let at = finding.path.map { " (at \($0))" } ?? ""
        return "\(label) \(finding.code): \(Redaction.redactText(finding.message))\(at)"
    }

    static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
