import Findings
import InboxCards
import StrictJSON

/// Root causes with an index from asset URL to them: a card's causes without scanning every cause's URLs.
struct RootCauseIndex: Sendable, Hashable {
    let causes: [RootCause]
    private var index: [String: [Int]] = [:]

    init(_ causes: [RootCause]) {
        self.causes = causes
        for (position, cause) in causes.enumerated() {
            for url in cause.urls { index[url, default: []].append(position) }
        }
    }

    /// The causes `assets` fall under, in the causes' order.
    func causes(of assets: [AssetCheck]) -> [RootCause] {
        guard !causes.isEmpty else { return [] }
        var positions: [Int] = []
        for asset in assets {
            for position in index[asset.url] ?? [] where !positions.contains(position) { positions.append(position) }
        }
        return positions.sorted().map { causes[$0] }
    }

    /// The first cause `url` falls under, if any.
    func cause(of url: String) -> RootCause? { index[url]?.first.map { causes[$0] } }
}

/// The JSON report (schemaVersion 3) in the order it is written, so that the cards can go by one message at a
/// time: a head of what is known before the cards (each asset once in the ``AssetTable``, the passes, the root
/// causes — the cards refer to them), the messages with their cards (``ReportMessage``), and a tail of what they add
/// up to (the input findings, the baseline, the summary).
///
/// As JSON: `{"schemaVersion":3,"assets":{…},"passes":[…],"rootCauses":[…],"messages":[…],"findings":[…],
/// "baseline","summary":{…}}`, indented but for each message, which is one compact line. As NDJSON (`check --format
/// ndjson`): one compact object per line, each with its `"type"` first — an `asset` line per asset (its table key as
/// `key`, then the entry's members), a `pass` line per pass, a `rootCause` line per root cause, a `card` line per
/// card (every member of the card, as schemaVersion 2 wrote it), a `finding` line per input finding — and last one
/// `summary` line: `schemaVersion`, the summary's counts and `baseline`.
struct CheckReportDocument {
    var table: AssetTable
    var passes: [PassCheck]
    var rootCauses: RootCauseIndex
    /// NDJSON lines instead of one document.
    var lines: Bool

    func writeHead(to writer: inout JSONWriter) {
        if lines {
            table.writeLines(to: &writer)
            for pass in passes { NDJSON.line("pass", pass.json, to: &writer) }
            for cause in rootCauses.causes { NDJSON.line("rootCause", cause.json, to: &writer) }
            return
        }
        writer.beginObject()
        writer.key("schemaVersion")
        writer.int(CheckReport.schemaVersion)
        writer.key("assets")
        table.write(to: &writer)
        writer.key("passes")
        writer.beginArray()
        for pass in passes { writer.value(pass.json) }
        writer.endArray()
        writer.key("rootCauses")
        writer.beginArray()
        for cause in rootCauses.causes { writer.value(cause.json) }
        writer.endArray()
        writer.key("messages")
        writer.beginArray()
    }

    /// One card: in NDJSON its `card` line; in the document it joins `message`, which is written first when the
    /// card starts the next message.
    func write(_ check: CardCheck, to writer: inout JSONWriter, message: inout ReportMessage) {
        guard !lines else { return writeCard(check, to: &writer) }
        if check.card.id != message.id { finish(&message, to: &writer) }
        message.add(id: check.card.id) { writeCard(check, to: &$0) }
    }

    /// Writes the gathered message, if any, as the next element of `messages`.
    func finish(_ message: inout ReportMessage, to writer: inout JSONWriter) {
        guard !message.isEmpty else { return }
        message.serialize { writer.serialized($0) }
        message.removeAll()
    }

    /// One card: the resolver's members with `broken`, `failing` and `rootCauses` (the ids of the root causes its
    /// assets fall under) after `sdkLog`, its own and the check's findings, and its assets as references into the
    /// table; an NDJSON line has a leading `"type":"card"`.
    private func writeCard(_ check: CardCheck, to writer: inout JSONWriter) {
        let causes = rootCauses.causes(of: check.assets)
        check.card.write(
            to: &writer, type: lines ? "card" : nil,
            afterSDKLog: { writer in
                writer.key("broken")
                writer.bool(check.broken)
                writer.key("failing")
                writer.bool(check.failing)
                writer.key("rootCauses")
                writer.beginArray()
                for cause in causes { writer.string(cause.id) }
                writer.endArray()
            },
            findings: { writer in
                for finding in check.card.findings { finding.write(to: &writer) }
                for finding in check.checkFindings { finding.write(to: &writer) }
            },
            assets: { writer in
                for asset in check.assets {
                    table.writeReference(to: &writer, asset, on: check.card, brief: !lines)
                }
            })
        if lines { writer.raw("\n") }
    }

    /// The tail, after the last card's message (`message`, written first).
    func writeTail(
        to writer: inout JSONWriter, message: inout ReportMessage, inputFindings: [SourcedFinding],
        summary: CheckSummary, baseline: JSONValue
    ) {
        finish(&message, to: &writer)
        if lines {
            for finding in inputFindings { NDJSON.line("finding", finding.json, to: &writer) }
            var summaryLine = JSONObject([("schemaVersion", .int(CheckReport.schemaVersion))])
            for (key, value) in summary.json.objectValue ?? JSONObject() { summaryLine[key] = value }
            summaryLine["baseline"] = baseline
            NDJSON.line("summary", .object(summaryLine), to: &writer)
            return
        }
        writer.endArray()
        writer.key("findings")
        writer.beginArray()
        for finding in inputFindings { finding.write(to: &writer) }
        writer.endArray()
        writer.key("baseline")
        writer.value(baseline)
        writer.key("summary")
        writer.value(summary.json)
        writer.endObject()
    }

    /// `{"new", "known", "fixed": [{"fingerprint", "code", "hint"}]}` under `--baseline`, else `null`.
    static func baselineJSON(fixed: [Baseline.Entry]?, new: Int, known: Int) -> JSONValue {
        guard let fixed else { return .null }
        return .object(
            JSONObject([
                ("new", .int(new)), ("known", .int(known)),
                (
                    "fixed",
                    .array(
                        fixed.map {
                            .object(
                                JSONObject([
                                    ("fingerprint", .string($0.fingerprint)), ("code", .string($0.code)),
                                    ("hint", .string($0.hint)),
                                ]))
                        })
                ),
            ]))
    }
}
