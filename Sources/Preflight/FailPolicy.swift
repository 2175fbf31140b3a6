public import Findings

/// `--fail-on`: which results make the run fail (exit code 1).
public enum FailPolicy: String, Sendable, CaseIterable {
    /// Any error finding (the default).
    case error
    /// Any warning or error finding.
    case warning
    /// Any card that degrades to classic (its `card.degraded` finding), or any error finding.
    case degrade
    /// Never fail on findings (exit 0 unless an input is unreadable).
    case never

    /// Whether this finding, at its severity, counts for the policy (before suppressions and the baseline, which
    /// ``Verdict`` applies).
    public func counts(_ finding: Finding) -> Bool {
        switch self {
        case .never: false
        case .error: finding.severity == .error
        case .warning: finding.severity >= .warning
        case .degrade: finding.severity == .error || finding.code == "card.degraded"
        }
    }

    /// Whether a run whose highest finding severity is `worst` (`nil`: no finding) and with this many degraded (or
    /// broken) cards fails (`resolve`, which has no suppressions or baseline).
    public func fails(worst: Severity?, degradedCards: Int) -> Bool {
        switch self {
        case .never: return false
        case .error: return worst == .error
        case .warning: return worst.map { $0 >= .warning } ?? false
        case .degrade: return degradedCards > 0 || worst == .error
        }
    }
}
