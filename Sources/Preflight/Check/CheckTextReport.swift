import Findings
import InboxCards

/// The human report of `inbox-assets check`: a table of cards (kind, status, reason), then per card with
/// findings: its findings, the SDK's WARN line when it degrades, and each asset that failed or has findings;
/// then the passes, the inputs, and a summary. Campaign and server data (ids, URLs, content types, finding
/// messages) is printed with its control characters escaped (``ControlCharacters/escaped(_:keepingNewlines:)``).
public enum CheckTextReport {
    /// - Parameter width: the terminal's width: the card table gives way to fit it (``cardTable()``); `nil`
    ///   (a file, a pipe) prints every cell whole.
    public static func render(_ report: CheckReport, style: TextStyle, width: Int? = nil) -> String {
        var output: [UInt8] = []
        let parts = Parts(
            head: report.summary, options: report.options, rootCauses: report.rootCauses,
            rootCause: report.rootCause(of:), passes: report.passes, inputFindings: report.inputFindings,
            policy: report.failOn, keepingAll: true, style: style, width: width)
        parts.write(
            cards: { visit in for check in report.cards { visit(check) } },
            summary: { (report.summary, report.baselineFixed) },
            to: { output += $0 })
        return String(decoding: output, as: UTF8.self)
    }

    /// The report of a prepared check judged by `verdict`, handed to `sink` a piece at a time, without holding its
    /// cards: one walk judges them and measures the table (its column widths and shortened ids need every row), a
    /// second writes the rows, a third the findings (when any card has some), each card resolved and checked again.
    /// The same text as ``render(_:style:width:)`` of the judged report.
    public static func write(
        _ prepared: PreparedCheck, verdict: Verdict, keepingBaselineEntries: Bool = false, style: TextStyle,
        width: Int? = nil, to sink: ([UInt8]) -> Void
    ) -> CheckReportStream.Result {
        var counting = CheckWalk(prepared, verdict: verdict, keepingBaselineEntries: keepingBaselineEntries)
        var head = prepared.summary
        head.cards = prepared.cards.count
        let parts = Parts(
            head: head, options: prepared.options, rootCauses: prepared.rootCauses.causes,
            rootCause: prepared.rootCauses.cause(of:), passes: counting.passes, inputFindings: counting.inputFindings,
            policy: verdict.policy, keepingAll: prepared.inputsNamedAlike, style: style, width: width)
        var walks = 0
        var result: CheckReportStream.Result?
        parts.write(
            cards: { visit in
                walks += 1
                if walks == 1 {
                    prepared.cards.forEach { visit(counting.next($0)) }
                    result = counting.result
                } else {
                    var walk = CheckWalk(prepared, verdict: verdict)
                    prepared.cards.forEach { visit(walk.next($0)) }
                }
            },
            summary: { (result!.summary, result!.baselineFixed) }, to: sink)
        return result!
    }

    /// What the report prints besides its cards, and how.
    private struct Parts {
        /// The counts of the first line (messages, cards, assets).
        let head: CheckSummary
        let options: ResolveOptions
        let rootCauses: [RootCause]
        let rootCause: (String) -> RootCause?
        let passes: [PassCheck]
        let inputFindings: [SourcedFinding]
        let policy: FailPolicy?
        /// Whether to keep every fingerprint printed (``MessageFingerprints``).
        let keepingAll: Bool
        let style: TextStyle
        let width: Int?

        /// Writes the report: `cards` hands its argument every judged card in order, and is called once to measure
        /// the table, once to write it and once more for the findings when a card has some; `summary` is asked for
        /// the judged summary after the first walk.
        func write(
            cards: ((CardCheck) -> Void) -> Void, summary: () -> (CheckSummary, [Baseline.Entry]?),
            to sink: ([UInt8]) -> Void
        ) {
            var text = style.bold("inbox-assets check") + " — \(plural(head.messages, "message")), "
            text += "\(plural(head.cards, "card")), \(plural(head.assets, "asset")) (\(options.targetDescription))\n\n"
            sink(Array(text.utf8))

            let table = CheckTextReport.cardTable()
            var measure = table.measure
            var noteworthy = false
            cards { check in
                measure.add(CheckTextReport.row(check).cells.map { ControlCharacters.escaped($0) })
                if !noteworthy && !check.allFindings.isEmpty { noteworthy = true }
            }
            if measure.rows > 0 {
                withoutActuallyEscaping(sink) { sink in
                    let fitted = FittedTable.Fitted(measure, steps: table.steps, width: width)
                    var output: [UInt8] = []
                    fitted.writeHeader(style, to: &output)
                    cards { check in
                        let row = CheckTextReport.row(check)
                        fitted.write(
                            escaped: row.cells.map { ControlCharacters.escaped($0) }, tones: row.tones, style,
                            to: &output)
                        if output.count >= 1 << 16 {
                            sink(output)
                            output.removeAll(keepingCapacity: true)
                        }
                    }
                    output.append(0x0A)
                    sink(output)
                }
            }
            if noteworthy { writeFindings(cards: cards, to: sink) }
            let (summary, fixed) = summary()
            sink(Array(tail(summary, fixed: fixed).utf8))
        }

        /// The root causes, then the findings of every card that has some.
        func writeFindings(cards: ((CardCheck) -> Void) -> Void, to sink: ([UInt8]) -> Void) {
            var text = ""
            if !rootCauses.isEmpty {
                text += style.bold("Root causes") + "\n"
                for cause in rootCauses {
                    text += "  " + style.red(cause.code) + " " + ControlCharacters.escaped(cause.finding.message) + "\n"
                }
                text += "\n"
            }
            text += style.bold("Findings") + "\n"
            // A finding repeated across SDK profiles, platforms and languages (same fingerprint) prints once; an
            // asset under a root cause prints one line naming it. A fingerprint names its card's message, whose
            // cards come one after another: the fingerprints printed are kept for the message being written only
            // (``MessageFingerprints``).
            var printed = MessageFingerprints(keepingAll: keepingAll)
            withoutActuallyEscaping(sink) { sink in
                cards { check in
                    guard !check.allFindings.isEmpty else { return }
                    let card = check.card
                    printed.enter(card.id)
                    var mark = card.degraded ? " DEGRADED" : check.broken ? " BROKEN" : ""
                    if check.failing { mark += " " + style.red("FAILING") }
                    text += "  \(ResolveTextReport.heading(card))\(mark)\n"
                    let causedURLs = Set(
                        check.assets.filter { rootCause($0.url) != nil }.map { Redaction.redactURL($0.url) })
                    var repeated = 0
                    for finding in check.findings {
                        if finding.code == AssetFindingCode.cardBroken,
                            causedURLs.contains(where: { finding.message.containsBytes($0) })
                        {
                            continue
                        }
                        if printed.insert(finding) {
                            text += "    " + line(finding, style: style) + "\n"
                        } else {
                            repeated += 1
                        }
                    }
                    if let log = card.sdkLog {
                        text += "    " + style.dim("SDK log: \(ControlCharacters.escaped(log))") + "\n"
                    }
                    for asset in check.assets where asset.status == .failed || !asset.findings.isEmpty {
                        let url = ControlCharacters.escaped(Redaction.redactURL(asset.url))
                        text += "    \(AssetRoles.describe(asset.role, index: asset.index)) \(url)"
                        if let cause = rootCause(asset.url) {
                            text += " — root cause " + ControlCharacters.escaped(cause.id) + "\n"
                            continue
                        }
                        text += " — " + ControlCharacters.escaped(assetFacts(asset)) + "\n"
                        for finding in asset.findings {
                            text += "      " + line(finding, style: style) + "\n"
                        }
                    }
                    if repeated > 0 {
                        text +=
                            "    " + style.dim("(+\(repeated) as printed above for another profile or language)") + "\n"
                    }
                    if text.utf8.count >= 1 << 16 {
                        sink(Array(text.utf8))
                        text = ""
                    }
                }
            }
            sink(Array((text + "\n").utf8))
        }

        /// The passes, the inputs, the summary table and the baseline's fixed entries.
        func tail(_ summary: CheckSummary, fixed: [Baseline.Entry]?) -> String {
            var text = ""
            if !passes.isEmpty {
                text += style.bold("Passes") + "\n"
                for pass in passes {
                    let verdict = pass.verification.valid ? style.green("valid") : style.red("INVALID")
                    text += "  \(ControlCharacters.escaped(Redaction.redactURL(pass.url))): \(verdict)\n"
                    for finding in pass.verification.findings where finding.severity != .info {
                        text += "    " + line(finding, style: style) + "\n"
                    }
                }
                text += "\n"
            }
            if !inputFindings.isEmpty {
                text += style.bold("Inputs") + "\n"
                for sourced in inputFindings {
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
            appendVerdict(summary, policy: policy, fixed: fixed, to: &table)
            text += table.render(style)
            if let fixed, !fixed.isEmpty {
                text += "\n" + style.bold("Fixed since the baseline") + "\n"
                for entry in fixed { text += "  \(entry.code) \(ControlCharacters.escaped(entry.hint))\n" }
            }
            return text
        }
    }

    /// A card's row of the table: its cells and their tones.
    static func row(_ check: CardCheck) -> (cells: [String], tones: [Tone]) {
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
        return (
            [
                card.id, title, card.profileName ?? "-", card.platform.rawValue, card.language ?? "-", kind, status,
                reason,
            ], [.plain, .plain, .plain, .plain, .plain, .plain, tone, tone]
        )
    }

    /// The verdict rows of the summary: whether the run fails at `--fail-on`, what is excused.
    static func appendVerdict(
        _ summary: CheckSummary, policy: FailPolicy?, fixed: [Baseline.Entry]?, to table: inout TextTable
    ) {
        guard let policy else { return }
        let verdict =
            summary.failing
            ? "yes: \(plural(summary.failingCards, "card")), \(plural(summary.failingFindings, "finding"))"
            : "no"
        table.append(
            ["failing (--fail-on \(policy.rawValue))", verdict], tones: [.plain, summary.failing ? .red : .green])
        if summary.suppressed > 0 { table.append(["suppressed", "\(summary.suppressed)"]) }
        if let fixed {
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
