/// What `check` decided about one finding: whether it fails the run at the chosen `--fail-on`, and why not when
/// it does not (a config `ignore` rule, a baseline entry). Set by the one verdict function (`Verdict` in
/// Preflight); every report format reads it instead of deciding again.
public struct FindingVerdict: Sendable, Hashable, Codable {
    /// A finding's place relative to `--baseline`.
    public enum BaselineState: String, Sendable, Hashable, Codable {
        /// Not in the baseline: counts for `--fail-on`.
        case new
        /// In the baseline: reported, never fails the run.
        case known
    }

    /// The finding fails the run (exit code 1): counted at `--fail-on`, not suppressed, not known. The init
    /// decides it from the other fields: the one rule of the verdict table.
    public var failing: Bool
    /// It counts at `--fail-on` by its severity (and code): it fails unless suppressed or known.
    public var counted: Bool
    /// The reason of the config `ignore` rule that suppresses it, when one does.
    public var suppressed: String?
    /// `nil` without `--baseline`.
    public var baseline: BaselineState?
    /// The stable fingerprint (code + card id + redacted URL) the baseline and SARIF track it by.
    public var fingerprint: String

    public init(
        counted: Bool, suppressed: String? = nil, baseline: BaselineState? = nil, fingerprint: String
    ) {
        self.counted = counted
        self.failing = counted && suppressed == nil && baseline != .known
        self.suppressed = suppressed
        self.baseline = baseline
        self.fingerprint = fingerprint
    }
}

extension FindingVerdict {
    /// Why a counted finding does not fail: its suppression reason, or `known (baseline)`; `nil` otherwise.
    public var excuse: String? {
        guard counted, !failing else { return nil }
        return suppressed ?? "known (baseline)"
    }
}
