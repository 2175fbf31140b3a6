import StrictJSON

/// The order each SDK shows its feed in (android-inbox.md §4), giving every card its ``ResolvedCard/feedPosition``.
///
/// - iOS: storage sorts by send date, order and code (newest first); InboxKit's default transform then puts pinned
///   messages first, then unread ones (`PushwooshInboxKitAttributes.defaultTransform`, `pinningEnabled` true).
/// - Android: `InboxMessageInternal.compareTo`, descending: push-delivered before service messages, then send date,
///   order, title (a missing title first) and id. Neither pinned nor unread moves a message.
///
/// A feed is one platform, profile and device language, and holds every visible message: a message that is not
/// per-language with its one card, a per-language one with the card of that language, else of its `en` text (else
/// its first language: what a device of another language shows). A card's position is the one in its language's
/// feed; a language-less card's in the feed of a device whose language no message has.
///
/// Only the sort keys are kept, not the cards (a resolve of millions of cards can stream them): per message its
/// send date, order, code and flags; per card its message, title, language and feed, in arrays of a few bytes a card
/// (``add(_:cards:at:)``). ``positions()`` sorts each feed and returns ``FeedPositions``, which a card is given by
/// its index in the run.
///
/// Past ``SpillLimits/threshold`` cards even those bytes would grow with the run: the keys so far and every later
/// card's go to unlinked files in `$TMPDIR` (``SpilledFeedOrder``: sorted runs, a k-way merge, the positions read
/// back in card order), so that memory stays the same however long the run. Where `$TMPDIR` takes no file it all
/// stays in memory, as before; where a write fails part way (a full `$TMPDIR`), ``positions()`` returns `nil` and
/// the caller orders the run again in memory. Either way the positions are the same.
struct FeedOrder {
    private struct MessageKey {
        var sendDate: Double
        var order: Int64
        var code: String
        var read: Bool
        var push: Bool
    }

    struct FeedKey: Hashable {
        var platform: Platform
        var profile: String?
    }

    /// Per message with cards, in read order.
    private var messages: [MessageKey] = []
    /// Per message, the index of its first card (and one past the last card at the end): what
    /// ``FeedPositions`` finds a card's message with.
    private var firstCards: [Int32] = []
    /// Per card (struct of arrays: 13 bytes a card): its message, its title in ``titles`` (-1: none), its language
    /// in ``languageIDs`` (-1: none), its feed in ``feeds`` (with ``pinnedBit``).
    private var cardMessage: [Int32] = []
    private var cardTitle: [Int32] = []
    private var cardLanguage: [Int32] = []
    private var cardFeed: [UInt8] = []
    private static let pinnedBit: UInt8 = 0x80
    /// The distinct titles of each message's cards (a message's cards mostly share one).
    private var titles: [String] = []
    private var languageIDs = Interned<String>()
    /// The platform × profile feeds: a dozen at most, far below the pinned bit.
    private var feeds = Interned<FeedKey>()

    let limits: SpillLimits
    /// Past the threshold: the run on disk (the arrays above then empty).
    private var spill: SpilledFeedOrder?
    /// `$TMPDIR` took no file: everything stays in memory.
    private var spillRefused = false

    /// An empty order, which goes to disk past `limits`' threshold (``SpillLimits/inMemory``: never).
    init(limits: SpillLimits = .inMemory) {
        self.limits = limits
    }

    /// The cards recorded so far.
    var cardCount: Int { spill?.cardCount ?? cardMessage.count }

    /// The runs sorted on disk; `nil` while the order is in memory.
    var spilledRuns: Int? { spill?.runCount }

    /// The bytes the order's arrays hold (their capacities, not the strings' own storage): what grows with the run
    /// in memory and stops growing once it spilled.
    var heldBytes: Int {
        let perCard = cardMessage.capacity * 4 + cardTitle.capacity * 4 + cardLanguage.capacity * 4 + cardFeed.capacity
        let perMessage = messages.capacity * MemoryLayout<MessageKey>.stride + firstCards.capacity * 4
        return perCard + perMessage + titles.capacity * MemoryLayout<String>.stride + (spill?.heldBytes ?? 0)
    }

    /// Records `cards`, the cards of `message` (the next message in read order), as the next cards of the run.
    mutating func add(_ message: InboxMessage, cards: ArraySlice<ResolvedCard>, at: Int64) {
        guard !cards.isEmpty else { return }
        let delivery = message.delivery
        var sendDate = Double(at)
        if let send = delivery.sendDate {
            if case .string(let text) = send.value, let time = Dates.sendDate(text) {
                sendDate = Double(time)
            } else if let seconds = Visibility.number(send.value) {
                sendDate = seconds
            }
        }
        let order = delivery.order.flatMap { Visibility.orgJSONInt($0.value) } ?? 0
        // READ 2 and OPEN 3 are read; CREATED/DELIVERED (and createMessage, push) are unread.
        let read = delivery.status.flatMap { Visibility.number($0.value) }.map { $0 == 2 || $0 == 3 } ?? false
        if let spill {
            return spill.add(
                sendDate: sendDate, order: order, code: message.code ?? "", read: read, push: delivery.source == .push,
                cards: cards.map {
                    SpilledFeedOrder.Card(
                        title: $0.title, language: $0.language,
                        feed: FeedKey(platform: $0.platform, profile: $0.profileName),
                        pinned: $0.pinned)
                })
        }
        let messageIndex = Int32(messages.count)
        messages.append(
            MessageKey(
                sendDate: sendDate, order: order, code: message.code ?? "", read: read, push: delivery.source == .push))
        firstCards.append(Int32(cardMessage.count))
        let messageTitles = titles.count
        for card in cards {
            cardMessage.append(messageIndex)
            var title: Int32 = -1
            if let text = card.title {
                if let known = titles[messageTitles...].firstIndex(of: text) {
                    title = Int32(known)
                } else {
                    title = Int32(titles.count)
                    titles.append(text)
                }
            }
            cardTitle.append(title)
            cardLanguage.append(card.language.map { languageIDs.id(of: $0) } ?? -1)
            let feed = UInt8(feeds.id(of: FeedKey(platform: card.platform, profile: card.profileName)))
            cardFeed.append(feed | (card.pinned ? Self.pinnedBit : 0))
        }
        if cardMessage.count >= limits.threshold && !spillRefused { startSpill() }
    }

    /// Moves the keys recorded so far to a ``SpilledFeedOrder`` (in read order, as ``add(_:cards:at:)`` gave them)
    /// and lets the arrays go; stays in memory when `$TMPDIR` takes no file.
    private mutating func startSpill() {
        guard let spill = SpilledFeedOrder(limits: limits) else { return spillRefused = true }
        var cards: [SpilledFeedOrder.Card] = []
        for (message, key) in messages.enumerated() {
            let end = message + 1 < firstCards.count ? Int(firstCards[message + 1]) : cardMessage.count
            cards.removeAll(keepingCapacity: true)
            for card in Int(firstCards[message])..<end {
                cards.append(
                    SpilledFeedOrder.Card(
                        title: cardTitle[card] < 0 ? nil : titles[Int(cardTitle[card])],
                        language: cardLanguage[card] < 0 ? nil : languageIDs.keys[Int(cardLanguage[card])],
                        feed: feeds.keys[Int(cardFeed[card] & ~Self.pinnedBit)],
                        pinned: cardFeed[card] & Self.pinnedBit != 0))
            }
            spill.add(
                sendDate: key.sendDate, order: key.order, code: key.code, read: key.read, push: key.push, cards: cards)
        }
        self.spill = spill
        messages = []
        firstCards = []
        cardMessage = []
        cardTitle = []
        cardLanguage = []
        cardFeed = []
        titles = []
        languageIDs = Interned()
        feeds = Interned()
    }

    /// Sets ``ResolvedCard/feedPosition`` (and ``ResolvedCard/otherFeedPositions``, ``ResolvedCard/sentAt``,
    /// ``ResolvedCard/unread``) of every recorded card, `cards` being the recorded cards in order.
    func assignPositions(to cards: inout [ResolvedCard]) {
        guard let positions = positions() else { return }
        var cursor = positions.cursor()
        for index in cards.indices { _ = cursor.apply(to: &cards[index], index: index) }
    }

    /// Every recorded card's place in its feeds; `nil` when the run spilled and a file failed (a full `$TMPDIR`).
    func positions() -> FeedPositions? {
        if let spill {
            return spill.finish().map { FeedPositions(file: $0) }
        }
        var result = FeedPositions(
            position: [Int32](repeating: -1, count: cardMessage.count), firstCards: firstCards + [Int32(cardCount)],
            sentAt: messages.map { FeedPositions.sentAt($0.sendDate) },
            read: messages.map(\.read), languageNames: languageIDs.keys)
        for (feed, key) in feeds.keys.enumerated() { place(feed: UInt8(feed), ios: key.platform == .ios, in: &result) }
        return result
    }

    /// Sorts the feeds of one platform and profile (one per device language) and records each card's places.
    private func place(feed: UInt8, ios: Bool, in result: inout FeedPositions) {
        // Language-less cards, and per message the card of each language it has.
        var plain: [Int32] = []
        var byMessage: [Int32: [Int32: Int32]] = [:]
        // Per message in feed order, its first card (the fallback when it has no `en` card).
        var messageOrder: [(message: Int32, first: Int32)] = []
        var languages: [Int32] = []
        var seen = Set<Int32>()
        for card in cardFeed.indices where cardFeed[card] & ~Self.pinnedBit == feed {
            let language = cardLanguage[card]
            guard language >= 0 else {
                plain.append(Int32(card))
                continue
            }
            let message = cardMessage[card]
            if byMessage[message] == nil { messageOrder.append((message, Int32(card))) }
            byMessage[message, default: [:]][language] = Int32(card)
            if seen.insert(language).inserted { languages.append(language) }
        }
        let fallback = languageIDs[MessageText.fallbackLanguage]
        // A device whose language a message lacks shows its `en` text (else the first language's).
        func card(of message: (message: Int32, first: Int32), in language: Int32?) -> (card: Int32, own: Bool) {
            let cardsOfMessage = byMessage[message.message]!
            if let language, let card = cardsOfMessage[language] { return (card, true) }
            return (fallback.flatMap { cardsOfMessage[$0] } ?? message.first, false)
        }
        for language in [Int32?.none] + languages.map(Optional.some) {
            var members = plain
            var own = Set<Int32>()
            members.reserveCapacity(plain.count + messageOrder.count)
            for message in messageOrder {
                let (card, isOwn) = card(of: message, in: language)
                members.append(card)
                if isOwn { own.insert(card) }
            }
            for (position, card) in sorted(members, ios: ios).enumerated() {
                // Each card takes its position from its own language's feed; language-less cards from the
                // feed of a device whose language no message has.
                if language == nil ? cardLanguage[Int(card)] < 0 : own.contains(card) {
                    result.position[Int(card)] = Int32(position)
                } else if let language {
                    result.others[card, default: []].append((language, Int32(position)))
                }
            }
        }
    }

    /// `members` (card indices) in feed order; equal keys keep the run's card order.
    private func sorted(_ members: [Int32], ios: Bool) -> [Int32] {
        members.sorted { a, b in
            let l = messages[Int(cardMessage[Int(a)])]
            let r = messages[Int(cardMessage[Int(b)])]
            if ios {
                let lPinned = cardFeed[Int(a)] & Self.pinnedBit != 0
                let rPinned = cardFeed[Int(b)] & Self.pinnedBit != 0
                if lPinned != rPinned { return lPinned }
                if l.read != r.read { return !l.read }
                if l.sendDate != r.sendDate { return l.sendDate > r.sendDate }
                if l.order != r.order { return l.order > r.order }
                if l.code != r.code { return l.code > r.code }
            } else {
                if l.push != r.push { return l.push }
                if l.sendDate != r.sendDate { return l.sendDate > r.sendDate }
                if l.order != r.order { return l.order > r.order }
                let lTitle = cardTitle[Int(a)]
                let rTitle = cardTitle[Int(b)]
                switch (lTitle >= 0, rTitle >= 0) {
                case (false, true): return true
                case (true, false): return false
                case (true, true) where titles[Int(lTitle)] != titles[Int(rTitle)]:
                    return titles[Int(lTitle)] > titles[Int(rTitle)]
                default: break
                }
                if l.code != r.code { return l.code > r.code }
            }
            return a < b
        }
    }
}

/// Where each card of a run sits in its feeds (``FeedOrder/positions()``), by the card's index in the run: what a
/// stream of the run's cards, resolved again one at a time, is given back through a ``Cursor``. In memory about 8
/// bytes a card and 13 a message; a run that spilled keeps them in files instead (``PositionFile``), read from the
/// start by each walk.
public struct FeedPositions: Sendable {
    /// ``sentAt`` of a message whose send date is no representable date.
    static let noDate = Int64.min

    /// A message's send date as its cards show it: any number may be written as a send date, and only a
    /// representable one becomes a date (never a trap).
    static func sentAt(_ sendDate: Double) -> Int64 {
        let seconds = sendDate.rounded(.down)
        return seconds.isFinite && abs(seconds) < 1e15 ? Int64(seconds) : noDate
    }

    /// Sets the feed fields of `card` from its message's send date and read flag and its places.
    static func set(
        _ card: inout ResolvedCard, sentAt: Int64, read: Bool, position: Int32,
        others: [(language: Int32, position: Int32)], languageNames: [String]
    ) {
        card.sentAt = sentAt == noDate ? nil : sentAt
        card.unread = !read
        card.feedPosition = position < 0 ? nil : Int(position)
        card.otherFeedPositions = others.map {
            FeedPlace(language: languageNames[Int($0.language)], position: Int($0.position))
        }
    }
    /// Per card: its position in its own language's feed; -1: none.
    var position: [Int32]
    /// Per message, the index of its first card, then the number of cards.
    var firstCards: [Int32]
    /// Per message: its send date (``noDate``: none) and whether it was read.
    var sentAt: [Int64]
    var read: [Bool]
    var languageNames: [String]
    /// Per card of a per-language message: its positions in the feeds of the message's other languages.
    var others: [Int32: [(language: Int32, position: Int32)]] = [:]
    /// The same places in files, the arrays above empty (a run past ``SpillLimits/threshold``).
    let file: PositionFile?

    init(position: [Int32], firstCards: [Int32], sentAt: [Int64], read: [Bool], languageNames: [String]) {
        self.position = position
        self.firstCards = firstCards
        self.sentAt = sentAt
        self.read = read
        self.languageNames = languageNames
        file = nil
    }

    init(file: PositionFile) {
        position = []
        firstCards = []
        sentAt = []
        read = []
        languageNames = file.languageNames
        self.file = file
    }

    /// The cards placed.
    public var cardCount: Int { file?.cardCount ?? position.count }

    /// A reader of the places from the first card: one per walk.
    func cursor() -> Cursor { Cursor(positions: self) }

    /// Gives cards their places, in increasing index order (a walk's order; an index before the last one read makes
    /// a spilled run's cursor read its files from the start again).
    struct Cursor {
        let positions: FeedPositions
        private var reader: PositionFile.Reader?
        /// The `errno` of a failed read of the files, which ends the walk.
        private(set) var failure: Int32?

        init(positions: FeedPositions) {
            self.positions = positions
            reader = positions.file.map { PositionFile.Reader($0) }
        }

        /// Sets the feed fields of `card`, the run's card `index`; `false` when the files could not be read.
        mutating func apply(to card: inout ResolvedCard, index: Int) -> Bool {
            guard index >= 0, index < positions.cardCount else { return true }
            guard reader != nil else {
                positions.apply(to: &card, index: index)
                return true
            }
            do throws(SpillError) {
                let place = try reader!.place(index)
                FeedPositions.set(
                    &card, sentAt: place.sentAt, read: place.read, position: place.position, others: place.others,
                    languageNames: positions.languageNames)
                return true
            } catch {
                failure = error.code
                return false
            }
        }

        /// The position of card `index` in its own language's feed (-1: none).
        mutating func position(of index: Int) throws(SpillError) -> Int32 {
            guard index >= 0, index < positions.cardCount else { return -1 }
            guard reader != nil else { return positions.position[index] }
            return try reader!.place(index).position
        }
    }

    /// Sets the feed fields of `card`, the run's card `index`, from the arrays (any index, any order).
    private func apply(to card: inout ResolvedCard, index: Int) {
        // The message whose cards hold `index`: the last first card at or before it.
        var low = 0
        var high = firstCards.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if Int(firstCards[middle]) <= index { low = middle } else { high = middle }
        }
        Self.set(
            &card, sentAt: sentAt[low], read: read[low], position: position[index], others: others[Int32(index)] ?? [],
            languageNames: languageNames)
    }
}

/// Distinct keys numbered in the order first met (a language name, a message's set of languages): what the feed
/// order keeps a card's language as, 4 bytes instead of a string.
struct Interned<Key: Hashable> {
    private var ids: [Key: Int32] = [:]
    /// Every key met, by its number.
    private(set) var keys: [Key] = []

    /// The number of `key`, given it now when it is new.
    mutating func id(of key: Key) -> Int32 {
        if let known = ids[key] { return known }
        let id = Int32(keys.count)
        ids[key] = id
        keys.append(key)
        return id
    }

    /// The number of `key`, if it was met.
    subscript(key: Key) -> Int32? { ids[key] }
}
