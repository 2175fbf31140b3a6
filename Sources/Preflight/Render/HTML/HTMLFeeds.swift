import Findings
import InboxCards

// The feeds: one per platform, SDK profile and device language, in the SDK's order; side by side or as tabs.
extension HTMLReport {
    struct Feed {
        var title: String
        var platform: Platform
        var language: String?
        var cards: [CardCheck]
        /// Each drawn card's place in the whole feed (0 = top): all of them, unless ``PreviewLimits`` left some out.
        var positions: [Int]
        /// Cards of the feed not drawn (``PreviewLimits``).
        var leftOut = 0

        init(title: String, platform: Platform, language: String?, cards: [CardCheck]) {
            self.title = title
            self.platform = platform
            self.language = language
            self.cards = cards
            self.positions = Array(cards.indices)
        }
    }

    /// One feed per platform, SDK profile and device language, each in the order that SDK shows it
    /// (``ResolvedCard/feedPosition``: iOS pinned, unread, newest; Android source, send date, order). A campaign with
    /// per-language messages gets a feed per language: its language-less cards and, per message, the card of that
    /// language, else its `en` one (``ResolvedCard/otherFeedPositions``), as a device of that language shows them.
    static func feeds(_ cards: [CardCheck]) -> [Feed] {
        var groups: [(title: String, platform: Platform, cards: [CardCheck])] = []
        var index: [String: Int] = [:]
        for check in cards {
            let card = check.card
            let title =
                card.platform == .ios
                ? "iOS — InboxKit SDK \(card.profileName ?? "?")" : "Android — inbox-ui SDK \(card.profileName ?? "?")"
            if let existing = index[title] {
                groups[existing].cards.append(check)
            } else {
                index[title] = groups.count
                groups.append((title, card.platform, [check]))
            }
        }
        var feeds: [Feed] = []
        for group in groups {
            var languages: [String] = []
            var seen = Set<String>()
            for check in group.cards {
                if let language = check.card.language, seen.insert(language).inserted { languages.append(language) }
            }
            if languages.isEmpty {
                let ordered = ordering(group.cards.map { ($0, $0.card.feedPosition) })
                feeds.append(Feed(title: group.title, platform: group.platform, language: nil, cards: ordered))
                continue
            }
            for language in languages {
                let members = group.cards.compactMap { check -> (CardCheck, Int?)? in
                    if check.card.language == language { return (check, check.card.feedPosition) }
                    guard let place = check.card.otherFeedPositions.first(where: { $0.language == language }) else {
                        return nil
                    }
                    return (check, place.position)
                }
                feeds.append(
                    Feed(
                        title: group.title + " · " + language, platform: group.platform, language: language,
                        cards: ordering(members)))
            }
        }
        return feeds
    }

    /// Stable by position: cards without one go last, in report order.
    static func ordering(_ members: [(CardCheck, Int?)]) -> [CardCheck] {
        members.enumerated().sorted { lhs, rhs in
            let left = lhs.element.1 ?? Int.max
            let right = rhs.element.1 ?? Int.max
            return left != right ? left < right : lhs.offset < rhs.offset
        }.map(\.element.0)
    }

    /// The feeds side by side on a wide screen, as tabs on a narrow one (radio buttons and CSS: the page has no
    /// script).
    static func writeFeeds(
        _ feeds: [Feed], report: CheckReport, images: Images, app: AppIdentity, limits: PreviewLimits,
        to out: inout String
    ) {
        guard !feeds.isEmpty else { return }
        out += "<main class=\"feeds\">\n"
        for index in feeds.indices {
            out += "<input type=\"radio\" name=\"feed\" class=\"tab\" id=\"t\(index)\"\(index == 0 ? " checked" : "")>"
        }
        out += "\n<nav class=\"tabs\">"
        for (index, feed) in feeds.enumerated() {
            out += "<label for=\"t\(index)\">\(Markup.text(shortTitle(feed)))</label>"
        }
        out += "</nav>\n"
        for (index, feed) in feeds.enumerated() {
            let platform = feed.platform.rawValue
            out += "<section class=\"feed \(platform)\" id=\"f\(index)\" data-platform=\"\(platform)\""
            if let language = feed.language { out += " data-language=\"\(Markup.attribute(language))\"" }
            out += "><h2>\(Markup.text(feed.title))</h2>\n"
            for (check, position) in zip(feed.cards, feed.positions) {
                writeCard(
                    check, report: report, feed: index, position: position, images: images, app: app, to: &out)
            }
            if feed.leftOut > 0 {
                let total = feed.cards.count + feed.leftOut
                out += "<p class=\"left-out\">\(feed.leftOut) of this feed's \(total) cards are not drawn: past "
                out += "\(limits.allCardsUpTo) cards the preview draws every broken, degraded and failing card and "
                out += "the first \(limits.othersPerFeed) others of each feed (the JSON and NDJSON reports hold them "
                out += "all).</p>\n"
            }
            out += "</section>\n"
        }
        out += "</main>\n"
    }

    /// `iOS 7.2 · en`, for a tab.
    static func shortTitle(_ feed: Feed) -> String {
        let profile = feed.cards.first?.card.profileName ?? "?"
        let platform = feed.platform == .ios ? "iOS" : "Android"
        return [platform + " " + profile, feed.language].compactMap { $0 }.joined(separator: " · ")
    }

    /// The rules that show the chosen tab's feed on a narrow screen.
    static func tabRules(count: Int) -> String {
        var css = ""
        for index in 0..<count {
            css += "#t\(index):checked~#f\(index){display:block}"
            css += "#t\(index):checked~.tabs [for=t\(index)]{background:#007aff;color:#fff}\n"
        }
        return css
    }
}
