import Findings
public import InboxCards

/// The human report of a resolve run: a table of cards (id, target, requested → resolved, reason), then
/// the findings of each card that has any (with the SDK's WARN line for degraded cards), the findings
/// about the inputs, and a one-line summary. Campaign data (ids, languages, finding messages and paths, SDK log
/// lines) is printed with its control characters escaped (``ControlCharacters/escaped(_:keepingNewlines:)``).
public enum ResolveTextReport {
    /// Renders `run`. Info findings are listed too (dimmed on a terminal): they are cheap to skip and
    /// they are where accessibility notes live.
    /// - Parameter width: the terminal's width: the card table gives way to fit it (``cardTable()``); `nil` (a
    ///   file, a pipe) prints every cell whole.
    public static func render(_ run: ResolveRun, style: TextStyle, width: Int? = nil) -> String {
        var output: [UInt8] = []
        write(run, style: style, width: width, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends ``render(_:style:width:)``'s text to `output` as UTF-8, without a `String` of the whole report.
    public static func write(_ run: ResolveRun, style: TextStyle, width: Int? = nil, to output: inout [UInt8]) {
        var text = ""
        text += style.bold("inbox-assets resolve") + " — \(plural(run.messagesRead, "message")), "
        text += "\(plural(run.cards.count, "card")) (\(run.options.targetDescription))\n\n"
        output.append(contentsOf: text.utf8)
        text = ""

        if !run.cards.isEmpty {
            // On a terminal (`width`) the columns give way as check's do; piped, the table streams every cell whole.
            var fitted = width.map { _ in cardTable() }
            var table = TextTable(header: header, rows: fitted == nil ? run.cards.count : 0)
            // Through the buffer: `for card in run.cards` (or `let card = run.cards[i]`) copies every card, a dozen
            // retains, to read six fields.
            run.cards.withUnsafeBufferPointer { cards in
                for card in cards.indices {
                    let reason = cards[card].degradeReason ?? (cards[card].forced ? "forced" : "")
                    let cells = [
                        cards[card].id, cards[card].profileName ?? "-", cards[card].platform.rawValue,
                        cards[card].language ?? "-", change(cards[card].requested, cards[card].resolved), reason,
                    ]
                    let tones = cards[card].degraded ? degradedTones : plainTones
                    if fitted != nil { fitted?.append(cells, tones: tones) } else { table.append(cells, tones: tones) }
                }
            }
            if let fitted {
                output.append(contentsOf: fitted.render(style, width: width).utf8)
            } else {
                table.write(style, to: &output)
            }
            output.append(0x0A)
        }

        for index in run.cards.indices where !run.cards[index].findings.isEmpty {
            let card = run.cards[index]
            if text.isEmpty { text += style.bold("Findings") + "\n" }
            text += "  " + heading(card) + "\n"
            for finding in card.findings { text += "    " + line(finding, style: style) + "\n" }
            if let log = card.sdkLog { text += "    " + style.dim("SDK log: \(ControlCharacters.escaped(log))") + "\n" }
        }
        if !text.isEmpty { text += "\n" }
        if !run.inputFindings.isEmpty {
            text += style.bold("Inputs") + "\n"
            for sourced in run.inputFindings {
                text +=
                    "  \(ControlCharacters.escaped(sourced.source))\n    " + line(sourced.finding, style: style) + "\n"
            }
            text += "\n"
        }
        let errors = run.findingCount(.error)
        let warnings = run.findingCount(.warning)
        let summary =
            "Summary: \(plural(run.cards.count, "card")), \(run.degradedCount) degraded, "
            + "\(plural(errors, "error")), \(plural(warnings, "warning")), "
            + "\(run.findingCount(.info)) info"
        let tone: Tone = errors > 0 ? .red : run.degradedCount > 0 ? .yellow : .green
        text += style.apply(tone, summary)
        text += "\n"
        output.append(contentsOf: text.utf8)
    }

    private static let header = ["CARD", "SDK", "PLATFORM", "LANG", "REQUESTED → RESOLVED", "REASON"]

    /// The card table's columns and how they give way to a narrow terminal: the ids lose their directory, the
    /// reason shortens, the ids lose their JSON path (`demo.json#…[11]`), then the reason shortens further. The
    /// kinds (`captioned → classic`) never shorten: they are what resolve is asked.
    static func cardTable() -> FittedTable {
        let (card, reason) = (0, 5)
        return FittedTable(
            header: header, shortening: [.id, nil, nil, nil, nil, .end],
            steps: [
                .shrink(column: card, to: 40), .shrink(column: reason, to: 30), .compactIDs(column: card),
                .shrink(column: reason, to: 20), .shrink(column: reason, to: 10), .shrink(column: card, to: 12),
                .shrink(column: reason, to: 6),
            ])
    }

    private static let plainTones: [Tone] = [.plain, .plain, .plain, .plain, .plain, .plain]
    private static let degradedTones: [Tone] = [.plain, .plain, .plain, .plain, .yellow, .yellow]

    /// `requested → resolved`, one shared string per pair of kinds (not one per card).
    private static let changes: [[String]] = CardKind.allCases.map { requested in
        CardKind.allCases.map { resolved in "\(requested) → \(resolved)" }
    }

    private static func change(_ requested: CardKind, _ resolved: CardKind) -> String {
        changes[CardKind.allCases.firstIndex(of: requested)!][CardKind.allCases.firstIndex(of: resolved)!]
    }

    static func line(_ finding: Finding, style: TextStyle) -> String {
        let label: String
        switch finding.severity {
        case .error: label = style.red("error  ")
        case .warning: label = style.yellow("warning")
        case .info: label = style.dim("info   ")
        }
        let at =
            finding.path.flatMap { $0.isEmpty ? nil : " (at \(ControlCharacters.escaped(Redaction.redactURL($0))))" }
            ?? ""
        let message = ControlCharacters.escaped(Redaction.redactText(finding.message))
        // One platform's rule says so: the same asset may be fine on the other platform.
        let only = finding.platformLabel.map { " [\($0)]" } ?? ""
        return "\(label) \(ControlCharacters.escaped(finding.code))\(only): \(message)\(at)"
    }

    /// `id [profile platform language]`, escaped: the heading of a card's findings.
    static func heading(_ card: ResolvedCard) -> String {
        let target = [card.profileName, card.platform.rawValue, card.language].compactMap { $0 }
        return ControlCharacters.escaped("\(card.id) [\(target.joined(separator: " "))]")
    }

    static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
