public import Findings
public import StrictJSON
import Synchronization

/// A resolve run that does not hold its cards (``CardResolver/stream(_:readerOptions:observer:card:)``): what a
/// first read of the inputs counted, and ``cards``, which resolves the cards again each time it is walked.
public struct StreamedResolve: Sendable {
    /// The options the cards are resolved with (``ResolveOptions/at`` fixed at the first read, so every walk
    /// resolves the same cards).
    public var options: ResolveOptions
    /// Messages read (plain pushes included).
    public var messagesRead: Int
    /// Findings about the inputs, in the order ``CardResolver/run(_:)`` lists them, then the unusable inputs'.
    public var inputFindings: [SourcedFinding]
    /// Inputs that are not JSON, empty, too large or unreadable (the CLI prints them and exits 2).
    public var unusableInputs: [InputError]
    /// The cards, in run order, with their feed positions.
    public var cards: CardStream
    /// Cards that render as classic instead of their requested kind.
    public var degraded: Int
    /// The cards' own findings (input findings not counted) of each severity, and the highest.
    public var cardErrors: Int
    public var cardWarnings: Int
    public var cardMaxSeverity: Severity?

    /// The highest severity among the run's findings (input and card findings); `nil`: none.
    public var maxSeverity: Severity? {
        let input = inputFindings.lazy.map(\.finding).maxSeverity
        guard let input, let card = cardMaxSeverity else { return input ?? cardMaxSeverity }
        return max(input, card)
    }

    /// The report `resolve --format json` writes: ``ResolveRun/write(to:)``'s bytes, each card resolved again as it
    /// is written.
    public func write(to writer: inout JSONWriter) {
        ResolveRun.write(counts, inputFindings: inputFindings, to: &writer) { cards.forEach($0) }
    }

    /// `resolve --format ndjson`: ``ResolveRun/writeLines(to:)``'s bytes, each card resolved again as it is written.
    public func writeLines(to writer: inout JSONWriter) {
        ResolveRun.writeLines(counts, inputFindings: inputFindings, to: &writer) { cards.forEach($0) }
    }

    /// ``write(to:)`` with the cards copied from `spool`, which the first read filled (``CardSpool/add(_:)`` as its
    /// `card`), instead of resolved again.
    /// - Throws: the spool's failure (a full `$TMPDIR`); the report is then incomplete.
    public func write(to writer: inout JSONWriter, spool: CardSpool) throws(CardSpool.Failure) {
        var failure: CardSpool.Failure?
        let write: (inout JSONWriter) -> Void = { writer in
            do throws(CardSpool.Failure) {
                try spool.write(to: &writer, positions: cards.positions)
            } catch {
                failure = error
            }
        }
        switch spool.format {
        case .json: ResolveRun.write(counts, inputFindings: inputFindings, to: &writer, writeCards: write)
        case .ndjson: ResolveRun.writeLines(counts, inputFindings: inputFindings, to: &writer, writeCards: write)
        }
        if let failure { throw failure }
    }

    /// The run whole, every card in memory (the text report lays out every row).
    public func materialized() -> ResolveRun {
        var all: [ResolvedCard] = []
        all.reserveCapacity(cards.count)
        cards.forEach { all.append($0) }
        return ResolveRun(options: options, messagesRead: messagesRead, inputFindings: inputFindings, cards: all)
    }

    var counts: ResolveRun.Counts {
        ResolveRun.Counts(
            messages: messagesRead, cards: cards.count, degraded: degraded, errors: findingCount(.error),
            warnings: findingCount(.warning))
    }

    /// How many findings of the run (input and card findings) have exactly `severity` (errors and warnings).
    public func findingCount(_ severity: Severity) -> Int {
        let input = inputFindings.reduce(0) { $0 + ($1.finding.severity == severity ? 1 : 0) }
        switch severity {
        case .error: return input + cardErrors
        case .warning: return input + cardWarnings
        default: return input
        }
    }
}

/// The cards of a run, walked as often as a report needs (``forEach(_:)``) without ever holding them: each walk
/// reads the inputs again (an NDJSON file a chunk at a time), resolves each message again and gives each card the
/// feed position the first read worked out. The same cards, in the same order, as ``CardResolver/run(_:)``.
///
/// A file that changed since the first read, or that cannot be read again, ends the walk early; ``failure`` then
/// says which and why (the CLI reports it and exits 2).
public final class CardStream: Sendable {
    /// How many cards a walk yields.
    public let count: Int
    /// Resolves with ``ResolveOptions/at`` fixed at the first read, so every walk resolves the same cards.
    let resolver: CardResolver
    /// The inputs that gave cards, each with how many.
    let inputs: [(input: CampaignInput, cards: Int)]
    let readerOptions: ReaderOptions
    let positions: FeedPositions
    private let failed = Mutex<InputError?>(nil)

    init(
        resolver: CardResolver, inputs: [(input: CampaignInput, cards: Int)], readerOptions: ReaderOptions,
        positions: FeedPositions
    ) {
        self.resolver = resolver
        self.inputs = inputs
        self.readerOptions = readerOptions
        self.positions = positions
        count = positions.cardCount
    }

    /// Why a walk ended early, if one did.
    public var failure: InputError? { failed.withLock { $0 } }

    /// Hands `body` every card in run order, resolved again from the inputs. The inputs are read, parsed and resolved
    /// on a thread of their own, a few hundred cards ahead of `body` (``ReadAhead``): a report's checking and
    /// writing run on one core while the next cards are read on the other. `body` runs on the calling thread.
    public func forEach(_ body: (ResolvedCard) -> Void) {
        ReadAhead<ResolvedCard>.run(size: 256, depth: 4, make: { [self] emit in walk(emit) }, use: body)
    }

    /// ``forEach(_:)`` on the calling thread.
    private func walk(_ body: (ResolvedCard) -> Void) {
        let at = resolver.moment
        var index = 0
        var cards: [ResolvedCard] = []
        var ignored: [SourcedFinding] = []
        // The places in card order, read as the cards come (from files, when the run spilled).
        var cursor = positions.cursor()
        for (input, count) in inputs {
            guard input.isUnchanged else { return fail(input.name, "changed while it was being checked") }
            let end = index + count
            do {
                _ = try CampaignReader.stream(input, options: readerOptions) { message in
                    guard cursor.failure == nil else { return }
                    cards.removeAll(keepingCapacity: true)
                    resolver.resolve(message, at: at, into: &cards, inputFindings: &ignored)
                    ignored.removeAll(keepingCapacity: true)
                    // In place: `for var card in cards` would copy every card (a dozen retains) first.
                    for slot in cards.indices where index < end {
                        guard cursor.apply(to: &cards[slot], index: index) else { return }
                        index += 1
                        body(cards[slot])
                    }
                }
            } catch {
                return failed.withLock { $0 = $0 ?? error }
            }
            if let code = cursor.failure {
                return fail("$TMPDIR", "cannot read the feed positions back: \(CampaignFile.ReadError(code: code))")
            }
            guard index == end else {
                return fail(input.name, "changed while it was being checked (\(count) cards before, fewer now)")
            }
        }
    }

    private func fail(_ source: String, _ reason: String) {
        failed.withLock { $0 = $0 ?? InputError(source: source, kind: .unreadable(reason: reason)) }
    }
}

extension CardResolver {
    /// Resolves `inputs` without holding their messages or cards: each message is read, resolved and let go, and
    /// only what the feed order needs is kept (``FeedOrder``: a few bytes a card, in files in `$TMPDIR` past a
    /// quarter of a million cards, so that memory stays the same however many messages). `card` sees each card as
    /// it is resolved, without its feed position; `observer` each message read. The result's
    /// ``StreamedResolve/cards`` walks the cards again, with their positions, as often as needed.
    ///
    /// Counts, findings and cards are those of ``run(_:)`` on the same inputs read whole.
    public func stream(
        _ inputs: [CampaignInput], readerOptions: ReaderOptions = .init(),
        observer: (InboxMessage) -> Void = { _ in }, card: (ResolvedCard) -> Void = { _ in }
    ) -> StreamedResolve {
        stream(inputs, readerOptions: readerOptions, spill: .standard, observer: observer, card: card)
    }

    /// ``stream(_:readerOptions:observer:card:)`` with the feed order's keys going to disk past `spill`'s
    /// threshold (tests force the disk path at a few cards).
    func stream(
        _ inputs: [CampaignInput], readerOptions: ReaderOptions = .init(), spill: SpillLimits,
        observer: (InboxMessage) -> Void = { _ in }, card: (ResolvedCard) -> Void = { _ in }
    ) -> StreamedResolve {
        let at = moment
        var fixed = options
        fixed.at = at
        let resolver = CardResolver(options: fixed)
        var order = FeedOrder(limits: spill)
        var readFindings: [SourcedFinding] = []
        var messageFindings: [SourcedFinding] = []
        var unusable: [InputError] = []
        var walked: [(input: CampaignInput, cards: Int)] = []
        var messages = 0
        var cards: [ResolvedCard] = []
        var counted = (degraded: 0, errors: 0, warnings: 0, worst: Severity?.none)
        for input in inputs {
            let before = order.cardCount
            do {
                var read = try CampaignReader.stream(input, options: readerOptions) { message in
                    observer(message)
                    cards.removeAll(keepingCapacity: true)
                    resolver.resolve(message, at: at, into: &cards, inputFindings: &messageFindings)
                    order.add(message, cards: cards[...], at: at)
                    for index in cards.indices {
                        let findings = cards[index].findings
                        if cards[index].degraded { counted.degraded += 1 }
                        counted.errors += findings.count(.error)
                        counted.warnings += findings.count(.warning)
                        if let worst = findings.maxSeverity { counted.worst = max(counted.worst ?? worst, worst) }
                        card(cards[index])
                    }
                }
                messages += read.messages
                // Nothing to resolve: unusable as a whole (exit 2).
                if read.messages == 0 { unusable.append(read.batch.noMessagesError(source: input.name)) }
                readFindings += read.batch.findings
            } catch {
                unusable.append(error)
            }
            // A file that failed part way may have given cards already: walks read it again for as many.
            if order.cardCount > before { walked.append((input, order.cardCount - before)) }
        }
        // A spilled order whose files failed (a full $TMPDIR): the same inputs read again, ordered in memory.
        let positions =
            order.positions()
            ?? Self.positionsInMemory(walked, resolver: resolver, at: at, readerOptions: readerOptions)
        return StreamedResolve(
            options: fixed, messagesRead: messages,
            inputFindings: readFindings + runFindings + messageFindings + unusable.map(\.finding),
            unusableInputs: unusable,
            cards: CardStream(resolver: resolver, inputs: walked, readerOptions: readerOptions, positions: positions),
            degraded: counted.degraded, cardErrors: counted.errors, cardWarnings: counted.warnings,
            cardMaxSeverity: counted.worst)
    }

    /// The feed positions of the cards `walked` gives (as many of each input's as the first read had), worked out in
    /// memory: the fallback of a run whose spill files failed. An input that cannot be read again gives fewer
    /// cards; the walks then report it.
    private static func positionsInMemory(
        _ walked: [(input: CampaignInput, cards: Int)], resolver: CardResolver, at: Int64,
        readerOptions: ReaderOptions
    ) -> FeedPositions {
        var order = FeedOrder(limits: .inMemory)
        var cards: [ResolvedCard] = []
        var ignored: [SourcedFinding] = []
        for (input, count) in walked {
            var left = count
            _ = try? CampaignReader.stream(input, options: readerOptions) { message in
                guard left > 0 else { return }
                cards.removeAll(keepingCapacity: true)
                resolver.resolve(message, at: at, into: &cards, inputFindings: &ignored)
                ignored.removeAll(keepingCapacity: true)
                order.add(message, cards: cards[..<min(cards.count, left)], at: at)
                left -= min(cards.count, left)
            }
        }
        return order.positions()!  // in memory: never nil
    }
}
