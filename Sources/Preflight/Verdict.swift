public import Findings
import InboxCards

/// A config `ignore` rule: every matcher it has must match (globs: `*` any run of characters, `?` one), and it
/// needs a reason, which the reports print next to the finding it suppresses.
public struct IgnoreRule: Sendable, Hashable {
    /// A finding code glob: `asset.httpStatus`, `image.*`.
    public var code: String?
    /// A glob on the (redacted) URL of the asset or pass the finding is about.
    public var url: String?
    /// A glob on the input file or the message id (`campaigns/*.json`, `c.json#request.notifications[3]`).
    public var input: String?
    /// The card kind (requested or resolved): `carousel`.
    public var kind: String?
    public var reason: String

    public init(code: String? = nil, url: String? = nil, input: String? = nil, kind: String? = nil, reason: String) {
        self.code = code
        self.url = url
        self.input = input
        self.kind = kind
        self.reason = reason
    }

    func matches(_ finding: Finding, _ context: FindingContext) -> Bool {
        if let code, !Glob.matches(code, finding.code) { return false }
        if let url {
            guard let subject = context.url, Glob.matches(url, Redaction.redactURL(subject)) else { return false }
        }
        if let input {
            let file = JUnitReport.inputFile(of: context.id)
            let id = Redaction.redactURL(context.id)
            let at = finding.path.map { "\(file)#\($0)" }
            guard Glob.matches(input, file) || Glob.matches(input, id) || at.map({ Glob.matches(input, $0) }) == true
            else {
                return false
            }
        }
        if let kind { guard context.kinds.contains(kind) else { return false } }
        return true
    }
}

/// What a finding is about, for the ignore rules and its fingerprint.
public struct FindingContext: Sendable, Hashable {
    /// The message id (`file#path`), the input source, or the pass URL.
    public var id: String
    /// The asset or pass URL the finding is about (secrets included; redacted where used).
    public var url: String?
    /// The card's requested and resolved kinds.
    public var kinds: [String]
    /// The HTTP status of the asset the finding is about.
    public var httpStatus: Int?

    public init(id: String, url: String? = nil, kinds: [String] = [], httpStatus: Int? = nil) {
        self.id = id
        self.url = url
        self.kinds = kinds
        self.httpStatus = httpStatus
    }
}

/// Config rules that change how findings count: `ignore` rules and severity overrides per code.
public struct FindingRules: Sendable, Hashable {
    public var ignore: [IgnoreRule]
    /// `code` → the severity it is reported at (SARIF level, summary counts, `--fail-on`).
    public var severity: [String: Severity]
    /// Statuses accepted per host glob: the `asset.httpStatus` of such a response, and the `card.broken` it
    /// causes, are suppressed.
    public var acceptedStatuses: [CheckConfig.AcceptedStatus]

    public init(
        ignore: [IgnoreRule] = [], severity: [String: Severity] = [:],
        acceptedStatuses: [CheckConfig.AcceptedStatus] = []
    ) {
        self.ignore = ignore
        self.severity = severity
        self.acceptedStatuses = acceptedStatuses
    }

    /// The config's `severity` override of `finding`'s code, applied (the one place an override is applied).
    func overrideSeverity(of finding: inout Finding) {
        if let override = severity[finding.code] { finding.severity = override }
    }

    /// The reason an accepted status excuses a finding about `url` answered with `status`, if one does.
    func accepted(_ url: String?, status: Int?) -> String? {
        guard !acceptedStatuses.isEmpty, let url, let status, let host = Glob.host(of: url) else { return nil }
        guard acceptedStatuses.contains(where: { Glob.matches($0.host, host) && $0.statuses.contains(status) })
        else { return nil }
        return "HTTP \(status) accepted for \(host) (config acceptStatus)"
    }
}

/// The one verdict function of `check`: per finding and per card, whether it fails the run at `--fail-on`, after
/// severity overrides, `ignore` rules and the baseline. It writes ``FindingVerdict`` into every finding,
/// ``CardCheck/failing`` into every card and ``CheckReport/failing``; the exit code and every format read those.
public struct Verdict: Sendable {
    public var policy: FailPolicy
    public var rules: FindingRules
    public var baseline: Baseline?
    /// Whether each verdict gets the finding's fingerprint (``FindingVerdict/fingerprint``): SARIF, Markdown and the
    /// text report tell findings apart by it. The JSON, NDJSON and JUnit walks read none and turn it off (it is a
    /// twentieth of their time on 500,000 cards); a baseline to compare with or entries to keep need it anyway.
    public var fingerprints = true

    public init(policy: FailPolicy, rules: FindingRules = .init(), baseline: Baseline? = nil) {
        self.policy = policy
        self.rules = rules
        self.baseline = baseline
    }

    /// What judging adds up to as it goes: the counts the summary needs, and the fingerprints the baseline needs
    /// (seen ones only under `--baseline`, entries only when asked for: a run of 500,000 cards has millions).
    public struct Tally: Sendable {
        public var counts = CheckReport.FindingCounts()
        public var failingCards = 0
        /// Fingerprints of this run's findings, kept only when there is a baseline to find the fixed ones of.
        var seen: Set<String>?
        /// The baseline entries of this run's unsuppressed findings (`--write-baseline`), `nil` when not kept.
        public var entries: [Baseline.Entry]?

        public init(baseline: Baseline?, keepingEntries: Bool) {
            seen = baseline == nil ? nil : []
            entries = keepingEntries ? [] : nil
        }
    }

    /// Overrides the severity, then sets the finding's verdict and counts it.
    func judge(_ finding: inout Finding, _ context: FindingContext, tally: inout Tally) {
        judge(
            &finding, context, redactedID: Redaction.redactURL(context.id),
            redactedURL: context.url.map(Redaction.redactURL), tally: &tally)
    }

    /// ``judge(_:_:tally:)`` with the context's id and URL redacted already (once per card and asset).
    private func judge(
        _ finding: inout Finding, _ context: FindingContext, redactedID: String, redactedURL: String?,
        tally: inout Tally
    ) {
        rules.overrideSeverity(of: &finding)
        let fingerprint =
            fingerprints || baseline != nil || tally.entries != nil
            ? Baseline.fingerprint(finding, redactedID: redactedID, redactedURL: redactedURL) : ""
        tally.seen?.insert(fingerprint)
        var suppressed = rules.ignore.first { $0.matches(finding, context) }?.reason
        if suppressed == nil, finding.code == "asset.httpStatus" || finding.code == AssetFindingCode.cardBroken {
            suppressed = rules.accepted(context.url, status: context.httpStatus)
        }
        if suppressed == nil, tally.entries != nil {
            tally.entries?.append(
                Baseline.Entry(
                    fingerprint: fingerprint, code: ControlCharacters.escaped(finding.code),
                    hint: ControlCharacters.escaped(Baseline.hint(finding, context))))
        }
        let state: FindingVerdict.BaselineState? = baseline.map { $0.contains(fingerprint) ? .known : .new }
        let verdict = FindingVerdict(
            counted: policy.counts(finding), suppressed: suppressed, baseline: state, fingerprint: fingerprint)
        finding.verdict = verdict
        tally.counts.count(finding)
    }

    /// Judges a card's findings, its check's and its assets', then the card.
    public func judge(_ check: inout CardCheck, tally: inout Tally) {
        let kinds = [check.card.requested.rawValue, check.card.resolved.rawValue]
        let context = FindingContext(id: check.card.id, kinds: kinds)
        let id = Redaction.redactURL(check.card.id)
        for index in check.card.findings.indices {
            judge(&check.card.findings[index], context, redactedID: id, redactedURL: nil, tally: &tally)
        }
        for index in check.checkFindings.indices {
            // `card.broken` names the failing asset's URL: judge it with that asset's URL and status.
            let message = check.checkFindings[index].message
            let asset = check.assets.first {
                $0.status == .failed && message.containsBytes(Redaction.redactURL($0.url))
            }
            var brokenContext = context
            brokenContext.url = asset?.url
            brokenContext.httpStatus = asset?.httpStatus
            judge(
                &check.checkFindings[index], brokenContext, redactedID: id,
                redactedURL: brokenContext.url.map(Redaction.redactURL), tally: &tally)
        }
        for assetIndex in check.assets.indices {
            let assetContext = FindingContext(
                id: check.card.id, url: check.assets[assetIndex].url, kinds: kinds,
                httpStatus: check.assets[assetIndex].httpStatus)
            let url =
                check.assets[assetIndex].findings.isEmpty ? nil : Redaction.redactURL(check.assets[assetIndex].url)
            for index in check.assets[assetIndex].findings.indices {
                judge(
                    &check.assets[assetIndex].findings[index], assetContext, redactedID: id, redactedURL: url,
                    tally: &tally)
            }
        }
        check.failing =
            check.findings.contains { $0.verdict?.failing == true }
            || check.assets.contains { $0.findings.contains { $0.verdict?.failing == true } }
        if check.failing { tally.failingCards += 1 }
    }

    /// Judges the findings about inputs and the passes' (what a report has besides its cards).
    public func judge(inputFindings: inout [SourcedFinding], passes: inout [PassCheck], tally: inout Tally) {
        for index in inputFindings.indices {
            judge(&inputFindings[index].finding, FindingContext(id: inputFindings[index].source), tally: &tally)
        }
        for passIndex in passes.indices {
            let context = FindingContext(id: passes[passIndex].url, url: passes[passIndex].url)
            for index in passes[passIndex].verification.findings.indices {
                judge(&passes[passIndex].verification.findings[index], context, tally: &tally)
            }
        }
    }

    /// The summary's verdict counts from what the run's judging added up to.
    public func finish(_ summary: inout CheckSummary, _ tally: Tally) {
        summary.errors = tally.counts.errors
        summary.warnings = tally.counts.warnings
        summary.failingFindings = tally.counts.failing
        summary.failingCards = tally.failingCards
        summary.suppressed = tally.counts.suppressed
        summary.known = tally.counts.known
        summary.failing = summary.failingFindings > 0
    }

    /// Under `--baseline`: its entries no finding of the judged run matched (fixed); `nil` without a baseline.
    public func fixed(_ tally: Tally) -> [Baseline.Entry]? {
        guard let baseline, let seen = tally.seen else { return nil }
        return baseline.entries.filter { !seen.contains($0.fingerprint) }
    }

    /// Judges every finding of the report, then its cards and the run; recounts the summary.
    public func apply(to report: inout CheckReport) {
        var tally = Tally(baseline: baseline, keepingEntries: true)
        judge(inputFindings: &report.inputFindings, passes: &report.passes, tally: &tally)
        for cardIndex in report.cards.indices {
            // In place: a copy of the card would copy every findings array it then writes to.
            judge(&report.cards[cardIndex], tally: &tally)
        }
        finish(&report.summary, tally)
        report.newFindings = tally.counts.new
        report.failOn = policy
        report.findingEntries = tally.entries ?? []
        report.baselineFixed = fixed(tally)
    }
}
