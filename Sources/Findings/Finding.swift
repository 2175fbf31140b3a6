/// How bad a finding is. Ordered: `info` < `warning` < `error`.
public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable, Codable {
    case info
    case warning
    case error

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// The platform a rule belongs to: the inbox UI that draws the asset (InboxKit on iOS, inbox-ui on Android).
public enum RulePlatform: String, Sendable, Hashable, CaseIterable, Codable {
    case ios
    case android

    /// `iOS`, `Android`: the name in messages.
    public var displayName: String { self == .ios ? "iOS" : "Android" }
}

/// One thing a stage noticed about an input, a card, an asset or a pass.
///
/// `code` is stable API: people grep and suppress it (`input.*`, `card.*`, `asset.*`, `image.*`,
/// `video.*`, `pass.*`). `message` is for humans and may change. `path` says where: a JSON path such
/// as `data.carousel[1].image`, or a file inside a pass archive such as `en.lproj/pass.strings`.
public struct Finding: Sendable, Hashable, Codable {
    /// Stable machine-readable code, e.g. `card.degraded`.
    public var code: String
    /// How bad it is.
    public var severity: Severity
    /// A human sentence; already redacted of secrets.
    public var message: String
    /// Where the finding points, when it points somewhere.
    public var path: String?
    /// `check`'s verdict (failing, suppressed, baseline state); `nil` until one is made, and in other commands.
    public var verdict: FindingVerdict? = nil
    /// The platform whose rule this is (`ios`, `android`): the same bytes may be fine on the other one
    /// (assets-by-platform.md). `nil` for a fact true wherever the asset is drawn (a 404, a truncated file).
    public var platform: RulePlatform? = nil

    public init(_ severity: Severity, _ code: String, _ message: String, path: String? = nil) {
        self.code = code
        self.severity = severity
        self.message = message
        self.path = path
    }

    public static func error(_ code: String, _ message: String, path: String? = nil) -> Finding {
        Finding(.error, code, message, path: path)
    }

    public static func warning(_ code: String, _ message: String, path: String? = nil) -> Finding {
        Finding(.warning, code, message, path: path)
    }

    public static func info(_ code: String, _ message: String, path: String? = nil) -> Finding {
        Finding(.info, code, message, path: path)
    }

    /// `iOS only`, `Android only` for one platform's rule (reports print it beside the code); nil for a fact.
    public var platformLabel: String? { platform.map { "\($0.displayName) only" } }

    /// The finding as one platform's rule (``platform``).
    public func on(_ platform: RulePlatform) -> Finding {
        var copy = self
        copy.platform = platform
        return copy
    }
}

extension Sequence where Element == Finding {
    /// The highest severity among the findings, or `nil` when there are none.
    public var maxSeverity: Severity? {
        reduce(nil) { worst, finding in worst.map { Swift.max($0, finding.severity) } ?? finding.severity }
    }

    /// How many findings have exactly this severity.
    public func count(_ severity: Severity) -> Int { self.reduce(0) { $0 + ($1.severity == severity ? 1 : 0) } }
}
