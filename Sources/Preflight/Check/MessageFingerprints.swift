import Findings

/// The distinct findings of a walk over a report's cards (by fingerprint), without a set of every fingerprint: a
/// fingerprint names its card's message (code, card id, subject), and a message's cards come one after another, so
/// only the fingerprints of the message being walked (``enter(_:)``) are kept, and those inserted before any card
/// (the input findings'), which stay. A card id names its input and the message's place in it, so two messages
/// share one only when two inputs have one name (`check a.json a.json`): such a walk keeps every fingerprint
/// (`keepingAll`), as does a walk over a report already held whole.
struct MessageFingerprints {
    /// Distinct fingerprints inserted so far.
    private(set) var count = 0
    private let keepingAll: Bool
    private var lasting = Set<String>()
    private var current = Set<String>()
    private var message: String?

    init(keepingAll: Bool) {
        self.keepingAll = keepingAll
    }

    /// The cards of message `id` follow (a card's id: the same for each card of one message).
    mutating func enter(_ id: String) {
        guard id != message else { return }
        message = id
        current.removeAll(keepingCapacity: true)
    }

    /// Whether `finding`'s fingerprint is new (a finding without a verdict always is).
    mutating func insert(_ finding: Finding) -> Bool {
        guard let fingerprint = finding.verdict?.fingerprint else { return true }
        return insert(fingerprint)
    }

    mutating func insert(_ fingerprint: String) -> Bool {
        guard !lasting.contains(fingerprint) else { return false }
        let inserted =
            message == nil || keepingAll ? lasting.insert(fingerprint).inserted : current.insert(fingerprint).inserted
        if inserted { count += 1 }
        return inserted
    }
}
