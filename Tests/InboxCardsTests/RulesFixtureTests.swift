import Foundation
import Testing

@testable import InboxCards

/// `Fixtures/campaigns/rules.ndjson` holds one feed message per rule of inboxkit-cards.md (its `inbox_id` names
/// the rule), for `resolve --sdk all`. This pins what each profile renders: `kind!` means degraded to classic.
@Suite struct RulesFixtureTests {
    static let expected: [String: [String]] = [
        "displayType-root-wins-over-u": ["banner", "banner", "banner"],
        "displayType-in-u-object": ["banner", "banner", "banner"],
        "displayType-in-u-json-string": ["banner", "banner", "banner"],
        "displayType-in-userdata": ["banner", "banner", "banner"],
        "displayType-uppercase": ["banner", "banner", "banner"],
        "displayType-not-trimmed": ["captioned", "captioned", "captioned"],
        "displayType-non-string": ["captioned", "captioned", "captioned"],
        "displayType-default-is-unknown": ["captioned", "captioned", "captioned"],
        "heuristic-image-no-title": ["banner", "banner", "banner"],
        "heuristic-image-title-no-body": ["captioned", "captioned", "classic"],
        "heuristic-no-image": ["classic", "classic", "classic"],
        "banner-without-image": ["banner!", "banner!", "banner!"],
        "captioned-without-body": ["captioned", "captioned", "captioned!"],
        "carousel": ["carousel!", "carousel", "carousel"],
        "carousel-without-body": ["carousel!", "carousel", "carousel!"],
        "carousel-without-slides": ["carousel!", "carousel!", "carousel!"],
        "carousel-seven-slides": ["carousel!", "carousel", "carousel"],
        "carousel-as-string": ["carousel!", "carousel!", "carousel!"],
        "video": ["video!", "video", "video"],
        "video-not-http": ["video!", "video!", "video!"],
        "wallet": ["wallet!", "wallet", "wallet"],
        "wallet-pass-object": ["wallet!", "wallet", "wallet"],
        "wallet-not-http": ["wallet!", "wallet!", "wallet!"],
        "hero-from-attachment": ["banner!", "banner!", "banner"],
        "hero-attachment-prefix-case-sensitive": ["banner!", "banner!", "banner!"],
        "buttons-on-banner-not-rendered": ["banner", "banner", "banner"],
        "buttons-unsafe-scheme": ["classic", "classic", "classic"],
        "pinned-string-does-not-pin": ["classic", "classic", "classic"],
        "action-params-object-is-not-seen": ["captioned", "captioned", "captioned"],
        "u-not-json": ["captioned", "captioned", "captioned"],
    ]

    /// `kind` when it renders as requested, `requested!` when it degrades (to classic, or on 7.0 to the heuristic's
    /// kind when the profile has no such card).
    static func outcome(_ card: ResolvedCard) -> String {
        card.degraded ? "\(card.requested)!" : card.resolved.rawValue
    }

    @Test func everyRuleInEveryProfile() throws {
        let path = DemoCampaignTests.url.replacingOccurrences(of: "demo.json", with: "rules.ndjson")
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let batch = try CampaignReader.read(bytes: [UInt8](bytes), source: "rules.ndjson")
        #expect(batch.findings.isEmpty)
        let cards = CardResolver(options: ResolveOptions(profiles: SDKProfile.allCases)).resolve(batch.messages)
        let byRule = Dictionary(grouping: cards, by: { $0.code ?? "" })
        #expect(Set(byRule.keys) == Set(Self.expected.keys))
        for (rule, outcomes) in Self.expected {
            let cards = try #require(byRule[rule])
            #expect(cards.map(\.sdk) == [.v7_0, .v7_1, .v7_2])
            #expect(cards.map(Self.outcome) == outcomes, "\(rule)")
            // 7.1+ log a WARN line exactly for degraded cards; 7.0 logs its INFO line for every card.
            #expect(cards.allSatisfy { $0.sdk == .v7_0 ? $0.sdkLog != nil : $0.degraded == ($0.sdkLog != nil) })
        }
    }
}
