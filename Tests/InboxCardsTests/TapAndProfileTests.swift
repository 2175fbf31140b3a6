import StrictJSON
import Testing

@testable import InboxCards

/// The SDK 7.0 profile (inboxkit-cards.md §3) and where a tap goes (inboxkit-cards.md §5, android-inbox.md §2.7–2.8).

private enum TapFixture {
    static let at: Int64 = 1_750_000_000
    static let img = "https://cdn.example.com/inbox/icon.png"
    static let link = "https://example.com/sale"
    static let clip = "https://cdn.example.com/inbox/clip.mp4"

    /// The cards of one input for the given iOS and Android profiles.
    static func cards(
        _ value: JSONValue, profiles: [SDKProfile] = [.v7_2], platforms: [Platform] = [.ios],
        androidProfiles: [AndroidProfile] = [.v6_13]
    ) throws -> [ResolvedCard] {
        let batch = try CampaignReader.read(bytes: Input.bytes(value), source: "tap.json")
        let options = ResolveOptions(
            profiles: profiles, platforms: platforms, androidProfiles: androidProfiles, at: at)
        return CardResolver(options: options).resolve(batch.messages)
    }

    static func iosCard(_ value: JSONValue, profile: SDKProfile) throws -> ResolvedCard {
        let cards = try cards(value, profiles: [profile])
        try #require(cards.count == 1)
        return cards[0]
    }

    static func androidCard(_ value: JSONValue, profile: AndroidProfile) throws -> ResolvedCard {
        let cards = try cards(value, platforms: [.android], androidProfiles: [profile])
        try #require(cards.count == 1)
        return cards[0]
    }

    static func feed(
        title: String? = "Title", text: String? = "Body", image: String? = nil, _ params: JSONValue
    ) -> JSONValue {
        // A feed message always has `text` (a required key, §3): "no body" is an empty one.
        Input.feed(id: "inbox-1", title: title, text: text ?? "", image: image, params: params)
    }

    /// `base` with `extra` members added.
    static func with(_ base: JSONValue, _ extra: [(String, JSONValue)]) -> JSONValue {
        var object = base.objectValue ?? JSONObject()
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    static let video: JSONValue = ["displayType": "video", "video": ["url": .string(clip)]]
    static let carousel: JSONValue = [
        "displayType": "carousel",
        "carousel": [
            ["image": "https://cdn.example.com/s0.jpg", "url": "https://shop.example.com/0"],
            ["image": "https://cdn.example.com/s1.jpg"],
            ["image": "https://cdn.example.com/s2.jpg", "url": "myapp://deal/2"],
        ],
    ]
    static let buttons: JSONValue = [
        "displayType": "classic",
        "buttons": [
            ["title": "Open", "url": "https://shop.example.com/b"],
            ["title": "Read", "action": "markRead"],
            ["title": "Hide", "action": "dismiss"],
            ["title": "Later", "action": "custom", "id": "later"],
        ],
    ]
    static let l: (String, JSONValue) = ("l", .string(link))
    static let rm: (String, JSONValue) = ("rm", "{\"url\":\"https://rm.example.com/page\"}")
}

extension TapAction {
    /// `target[index]:action(via)` with `!` when overridden, e.g. `slide[0]:messageAction(link)!`.
    fileprivate var brief: String {
        var text = target.rawValue
        if let index { text += "[\(index)]" }
        text += ":\(action.rawValue)"
        if let via { text += "(\(via))" }
        if overridden { text += "!" }
        return text
    }
}

// MARK: - inboxkit-cards.md §3, the 7.0 profile

@Suite struct Profile70Tests {
    struct Row: Sendable {
        var profile: SDKProfile = .v7_0
        var title: String? = "Title"
        var text: String? = "Body"
        var image: String? = nil
        var params: JSONValue = [:]
        var requested: CardKind
        var resolved: CardKind
        var reason: String? = nil
        var log: String?
    }

    static let img = TapFixture.img
    static let other = "https://cdn.example.com/inbox/other.png"

    static let rows: [Named<Row>] = [
        Named(
            "7.0 imageUrl, no title → banner",
            Row(
                title: nil, image: img, requested: .banner, resolved: .banner,
                log: "Inbox cell resolve — code=inbox-1 displayType=nil → kind=banner")),
        Named(
            "7.0 a root image is no image → classic",
            Row(
                title: nil, params: ["image": .string(other)], requested: .classic, resolved: .classic,
                log: "Inbox cell resolve — code=inbox-1 displayType=nil → kind=classic")),
        Named(
            "7.1 a root image is an image → banner",
            Row(
                profile: .v7_1, title: nil, params: ["image": .string(other)], requested: .banner, resolved: .banner,
                log: nil)),
        Named(
            "7.0 u.image is no image → classic",
            Row(
                title: nil, params: ["u": ["image": .string(other)]], requested: .classic, resolved: .classic,
                log: "Inbox cell resolve — code=inbox-1 displayType=nil → kind=classic")),
        Named(
            "7.1 u.image is an image → banner",
            Row(
                profile: .v7_1, title: nil, params: ["u": ["image": .string(other)]], requested: .banner,
                resolved: .banner, log: nil)),
        Named(
            "7.0 attachment is no hero → classic",
            Row(
                title: nil, params: ["attachment": .string(other)], requested: .classic, resolved: .classic,
                log: "Inbox cell resolve — code=inbox-1 displayType=nil → kind=classic")),
        Named(
            "7.2 attachment is the hero → banner",
            Row(
                profile: .v7_2, title: nil, params: ["attachment": .string(other)], requested: .banner,
                resolved: .banner, log: nil)),
        Named(
            "7.0 banner with only a root image degrades",
            Row(
                params: ["displayType": "banner", "image": .string(other)], requested: .banner, resolved: .classic,
                reason: "no imageUrl",
                log:
                    "Inbox cell resolve — code=inbox-1 displayType=banner → kind=classic (degraded from banner — no imageUrl)"
            )),
        Named(
            "7.0 Captioned with only u.image degrades, lowercased",
            Row(
                params: ["displayType": "Captioned", "u": ["image": .string(other)]], requested: .captioned,
                resolved: .classic, reason: "no imageUrl",
                log:
                    "Inbox cell resolve — code=inbox-1 displayType=captioned → kind=classic (degraded from captioned — no imageUrl)"
            )),
        Named(
            "7.0 banner with imageUrl",
            Row(
                image: img, params: ["displayType": "banner"], requested: .banner, resolved: .banner,
                log: "Inbox cell resolve — code=inbox-1 displayType=banner → kind=banner")),
        Named(
            "7.0 captioned needs no body",
            Row(
                text: nil, image: img, params: ["displayType": "captioned"], requested: .captioned,
                resolved: .captioned,
                log: "Inbox cell resolve — code=inbox-1 displayType=captioned → kind=captioned")),
        Named(
            "7.0 an unknown value is logged as read",
            Row(
                image: img, params: ["displayType": "fancy"], requested: .captioned, resolved: .captioned,
                log: "Inbox cell resolve — code=inbox-1 displayType=fancy → kind=captioned")),
        Named(
            "7.0 carousel is unknown: the heuristic's captioned",
            Row(
                image: img,
                params: ["displayType": "carousel", "carousel": [["image": "https://cdn.example.com/s0.jpg"]]],
                requested: .carousel, resolved: .captioned, reason: "carousel unknown to SDK 7.0",
                log: "Inbox cell resolve — code=inbox-1 displayType=carousel → kind=captioned")),
        Named(
            "7.0 video is unknown: the heuristic's classic",
            Row(
                params: TapFixture.video, requested: .video, resolved: .classic, reason: "video unknown to SDK 7.0",
                log: "Inbox cell resolve — code=inbox-1 displayType=video → kind=classic")),
        Named(
            "7.0 wallet is unknown: the heuristic's banner",
            Row(
                title: nil, image: img,
                params: ["displayType": "wallet", "wallet": "https://cdn.example.com/passes/a.pkpass"],
                requested: .wallet, resolved: .banner, reason: "wallet unknown to SDK 7.0",
                log: "Inbox cell resolve — code=inbox-1 displayType=wallet → kind=banner")),
        Named(
            "7.1 degrades log the WARN line instead",
            Row(
                profile: .v7_1, params: ["displayType": "banner"], requested: .banner, resolved: .classic,
                reason: "no imageUrl",
                log: "Inbox cell degraded — code=inbox-1 displayType=banner hasImage=false banner→classic (no imageUrl)"
            )),
    ]

    /// §3 `7.0`: hasImage and the hero read only `imageUrl`; carousel/video/wallet are unknown values (a degrade of
    /// intent, resolved by the heuristic); the INFO line on every resolve.
    @Test(arguments: rows)
    func profile(_ row: Named<Row>) throws {
        let value = row.value
        let card = try TapFixture.iosCard(
            TapFixture.feed(title: value.title, text: value.text, image: value.image, value.params),
            profile: value.profile)
        #expect(card.requested == value.requested)
        #expect(card.resolved == value.resolved)
        #expect(card.degraded == (value.reason != nil))
        #expect(card.degradeReason == value.reason)
        #expect(card.sdkLog == value.log)
        #expect(card.has("card.degraded") == (value.reason != nil))
        if value.profile == .v7_0 {
            #expect(!(card.sdkLog ?? "").contains("Inbox cell degraded"), "7.0 logs no WARN line")
        }
    }

    /// §3: the 7.0 hero is `imageUrl` only; 7.2 takes `attachment` first.
    @Test func heroOf70IsImageURLOnly() throws {
        let message = TapFixture.feed(
            image: Self.img, ["displayType": "banner", "attachment": .string(Self.other), "b": .string(Self.other)])
        let cards = try TapFixture.cards(message, profiles: [.v7_0, .v7_1, .v7_2])
        #expect(cards.map { $0.urls(.heroImage) } == [[Self.img], [Self.img], [Self.other]])
    }

    /// §3 `7.0`: `code=?` when the message has no code (a createMessage before sending).
    @Test func logWithoutCode() throws {
        let cards = try TapFixture.cards(
            .object(JSONObject([("request", ["notifications": [Input.notification(image: .string(Self.img))]])])),
            profiles: [.v7_0])
        let card = try #require(cards.first)
        #expect(card.sdkLog == "Inbox cell resolve — code=? displayType=nil → kind=captioned")
    }

    /// §3 `7.0`: "Button url needs no scheme"; from 7.1 a schemeless url makes a custom button.
    @Test func buttonURLNeedsNoSchemeOn70() throws {
        let params: JSONValue = ["displayType": "classic", "buttons": [["title": "Deal", "url": "shop/deal"]]]
        let old = try TapFixture.iosCard(TapFixture.feed(params), profile: .v7_0)
        let new = try TapFixture.iosCard(TapFixture.feed(params), profile: .v7_1)
        #expect(old.buttons.map(\.action) == [.openURL("shop/deal")])
        #expect(new.buttons.map(\.action.name) == ["custom"])
    }
}

// MARK: - inboxkit-cards.md §5, iOS taps

@Suite struct IOSTapTests {
    struct Row: Sendable {
        var profile: SDKProfile = .v7_2
        var params: JSONValue
        var taps: [String]
        var overridden = false
    }

    static let l = TapFixture.l
    static let rm = TapFixture.rm

    static let rows: [Named<Row>] = [
        Named("video plays", Row(params: TapFixture.video, taps: ["row:playVideo", "poster:playVideo"])),
        Named(
            "video with l never plays",
            Row(
                params: TapFixture.with(TapFixture.video, [l]),
                taps: ["row:messageAction(link)!", "poster:messageAction(link)!"], overridden: true)),
        Named(
            "video with rm never plays",
            Row(
                params: TapFixture.with(TapFixture.video, [rm]),
                taps: ["row:messageAction(richMedia)!", "poster:messageAction(richMedia)!"], overridden: true)),
        Named(
            "video with an rm object never plays",
            Row(
                params: TapFixture.with(TapFixture.video, [("rm", ["url": "https://rm.example.com/page"])]),
                taps: ["row:messageAction(richMedia)!", "poster:messageAction(richMedia)!"], overridden: true)),
        Named(
            "video without descriptor is classic: the row runs l",
            Row(params: ["displayType": "video", "l": .string(TapFixture.link)], taps: ["row:messageAction(link)"])),
        Named(
            "7.1 video with l still plays",
            Row(
                profile: .v7_1, params: TapFixture.with(TapFixture.video, [l]),
                taps: ["row:playVideo", "poster:playVideo"])),
        Named(
            "carousel slides open their url, others the row",
            Row(
                params: TapFixture.carousel,
                taps: ["row:openMessage", "slide[0]:openURL", "slide[1]:openMessage", "slide[2]:openURL"])),
        Named(
            "carousel with l: slide urls overridden",
            Row(
                params: TapFixture.with(TapFixture.carousel, [l]),
                taps: [
                    "row:messageAction(link)", "slide[0]:messageAction(link)!", "slide[1]:messageAction(link)",
                    "slide[2]:messageAction(link)!",
                ], overridden: true)),
        Named(
            "carousel with rm: slide urls still open",
            Row(
                params: TapFixture.with(TapFixture.carousel, [rm]),
                taps: [
                    "row:messageAction(richMedia)", "slide[0]:openURL", "slide[1]:messageAction(richMedia)",
                    "slide[2]:openURL",
                ])),
        Named(
            "7.1 carousel with l: no override",
            Row(
                profile: .v7_1, params: TapFixture.with(TapFixture.carousel, [l]),
                taps: [
                    "row:messageAction(link)", "slide[0]:openURL", "slide[1]:messageAction(link)", "slide[2]:openURL",
                ])),
        Named(
            "buttons",
            Row(
                params: TapFixture.buttons,
                taps: [
                    "row:openMessage", "button[0]:openURL", "button[1]:markRead", "button[2]:dismiss",
                    "button[3]:custom",
                ])),
        Named(
            "buttons with l: only openURL is overridden",
            Row(
                params: TapFixture.with(TapFixture.buttons, [l]),
                taps: [
                    "row:messageAction(link)", "button[0]:messageAction(link)!", "button[1]:markRead",
                    "button[2]:dismiss", "button[3]:custom",
                ], overridden: true)),
        Named(
            "buttons with rm: only openURL is overridden",
            Row(
                params: TapFixture.with(TapFixture.buttons, [rm]),
                taps: [
                    "row:messageAction(richMedia)", "button[0]:messageAction(richMedia)!", "button[1]:markRead",
                    "button[2]:dismiss", "button[3]:custom",
                ], overridden: true)),
        Named(
            "7.1 buttons with l: no override",
            Row(
                profile: .v7_1, params: TapFixture.with(TapFixture.buttons, [l]),
                taps: [
                    "row:messageAction(link)", "button[0]:openURL", "button[1]:markRead", "button[2]:dismiss",
                    "button[3]:custom",
                ])),
        Named(
            "iOS refuses javascript and facetime, not intent",
            Row(
                params: [
                    "displayType": "classic",
                    "buttons": [
                        ["title": "A", "url": "javascript:alert(1)"],
                        ["title": "B", "url": "facetime:help@example.com"],
                        ["title": "C", "url": "intent://scan#Intent;end"],
                    ],
                ], taps: ["row:openMessage", "button[0]:refused", "button[1]:refused", "button[2]:openURL"])),
        Named(
            "wallet: the Add button downloads the pass",
            Row(
                params: ["displayType": "wallet", "wallet": "https://cdn.example.com/passes/a.pkpass"],
                taps: ["row:openMessage", "addToWallet:addPass"])),
        Named(
            "iOS refuses a file:// slide url",
            Row(
                params: [
                    "displayType": "carousel",
                    "carousel": [["image": "https://cdn.example.com/s.jpg", "url": "file:///etc/hosts"]],
                ], taps: ["row:openMessage", "slide[0]:refused"])),
    ]

    /// §5: a video with `l`/`rm` never plays; a slide url is overridden by `l`; an inline openURL button by `l` or
    /// `rm`; markRead, dismiss and custom never run the message action. The overrides are 7.2's (none on 7.1).
    @Test(arguments: rows)
    func taps(_ row: Named<Row>) throws {
        let card = try TapFixture.iosCard(TapFixture.feed(row.value.params), profile: row.value.profile)
        #expect(card.tapActions.map(\.brief) == row.value.taps)
        #expect(card.has("card.tapOverridden") == row.value.overridden)
        for tap in card.tapActions where tap.via == "link" { #expect(tap.url == TapFixture.link) }
        for tap in card.tapActions where tap.via == "richMedia" { #expect(tap.url == nil) }
    }
}

// MARK: - android-inbox.md §2.1, §2.7, §2.8, Android taps

@Suite struct AndroidTapTests {
    struct Row: Sendable {
        var profile: AndroidProfile = .v6_13
        var params: JSONValue
        var taps: [String]
        var overridden = false
    }

    static let l = TapFixture.l
    static let rm = TapFixture.rm

    static let rows: [Named<Row>] = [
        Named(
            "legacy row with l",
            Row(params: ["l": .string(TapFixture.link)], taps: ["row:messageAction(link)"])),
        Named(
            "legacy row with rm and l: rm decides the type (getType)",
            Row(
                params: ["l": .string(TapFixture.link), "rm": "{\"url\":\"https://rm.example.com/p\"}"],
                taps: ["row:messageAction(richMedia)"])),
        Named(
            "6.13 slides open their own url (openCardUrl)",
            Row(
                params: TapFixture.with(TapFixture.carousel, [l]),
                taps: [
                    "row:messageAction(link)", "slide[0]:openURL", "slide[1]:messageAction(link)", "slide[2]:openURL",
                ])),
        Named(
            "6.13 only the three drawn buttons are tap targets",
            Row(
                params: TapFixture.buttons,
                taps: ["row:openMessage", "button[0]:openURL", "button[1]:markRead", "button[2]:dismiss"])),
        Named(
            "6.13 unsafe slide urls are refused",
            Row(
                params: [
                    "displayType": "carousel",
                    "carousel": [
                        ["image": "https://cdn.example.com/0.jpg", "url": "intent://scan#Intent;end"],
                        ["image": "https://cdn.example.com/1.jpg", "url": "javascript:alert(1)"],
                        ["image": "https://cdn.example.com/2.jpg", "url": "file:///sdcard/a"],
                        ["image": "https://cdn.example.com/3.jpg", "url": "data:text/html,hi"],
                        ["image": "https://cdn.example.com/4.jpg", "url": "mailto:help@example.com"],
                    ],
                ],
                taps: [
                    "row:openMessage", "slide[0]:refused", "slide[1]:refused", "slide[2]:refused", "slide[3]:refused",
                    "slide[4]:openURL",
                ])),
        Named(
            "6.12 unsafe button urls are refused, facetime is not",
            Row(
                profile: .v6_12,
                params: [
                    "displayType": "classic",
                    "buttons": [
                        ["title": "A", "url": "INTENT://scan#Intent;end"], ["title": "B", "url": "file:///sdcard/a"],
                        ["title": "C", "url": "facetime:help@example.com"],
                    ],
                ], taps: ["row:openMessage", "button[0]:refused", "button[1]:refused", "button[2]:openURL"])),
    ]

    /// Android: `isSafeUrl` refusals open nothing; a push/feed type is RICH_MEDIA when `rm` is present (§1.1). Where
    /// 6.13 and 6.15 differ (a video card's row, button taps) is `AndroidTapRoutingTests`.
    @Test(arguments: rows)
    func taps(_ row: Named<Row>) throws {
        let card = try TapFixture.androidCard(TapFixture.feed(row.value.params), profile: row.value.profile)
        #expect(card.tapActions.map(\.brief) == row.value.taps)
        #expect(card.has("card.tapOverridden") == row.value.overridden)
    }
}

// MARK: - createMessage `link` and `rich_media`

@Suite struct MessageActionTests {
    static let rows: [Named<((String, JSONValue), String, String?)>] = [
        Named("link becomes l", (("link", .string(TapFixture.link)), "link", TapFixture.link)),
        Named("rich_media becomes rm", (("rich_media", "ABCDE-12345"), "richMedia", nil)),
    ]

    /// android-inbox.md §1.2 (help-centre payload keys): `link` → `l`, `rich_media` → `rm`, on both platforms. On a
    /// video card iOS 7.2 runs it from the row and the poster (`card.tapOverridden`), Android 6.13 from the row
    /// outside the poster, and Android 6.15 never (the card owns the row: `card.tapOverridden`).
    @Test(arguments: rows)
    func createMessageAction(_ row: Named<((String, JSONValue), String, String?)>) throws {
        let notification = Input.notification(data: TapFixture.video, extra: [row.value.0])
        let cards = try TapFixture.cards(
            .object(JSONObject([("request", ["notifications": [notification]])])), platforms: [.ios, .android],
            androidProfiles: [.v6_13, .v6_15])
        #expect(cards.map(\.platform) == [.ios, .android, .android])
        #expect(cards.map(\.profileName) == ["7.2", "6.13", "6.15"])
        for card in cards {
            let rowTap = try #require(card.tapActions.first)
            #expect(rowTap.target == .row)
            if card.androidSDK == .v6_15 {
                #expect(rowTap.action == .playVideo)
                #expect(rowTap.via == nil)
                #expect(card.has("card.tapOverridden"), "6.15: the message action never runs")
            } else {
                #expect(rowTap.action == .messageAction)
                #expect(rowTap.via == row.value.1)
                #expect(rowTap.url == row.value.2)
                #expect(card.has("card.tapOverridden") == (card.platform == .ios), "iOS 7.2: the video never plays")
            }
        }
    }

    /// Without `link`/`rich_media` a row tap opens the message.
    @Test func noMessageAction() throws {
        let cards = try TapFixture.cards(
            .object(JSONObject([("request", ["notifications": [Input.notification()]])])), platforms: [.ios, .android])
        #expect(cards.map { $0.tapActions.map(\.brief) } == [["row:openMessage"], ["row:openMessage"]])
    }
}
