import Foundation
import Testing

@testable import InboxCards

/// `Fixtures/campaigns/android-rules.ndjson` holds one feed message per rule of android-inbox.md §2–§3 (its
/// `inbox_id` names the rule), for `resolve --platform all --android-sdk all`. This pins what each Android profile
/// renders — `kind!` means degraded (to classic, or on 6.11 to the legacy row), `-` no card — with the heuristic
/// switch off (the SDK default) and on, and which platforms show the visibility rules' messages at all.
@Suite struct AndroidRulesFixtureTests {
    /// rule → [6.11, 6.12, 6.13] with `richCardsHeuristicEnabled` off, then [6.12, 6.13] with it on. 6.15 renders
    /// every rule as 6.13 does: it shares 6.13's card rules (android-inbox.md §0: `InboxCardKind.kt` is not changed
    /// at 9357bd7), only its tap routing differs.
    static let expected: [String: (off: [String], on: [String])] = [
        "no-displayType-legacy-row": (["legacy", "legacy", "legacy"], ["captioned", "captioned"]),
        "displayType-unknown-legacy-row": (["legacy", "legacy", "legacy"], ["captioned", "captioned"]),
        "displayType-default-is-unknown": (["legacy", "legacy", "legacy"], ["captioned", "captioned"]),
        "displayType-uppercase": (["banner!", "banner", "banner"], ["banner", "banner"]),
        "displayType-not-trimmed": (["legacy", "legacy", "legacy"], ["captioned", "captioned"]),
        "displayType-non-string-falls-through": (["banner!", "banner", "banner"], ["banner", "banner"]),
        "displayType-in-u-json-string": (["banner!", "banner", "banner"], ["banner", "banner"]),
        "displayType-in-userdata": (["banner!", "banner", "banner"], ["banner", "banner"]),
        "banner-without-image": (["banner!", "banner!", "banner!"], ["banner!", "banner!"]),
        "hero-attachment-uppercase-scheme": (["banner!", "banner", "banner"], ["banner", "banner"]),
        "hero-from-b": (["banner!", "banner", "banner"], ["banner", "banner"]),
        "hero-attachment-not-http-skipped": (["banner!", "banner!", "banner!"], ["banner!", "banner!"]),
        "captioned-without-body": (["captioned!", "captioned", "captioned!"], ["captioned", "captioned!"]),
        "captioned-without-image": (["captioned!", "captioned!", "captioned!"], ["captioned!", "captioned!"]),
        "carousel": (["carousel!", "carousel", "carousel"], ["carousel", "carousel"]),
        "carousel-without-body": (["carousel!", "carousel", "carousel!"], ["carousel", "carousel!"]),
        "carousel-slides-not-http": (["carousel!", "carousel!", "carousel!"], ["carousel!", "carousel!"]),
        "carousel-eleven-slides": (["carousel!", "carousel", "carousel"], ["carousel", "carousel"]),
        "video": (["video!", "video", "video"], ["video", "video"]),
        "video-uppercase-scheme": (["video!", "video", "video"], ["video", "video"]),
        "video-not-http": (["video!", "video!", "video!"], ["video!", "video!"]),
        "wallet-is-ios-only": (["wallet!", "wallet!", "wallet!"], ["wallet!", "wallet!"]),
        "classic": (["classic!", "classic", "classic"], ["classic", "classic"]),
        "heuristic-image-no-title": (["legacy", "legacy", "legacy"], ["banner", "banner"]),
        "heuristic-image-title-no-body": (["legacy", "legacy", "legacy"], ["captioned", "classic"]),
        "action-params-object-read-on-android": (["banner!", "banner", "banner"], ["banner", "banner"]),
        "hidden-status-4-deleted": (["-", "-", "-"], ["-", "-"]),
        "hidden-on-android-status-5": (["-", "-", "-"], ["-", "-"]),
        "hidden-expired-rt": (["-", "-", "-"], ["-", "-"]),
        "hidden-missing-action_type": (["-", "-", "-"], ["-", "-"]),
        "hidden-on-android-action_type-string": (["-", "-", "-"], ["-", "-"]),
    ]

    /// Rules whose message iOS (7.2) still shows although Android does not (android-inbox.md §3).
    static let iosOnly: Set<String> = ["hidden-on-android-status-5", "hidden-on-android-action_type-string"]
    /// 2026-12-01T00:00:00Z: after `hidden-expired-rt`'s rt, before every other message's.
    static let at: Int64 = 1_764_547_200

    static func outcome(_ card: ResolvedCard) -> String {
        card.degraded ? "\(card.requested)!" : card.resolved.rawValue
    }

    static func batch() throws -> ReadBatch {
        let path = DemoCampaignTests.url.replacingOccurrences(of: "demo.json", with: "android-rules.ndjson")
        let bytes = try #require(FileManager.default.contents(atPath: path))
        return try CampaignReader.read(bytes: [UInt8](bytes), source: "android-rules.ndjson")
    }

    /// Outcomes per rule for the given profiles; `-` where the profile produced no card.
    static func outcomes(
        _ batch: ReadBatch, profiles: [AndroidProfile], heuristic: Bool
    ) -> [String: [String]] {
        let run = CardResolver(
            options: ResolveOptions(
                platforms: [.android], androidProfiles: profiles, androidHeuristic: heuristic, at: at)
        ).run(batch)
        var result: [String: [String]] = [:]
        for message in batch.messages {
            let code = message.code ?? ""
            result[code] = profiles.map { profile in
                run.cards.first { $0.code == code && $0.androidSDK == profile }.map(outcome) ?? "-"
            }
        }
        return result
    }

    @Test func everyRuleOnEveryAndroidProfile() throws {
        let batch = try Self.batch()
        #expect(batch.findings.isEmpty)
        #expect(Set(batch.messages.compactMap(\.code)) == Set(Self.expected.keys))
        #expect(AndroidProfile.allCases == [.v6_11, .v6_12, .v6_13, .v6_15])
        let off = Self.outcomes(batch, profiles: AndroidProfile.allCases, heuristic: false)
        let on = Self.outcomes(batch, profiles: [.v6_12, .v6_13, .v6_15], heuristic: true)
        for (rule, expected) in Self.expected {
            #expect(off[rule] == expected.off + [expected.off[2]], "\(rule), heuristic off")
            #expect(on[rule] == expected.on + [expected.on[1]], "\(rule), heuristic on")
        }
    }

    @Test func visibilityRulesPerPlatform() throws {
        let batch = try Self.batch()
        let run = CardResolver(options: ResolveOptions(platforms: [.ios, .android], at: Self.at)).run(batch)
        for rule in Self.expected.keys where rule.hasPrefix("hidden-") {
            let platforms = Set(run.cards.filter { $0.code == rule }.map(\.platform))
            #expect(platforms == (Self.iosOnly.contains(rule) ? [.ios] : []), "\(rule)")
            let id = try #require(batch.messages.first { $0.code == rule }?.id)
            #expect(run.inputFindings.contains { $0.source == id }, "\(rule) says why it has no card")
        }
    }

    /// Every degraded Android card carries the SDK's WARN line; 6.11 and the legacy row log nothing.
    @Test func degradedCardsCarryTheWarnLine() throws {
        let batch = try Self.batch()
        let run = CardResolver(
            options: ResolveOptions(platforms: [.android], androidProfiles: AndroidProfile.allCases, at: Self.at)
        ).run(batch)
        for card in run.cards {
            let logs = card.degraded && card.androidSDK != .v6_11
            #expect((card.sdkLog != nil) == logs, "\(card.code ?? "") \(card.androidSDK?.rawValue ?? "")")
            if let log = card.sdkLog {
                #expect(log.hasPrefix("Inbox card degraded — code=\(card.code ?? "") displayType="))
                #expect(log.hasSuffix("\(card.requested)→classic (\(card.degradeReason ?? ""))"))
            }
        }
    }
}
