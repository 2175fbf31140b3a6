import StrictJSON
import TestSupport
import Testing

@testable import InboxCards

/// ``FeedOrder`` past its spill threshold (``SpilledFeedOrder``: sorted runs on disk, a k-way merge, the places read
/// back in card order) must give every card exactly the places the in-memory order gives: its position, its places
/// in other languages' feeds, its `sentAt` and `unread`. Thresholds of a card or a few force the disk path, and run
/// sizes of a few cards force one run, two and many.
@Suite struct FeedOrderSpillTests {
    static let at: Int64 = 1_750_000_000
    static let options = ResolveOptions(
        profiles: SDKProfile.allCases, platforms: Platform.allCases, androidProfiles: AndroidProfile.allCases, at: at)

    /// What a generated feed has (each a share of its messages, decided by a seeded generator).
    struct Shape: Sendable, CustomTestStringConvertible {
        var name: String
        var seed: UInt64
        var messages: Int
        /// Per-language titles: with `en` (`de`, `fr`, sometimes `ja`), and without (`de` and `fr`, or `ja` alone).
        var perLanguage = 0.0
        var withoutEnglish = 0.0
        var missingTitle = 0.0
        var push = 0.0
        /// Send dates, orders and codes from a few values only: ties all the way down to the card index.
        var ties = true
        var testDescription: String { name }
    }

    static let shapes: [Shape] = [
        Shape(name: "plain, many ties", seed: 1, messages: 120),
        Shape(name: "plain, distinct dates", seed: 2, messages: 150, ties: false),
        Shape(name: "per-language with en", seed: 3, messages: 90, perLanguage: 0.5),
        Shape(name: "per-language without en", seed: 4, messages: 90, perLanguage: 0.5, withoutEnglish: 0.6),
        Shape(name: "missing titles", seed: 5, messages: 100, missingTitle: 0.4),
        Shape(name: "push and feed", seed: 6, messages: 100, push: 0.3),
        Shape(
            name: "everything", seed: 7, messages: 160, perLanguage: 0.4, withoutEnglish: 0.4, missingTitle: 0.2,
            push: 0.2),
        Shape(name: "all per-language", seed: 8, messages: 60, perLanguage: 1, withoutEnglish: 0.3, ties: false),
        Shape(name: "one message", seed: 9, messages: 1, perLanguage: 1),
    ]

    /// The messages of `shape`, as an array of feed messages and pushes.
    static func feed(_ shape: Shape) -> JSONValue {
        var random = SeededGenerator(seed: shape.seed)
        var messages: [JSONValue] = []
        // Codes that tie, differ only past a common prefix, are not ASCII, or are one string spelt two ways (`é`
        // composed and decomposed: equal to Swift, different bytes).
        let codes = ["a", "b", "aa", "Z", "", "é", "e\u{301}", "ü-1", "z"]
        for index in 0..<shape.messages {
            let sent = shape.ties ? random.pick([100, 200, 200, 300]) : 1_700_000_000 + Int(random.next() % 100_000)
            let order = shape.ties ? random.pick([1, 1, 2, -3]) : Int(random.next() % 1000)
            let code = shape.ties ? random.pick(codes) : "m\(index)-\(random.pick(codes))"
            let pinned = random.chance(0.2)
            if random.chance(shape.push) {
                messages.append(
                    .object(
                        JSONObject([
                            ("pw_inbox", .string("p-\(code)")),
                            ("aps", ["alert": ["title": "Title", "body": "Body"]]),
                            ("header", .string(random.pick(["Title", "Other", "Ünï"]))), ("title", "Body"),
                            ("inbox_params", ["rt": .int(Int(at) + 3_600)]), ("send_date", .int(sent)),
                        ])))
                continue
            }
            var title: JSONValue? = .string(random.pick(["Apple", "Banana", "Apple", "Çe", "C\u{327}e"]))
            if random.chance(shape.perLanguage) {
                if random.chance(shape.withoutEnglish) {
                    title = random.chance(0.5) ? ["de": "Angebot", "fr": "Solde"] : ["ja": "セール"]
                } else {
                    var languages = JSONObject([
                        ("de", "Angebot"), ("en", .string("Sale \(index % 3)")), ("fr", "Solde"),
                    ])
                    if random.chance(0.5) { languages["ja"] = "セール" }
                    title = .object(languages)
                }
            } else if random.chance(shape.missingTitle) {
                title = nil
            }
            let params: JSONValue = ["displayType": "classic", "pinned": .bool(pinned)]
            var object = JSONObject([
                ("inbox_id", .string(code)), ("order", .int(order)), ("rt", 4_102_444_800), ("text", "Body"),
                ("send_date", .int(sent)), ("action_type", 0), ("status", .int(random.pick([1, 2, 3, 1]))),
                ("action_params", .string(params.serialized())),
            ])
            if let title { object["title"] = title }
            messages.append(.object(object))
        }
        return .array(messages)
    }

    /// Each message of `value` with its cards (not yet placed).
    static func resolved(_ value: JSONValue) throws -> [(message: InboxMessage, cards: [ResolvedCard])] {
        let batch = try CampaignReader.read(bytes: Input.bytes(value), source: "feed.json")
        let resolver = CardResolver(options: options)
        var ignored: [SourcedFinding] = []
        return batch.messages.map { message in
            var cards: [ResolvedCard] = []
            resolver.resolve(message, at: at, into: &cards, inputFindings: &ignored)
            return (message, cards)
        }
    }

    /// Every card of `messages` given its places by a ``FeedOrder`` with `limits` (read through a cursor, as a walk
    /// reads them), and the runs it sorted on disk (`nil`: it stayed in memory); `nil` when its files failed.
    static func placed(_ messages: [(message: InboxMessage, cards: [ResolvedCard])], limits: SpillLimits)
        -> (cards: [ResolvedCard], runs: Int?)?
    {
        var order = FeedOrder(limits: limits)
        for (message, cards) in messages { order.add(message, cards: cards[...], at: at) }
        guard let positions = order.positions() else { return nil }
        var cards = messages.flatMap(\.cards)
        #expect(positions.cardCount == cards.count)
        var cursor = positions.cursor()
        for index in cards.indices {
            guard cursor.apply(to: &cards[index], index: index) else { return nil }
        }
        return (cards, order.spilledRuns)
    }

    /// The limits that force the disk path for `cards` cards: one run, two, many (with many buckets), and a spill
    /// half way through the read.
    static func spilling(_ cards: Int) -> [(name: String, limits: SpillLimits, runs: ClosedRange<Int>)] {
        [
            ("one run", SpillLimits(threshold: 1, runCards: cards + 1), 1...1),
            ("two runs", SpillLimits(threshold: 1, runCards: (cards + 1) / 2, bucketCards: (cards + 1) / 2), 2...3),
            ("many runs, many buckets", SpillLimits(threshold: 1, runCards: 3, bucketCards: 5), (cards / 3)...cards),
            ("spilled half way", SpillLimits(threshold: max(cards / 2, 1), runCards: 7), 2...cards),
        ]
    }

    @Test(arguments: shapes)
    func spilledPlacesAreTheInMemoryPlaces(_ shape: Shape) throws {
        let messages = try Self.resolved(Self.feed(shape))
        let memory = try #require(Self.placed(messages, limits: .inMemory))
        #expect(memory.runs == nil)
        // The in-memory order is the one a whole run gives.
        let whole = CardResolver(options: Self.options).run(
            try CampaignReader.read(bytes: Input.bytes(Self.feed(shape)), source: "feed.json"))
        #expect(memory.cards == whole.cards)
        #expect(!memory.cards.isEmpty)
        if shape.perLanguage > 0 && shape.messages > 1 {
            #expect(memory.cards.contains { !$0.otherFeedPositions.isEmpty })
        }
        for (name, limits, runs) in Self.spilling(memory.cards.count) {
            let spilled = try #require(Self.placed(messages, limits: limits), "\(name)")
            let count = try #require(spilled.runs, "\(name): it spilled")
            #expect(runs.contains(count), "\(name): \(count) runs")
            #expect(spilled.cards.count == memory.cards.count)
            for (disk, ram) in zip(spilled.cards, memory.cards) where disk != ram {
                Issue.record(
                    """
                    \(shape.name), \(name): card \(ram.code ?? "-") \(ram.platform) \(ram.language ?? "-"): \
                    \(String(describing: disk.feedPosition)) \(disk.otherFeedPositions) \
                    against \(String(describing: ram.feedPosition)) \(ram.otherFeedPositions)
                    """)
                break
            }
        }
    }

    /// The streamed resolve of the project's campaigns and per-language feeds, its order forced to disk, walked
    /// twice and copied from a spool: the whole run's cards and bytes.
    @Test(arguments: try StreamedResolveTests.cases())
    func spilledStreamsAreTheWholeRun(_ input: Named<[UInt8]>) throws {
        let limits = SpillLimits(threshold: 1, runCards: 4, bucketCards: 6)
        let whole = StreamedResolveTests.whole(input.value, name: "in.ndjson")
        let resolver = CardResolver(options: StreamedResolveTests.options)
        let streamed = resolver.stream([CampaignInput(name: "in.ndjson", bytes: input.value)], spill: limits)
        StreamedResolveTests.expectSame(streamed, whole)
        StreamedResolveTests.expectSame(streamed, whole)
        for format in [CardSpool.Format.json, .ndjson] {
            let spool = try CardSpool(format: format)
            let spooled = resolver.stream(
                [CampaignInput(name: "in.ndjson", bytes: input.value)], spill: limits, card: spool.add)
            var run = whole.run
            run.inputFindings = spooled.inputFindings
            var expected = JSONWriter(pretty: format == .json)
            var written = JSONWriter(pretty: format == .json)
            if format == .json { run.write(to: &expected) } else { run.writeLines(to: &expected) }
            try spooled.write(to: &written, spool: spool)
            #expect(written.bytes == expected.bytes, "\(input.name), \(format)")
        }
    }

    /// A cursor read out of order (a card before the last one) reads the files again from the start: the same
    /// places.
    @Test func aCursorGoingBackReadsAgain() throws {
        let shape = Self.shapes[6]
        let messages = try Self.resolved(Self.feed(shape))
        let memory = try #require(Self.placed(messages, limits: .inMemory)).cards
        var order = FeedOrder(limits: SpillLimits(threshold: 1, runCards: 5))
        for (message, cards) in messages { order.add(message, cards: cards[...], at: Self.at) }
        let positions = try #require(order.positions())
        var cursor = positions.cursor()
        var cards = messages.flatMap(\.cards)
        for index in [5, 9, 2, 0, 40, 41, 3].filter({ $0 < cards.count }) {
            #expect(cursor.apply(to: &cards[index], index: index))
            #expect(cards[index] == memory[index])
        }
    }

    /// `$TMPDIR` that takes no file: the order stays in memory, the same places.
    @Test func anUnwritableDirectoryStaysInMemory() throws {
        let messages = try Self.resolved(Self.feed(Self.shapes[6]))
        let memory = try #require(Self.placed(messages, limits: .inMemory))
        let limits = SpillLimits(threshold: 1, runCards: 3, directory: "/nonexistent-inbox-assets-dir")
        let refused = try #require(Self.placed(messages, limits: limits))
        #expect(refused.runs == nil)
        #expect(refused.cards == memory.cards)
    }

    /// A `$TMPDIR` that fills up part way (at once, in the runs, in the merge's files): the order says so, and the
    /// streamed resolve orders the run again in memory — the whole run's cards.
    @Test(arguments: [0, 100, 1_000, 4_000])
    func aFullDirectoryFallsBackToMemory(_ bytes: Int) throws {
        let shape = Self.shapes[6]
        let limits = SpillLimits(threshold: 1, runCards: 16, failWritesAfter: bytes)
        let messages = try Self.resolved(Self.feed(shape))
        #expect(Self.placed(messages, limits: limits) == nil)
        let input = Input.bytes(Self.feed(shape))
        let streamed = CardResolver(options: Self.options).stream(
            [CampaignInput(name: "feed.json", bytes: input)], spill: limits)
        let whole = CardResolver(options: Self.options).run(try CampaignReader.read(bytes: input, source: "feed.json"))
        var cards: [ResolvedCard] = []
        streamed.cards.forEach { cards.append($0) }
        #expect(streamed.cards.failure == nil)
        #expect(cards == whole.cards)
    }

    /// Past the threshold the order's memory stops growing: ten times the messages, the same bytes held.
    @Test func spilledMemoryIsBounded() throws {
        let messages = try Self.resolved(Self.feed(Self.shapes[6]))
        let limits = SpillLimits(threshold: 256, runCards: 128, bucketCards: 256)
        var order = FeedOrder(limits: limits)
        var held: [Int] = []
        for round in 1...40 {
            for (message, cards) in messages { order.add(message, cards: cards[...], at: Self.at) }
            if round == 4 || round == 40 { held.append(order.heldBytes) }
        }
        #expect(held[0] == held[1], "\(held)")
        #expect(held[1] <= 128 * 64 + 2 * 128 * 4 + (1 << 20) + (1 << 16) + 4096, "\(held)")
        var inMemory = FeedOrder()
        for (message, cards) in messages { inMemory.add(message, cards: cards[...], at: Self.at) }
        let once = inMemory.heldBytes
        for _ in 1...9 {
            for (message, cards) in messages { inMemory.add(message, cards: cards[...], at: Self.at) }
        }
        #expect(inMemory.heldBytes > 5 * once, "in memory it grows with the run")
        let positions = try #require(order.positions())
        #expect(positions.cardCount == 40 * messages.reduce(0) { $0 + $1.cards.count })
    }
}

extension SeededGenerator {
    /// True `share` of the time.
    mutating func chance(_ share: Double) -> Bool { Double(next() % 1000) < share * 1000 }
    /// One of `values`.
    mutating func pick<T>(_ values: [T]) -> T { values[Int(next() % UInt64(values.count))] }
}
