import Findings
import InboxCards

/// The human report of `inbox-assets check`: a table of cards (kind, status, reason), then per card with
/// findings: its findings, the SDK's WARN line when it degrades, and each asset that failed or has findings;
/// then the passes, the inputs, and a summary. Campaign and server data (ids, URLs, content types, finding
/// messages) is printed with its control characters escaped (``ControlCharacters/escaped(_:keepingNewlines:)``).
public enum CheckTextReport {
    /// - Parameter width: the terminal's width: the card table gives way to fit it (``cardTable(width:)``); `nil`
    ///   (a file, a pipe) prints every cell whole.
    public static func render(_ report: CheckReport, style: TextStyle, width: Int? = nil) -> String {
        let summary = report.summary
        var text = style.bold("inbox-assets check") + " — \(plural(summary.messages, "message")), "
        text +=
            "\(plural(summary.cards, "card")), \(plural(summary.assets, "asset")) (\(report.options.targetDescription))\n\n"

        if !report.cards.isEmpty {
            var table = cardTable()
            for check in report.cards {
                let card = check.card
                let kind = card.requested == card.resolved ? "\(card.resolved)" : "\(card.requested) → \(card.resolved)"
                let (status, tone, reason): (String, Tone, String)
                if card.degraded {
                    (status, tone, reason) = ("DEGRADED", .yellow, card.degradeReason ?? "")
                } else if check.broken {
                    let failing = check.assets.filter { $0.needed && $0.status == .failed }
                    let first = failing.first.map { AssetRoles.describe($0.role, index: $0.index) + ": " + why($0) }
                    (status, tone, reason) = (
                        "BROKEN", .red, (first ?? "") + (failing.count > 1 ? " (+\(failing.count - 1))" : "")
                    )
                } else {
                    (status, tone, reason) = ("ok", .green, card.forced ? "forced" : "")
                }
                let title = card.title.map { $0.isEmpty ? "-" : Redaction.redactText($0) } ?? "-"
                table.append(
                    [
                        card.id, title, card.profileName ?? "-", card.platform.rawValue, card.language ?? "-", kind,
                        status, reason,
                    ],
                    tones: [.plain, .plain, .plain, .plain, .plain, .plain, tone, tone])
            }
            text += table.render(style, width: width) + "\n"
        }

        let noteworthy = report.cards.filter { !$0.allFindings.isEmpty }
        if !noteworthy.isEmpty {
            if !report.rootCauses.isEmpty {
                text += style.bold("Root causes") + "\n"
                for cause in report.rootCauses {
                    text += "  " + style.red(cause.code) + " " + ControlCharacters.escaped(cause.finding.message) + "\n"
                }
                text += "\n"
            }
            text += style.bold("Findings") + "\n"
            // A finding repeated across SDK profiles, platforms and languages (same fingerprint) prints once; an
            // asset under a root cause prints one line naming it.
            var printed = Set<String>()
            func fresh(_ finding: Finding) -> Bool {
                guard let fingerprint = finding.verdict?.fingerprint else { return true }
                return printed.insert(fingerprint).inserted
            }
            for check in noteworthy {
                let card = check.card
                var mark = card.degraded ? " DEGRADED" : check.broken ? " BROKEN" : ""
                if check.failing { mark += " " + style.red("FAILING") }
                text += "  \(ResolveTextReport.heading(card))\(mark)\n"
                let causedURLs = Set(
                    check.assets.filter { report.rootCause(of: $0.url) != nil }.map { Redaction.redactURL($0.url) })
                var repeated = 0
                for finding in check.findings {
                    if finding.code == AssetFindingCode.cardBroken,
                        causedURLs.contains(where: { finding.message.contains($0) })
                    {
                        continue
                    }
                    if fresh(finding) { text += "    " + line(finding, style: style) + "\n" } else { repeated += 1 }
                }
                if let log = card.sdkLog {
                    text += "    " + style.dim("SDK log: \(ControlCharacters.escaped(log))") + "\n"
                }
                for asset in check.assets where asset.status == .failed || !asset.findings.isEmpty {
                    let url = ControlCharacters.escaped(Redaction.redactURL(asset.url))
                    text += "    \(AssetRoles.describe(asset.role, index: asset.index)) \(url)"
                    if let cause = report.rootCause(of: asset.url) {
                        text += " — root cause " + ControlCharacters.escaped(cause.id) + "\n"
                        continue
                    }
                    text += " — " + ControlCharacters.escaped(assetFacts(asset)) + "\n"
                    for finding in asset.findings {
                        text += "      " + line(finding, style: style) + "\n"
                    }
                }
                if repeated > 0 {
                    text += "    " + style.dim("(+\(repeated) as printed above for another profile or language)") + "\n"
                }
            }
            text += "\n"
        }
        if !report.passes.isEmpty {
            text += style.bold("Passes") + "\n"
            for pass in report.passes {
                let verdict = pass.verification.valid ? style.green("valid") : style.red("INVALID")
                text += "  \(ControlCharacters.escaped(Redaction.redactURL(pass.url))): \(verdict)\n"
                for finding in pass.verification.findings where finding.severity != .info {
                    text += "    " + line(finding, style: style) + "\n"
                }
            }
            text += "\n"
        }
        if !report.inputFindings.isEmpty {
            text += style.bold("Inputs") + "\n"
            for sourced in report.inputFindings {
                text += "  \(ControlCharacters.escaped(sourced.source))\n    "
                text += line(sourced.finding, style: style) + "\n"
            }
            text += "\n"
        }
        var table = TextTable(header: ["SUMMARY", ""])
        table.append(["cards", "\(summary.cards)"])
        table.append(
            ["degraded", "\(summary.degraded)"], tones: [.plain, summary.degraded > 0 ? .yellow : .plain])
        table.append(["broken", "\(summary.broken)"], tones: [.plain, summary.broken > 0 ? .red : .plain])
        table.append(["errors", "\(summary.errors)"], tones: [.plain, summary.errors > 0 ? .red : .plain])
        table.append(["warnings", "\(summary.warnings)"])
        table.append(["assets (failed)", "\(summary.assets) (\(summary.assetsFailed))"])
        table.append(["bytes fetched", ByteCount.format(summary.bytesFetched)])
        appendVerdict(report, to: &table)
        var rendered = text + table.render(style)
        if let fixed = report.baselineFixed, !fixed.isEmpty {
            rendered += "\n" + style.bold("Fixed since the baseline") + "\n"
            for entry in fixed { rendered += "  \(entry.code) \(ControlCharacters.escaped(entry.hint))\n" }
        }
        return rendered
    }

    /// The verdict rows of the summary: whether the run fails at `--fail-on`, what is excused.
    static func appendVerdict(_ report: CheckReport, to table: inout TextTable) {
        let summary = report.summary
        guard let policy = report.failOn else { return }
        let verdict =
            summary.failing
            ? "yes: \(plural(summary.failingCards, "card")), \(plural(summary.failingFindings, "finding"))"
            : "no"
        table.append(
            ["failing (--fail-on \(policy.rawValue))", verdict], tones: [.plain, summary.failing ? .red : .green])
        if summary.suppressed > 0 { table.append(["suppressed", "\(summary.suppressed)"]) }
        if let fixed = report.baselineFixed {
            table.append(["baseline known (fixed)", "\(summary.known) (\(fixed.count))"])
        }
    }

    /// A finding's line, with its verdict: `FAILING`, `[suppressed: reason]`, `[known]`/`[new]`.
    static func line(_ finding: Finding, style: TextStyle) -> String {
        var line = ResolveTextReport.line(finding, style: style)
        guard let verdict = finding.verdict else { return line }
        if let reason = verdict.suppressed { line += style.dim(" [suppressed: \(ControlCharacters.escaped(reason))]") }
        if let state = verdict.baseline { line += style.dim(" [\(state.rawValue)]") }
        return line
    }

    /// The card table's columns and how they give way to a narrow terminal: the ids lose their directory, then
    /// the title and the reason shorten, then the ids their JSON path (`demo.json#…[11]`), then the title goes.
    static func cardTable() -> FittedTable {
        let (card, title, kind, reason) = (0, 1, 5, 7)
        return FittedTable(
            header: ["CARD", "TITLE", "SDK", "PLATFORM", "LANG", "KIND", "STATUS", "REASON"],
            shortening: [.id, .end, nil, nil, nil, .end, nil, .end],
            steps: [
                .shrink(column: card, to: 40), .shrink(column: title, to: 24), .shrink(column: reason, to: 30),
                .compactIDs(column: card), .shrink(column: title, to: 12), .shrink(column: reason, to: 20),
                .drop(column: title), .shrink(column: reason, to: 10), .shrink(column: kind, to: 9),
                .shrink(column: card, to: 12), .shrink(column: reason, to: 6),
            ])
    }

    /// `HTTP 404`, `not an image`, … — why an asset failed, for the table.
    static func why(_ asset: AssetCheck) -> String {
        if let status = asset.httpStatus, asset.failure == "http-status" { return "HTTP \(status)" }
        return asset.failure ?? asset.findings.first(where: { $0.severity == .error })?.code ?? "failed"
    }

    /// `ok 200 image/png 12.3 KiB 640×480 png (store)` / `failed http-status 404`.
    static func assetFacts(_ asset: AssetCheck) -> String {
        var parts = [asset.status.rawValue]
        if let failure = asset.failure { parts.append(failure) }
        if let status = asset.httpStatus { parts.append(String(status)) }
        if let type = asset.contentType { parts.append(type) }
        if let bytes = asset.bytes { parts.append(ByteCount.format(bytes)) }
        if let width = asset.width, let height = asset.height { parts.append("\(width)×\(height)") }
        if let format = asset.format { parts.append(format) }
        if let source = asset.source, source != "network" { parts.append("(\(source))") }
        return parts.joined(separator: " ")
    }

    static func plural(_ count: Int, _ noun: String) -> String { ResolveTextReport.plural(count, noun) }
}
