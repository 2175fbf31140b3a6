public import Findings
public import InboxCards
public import StrictJSON
public import WalletPass

/// One asset as one card uses it: what was fetched, what the inspection found, and whether the card needs it.
public struct AssetCheck: Sendable, Hashable {
    /// What happened to the asset.
    public enum Status: String, Sendable, Hashable {
        /// Fetched (or served from the store) and inspected without an error.
        case ok
        /// Unreachable, or its bytes are not what the card needs (not an image, invalid pass, unplayable video).
        case failed
        /// Not fetched: links are reported only.
        case skipped
    }

    public var role: AssetReference.Role
    public var index: Int?
    /// The URL as in the input, secrets included: redact before printing (``json`` does).
    public var url: String
    public var status: Status
    /// The fetch failure class (`http-status`, `timeout`, …) or the inspection's (`not-an-image`, `invalid-pass`, …).
    public var failure: String?
    public var httpStatus: Int?
    public var contentType: String?
    public var bytes: Int?
    public var sha256: String?
    public var width: Int?
    public var height: Int?
    /// Video: the codec (`avc1`, `hvc1`, `hev1`… of the movie's track, or an HLS variant's `CODECS`).
    public var codec: String?
    /// Video: the movie's duration in seconds (progressive MP4/MOV).
    public var durationSeconds: Double?
    /// Video: whether the MP4/MOV index (`moov`) comes before the media data (fast start).
    public var moovBeforeMdat: Bool?
    /// What the bytes are: `png`, `jpeg`, `mp4`, `hls`, `pkpass`, …
    public var format: String?
    /// Where the bytes came from: `network`, `revalidated`, `store`, `memory`, `missing`.
    public var source: String?
    /// Whether the card renders broken when this asset fails (hero image, slides, video, pass) rather than
    /// only earning a warning (avatar, icon, poster, wallet hero).
    public var needed: Bool
    public var findings: [Finding]

    /// The ``failure`` of a response that is a CDN or WAF challenge (`asset.botChallenge`).
    public static let botChallengeFailure = "bot-challenge"

    public init(
        role: AssetReference.Role, index: Int?, url: String, status: Status, needed: Bool, findings: [Finding] = []
    ) {
        self.role = role
        self.index = index
        self.url = url
        self.status = status
        self.needed = needed
        self.findings = findings
    }
}

/// One card after its assets were checked.
public struct CardCheck: Sendable, Hashable {
    /// The resolved card (kind, degrade, card findings, asset references).
    public var card: ResolvedCard
    /// Its assets, in the card's order, links included (status `skipped`).
    public var assets: [AssetCheck]
    /// Findings the check adds to the card (`card.broken`, one per needed asset that fails).
    public var checkFindings: [Finding]
    /// The card fails the run at `--fail-on`: one of its findings does (set by ``Verdict``).
    public var failing = false

    public init(card: ResolvedCard, assets: [AssetCheck], checkFindings: [Finding]) {
        self.card = card
        self.assets = assets
        self.checkFindings = checkFindings
    }

    /// The card renders as its kind but a needed asset fails (404, not an image, invalid pass, unplayable video).
    /// A degraded card is never broken: it renders as classic.
    /// A bot challenge (``AssetCheck/botChallengeFailure``) does not break it: the app may load the asset.
    public var broken: Bool {
        !card.degraded
            && assets.contains { $0.needed && $0.status == .failed && $0.failure != AssetCheck.botChallengeFailure }
    }

    /// The card's own findings, then the check's.
    public var findings: [Finding] { card.findings + checkFindings }

    /// Every finding of the card and its assets.
    public var allFindings: [Finding] { findings + assets.flatMap(\.findings) }
}

/// A pass referenced by a wallet card, verified once however many cards use it.
public struct PassCheck: Sendable, Hashable {
    /// The pass URL as in the input, secrets included.
    public var url: String
    public var verification: PassVerification

    public init(url: String, verification: PassVerification) {
        self.url = url
        self.verification = verification
    }

    /// `{"url", "valid", "summary", "signer", "findings"}` (as `pass verify --format json`).
    public var json: JSONValue {
        guard case .object(var object) = verification.json else { return verification.json }
        var result = JSONObject([("url", .string(Redaction.redactURL(url)))])
        object["url"] = nil
        object["path"] = nil
        for (key, value) in object { result[key] = value }
        return .object(result)
    }
}

/// Counts for the summary line and the report's `summary` object.
public struct CheckSummary: Sendable, Hashable {
    public var messages = 0
    public var cards = 0
    public var degraded = 0
    public var broken = 0
    public var errors = 0
    public var warnings = 0
    /// Distinct asset URLs fetched or probed (links excluded).
    public var assets = 0
    /// Body bytes received over the network in this run.
    public var bytesFetched = 0
    /// Distinct asset URLs that failed.
    public var assetsFailed = 0
    /// The run fails at `--fail-on` (exit code 1), after suppressions and the baseline (set by ``Verdict``).
    public var failing = false
    /// Cards and findings that fail the run.
    public var failingCards = 0
    public var failingFindings = 0
    /// Findings a config `ignore` rule suppresses, and findings the baseline knows.
    public var suppressed = 0
    public var known = 0

    public init() {}

    public var json: JSONValue {
        .object(
            JSONObject([
                ("messages", .int(messages)), ("cards", .int(cards)), ("degraded", .int(degraded)),
                ("broken", .int(broken)), ("errors", .int(errors)), ("warnings", .int(warnings)),
                ("assets", .int(assets)), ("assetsFailed", .int(assetsFailed)), ("bytesFetched", .int(bytesFetched)),
                ("failing", .bool(failing)), ("failingCards", .int(failingCards)),
                ("failingFindings", .int(failingFindings)), ("suppressed", .int(suppressed)), ("known", .int(known)),
            ]))
    }
}

/// The result of `inbox-assets check`: the versioned report every format renders.
public struct CheckReport: Sendable, Hashable {
    /// Bumped only when a field changes meaning or disappears; new fields may be added.
    public static let schemaVersion = 3

    public var options: ResolveOptions
    public var summary: CheckSummary
    /// Findings about inputs and messages that produce no card.
    public var inputFindings: [SourcedFinding]
    public var cards: [CardCheck]
    public var passes: [PassCheck]
    /// The `--fail-on` the ``Verdict`` judged at; `nil` before.
    public var failOn: FailPolicy? = nil
    /// Under `--baseline`: its entries no finding of this run matches (fixed); `nil` without a baseline.
    public var baselineFixed: [Baseline.Entry]? = nil
    /// Host-level failures many assets share (``RootCause/find(in:)``).
    public var rootCauses: [RootCause] {
        get { rootCauseIndex.causes }
        set { rootCauseIndex = RootCauseIndex(newValue) }
    }
    /// The root causes with an index from asset URL to them.
    private(set) var rootCauseIndex = RootCauseIndex([])
    /// The baseline entries of this run's findings (`--write-baseline`), set by ``Verdict``.
    public var findingEntries: [Baseline.Entry] = []
    /// Findings new to the baseline (set by ``Verdict`` under `--baseline`).
    public var newFindings = 0

    /// The run fails at `--fail-on` (set by ``Verdict``).
    public var failing: Bool { summary.failing }

    public init(
        options: ResolveOptions, summary: CheckSummary, inputFindings: [SourcedFinding], cards: [CardCheck],
        passes: [PassCheck]
    ) {
        self.options = options
        self.summary = summary
        self.inputFindings = inputFindings
        self.cards = cards
        self.passes = passes
    }

    /// Every finding that counts towards `--fail-on`: inputs, cards, their assets and passes.
    public var allFindings: [Finding] {
        inputFindings.map(\.finding) + cards.flatMap(\.allFindings) + passes.flatMap(\.verification.findings)
    }

    /// Visits ``allFindings`` in that order without collecting them (a report of 100,000 cards holds millions).
    public func forEachFinding(_ body: (Finding) -> Void) {
        for finding in inputFindings { body(finding.finding) }
        for card in cards.indices {
            for finding in cards[card].card.findings { body(finding) }
            for finding in cards[card].checkFindings { body(finding) }
            for asset in cards[card].assets.indices {
                for finding in cards[card].assets[asset].findings { body(finding) }
            }
        }
        for pass in passes { for finding in pass.verification.findings { body(finding) } }
    }

    /// Counts of the report's findings: by severity, failing, suppressed, known to the baseline, and new to it.
    public struct FindingCounts: Sendable, Hashable {
        public var errors = 0
        public var warnings = 0
        public var failing = 0
        public var suppressed = 0
        public var known = 0
        public var new = 0

        /// Adds one finding.
        public mutating func count(_ finding: Finding) {
            if finding.severity == .error { errors += 1 }
            if finding.severity == .warning { warnings += 1 }
            guard let verdict = finding.verdict else { return }
            if verdict.failing { failing += 1 }
            if verdict.suppressed != nil { suppressed += 1 }
            if verdict.baseline == .known { known += 1 }
            if verdict.baseline == .new { new += 1 }
        }
    }

    /// ``FindingCounts`` of every finding, in one pass.
    public var findingCounts: FindingCounts {
        var counts = FindingCounts()
        forEachFinding { counts.count($0) }
        return counts
    }

    /// The root causes a card's assets fall under.
    public func rootCauses(of check: CardCheck) -> [RootCause] { rootCauseIndex.causes(of: check.assets) }

    /// The root cause an asset URL falls under, if any.
    public func rootCause(of url: String) -> RootCause? { rootCauseIndex.cause(of: url) }

    /// The report as a tree: what ``write(to:)`` writes, parsed back (for callers that inspect it in memory; the
    /// CLI streams it instead).
    public var json: JSONValue {
        var writer = JSONWriter()
        write(to: &writer)
        // The writer's own output is JSON by construction.
        return (try? JSON.parse(writer.bytes)) ?? .null
    }

    /// `{"schemaVersion":3,"assets":{…},"passes":[…],"rootCauses":[…],"messages":[…],"findings":[…],"baseline",
    /// "summary":{…}}` (``CheckReportDocument``); ``CheckReportStream`` writes the same document without a report
    /// of every card.
    public func write(to writer: inout JSONWriter) { writeDocument(to: &writer, lines: false) }

    /// The report as NDJSON (`check --format ndjson`, ``CheckReportDocument``).
    public func writeLines(to writer: inout JSONWriter) { writeDocument(to: &writer, lines: true) }

    private func writeDocument(to writer: inout JSONWriter, lines: Bool) {
        let document = CheckReportDocument(
            table: AssetTable(cards), passes: passes, rootCauses: rootCauseIndex, lines: lines)
        document.writeHead(to: &writer)
        var message = ReportMessage()
        for index in cards.indices { document.write(cards[index], to: &writer, message: &message) }
        document.writeTail(
            to: &writer, message: &message, inputFindings: inputFindings, summary: summary,
            baseline: CheckReportDocument.baselineJSON(fixed: baselineFixed, new: newFindings, known: summary.known))
    }
}
