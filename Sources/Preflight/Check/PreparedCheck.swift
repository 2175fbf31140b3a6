import Findings
public import InboxCards
public import StrictJSON

/// A check up to its cards (``CheckPipeline/prepare(_:progress:)``): the resolved cards, every distinct asset use
/// judged once, the passes, the root causes. A card is checked — its assets looked up, `card.broken` and the
/// placeholder findings added — only when a report asks for it: ``report()`` collects every card into one
/// ``CheckReport``; ``CheckReportStream`` writes each as it is checked and holds none.
public struct PreparedCheck: Sendable {
    public var options: ResolveOptions
    /// The resolved cards, in report order: resolved again from the inputs on each walk, never all held.
    public let cards: CardStream
    /// Findings about inputs and messages that produce no card; a caller may add its own before a report.
    public var inputFindings: [SourcedFinding]
    public let passes: [PassCheck]
    /// Inputs that are not JSON, empty or too large (the CLI prints them and exits 2).
    public let unusableInputs: [InputError]
    /// The summary's counts known before any card is checked: messages, assets, failed assets, bytes fetched.
    public let summary: CheckSummary
    let judged: [AssetUseKey: AssetCheck]
    /// The cards' distinct asset uses, in the order they first use them.
    let uses: [AssetUse]
    let retrieved: [String: RetrievedAsset]
    let bodyLimit: Int
    let rootCauses: RootCauseIndex
    /// Whether two inputs have one name (`check a.json a.json`), so that two messages can have one card id: walks
    /// that keep a message's fingerprints only while its cards go by keep them all then (``MessageFingerprints``).
    var inputsNamedAlike = false

    init(
        options: ResolveOptions, cards: CardStream, uses: [AssetUse], judged: [AssetUseKey: AssetCheck],
        retrieved: [String: RetrievedAsset], inputFindings: [SourcedFinding], passes: [PassCheck],
        unusableInputs: [InputError], summary: CheckSummary, bodyLimit: Int
    ) {
        self.options = options
        self.cards = cards
        self.uses = uses
        self.judged = judged
        self.retrieved = retrieved
        self.inputFindings = inputFindings
        self.passes = passes
        self.unusableInputs = unusableInputs
        self.summary = summary
        self.bodyLimit = bodyLimit
        // The causes from the distinct uses; the cards are walked (resolved again) only to count those a cause
        // breaks, when there is one.
        rootCauses = RootCauseIndex(
            RootCause.find(
                uses: { visit in visit(uses.compactMap { judged[$0.key] }) },
                cards: { visit in
                    cards.forEach { card in visit(card.assets.map { Self.use($0, on: card, in: judged) }) }
                }
            ))
    }

    /// The judged use of `reference` on `card` (every use was judged when the check was prepared).
    private static func use(
        _ reference: AssetReference, on card: ResolvedCard, in judged: [AssetUseKey: AssetCheck]
    ) -> AssetCheck {
        let key = AssetUseKey(url: reference.fetchURL, role: reference.role, on: card)
        var asset =
            judged[key] ?? AssetCheck(role: key.role, index: nil, url: key.url, status: .skipped, needed: key.needed)
        asset.index = reference.index
        return asset
    }

    /// One card's assets, judged by its platform's rules, and whether it renders broken; with the placeholder
    /// findings (``PreviewChecks/annotate(_:)``). No verdict yet.
    public func check(_ card: ResolvedCard) -> CardCheck {
        var assets: [AssetCheck] = []
        var checkFindings: [Finding] = []
        for reference in card.assets {
            let asset = Self.use(reference, on: card, in: judged)
            if asset.needed, asset.status == .failed, asset.failure != AssetCheck.botChallengeFailure {
                let what = AssetRoles.describe(reference.role, index: reference.index)
                checkFindings.append(
                    .error(
                        AssetFindingCode.cardBroken,
                        "\(what) \(Redaction.redactURL(reference.fetchURL)) fails (\(CheckTextReport.why(asset))): "
                            + "the \(card.resolved) card renders broken",
                        path: reference.path))
            }
            assets.append(asset)
        }
        return PreviewChecks.annotate(CardCheck(card: card, assets: assets, checkFindings: checkFindings))
    }

    /// Every card checked, in one report (what the text, JUnit, SARIF, Markdown and HTML formats render), not yet
    /// judged: apply a ``Verdict`` before reading any verdict.
    public func report() -> CheckReport {
        var checks: [CardCheck] = []
        checks.reserveCapacity(cards.count)
        cards.forEach { checks.append(check($0)) }
        var report = CheckReport(
            options: options, summary: summary, inputFindings: inputFindings, cards: checks, passes: passes)
        report.summary.cards = checks.count
        report.summary.degraded = checks.count { $0.card.degraded }
        report.summary.broken = checks.count(where: \.broken)
        let counts = report.findingCounts
        report.summary.errors = counts.errors
        report.summary.warnings = counts.warnings
        report.rootCauses = rootCauses.causes
        return report
    }

    /// The bytes and content type of a fetched asset (for embedding images in the HTML report).
    public func body(for url: String) -> (bytes: [UInt8], contentType: String)? {
        CheckPipeline.Outcome.body(of: retrieved[url], limit: bodyLimit)
    }
}

/// A prepared check's cards checked and judged one at a time (what every streamed report walks): the findings
/// about inputs and the passes are judged first (``inputFindings``, ``passes``), then each card as ``next(_:)``
/// is handed it, counting the summary as it goes; ``result`` is what the walk added up to. A card is judged the
/// same whether it was walked alone or in a ``PreparedCheck/report()`` under ``Verdict/apply(to:)``.
public struct CheckWalk {
    public let verdict: Verdict
    /// The input findings, judged.
    public let inputFindings: [SourcedFinding]
    /// The passes, judged.
    public let passes: [PassCheck]
    private let prepared: PreparedCheck
    private var tally: Verdict.Tally
    private var summary: CheckSummary

    public init(_ prepared: PreparedCheck, verdict: Verdict, keepingBaselineEntries: Bool = false) {
        self.prepared = prepared
        self.verdict = verdict
        tally = Verdict.Tally(baseline: verdict.baseline, keepingEntries: keepingBaselineEntries)
        var inputFindings = prepared.inputFindings
        var passes = prepared.passes
        verdict.judge(inputFindings: &inputFindings, passes: &passes, tally: &tally)
        self.inputFindings = inputFindings
        self.passes = passes
        summary = prepared.summary
    }

    /// `card` checked and judged, and counted in the summary.
    public mutating func next(_ card: ResolvedCard) -> CardCheck {
        var check = prepared.check(card)
        verdict.judge(&check, tally: &tally)
        summary.cards += 1
        if card.degraded { summary.degraded += 1 }
        if check.broken { summary.broken += 1 }
        return check
    }

    /// The summary of what was walked so far (with its verdict counts) and the baseline entries when kept.
    public var result: CheckReportStream.Result {
        var summary = summary
        verdict.finish(&summary, tally)
        return CheckReportStream.Result(
            summary: summary, baselineEntries: tally.entries, newFindings: tally.counts.new,
            baselineFixed: verdict.fixed(tally))
    }
}

/// `check --format json` and `--format ndjson` without a report of every card: the head of the document (the asset
/// table, the passes, the root causes), then each card checked, judged and written in turn, then the tail (the
/// input findings, the baseline, the summary counted as the cards went by). The same bytes as
/// ``CheckReport/write(to:)`` and ``CheckReport/writeLines(to:)`` of the judged report.
public enum CheckReportStream {
    /// What the written report adds up to.
    public struct Result: Sendable {
        public var summary: CheckSummary
        /// The baseline entries of the run's unsuppressed findings, when asked for (`--write-baseline`).
        public var baselineEntries: [Baseline.Entry]?
        /// Findings not in the baseline (0 without one).
        public var newFindings: Int
        /// Under `--baseline`: its entries no finding matched; `nil` without a baseline.
        public var baselineFixed: [Baseline.Entry]?
    }

    public static func write(
        _ prepared: PreparedCheck, verdict: Verdict, keepingBaselineEntries: Bool = false, lines: Bool,
        to writer: inout JSONWriter
    ) -> Result {
        // The JSON report names no fingerprint.
        var verdict = verdict
        verdict.fingerprints = false
        var walk = CheckWalk(prepared, verdict: verdict, keepingBaselineEntries: keepingBaselineEntries)
        let table = AssetTable(uses: prepared.uses, judged: prepared.judged, rules: verdict.rules)
        let document = CheckReportDocument(
            table: table, passes: walk.passes, rootCauses: prepared.rootCauses, lines: lines)
        document.writeHead(to: &writer)
        var message = ReportMessage()
        prepared.cards.forEach { document.write(walk.next($0), to: &writer, message: &message) }
        let result = walk.result
        document.writeTail(
            to: &writer, message: &message, inputFindings: walk.inputFindings, summary: result.summary,
            baseline: CheckReportDocument.baselineJSON(
                fixed: result.baselineFixed, new: result.newFindings, known: result.summary.known))
        return result
    }
}
