import StrictJSON
import Testing

@testable import InboxCards

/// `--force-kind` (forceCellKind).
@Suite struct ForceKindTests {
    struct Row: Sendable {
        var profile: SDKProfile = .v7_2
        var force: CardKind
        var data: JSONValue
        var body: JSONValue? = "Body"
        var resolved: CardKind
        var forced: Bool
        var codes: [String]
    }

    static let rows: [Named<Row>] = [
        Named(
            "forced carousel without slides renders empty",
            Row(
                force: .carousel, data: ["displayType": "banner"], resolved: .carousel, forced: true,
                codes: ["card.forced", "card.forcedIncomplete"])),
        Named(
            "force wins over displayType",
            Row(
                force: .classic,
                data: ["displayType": "carousel", "carousel": [["image": "https://cdn.example.com/1.jpg"]]],
                resolved: .classic, forced: true, codes: ["card.forced"])),
        Named(
            "forced captioned without body skips the 7.2 check",
            Row(
                force: .captioned, data: [:], body: nil, resolved: .captioned, forced: true,
                codes: ["card.forced", "card.forcedIncomplete"])),
        Named(
            "forced video without descriptor",
            Row(force: .video, data: [:], resolved: .video, forced: true, codes: ["card.forcedIncomplete"])),
        Named(
            "7.0 has no video: force ignored",
            Row(
                profile: .v7_0, force: .video, data: ["displayType": "banner"], resolved: .classic, forced: false,
                codes: ["card.forceKindUnavailable", "card.degraded"])),
    ]

    @Test(arguments: rows)
    func force(_ row: Named<Row>) throws {
        let value = row.value
        let card = try card(
            Input.notification(body: value.body, data: value.data), profile: value.profile, force: value.force)
        #expect(card.resolved == value.resolved)
        #expect(card.forced == value.forced)
        if value.forced {
            #expect(card.requested == value.force)
            #expect(!card.degraded)
            #expect(card.sdkLog == nil)
            #expect(card.degradeReason == nil)
        }
        for code in value.codes { #expect(card.has(code), "missing \(code): \(card.findings)") }
    }
}

/// Inbox eligibility (§1.1): only `inbox_image`, `inbox_date` or `inbox_days` reach the inbox.
@Suite struct EligibilityTests {
    static let rows: [Named<([(String, JSONValue)], Bool, String?)>] = [
        Named("inbox_days", ([("inbox_days", 7)], true, nil)),
        Named("inbox_image", ([("inbox_image", "https://cdn.example.com/inbox/a.png")], true, nil)),
        Named("inbox_date", ([("inbox_date", "2026-12-31")], true, nil)),
        Named("inbox_days 30 is the maximum", ([("inbox_days", 30)], true, nil)),
        Named("inbox_days 45", ([("inbox_days", 45)], true, "input.inboxDays")),
        Named("inbox_days 0", ([("inbox_days", 0)], true, "input.inboxDays")),
        Named("inbox_days 7.5", ([("inbox_days", 7.5)], true, "input.inboxDays")),
        Named("inbox_days as a string", ([("inbox_days", "7")], true, "input.wrongType")),
        Named("none: plain push", ([], false, nil)),
        Named("null inbox_days: plain push", ([("inbox_days", nil)], false, nil)),
    ]

    @Test(arguments: rows)
    func eligibility(_ row: Named<([(String, JSONValue)], Bool, String?)>) throws {
        var object = JSONObject([("ios_title", "T"), ("content", "B")])
        for (key, value) in row.value.0 { object[key] = value }
        let batch = try CampaignReader.read(bytes: Input.request([.object(object)]), source: "c.json")
        #expect(batch.messages.count == 1)
        #expect(batch.messages[0].reachesInbox == row.value.1)
        #expect(batch.has("input.notInbox") == !row.value.1)
        let cards = CardResolver().resolve(batch.messages)
        #expect(cards.count == (row.value.1 ? 1 : 0))
        if let code = row.value.2 { #expect(cards.first?.has(code) == true) }
    }

    @Test func plainPushFindingNamesTheNotification() throws {
        let batch = try CampaignReader.read(
            bytes: Input.request([Input.notification(), ["ios_title": "T", "content": "plain"]]), source: "c.json")
        let finding = try #require(batch.finding("input.notInbox"))
        #expect(finding.source == "c.json#request.notifications[1]")
        let run = CardResolver().run(batch)
        #expect(run.messagesRead == 2)
        #expect(run.cards.count == 1)
    }

    @Test func pushWithoutPwInboxIsPlain() throws {
        let push: JSONValue = ["aps": ["alert": "Hello"], "u": "{\"displayType\":\"banner\"}"]
        let batch = try CampaignReader.read(bytes: Input.bytes(push), source: "push.json")
        #expect(batch.has("input.notInbox"))
        #expect(CardResolver().resolve(batch.messages).isEmpty)
    }
}

/// Per-language titles and bodies: one card per language.
@Suite struct LanguageTests {
    @Test func oneCardPerLanguage() throws {
        let cards = try resolve(
            Input.request([
                Input.notification(
                    title: ["en": "Sale", "de": "Angebot"], body: ["en": "30% off", "de": "30% Rabatt"])
            ]))
        #expect(cards.map(\.language) == ["en", "de"])
        #expect(cards.allSatisfy { !$0.has("card.languageFallback") && !$0.has("card.languageMissing") })
    }

    @Test func unionOfLanguagesWithEnglishFallback() throws {
        let cards = try resolve(
            Input.request([
                Input.notification(
                    title: ["en": "New arrivals", "de": "Neuheiten"], body: ["en": "Swipe", "es": "Desliza"],
                    data: ["displayType": "carousel", "carousel": [["image": "https://cdn.example.com/inbox/1.jpg"]]])
            ]))
        #expect(cards.map(\.language) == ["en", "de", "es"])
        #expect(cards.map(\.resolved) == [.carousel, .carousel, .carousel])
        #expect(cards[1].finding("card.languageFallback")?.path == "request.notifications[0].content")
        #expect(cards[2].finding("card.languageFallback")?.path == "request.notifications[0].ios_title")
    }

    @Test func missingLanguageWithoutEnglishDegrades() throws {
        let cards = try resolve(
            Input.request([
                Input.notification(
                    title: ["de": "Neuheiten", "fr": "Nouveautés"], body: ["de": "Wischen"],
                    data: ["displayType": "carousel", "carousel": [["image": "https://cdn.example.com/inbox/1.jpg"]]])
            ]))
        #expect(cards.map(\.language) == ["de", "fr"])
        #expect(cards[0].resolved == .carousel)
        #expect(cards[1].resolved == .classic)
        #expect(cards[1].degradeReason == "no title/body")
        #expect(cards[1].has("card.languageMissing"))
    }

    @Test func plainTitleIsSharedByEveryLanguage() throws {
        let cards = try resolve(Input.request([Input.notification(title: "Sale", body: ["en": "Hi", "pt-BR": "Olá"])]))
        #expect(cards.map(\.language) == ["en", "pt-BR"])
    }

    @Test func notPerLanguageHasNilLanguage() throws {
        let cards = try resolve(Input.request([Input.notification()]))
        #expect(cards.map(\.language) == [nil])
        #expect(cards[0].json["language"] == .null)
    }

    @Test func wrongTypedLanguageValueIsReported() throws {
        let cards = try resolve(Input.request([Input.notification(title: ["en": "Sale", "pt-BR": 5])]))
        #expect(cards.map(\.language) == ["en"])
        #expect(cards[0].finding("input.wrongType")?.path == "request.notifications[0].ios_title[\"pt-BR\"]")
    }

    @Test func iosTitleWinsOverTitle() throws {
        let cards = try resolve(
            Input.request([
                Input.notification(title: nil, extra: [("title", ["en": "A", "de": "B"]), ("ios_title", "iOS")])
            ]))
        #expect(cards.map(\.language) == [nil])
    }
}

/// Platforms: createMessage `platforms`, the Android default profile, wallet off iOS.
@Suite struct PlatformTests {
    static let wallet = Input.notification(
        data: [
            "displayType": "wallet", "wallet": "https://cdn.example.com/passes/a.pkpass", "pinned": true,
            "buttons": [["title": "Open", "url": "https://example.com"]],
        ],
        extra: [
            ("platforms", [1, 3]), ("inbox_image", "https://cdn.example.com/inbox/icon.png"),
            ("android_banner", "https://cdn.example.com/inbox/banner.png"),
        ])

    /// android-inbox.md §2.4: wallet is known but always degrades to the classic card, with the SDK's WARN line;
    /// the classic card draws buttons and a pin icon (§2.7, §2.9). The notification has no `title` or
    /// `android_header`, so the Android card has no title (§1.2).
    @Test func walletOnAndroidIsClassic() throws {
        let cards = try resolve(Input.request([Self.wallet]), platforms: [.ios, .android])
        #expect(cards.map(\.platform) == [.ios, .android])
        #expect(cards[0].resolved == .wallet)
        let android = cards[1]
        #expect(android.sdk == nil)
        #expect(android.androidSDK == .v6_13)
        #expect(android.requested == .wallet)
        #expect(android.resolved == .classic)
        #expect(android.degraded)
        #expect(android.degradeReason == "wallet cards are iOS-only")
        #expect(
            android.sdkLog
                == "Inbox card degraded — code=null displayType=wallet hasImage=true wallet→classic (wallet cards are iOS-only)"
        )
        #expect(android.has("card.platformLayout"))
        #expect(android.pinned)
        #expect(android.buttons.map(\.rendered) == [true])
        #expect(android.title == nil)
        #expect(android.assets.map(\.role) == [.avatar, .buttonLink])
        #expect(android.urls(.avatar) == ["https://cdn.example.com/inbox/icon.png"])
    }

    @Test func untargetedPlatformGetsNoCard() throws {
        let ios = Input.notification(extra: [("platforms", [1])])
        let android = Input.notification(extra: [("platforms", [3])])
        let huawei = Input.notification(extra: [("platforms", [17])])
        let batch = try CampaignReader.read(bytes: Input.request([ios, android, huawei]), source: "c.json")
        let all = CardResolver(options: ResolveOptions(platforms: [.ios, .android])).resolve(batch.messages)
        #expect(all.map(\.platform) == [.ios, .android, .android])
        let run = CardResolver(options: ResolveOptions(platforms: [.ios])).run(batch)
        #expect(run.cards.count == 1)
        #expect(
            run.inputFindings.filter { $0.finding.code == "input.platformNotTargeted" }.map(\.source) == [
                "c.json#request.notifications[1]", "c.json#request.notifications[2]",
            ])
    }

    /// android-inbox.md §2.2–§2.4 on the default profile (6.13, heuristic off): no or an unknown displayType is the
    /// legacy row; a known one is that card, or classic when its payload is missing (here: no Android title, so
    /// captioned and carousel lack title and body; the video has no descriptor).
    static let androidRows: [Named<(JSONValue?, CardKind, CardKind, Bool)>] = [
        Named("no displayType: the legacy row", (nil, .legacy, .legacy, false)),
        Named("captioned without a title degrades", ("captioned", .captioned, .classic, true)),
        Named("banner has its hero", ("Banner", .banner, .banner, false)),
        Named("carousel without title/body degrades", ("carousel", .carousel, .classic, true)),
        Named("video without descriptor degrades", ("video", .video, .classic, true)),
        Named("unknown displayType: the legacy row", ("fancy", .legacy, .legacy, false)),
    ]

    @Test(arguments: androidRows)
    func androidDefaultProfile(_ row: Named<(JSONValue?, CardKind, CardKind, Bool)>) throws {
        let data: JSONValue? = row.value.0.map { ["displayType": $0] }
        let cards = try resolve(
            Input.request([Input.notification(image: "https://cdn.example.com/inbox/a.png", data: data)]),
            platforms: [.android])
        let card = try #require(cards.first)
        #expect(card.platform == .android)
        #expect(card.requested == row.value.1)
        #expect(card.resolved == row.value.2)
        #expect(card.degraded == row.value.3)
        #expect((card.sdkLog != nil) == row.value.3)
        #expect(card.has("card.unknownDisplayType") == (row.value.0 == "fancy"))
    }

    @Test func absentPlatformsTargetsEverything() throws {
        let cards = try resolve(Input.request([Input.notification()]), platforms: [.ios, .android])
        #expect(cards.map(\.platform) == [.ios, .android])
        #expect(cards[1].requested == .legacy)
        #expect(!cards[1].degraded)
    }

    @Test func oneCardPerProfileOnEachPlatform() throws {
        let cards = try resolve(
            Input.request([Self.wallet]), profiles: SDKProfile.allCases, platforms: [.ios, .android])
        #expect(cards.map(\.profileName) == ["7.0", "7.1", "7.2", "6.13"])
        #expect(cards.map(\.resolved) == [.captioned, .wallet, .wallet, .classic])
    }

    @Test func wrongTypedPlatformsMeansAll() throws {
        let batch = try CampaignReader.read(
            bytes: Input.request([Input.notification(extra: [("platforms", "ios")])]), source: "c.json")
        #expect(batch.messages[0].targets == nil)
        #expect(batch.messages[0].findings.contains { $0.code == "input.wrongType" })
    }
}
