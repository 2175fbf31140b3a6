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
struct FeedOrder {
    private struct Entry {
        var card: Int
        var message: Int
        var pinned: Bool
        var read: Bool
        var sendDate: Double
        var order: Int64
        var code: String
        var title: String?
        var push: Bool
    }

    private var entries: [Entry] = []
    private var messages = 0

    /// Records the cards `range` of `message` (the next message in read order).
    mutating func add(_ message: InboxMessage, cards: [ResolvedCard], range: Range<Int>, at: Int64) {
        defer { messages += 1 }
        guard !range.isEmpty else { return }
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
        for index in range {
            entries.append(
                Entry(
                    card: index, message: messages, pinned: cards[index].pinned, read: read, sendDate: sendDate,
                    order: order, code: message.code ?? "", title: cards[index].title,
                    push: delivery.source == .push))
        }
    }

    /// Sets ``ResolvedCard/feedPosition`` (and ``ResolvedCard/otherFeedPositions``, ``ResolvedCard/sentAt``,
    /// ``ResolvedCard/unread``) of every recorded card.
    func assignPositions(to cards: inout [ResolvedCard]) {
        for entry in entries {
            // Any number may be written as a send date: only a representable one becomes a date (never a trap).
            let seconds = entry.sendDate.rounded(.down)
            cards[entry.card].sentAt = seconds.isFinite && abs(seconds) < 1e15 ? Int64(seconds) : nil
            cards[entry.card].unread = !entry.read
        }
        struct FeedKey: Hashable {
            var platform: Platform
            var profile: String?
        }
        var feeds: [FeedKey: [Int]] = [:]
        for (position, entry) in entries.enumerated() {
            let card = cards[entry.card]
            feeds[FeedKey(platform: card.platform, profile: card.profileName), default: []].append(position)
        }
        for (key, members) in feeds {
            let ios = key.platform == .ios
            // Language-less cards, and per message the card of each language it has.
            var plain: [Int] = []
            var byMessage: [Int: [String: Int]] = [:]
            // Per message in feed order, its first card (the fallback when it has no `en` card).
            var messageOrder: [(message: Int, first: Int)] = []
            var languages: [String] = []
            var seen = Set<String>()
            for member in members {
                let entry = entries[member]
                guard let language = cards[entry.card].language else {
                    plain.append(member)
                    continue
                }
                if byMessage[entry.message] == nil { messageOrder.append((entry.message, member)) }
                byMessage[entry.message, default: [:]][language] = member
                if seen.insert(language).inserted { languages.append(language) }
            }
            // A device whose language a message lacks shows its `en` text (else the first language's).
            func card(of message: (message: Int, first: Int), in language: String?) -> (member: Int, own: Bool) {
                let cardsOfMessage = byMessage[message.message]!
                if let language, let member = cardsOfMessage[language] { return (member, true) }
                return (cardsOfMessage[MessageText.fallbackLanguage] ?? message.first, false)
            }
            for language in [String?.none] + languages.map(Optional.some) {
                var feed = plain
                var own = Set<Int>()
                for message in messageOrder {
                    let (member, isOwn) = card(of: message, in: language)
                    feed.append(member)
                    if isOwn { own.insert(member) }
                }
                for (position, member) in sorted(feed, ios: ios).enumerated() {
                    // Each card takes its position from its own language's feed; language-less cards from the
                    // feed of a device whose language no message has.
                    if language == nil ? cards[entries[member].card].language == nil : own.contains(member) {
                        cards[entries[member].card].feedPosition = position
                    } else if let language {
                        cards[entries[member].card].otherFeedPositions.append(
                            FeedPlace(language: language, position: position))
                    }
                }
            }
        }
    }

    private func sorted(_ members: [Int], ios: Bool) -> [Int] {
        members.sorted { a, b in
            let l = entries[a]
            let r = entries[b]
            if ios {
                if l.pinned != r.pinned { return l.pinned }
                if l.read != r.read { return !l.read }
                if l.sendDate != r.sendDate { return l.sendDate > r.sendDate }
                if l.order != r.order { return l.order > r.order }
                if l.code != r.code { return l.code > r.code }
            } else {
                if l.push != r.push { return l.push }
                if l.sendDate != r.sendDate { return l.sendDate > r.sendDate }
                if l.order != r.order { return l.order > r.order }
                switch (l.title, r.title) {
                case (nil, .some): return true
                case (.some, nil): return false
                case (let lt?, let rt?) where lt != rt: return lt > rt
                default: break
                }
                if l.code != r.code { return l.code > r.code }
            }
            return a < b
        }
    }
}
