import StrictJSON
import Testing

@testable import InboxCards

/// Android inbox cards (pushwoosh-inbox-ui), per `android-inbox.md` §1 and §2: every rule on every Android profile.

/// Resolving for Android only, at a fixed moment (the feed messages of `Input.feed` expire in 2100).
private enum AndroidFixture {
    static let at: Int64 = 1_750_000_000
    /// The profiles with rich cards; 6.15 shares 6.13's card rules, so every rule test runs on it too.
    static let rich: [AndroidProfile] = [.v6_12, .v6_13, .v6_15]
    static let img = "https://cdn.example.com/inbox/icon.png"
    static let hero = "https://cdn.example.com/inbox/hero.jpg"
    static let banner = "https://cdn.example.com/inbox/banner.jpg"

    static func cards(
        _ bytes: [UInt8], profiles: [AndroidProfile], platforms: [Platform] = [.android], heuristic: Bool = false
    ) throws -> [ResolvedCard] {
        let batch = try CampaignReader.read(bytes: bytes, source: "android.json")
        let options = ResolveOptions(
            platforms: platforms, androidProfiles: profiles, androidHeuristic: heuristic, at: at)
        return CardResolver(options: options).resolve(batch.messages)
    }

    /// The one Android card of one input document.
    static func card(_ value: JSONValue, profile: AndroidProfile, heuristic: Bool = false) throws -> ResolvedCard {
        let cards = try cards(Input.bytes(value), profiles: [profile], heuristic: heuristic)
        try #require(cards.count == 1)
        return cards[0]
    }

    /// A feed message (code `inbox-1`) whose `action_params` carry `params`.
    static func feed(
        title: String? = "Title", text: String? = "Body", image: String? = nil, _ params: JSONValue?
    ) -> JSONValue {
        // A feed message always has `text` (a required key, §3): "no body" is an empty one.
        Input.feed(id: "inbox-1", title: title, text: text ?? "", image: image, params: params)
    }

    /// `u` as a JSON-encoded string, as the server usually sends it.
    static func encoded(_ value: JSONValue) -> JSONValue { .string(value.serialized()) }

    /// `count` slides with an https image each (a slide url on the first).
    static func slides(_ count: Int) -> JSONValue {
        .array(
            (0..<count).map { index in
                var slide = JSONObject([("image", .string("https://cdn.example.com/inbox/s\(index).jpg"))])
                if index == 0 { slide["url"] = "https://shop.example.com/0" }
                return .object(slide)
            })
    }
}

extension ResolvedCard {
    /// The kinds as `requested→resolved`, for compact expectations.
    fileprivate var androidKinds: String { "\(requested)→\(resolved)" }
}

// MARK: - §2.2 displayType

@Suite struct AndroidDisplayTypeTests {
    struct Row: Sendable {
        var params: JSONValue?
        var encode = true
        /// `requested→resolved`.
        var kinds: String
        var codes: [String] = []
        var absent: [String] = []
    }

    // An image, a title and a body: every requested kind that needs no rich payload renders as asked.
    static let rows: [Named<Row>] = [
        Named("root displayType", Row(params: ["displayType": "banner"], kinds: "banner→banner")),
        Named("u object", Row(params: ["u": ["displayType": "banner"]], kinds: "banner→banner")),
        Named(
            "u JSON string",
            Row(params: ["u": AndroidFixture.encoded(["displayType": "banner"])], kinds: "banner→banner")),
        Named("userdata object", Row(params: ["userdata": ["displayType": "banner"]], kinds: "banner→banner")),
        Named(
            "root before u",
            Row(params: ["displayType": "captioned", "u": ["displayType": "banner"]], kinds: "captioned→captioned")),
        Named(
            "u before userdata",
            Row(
                params: ["u": ["displayType": "banner"], "userdata": ["displayType": "captioned"]],
                kinds: "banner→banner")),
        Named("case-insensitive", Row(params: ["displayType": "BaNNeR"], kinds: "banner→banner")),
        Named(
            "a number at the root falls through to u",
            Row(
                params: ["displayType": 5, "u": ["displayType": "banner"]], kinds: "banner→banner",
                codes: ["card.wrongType"])),
        Named(
            "an empty string at the root falls through to u",
            Row(params: ["displayType": "", "u": ["displayType": "captioned"]], kinds: "captioned→captioned")),
        Named(
            "null at the root falls through to userdata",
            Row(params: ["displayType": nil, "userdata": ["displayType": "banner"]], kinds: "banner→banner")),
        Named(
            "a boolean in u falls through to userdata",
            Row(
                params: ["u": ["displayType": true], "userdata": ["displayType": "classic"]],
                kinds: "classic→classic", codes: ["card.wrongType"])),
        Named(
            "userdata as a JSON string is not read (object only)",
            Row(
                params: ["userdata": AndroidFixture.encoded(["displayType": "banner"])], kinds: "legacy→legacy",
                codes: ["card.legacyRow"])),
        Named(
            "not trimmed: \" banner\" is unknown",
            Row(
                params: ["displayType": " banner"], kinds: "legacy→legacy", codes: ["card.unknownDisplayType"],
                absent: ["card.legacyRow"])),
        Named(
            "\"default\" is unknown",
            Row(params: ["displayType": "default"], kinds: "legacy→legacy", codes: ["card.unknownDisplayType"])),
        Named(
            "\"fancy\" is unknown",
            Row(params: ["displayType": "fancy"], kinds: "legacy→legacy", codes: ["card.unknownDisplayType"])),
        Named(
            "\"legacy\" names no kind",
            Row(params: ["displayType": "legacy"], kinds: "legacy→legacy", codes: ["card.unknownDisplayType"])),
        Named(
            "the first non-empty string decides, even unknown",
            Row(
                params: ["displayType": "fancy", "u": ["displayType": "banner"]], kinds: "legacy→legacy",
                codes: ["card.unknownDisplayType"])),
        Named(
            "no displayType",
            Row(params: ["pinned": false], kinds: "legacy→legacy", codes: ["card.legacyRow"])),
        Named("no action_params", Row(params: nil, kinds: "legacy→legacy", codes: ["card.legacyRow"])),
        Named(
            "malformed action_params",
            Row(params: "{not json", encode: false, kinds: "legacy→legacy", codes: ["card.legacyRow"])),
    ]

    /// §2.2: root → u → userdata (object only), non-empty strings, lowercased, not trimmed; anything else is the
    /// legacy row while `richCardsHeuristicEnabled` is off (the default).
    @Test(arguments: rows, AndroidFixture.rich)
    func lookup(_ row: Named<Row>, profile: AndroidProfile) throws {
        let message = Input.feed(
            id: "inbox-1", image: AndroidFixture.img, params: row.value.params, encode: row.value.encode)
        let card = try AndroidFixture.card(message, profile: profile)
        #expect(card.androidKinds == row.value.kinds)
        #expect(!card.degraded)
        #expect(card.sdkLog == nil, "a known kind with its payload, or the legacy row, logs nothing")
        for code in row.value.codes { #expect(card.has(code), "missing \(code): \(card.findings)") }
        for code in row.value.absent { #expect(!card.has(code), "unexpected \(code)") }
    }

    /// §2.2: the legacy row is `DEFAULT`, not `classic`, and it is not a degrade.
    @Test(arguments: AndroidFixture.rich)
    func unknownDisplayTypeIsTheLegacyRowNotClassic(profile: AndroidProfile) throws {
        let card = try AndroidFixture.card(AndroidFixture.feed(["displayType": "Fancy"]), profile: profile)
        #expect(card.resolved == .legacy)
        #expect(card.resolved != .classic)
        #expect(card.degradeReason == nil)
        let finding = try #require(card.finding("card.unknownDisplayType"))
        #expect(finding.path == "action_params.displayType")
    }
}

// MARK: - §2.3 Heuristic

@Suite struct AndroidHeuristicTests {
    struct Row: Sendable {
        var profile: AndroidProfile
        var title: String? = "Title"
        var text: String? = "Body"
        var image: String? = nil
        var params: JSONValue = [:]
        var kind: CardKind
    }

    static let rows: [Named<Row>] = [
        Named(
            "6.12 hero, no title → banner", Row(profile: .v6_12, title: nil, image: AndroidFixture.img, kind: .banner)),
        Named(
            "6.13 hero, no title → banner", Row(profile: .v6_13, title: nil, image: AndroidFixture.img, kind: .banner)),
        Named(
            "6.12 empty title counts as none → banner",
            Row(profile: .v6_12, title: "", image: AndroidFixture.img, kind: .banner)),
        Named(
            "6.12 hero + title, no body → captioned",
            Row(profile: .v6_12, text: nil, image: AndroidFixture.img, kind: .captioned)),
        Named(
            "6.13 hero + title, no body → classic",
            Row(profile: .v6_13, text: nil, image: AndroidFixture.img, kind: .classic)),
        Named(
            "6.13 hero + title + body → captioned",
            Row(profile: .v6_13, image: AndroidFixture.img, kind: .captioned)),
        Named("6.12 no hero → classic", Row(profile: .v6_12, kind: .classic)),
        Named("6.13 no hero → classic", Row(profile: .v6_13, title: nil, text: nil, kind: .classic)),
        Named(
            "6.13 hero from attachment only → banner",
            Row(profile: .v6_13, title: nil, params: ["attachment": .string(AndroidFixture.hero)], kind: .banner)),
        Named(
            "6.12 unknown displayType: the heuristic decides",
            Row(profile: .v6_12, image: AndroidFixture.img, params: ["displayType": "fancy"], kind: .captioned)),
        Named(
            "6.13 an explicit known kind wins over the heuristic",
            Row(profile: .v6_13, image: AndroidFixture.img, params: ["displayType": "classic"], kind: .classic)),
        Named(
            "6.13 a non-http attachment is no hero → classic",
            Row(profile: .v6_13, title: nil, params: ["attachment": "file:///sdcard/a.jpg"], kind: .classic)),
    ]

    /// §2.3: with `richCardsHeuristicEnabled`, no known displayType → banner / captioned / classic; 6.13 also needs
    /// a body for captioned. The heuristic never picks a kind that degrades.
    @Test(arguments: rows)
    func heuristic(_ row: Named<Row>) throws {
        let value = row.value
        let card = try AndroidFixture.card(
            AndroidFixture.feed(title: value.title, text: value.text, image: value.image, value.params),
            profile: value.profile, heuristic: true)
        #expect(card.requested == value.kind)
        #expect(card.resolved == value.kind)
        #expect(!card.degraded)
        #expect(card.sdkLog == nil)
        #expect(!card.has("card.legacyRow"))
    }

    /// §2.3: "An explicit known displayType always wins": with the switch on, a banner without a hero still degrades
    /// (the heuristic would have picked classic without a degrade).
    @Test(arguments: AndroidFixture.rich)
    func explicitKindStillDegradesWithHeuristic(profile: AndroidProfile) throws {
        let card = try AndroidFixture.card(
            AndroidFixture.feed(["displayType": "banner"]), profile: profile, heuristic: true)
        #expect(card.requested == .banner)
        #expect(card.resolved == .classic)
        #expect(card.degradeReason == "no image")
        #expect(card.sdkLog?.hasSuffix("banner→classic (no image)") == true)
    }

    /// §2.1: up to 6.11 there is only the legacy row, whatever the switch says.
    @Test func heuristicDoesNothingOn611() throws {
        let card = try AndroidFixture.card(
            AndroidFixture.feed(title: nil, image: AndroidFixture.img, [:]), profile: .v6_11, heuristic: true)
        #expect(card.androidKinds == "legacy→legacy")
    }
}

// MARK: - §2.4 / §2.5 Degrades and the WARN line

@Suite struct AndroidDegradeTests {
    struct Row: Sendable {
        var profile: AndroidProfile
        var title: String? = "Title"
        var text: String? = "Body"
        var image: String? = nil
        var params: JSONValue
        var requested: CardKind
        var resolved: CardKind
        var reason: String? = nil
        var log: String? = nil
    }

    static let img = AndroidFixture.img
    static let oneSlide: JSONValue = [["image": "https://cdn.example.com/inbox/1.jpg"]]
    static let video: JSONValue = ["url": "https://cdn.example.com/inbox/clip.mp4"]

    static let rows: [Named<Row>] = [
        Named(
            "6.12 banner without hero",
            Row(
                profile: .v6_12, params: ["displayType": "banner"], requested: .banner, resolved: .classic,
                reason: "no image",
                log: "Inbox card degraded — code=inbox-1 displayType=banner hasImage=false banner→classic (no image)")),
        Named(
            "6.13 banner without hero, displayType lowercased in the log",
            Row(
                profile: .v6_13, params: ["displayType": "BANNER"], requested: .banner, resolved: .classic,
                reason: "no image",
                log: "Inbox card degraded — code=inbox-1 displayType=banner hasImage=false banner→classic (no image)")),
        Named(
            "6.13 banner with hero",
            Row(profile: .v6_13, image: img, params: ["displayType": "banner"], requested: .banner, resolved: .banner)),
        Named(
            "6.12 captioned without hero",
            Row(
                profile: .v6_12, params: ["displayType": "captioned"], requested: .captioned, resolved: .classic,
                reason: "no image",
                log:
                    "Inbox card degraded — code=inbox-1 displayType=captioned hasImage=false captioned→classic (no image)"
            )),
        Named(
            "6.13 captioned without hero and body: the image is named",
            Row(
                profile: .v6_13, text: nil, params: ["displayType": "captioned"], requested: .captioned,
                resolved: .classic, reason: "no image",
                log:
                    "Inbox card degraded — code=inbox-1 displayType=captioned hasImage=false captioned→classic (no image)"
            )),
        Named(
            "6.12 captioned needs only a hero",
            Row(
                profile: .v6_12, title: nil, text: nil, image: img, params: ["displayType": "captioned"],
                requested: .captioned, resolved: .captioned)),
        Named(
            "6.13 captioned without body",
            Row(
                profile: .v6_13, text: nil, image: img, params: ["displayType": "captioned"], requested: .captioned,
                resolved: .classic, reason: "no title/body",
                log:
                    "Inbox card degraded — code=inbox-1 displayType=captioned hasImage=true captioned→classic (no title/body)"
            )),
        Named(
            "6.13 captioned without title, hero from attachment",
            Row(
                profile: .v6_13, title: nil,
                params: ["displayType": "captioned", "attachment": .string(AndroidFixture.hero)],
                requested: .captioned, resolved: .classic, reason: "no title/body",
                log:
                    "Inbox card degraded — code=inbox-1 displayType=captioned hasImage=true captioned→classic (no title/body)"
            )),
        Named(
            "6.12 carousel needs only slides",
            Row(
                profile: .v6_12, title: nil, text: nil, params: ["displayType": "carousel", "carousel": oneSlide],
                requested: .carousel, resolved: .carousel)),
        Named(
            "6.13 carousel without body",
            Row(
                profile: .v6_13, text: nil, params: ["displayType": "carousel", "carousel": oneSlide],
                requested: .carousel, resolved: .classic, reason: "no title/body",
                log:
                    "Inbox card degraded — code=inbox-1 displayType=carousel hasImage=false carousel→classic (no title/body)"
            )),
        Named(
            "6.12 carousel without slides",
            Row(
                profile: .v6_12, params: ["displayType": "carousel"], requested: .carousel, resolved: .classic,
                reason: "no slides",
                log:
                    "Inbox card degraded — code=inbox-1 displayType=carousel hasImage=false carousel→classic (no slides)"
            )),
        Named(
            "6.13 carousel without slides",
            Row(
                profile: .v6_13, image: img, params: ["displayType": "carousel", "carousel": []],
                requested: .carousel, resolved: .classic, reason: "no slides",
                log:
                    "Inbox card degraded — code=inbox-1 displayType=carousel hasImage=true carousel→classic (no slides)"
            )),
        Named(
            "6.12 carousel without slides nor body: slides are named",
            Row(
                profile: .v6_12, text: nil, params: ["displayType": "carousel"], requested: .carousel,
                resolved: .classic, reason: "no slides")),
        Named(
            "6.13 carousel without slides nor body: title/body are named",
            Row(
                profile: .v6_13, text: nil, params: ["displayType": "carousel"], requested: .carousel,
                resolved: .classic, reason: "no title/body")),
        Named(
            "6.13 carousel whose only slide is file://",
            Row(
                profile: .v6_13, params: ["displayType": "carousel", "carousel": [["image": "file:///sdcard/1.jpg"]]],
                requested: .carousel, resolved: .classic, reason: "no slides")),
        Named(
            "6.12 video without descriptor",
            Row(
                profile: .v6_12, params: ["displayType": "video"], requested: .video, resolved: .classic,
                reason: "no video descriptor",
                log:
                    "Inbox card degraded — code=inbox-1 displayType=video hasImage=false video→classic (no video descriptor)"
            )),
        Named(
            "6.13 video with a myapp:// url",
            Row(
                profile: .v6_13, params: ["displayType": "video", "video": ["url": "myapp://clip"]], requested: .video,
                resolved: .classic, reason: "no video descriptor")),
        Named(
            "6.13 video with descriptor",
            Row(profile: .v6_13, params: ["displayType": "video", "video": video], requested: .video, resolved: .video)),
        Named(
            "6.12 wallet with a pass",
            Row(
                profile: .v6_12, image: img,
                params: ["displayType": "wallet", "wallet": "https://cdn.example.com/passes/a.pkpass"],
                requested: .wallet, resolved: .classic, reason: "wallet cards are iOS-only",
                log:
                    "Inbox card degraded — code=inbox-1 displayType=wallet hasImage=true wallet→classic (wallet cards are iOS-only)"
            )),
        Named(
            "6.13 wallet {pass} object",
            Row(
                profile: .v6_13,
                params: ["displayType": "Wallet", "wallet": ["pass": "https://cdn.example.com/passes/a.pkpass"]],
                requested: .wallet, resolved: .classic, reason: "wallet cards are iOS-only",
                log:
                    "Inbox card degraded — code=inbox-1 displayType=wallet hasImage=false wallet→classic (wallet cards are iOS-only)"
            )),
        Named(
            "6.13 wallet without a pass",
            Row(
                profile: .v6_13, params: ["displayType": "wallet"], requested: .wallet, resolved: .classic,
                reason: "wallet cards are iOS-only")),
        Named(
            "6.12 classic logs nothing, even without title and body",
            Row(
                profile: .v6_12, title: nil, text: nil, params: ["displayType": "classic"], requested: .classic,
                resolved: .classic)),
    ]

    /// §2.4: a requested kind missing its payload resolves to the classic card (never the legacy row), with the
    /// exact reason; §2.5: the WARN line, only when a non-classic request became classic.
    @Test(arguments: rows)
    func degrade(_ row: Named<Row>) throws {
        let value = row.value
        let card = try AndroidFixture.card(
            AndroidFixture.feed(title: value.title, text: value.text, image: value.image, value.params),
            profile: value.profile)
        #expect(card.requested == value.requested)
        #expect(card.resolved == value.resolved)
        #expect(card.resolved != .legacy)
        #expect(card.degraded == (value.reason != nil))
        #expect(card.degradeReason == value.reason)
        if let log = value.log {
            #expect(card.sdkLog == log)
        } else if value.reason == nil {
            #expect(card.sdkLog == nil)
        } else {
            let log = try #require(card.sdkLog)
            #expect(log.hasPrefix("Inbox card degraded — code=inbox-1 displayType=\(value.requested) hasImage="))
            #expect(log.hasSuffix(" \(value.requested)→classic (\(value.reason ?? ""))"))
        }
        if value.reason != nil {
            // A wallet card is a platform matter; the other degrades are the payload's.
            #expect(card.has(value.requested == .wallet ? "card.platformLayout" : "card.degraded"))
        }
    }

    /// §2.5: `code=` is the Kotlin text `null` when the message has no code (a createMessage before sending), never
    /// `?`; the arrow is U+2192 and the dash U+2014.
    @Test func logWithoutCodeSaysNull() throws {
        let cards = try AndroidFixture.cards(
            Input.request([Input.notification(data: ["displayType": "banner"])]), profiles: [.v6_13])
        let card = try #require(cards.first)
        #expect(card.code == nil)
        #expect(
            card.sdkLog == "Inbox card degraded — code=null displayType=banner hasImage=false banner→classic (no image)"
        )
        let scalars = Array((card.sdkLog ?? "").unicodeScalars.map(\.value))
        #expect(scalars.contains(0x2014))
        #expect(scalars.contains(0x2192))
        #expect(!(card.sdkLog ?? "").contains("code=?"))
    }

    /// §2.5: a push entry's code is its `pw_inbox`.
    @Test func pushLogNamesPwInbox() throws {
        let push: JSONValue = [
            "pw_inbox": "push-7", "header": "Sale", "title": "30% off", "displayType": "video",
            "inbox_params": ["rt": .int(Int(AndroidFixture.at) + 86_400)],
        ]
        let card = try AndroidFixture.card(push, profile: .v6_12)
        #expect(
            card.sdkLog
                == "Inbox card degraded — code=push-7 displayType=video hasImage=false video→classic (no video descriptor)"
        )
    }
}

// MARK: - §2.6 Hero and icon

@Suite struct AndroidImageTests {
    struct HeroRow: Sendable {
        var image: String? = nil
        var params: JSONValue
        /// The banner's hero, `nil` = no hero (the banner degrades).
        var hero: String?
        var codes: [String] = []
    }

    static let img = AndroidFixture.img
    static let hero = AndroidFixture.hero
    static let banner = AndroidFixture.banner

    static let heroRows: [Named<HeroRow>] = [
        Named(
            "attachment first",
            HeroRow(image: img, params: ["attachment": .string(hero), "b": .string(banner)], hero: hero)),
        Named(
            "attachment with an upper-case HTTPS prefix",
            HeroRow(params: ["attachment": "HTTPS://CDN.EXAMPLE.COM/A.JPG"], hero: "HTTPS://CDN.EXAMPLE.COM/A.JPG")),
        Named(
            "attachment with a mixed-case Http prefix",
            HeroRow(params: ["attachment": "Http://cdn.example.com/a.jpg"], hero: "Http://cdn.example.com/a.jpg")),
        Named(
            "file:// attachment is skipped for b",
            HeroRow(
                params: ["attachment": "file:///sdcard/a.jpg", "b": .string(banner)], hero: banner,
                codes: ["card.heroIgnored"])),
        Named(
            "ftp:// attachment is skipped for the icon",
            HeroRow(
                image: img, params: ["attachment": "ftp://cdn.example.com/a.jpg"], hero: img,
                codes: ["card.heroIgnored"])),
        Named("empty attachment is skipped", HeroRow(params: ["attachment": "", "b": .string(banner)], hero: banner)),
        Named(
            "a non-string attachment is skipped",
            HeroRow(params: ["attachment": ["url": .string(hero)], "b": .string(banner)], hero: banner)),
        Named("b before the icon", HeroRow(image: img, params: ["b": .string(banner)], hero: banner)),
        Named(
            "b with an upper-case HTTP prefix",
            HeroRow(params: ["b": "HTTP://CDN.EXAMPLE.COM/B.JPG"], hero: "HTTP://CDN.EXAMPLE.COM/B.JPG")),
        Named(
            "myapp:// b is skipped for the icon",
            HeroRow(image: img, params: ["b": "myapp://banner"], hero: img, codes: ["card.heroIgnored"])),
        Named("b as a number is its text, not http", HeroRow(image: img, params: ["b": 5], hero: img)),
        Named("the icon: imageUrl", HeroRow(image: img, params: [:], hero: img)),
        Named(
            "the icon: root image",
            HeroRow(params: ["image": "https://cdn.example.com/root.png"], hero: "https://cdn.example.com/root.png")),
        Named(
            "the icon: u.image (u as a JSON string)",
            HeroRow(
                params: ["u": AndroidFixture.encoded(["image": "https://cdn.example.com/u.png"])],
                hero: "https://cdn.example.com/u.png")),
        Named(
            "the icon never reads userdata.image",
            HeroRow(params: ["userdata": ["image": "https://cdn.example.com/ud.png"]], hero: nil)),
        Named(
            "the icon chain itself takes any non-empty string (no http test)",
            HeroRow(image: "myapp://icon.png", params: [:], hero: "myapp://icon.png")),
    ]

    /// §2.6 `resolveHeroUrl`: attachment → b (http(s) prefix, any case; others skipped) → the icon chain.
    @Test(arguments: heroRows, AndroidFixture.rich)
    func hero(_ row: Named<HeroRow>, profile: AndroidProfile) throws {
        var params = row.value.params.objectValue ?? JSONObject()
        params["displayType"] = "banner"
        let card = try AndroidFixture.card(
            AndroidFixture.feed(title: nil, image: row.value.image, .object(params)), profile: profile)
        if let hero = row.value.hero {
            #expect(card.resolved == .banner)
            #expect(card.urls(.heroImage) == [hero])
            #expect(card.sdkLog == nil)
        } else {
            #expect(card.resolved == .classic)
            #expect(card.degradeReason == "no image")
            #expect(card.urls(.heroImage).isEmpty)
        }
        for code in row.value.codes { #expect(card.has(code), "missing \(code): \(card.findings)") }
    }

    struct IconRow: Sendable {
        var kind: CardKind
        var image: String? = nil
        var params: JSONValue
        var hero: [String] = []
        /// The captioned round icon, or the classic avatar.
        var icon: [String]
    }

    static let iconRows: [Named<IconRow>] = [
        Named(
            "classic avatar: imageUrl",
            IconRow(kind: .classic, image: img, params: ["image": "https://x.example/r.png"], icon: [img])),
        Named(
            "classic avatar: root image",
            IconRow(kind: .classic, params: ["image": "https://x.example/r.png"], icon: ["https://x.example/r.png"])),
        Named(
            "classic avatar: empty root image falls to u.image",
            IconRow(
                kind: .classic, params: ["image": "", "u": ["image": "https://x.example/u.png"]],
                icon: ["https://x.example/u.png"])),
        Named(
            "classic avatar never from attachment or b",
            IconRow(kind: .classic, params: ["attachment": .string(hero), "b": .string(banner)], icon: [])),
        Named(
            "classic avatar never from userdata",
            IconRow(kind: .classic, params: ["userdata": ["image": "https://x.example/ud.png"]], icon: [])),
        Named(
            "captioned: attachment hero, imageUrl icon",
            IconRow(kind: .captioned, image: img, params: ["attachment": .string(hero)], hero: [hero], icon: [img])),
        Named(
            "captioned: b hero, root image icon",
            IconRow(
                kind: .captioned, params: ["b": .string(banner), "image": "https://x.example/r.png"], hero: [banner],
                icon: ["https://x.example/r.png"])),
        Named(
            "captioned: the icon is hidden when it is the hero (hero fell back to it)",
            IconRow(kind: .captioned, image: img, params: [:], hero: [img], icon: [])),
        Named(
            "captioned: the icon is hidden when attachment equals it",
            IconRow(kind: .captioned, image: hero, params: ["attachment": .string(hero)], hero: [hero], icon: [])),
    ]

    /// §2.6 `resolveIconUrl`: imageUrl → root image → u.image, never attachment, b or userdata; the captioned icon is
    /// hidden when it equals the hero; the classic avatar is the icon chain.
    @Test(arguments: iconRows, AndroidFixture.rich)
    func icon(_ row: Named<IconRow>, profile: AndroidProfile) throws {
        var params = row.value.params.objectValue ?? JSONObject()
        params["displayType"] = .string(row.value.kind.rawValue)
        let card = try AndroidFixture.card(
            AndroidFixture.feed(image: row.value.image, .object(params)), profile: profile)
        #expect(card.resolved == row.value.kind)
        #expect(card.urls(.heroImage) == row.value.hero)
        #expect(card.urls(row.value.kind == .classic ? .avatar : .icon) == row.value.icon)
    }
}

// MARK: - §2.7 Decoders

@Suite struct AndroidVideoTests {
    struct Row: Sendable {
        var image: String? = nil
        var params: JSONValue
        var url: String?
        var poster: String?
        var codes: [String] = []
    }

    static let clip = "https://cdn.example.com/inbox/clip.mp4"
    static let poster = "https://cdn.example.com/inbox/poster.jpg"

    static let rows: [Named<Row>] = [
        Named(
            "url and poster",
            Row(params: ["video": ["url": .string(clip), "poster": .string(poster)]], url: clip, poster: poster)),
        Named(
            "no poster: no imageUrl fallback",
            Row(
                image: AndroidFixture.img, params: ["video": ["url": .string(clip)]], url: clip, poster: nil,
                codes: ["card.videoNoPoster"])),
        Named(
            "empty poster is none",
            Row(params: ["video": ["url": .string(clip), "poster": ""]], url: clip, poster: nil)),
        Named(
            "a null poster is the text \"null\" (org.json optString)",
            Row(
                params: ["video": ["url": .string(clip), "poster": nil]], url: clip, poster: "null",
                codes: ["card.stringified"])),
        Named(
            "upper-case HTTPS url",
            Row(
                params: ["video": ["url": "HTTPS://CDN.EXAMPLE.COM/C.MP4"]], url: "HTTPS://CDN.EXAMPLE.COM/C.MP4",
                poster: nil)),
        Named(
            "a root video that is no object falls through to u",
            Row(params: ["video": .string(clip), "u": ["video": ["url": .string(clip)]]], url: clip, poster: nil)),
        Named(
            "file:// url: no descriptor",
            Row(params: ["video": ["url": "file:///sdcard/c.mp4"]], url: nil, poster: nil, codes: ["card.videoInvalid"])
        ),
        Named(
            "content:// url: no descriptor", Row(params: ["video": ["url": "content://media/1"]], url: nil, poster: nil)
        ),
        Named(
            "a number url is its text: no descriptor",
            Row(params: ["video": ["url": 5]], url: nil, poster: nil, codes: ["card.stringified"])),
        Named("video as an array: no descriptor", Row(params: ["video": [.string(clip)]], url: nil, poster: nil)),
    ]

    /// §2.7 `InboxVideoContent`: an object with an http(s) url (any case); the poster is `video.poster` only (§2.6).
    @Test(arguments: rows, AndroidFixture.rich)
    func video(_ row: Named<Row>, profile: AndroidProfile) throws {
        var params = row.value.params.objectValue ?? JSONObject()
        params["displayType"] = "video"
        let card = try AndroidFixture.card(
            AndroidFixture.feed(image: row.value.image, .object(params)), profile: profile)
        if let url = row.value.url {
            #expect(card.resolved == .video)
            #expect(card.urls(.video) == [url])
            #expect(card.urls(.videoPoster) == (row.value.poster.map { [$0] } ?? []))
            #expect(card.urls(.icon).isEmpty && card.urls(.avatar).isEmpty, "a video card shows no icon")
        } else {
            #expect(card.resolved == .classic)
            #expect(card.degradeReason == "no video descriptor")
        }
        for code in row.value.codes { #expect(card.has(code), "missing \(code): \(card.findings)") }
    }
}

@Suite struct AndroidCarouselTests {
    /// One `slides[]` record as `index:position` or `index:dropped(reason)`.
    static func records(_ card: ResolvedCard) -> [String] {
        card.slides.map { record in
            record.droppedReason.map { "\(record.index):dropped(\($0))" } ?? "\(record.index):\(record.position ?? -1)"
        }
    }

    static let mixed: JSONValue = [
        ["image": "https://cdn.example.com/0.jpg", "url": "myapp://deal/0"],
        ["image": "file:///sdcard/1.jpg"],
        5,
        ["title": "no image"],
        ["image": "HTTP://CDN.EXAMPLE.COM/4.JPG"],
        ["image": "//cdn.example.com/5.jpg"],
        ["image": "content://media/6"],
    ]

    /// §2.7: only http/https images (any case) are kept; other elements are dropped with a reason, in `slides[]`.
    @Test(arguments: AndroidFixture.rich)
    func httpImagesOnly(profile: AndroidProfile) throws {
        let card = try AndroidFixture.card(
            AndroidFixture.feed(["displayType": "carousel", "carousel": Self.mixed]), profile: profile)
        #expect(card.resolved == .carousel)
        #expect(card.urls(.carouselSlide) == ["https://cdn.example.com/0.jpg", "HTTP://CDN.EXAMPLE.COM/4.JPG"])
        #expect(
            Self.records(card) == [
                "0:0", "1:dropped(image not http(s))", "2:dropped(not an object)", "3:dropped(no image)", "4:1",
                "5:dropped(image not http(s))", "6:dropped(image not http(s))",
            ])
        #expect(card.has("card.slideDropped"))
        #expect(card.slides[0].url == "myapp://deal/0", "any scheme is kept as the slide's url")
    }

    static let capRows: [Named<(AndroidProfile, Int)>] = [
        Named("6.12 shows at most 10", (.v6_12, 10)),
        Named("6.13 shows at most 5", (.v6_13, 5)),
    ]

    /// §2.7 `MAX_SLIDES`: 10 in 6.12, 5 in 6.13; the elements past the cap are recorded as dropped.
    @Test(arguments: capRows)
    func cap(_ row: Named<(AndroidProfile, Int)>) throws {
        let (profile, cap) = row.value
        let card = try AndroidFixture.card(
            AndroidFixture.feed(["displayType": "carousel", "carousel": AndroidFixture.slides(12)]), profile: profile)
        #expect(card.resolved == .carousel)
        #expect(card.urls(.carouselSlide).count == cap)
        #expect(card.slides.count == 12)
        #expect(card.slides.filter { $0.droppedReason == nil }.map(\.position) == (0..<cap).map { Optional($0) })
        #expect(
            card.slides.filter { $0.droppedReason != nil }.map(\.droppedReason)
                == Array(repeating: "beyond the \(cap)-slide cap", count: 12 - cap))
        #expect(card.has("card.slidesCapped"))
    }

    /// §2.7: "Only accepted slides count towards the cap": a dropped slide takes no slot.
    @Test func droppedSlidesTakeNoSlot() throws {
        var elements: [JSONValue] = [["image": "file:///sdcard/bad.jpg"]]
        elements += AndroidFixture.slides(6).arrayValue ?? []
        let card = try AndroidFixture.card(
            AndroidFixture.feed(["displayType": "carousel", "carousel": .array(elements)]), profile: .v6_13)
        #expect(
            Self.records(card) == [
                "0:dropped(image not http(s))", "1:0", "2:1", "3:2", "4:3", "5:4", "6:dropped(beyond the 5-slide cap)",
            ])
    }

    /// §2.7: title optional (`""` → none, a number is its text); url kept with any scheme, dropped without one.
    @Test func slideTitleAndURL() throws {
        let carousel: JSONValue = [
            ["image": "https://cdn.example.com/0.jpg", "title": "", "url": "no-scheme"],
            ["image": "https://cdn.example.com/1.jpg", "title": 5, "url": "https://shop.example.com/1"],
            ["image": "https://cdn.example.com/2.jpg", "title": "Third", "url": ""],
            ["image": "https://cdn.example.com/3.jpg", "title": nil, "url": nil],
        ]
        let card = try AndroidFixture.card(
            AndroidFixture.feed(["displayType": "carousel", "carousel": carousel]), profile: .v6_13)
        // org.json `optString` makes JSON null the text "null": a caption, and a url without a scheme.
        #expect(card.slides.map(\.title) == [nil, "5", "Third", "null"])
        #expect(card.slides.map(\.url) == [nil, "https://shop.example.com/1", nil, nil])
        #expect(card.accessibilityLabels == ["Slide", "5", "Third", "null"])
        #expect(card.has("card.slideURLInvalid"))
        #expect(card.has("card.stringified"))
    }

    /// §2.7: a root `carousel` that is not an array falls through to `u`.
    @Test func rootCarouselNotAnArrayFallsThroughToU() throws {
        let params: JSONValue = [
            "displayType": "carousel", "carousel": ["image": "https://cdn.example.com/root.jpg"],
            "u": AndroidFixture.encoded(["carousel": [["image": "https://cdn.example.com/u.jpg"]]]),
        ]
        let card = try AndroidFixture.card(AndroidFixture.feed(params), profile: .v6_12)
        #expect(card.resolved == .carousel)
        #expect(card.urls(.carouselSlide) == ["https://cdn.example.com/u.jpg"])
    }
}

/// §2.7: "Each decoder looks at the actionParams root, then `u` (never `userdata`)".
@Suite struct AndroidDecoderLevelTests {
    static let rows: [Named<(JSONValue, String)>] = [
        Named(
            "carousel",
            (
                ["displayType": "carousel", "userdata": ["carousel": [["image": "https://cdn.example.com/1.jpg"]]]],
                "no slides"
            )),
        Named(
            "video",
            (
                ["displayType": "video", "userdata": ["video": ["url": "https://cdn.example.com/c.mp4"]]],
                "no video descriptor"
            )),
    ]

    @Test(arguments: rows, AndroidFixture.rich)
    func userdataIsNotRead(_ row: Named<(JSONValue, String)>, profile: AndroidProfile) throws {
        let card = try AndroidFixture.card(AndroidFixture.feed(row.value.0), profile: profile)
        #expect(card.resolved == .classic)
        #expect(card.degradeReason == row.value.1)
    }

    @Test(arguments: AndroidFixture.rich)
    func buttonsInUserdataAreNotRead(profile: AndroidProfile) throws {
        let params: JSONValue = [
            "displayType": "classic", "userdata": ["buttons": [["title": "Open", "url": "https://example.com"]]],
        ]
        let card = try AndroidFixture.card(AndroidFixture.feed(params), profile: profile)
        #expect(card.buttons.isEmpty)
        let fromU = try AndroidFixture.card(
            AndroidFixture.feed([
                "displayType": "classic",
                "u": AndroidFixture.encoded(["buttons": [["title": "Open", "url": "https://example.com"]]]),
            ]), profile: profile)
        #expect(fromU.buttons.map(\.title) == ["Open"])
    }
}

// MARK: - §2.7 / §2.8 Buttons

@Suite struct AndroidButtonTests {
    static func buttons(_ count: Int) -> JSONValue {
        .array(
            (0..<count).map {
                .object(JSONObject([("title", .string("B\($0)")), ("url", .string("https://example.com/\($0)"))]))
            })
    }

    static let kindRows: [Named<(JSONValue, CardKind, Bool)>] = [
        Named("classic draws them", (["displayType": "classic"], .classic, true)),
        Named("captioned draws them", (["displayType": "captioned"], .captioned, true)),
        Named("banner does not", (["displayType": "banner"], .banner, false)),
        Named(
            "carousel does not",
            (["displayType": "carousel", "carousel": [["image": "https://cdn.example.com/1.jpg"]]], .carousel, false)),
        Named(
            "video does not",
            (["displayType": "video", "video": ["url": "https://cdn.example.com/c.mp4"]], .video, false)),
        Named("the legacy row does not", ([:], .legacy, false)),
        Named("a degraded banner is classic and draws them", (["displayType": "banner", "image": ""], .classic, true)),
    ]

    /// §2.7: only the classic and captioned holders call `renderButtons`, which draws `buttons.take(3)`.
    @Test(arguments: kindRows, AndroidFixture.rich)
    func renderedOnClassicAndCaptionedOnly(_ row: Named<(JSONValue, CardKind, Bool)>, profile: AndroidProfile) throws {
        var params = row.value.0.objectValue ?? JSONObject()
        params["buttons"] = Self.buttons(5)
        let image: String? = row.value.1 == .classic ? nil : AndroidFixture.img
        let card = try AndroidFixture.card(AndroidFixture.feed(image: image, .object(params)), profile: profile)
        #expect(card.resolved == row.value.1)
        #expect(card.buttons.count == 5, "every decoded button is listed")
        if row.value.2 {
            #expect(card.buttons.map(\.rendered) == [true, true, true, false, false])
            #expect(
                card.urls(.buttonLink) == ["https://example.com/0", "https://example.com/1", "https://example.com/2"])
            #expect(card.has("card.tooManyButtons"))
            #expect(card.tapActions.filter { $0.target == .button }.map(\.index) == [0, 1, 2])
        } else {
            #expect(card.buttons.allSatisfy { !$0.rendered })
            #expect(card.urls(.buttonLink).isEmpty)
            #expect(card.has("card.buttonsNotRendered"))
            #expect(!card.tapActions.contains { $0.target == .button })
        }
    }

    /// §2.7: `action` lowercased (dismiss, markread), else a url with a scheme → OpenUrl, else Custom with every key
    /// but `title` and `action`; a button without a non-empty title is dropped.
    @Test(arguments: AndroidFixture.rich)
    func decoding(profile: AndroidProfile) throws {
        let buttons: JSONValue = [
            ["title": "Close", "action": "DISMISS"],
            ["title": "Read", "action": "MarkRead", "url": "https://example.com/ignored"],
            ["title": "Deal", "url": "myapp://deal"],
            ["title": "Schemeless", "url": "example.com/deal", "campaign": "x"],
            ["title": ""],
            ["url": "https://example.com/untitled"],
            ["title": 5, "action": "custom", "id": 1],
        ]
        let card = try AndroidFixture.card(
            AndroidFixture.feed(["displayType": "classic", "buttons": buttons]), profile: profile)
        #expect(card.buttons.map(\.title) == ["Close", "Read", "Deal", "Schemeless", "5"])
        #expect(card.buttons.map(\.action.name) == ["dismiss", "markRead", "openURL", "custom", "custom"])
        #expect(card.buttons[2].action == .openURL("myapp://deal"))
        #expect(
            card.buttons[3].action
                == .custom(payload: JSONObject([("url", "example.com/deal"), ("campaign", "x")])),
            "a schemeless url stays in the custom payload")
        #expect(card.buttons[4].action == .custom(payload: JSONObject([("id", 1)])))
        #expect(card.has("card.buttonDropped"))
        #expect(card.has("card.buttonURLInvalid"))
        // Five decoded, three drawn (§2.7 MAX_BUTTONS).
        #expect(card.buttons.map(\.rendered) == [true, true, true, false, false])
    }

    static let schemeRows: [Named<(String, Bool)>] = [
        Named("file", ("file:///sdcard/a.pdf", true)),
        Named("javascript", ("javascript:alert(1)", true)),
        Named("data", ("data:text/html,hi", true)),
        Named("intent", ("intent://scan#Intent;scheme=zxing;end", true)),
        Named("INTENT in capitals", ("INTENT://scan#Intent;end", true)),
        Named("https", ("https://example.com/deal", false)),
        Named("a deep link", ("myapp://deal", false)),
        Named("mailto", ("mailto:help@example.com", false)),
        Named("tel", ("tel:+15551234", false)),
        Named("facetime is not refused on Android (§5)", ("facetime:help@example.com", false)),
    ]

    /// §2.8 `isSafeUrl`: file, javascript, data and intent (any case) are refused; a tap opens nothing.
    @Test(arguments: schemeRows)
    func unsafeSchemes(_ row: Named<(String, Bool)>) throws {
        let (url, refused) = row.value
        let card = try AndroidFixture.card(
            AndroidFixture.feed(["displayType": "classic", "buttons": [["title": "Go", "url": .string(url)]]]),
            profile: .v6_13)
        #expect(card.buttons.map(\.action) == [.openURL(url)])
        #expect(card.has("card.unsafeURL") == refused)
        let tap = try #require(card.tapActions.first { $0.target == .button })
        #expect(tap.action == (refused ? .refused : .openURL))
    }
}

// MARK: - §2.9 Pinned

@Suite struct AndroidPinnedTests {
    static let rows: [Named<(JSONValue, Bool, String?)>] = [
        Named("root true", (["pinned": true], true, nil)),
        Named("root false ends the lookup", (["pinned": false, "u": ["pinned": true]], false, nil)),
        Named("root 1", (["pinned": 1], true, nil)),
        Named("root 2", (["pinned": 2], true, nil)),
        Named("root -1", (["pinned": -1], true, nil)),
        Named("root 0 ends the lookup", (["pinned": 0, "userdata": ["pinned": true]], false, nil)),
        Named("0.5 truncates to 0", (["pinned": 0.5], false, nil)),
        Named("1.9 truncates to 1", (["pinned": 1.9], true, nil)),
        Named("string \"true\"", (["pinned": "true"], true, nil)),
        Named("string \"True\"", (["pinned": "True"], true, nil)),
        Named("string \"TRUE\" in u", (["u": AndroidFixture.encoded(["pinned": "TRUE"])], true, nil)),
        Named("string \"false\" ends the lookup", (["pinned": "false", "u": ["pinned": true]], false, nil)),
        Named(
            "string \"yes\" ends the lookup unpinned",
            (["pinned": "yes", "u": ["pinned": true]], false, "card.pinnedNotBoolean")),
        Named("u object true", (["u": ["pinned": true]], true, nil)),
        Named("userdata true", (["userdata": ["pinned": true]], true, nil)),
        Named("u before userdata", (["u": ["pinned": false], "userdata": ["pinned": true]], false, nil)),
        Named("null falls through", (["pinned": nil, "u": ["pinned": true]], true, nil)),
        Named("an array falls through", (["pinned": [true], "u": ["pinned": true]], true, "card.pinnedNotBoolean")),
        Named("absent", ([:], false, nil)),
    ]

    /// §2.9: root → u → userdata; Boolean, Number (`toInt() != 0`) or String (`"true"`, any case) decides.
    @Test(arguments: rows, AndroidFixture.rich)
    func pinned(_ row: Named<(JSONValue, Bool, String?)>, profile: AndroidProfile) throws {
        var params = row.value.0.objectValue ?? JSONObject()
        params["displayType"] = "classic"
        let card = try AndroidFixture.card(AndroidFixture.feed(.object(params)), profile: profile)
        #expect(card.resolved == .classic)
        #expect(card.pinned == row.value.1)
        if let code = row.value.2 { #expect(card.has(code), "missing \(code): \(card.findings)") }
        #expect(!card.has("card.pinnedNotRendered"))
    }

    /// §2.9: a pin chip on every rich card, "the legacy row shows nothing".
    @Test(arguments: AndroidProfile.allCases)
    func legacyRowShowsNoPin(profile: AndroidProfile) throws {
        let legacy = try AndroidFixture.card(AndroidFixture.feed(["pinned": true]), profile: profile)
        #expect(legacy.resolved == .legacy)
        #expect(!legacy.pinned)
        #expect(legacy.has("card.pinnedNotRendered"))
        let banner = try AndroidFixture.card(
            AndroidFixture.feed(image: AndroidFixture.img, ["pinned": true, "displayType": "banner"]), profile: profile)
        #expect(banner.pinned == profile.hasRichCards)
    }
}

// MARK: - §2.1 The legacy row, and 6.11

@Suite struct AndroidLegacyRowTests {
    static let kinds: [CardKind] = CardKind.requestable

    /// §2.1: up to 6.11 every message is the legacy row; an explicit known displayType is a degrade of intent.
    @Test(arguments: kinds)
    func knownKindOn611(_ kind: CardKind) throws {
        let params: JSONValue = [
            "displayType": .string(kind.rawValue), "carousel": [["image": "https://cdn.example.com/1.jpg"]],
            "video": ["url": "https://cdn.example.com/c.mp4"], "wallet": "https://cdn.example.com/a.pkpass",
        ]
        let card = try AndroidFixture.card(AndroidFixture.feed(image: AndroidFixture.img, params), profile: .v6_11)
        #expect(card.requested == kind)
        #expect(card.resolved == .legacy)
        #expect(card.degraded)
        #expect(card.degradeReason == "rich cards unknown to SDK 6.11")
        #expect(card.sdkLog == nil, "the legacy adapter has no InboxCardKind, so no WARN line")
        #expect(card.has("card.degraded"))
        #expect(card.slides.isEmpty)
    }

    static let plainRows: [Named<JSONValue?>] = [
        Named("no displayType", ["pinned": false]),
        Named("unknown displayType", ["displayType": "fancy"]),
        Named("no action_params", nil),
    ]

    /// §2.1: 6.11 without a known displayType: the legacy row, no degrade.
    @Test(arguments: plainRows)
    func plainOn611(_ row: Named<JSONValue?>) throws {
        let card = try AndroidFixture.card(AndroidFixture.feed(row.value), profile: .v6_11)
        #expect(card.androidKinds == "legacy→legacy")
        #expect(!card.degraded)
        #expect(card.degradeReason == nil)
        #expect(card.sdkLog == nil)
    }

    /// §2.1: the legacy row shows the `imageUrl` icon and the `b` banner; no buttons and no pin.
    @Test(arguments: AndroidProfile.allCases)
    func legacyRowContent(profile: AndroidProfile) throws {
        let params: JSONValue = [
            "b": .string(AndroidFixture.banner), "image": "https://cdn.example.com/root.png", "pinned": true,
            "buttons": [["title": "Open", "url": "https://example.com"]],
        ]
        let card = try AndroidFixture.card(AndroidFixture.feed(image: AndroidFixture.img, params), profile: profile)
        #expect(card.resolved == .legacy)
        #expect(card.assets.map(\.role) == [.icon, .heroImage])
        #expect(card.urls(.icon) == [AndroidFixture.img], "the legacy icon is imageUrl, not the root image")
        #expect(card.urls(.heroImage) == [AndroidFixture.banner])
        #expect(card.buttons.map(\.rendered) == [false])
        #expect(card.has("card.buttonsNotRendered"))
        #expect(!card.pinned)
        #expect(card.tapActions.map(\.target) == [.row, .attachment], "the b thumbnail opens AttachmentActivity")
    }

    /// §2.1 / §2.6: the legacy row draws `b` as its banner; the hero rules (http(s) prefix) belong to the rich
    /// cards, so a legacy row gets no "skipped as hero" finding.
    @Test(arguments: AndroidFixture.rich)
    func legacyRowHasNoHeroFindings(profile: AndroidProfile) throws {
        let card = try AndroidFixture.card(
            AndroidFixture.feed(["attachment": "file:///sdcard/a.jpg", "b": "myapp://banner"]), profile: profile)
        #expect(card.resolved == .legacy)
        #expect(card.urls(.heroImage) == ["myapp://banner"])
        #expect(!card.has("card.heroIgnored"), "\(card.findings)")
    }

    /// §2.1: "There is no `forceCellKind` equivalent on Android": `--force-kind` changes iOS cards only.
    @Test func forceKindIsIgnoredOnAndroid() throws {
        let batch = try CampaignReader.read(
            bytes: Input.bytes(AndroidFixture.feed(image: AndroidFixture.img, ["displayType": "banner"])),
            source: "android.json")
        let options = ResolveOptions(
            platforms: [.ios, .android], forceKind: .carousel, androidProfiles: [.v6_13], at: AndroidFixture.at)
        let run = CardResolver(options: options).run(batch)
        #expect(run.cards.map(\.forced) == [true, false])
        #expect(run.cards.map(\.resolved) == [.carousel, .banner])
        #expect(run.inputFindings.contains { $0.finding.code == "card.forceKindUnavailable" })
    }

    /// Every Android profile gives its own card, in option order; the JSON names the profile and the platform.
    @Test func oneCardPerProfileInJSON() throws {
        let cards = try AndroidFixture.cards(
            Input.bytes(AndroidFixture.feed(image: AndroidFixture.img, ["displayType": "banner"])),
            profiles: AndroidProfile.allCases)
        #expect(cards.map(\.androidSDK) == [.v6_11, .v6_12, .v6_13, .v6_15])
        #expect(cards.map(\.sdk) == [nil, nil, nil, nil])
        #expect(cards.map(\.resolved) == [.legacy, .banner, .banner, .banner])
        #expect(cards.map { $0.json["sdk"]?.stringValue } == ["6.11", "6.12", "6.13", "6.15"])
        #expect(cards.map { $0.json["platform"]?.stringValue } == ["android", "android", "android", "android"])
    }

    /// `6.15` is a profile of its own (its tap routing, §2.1, §2.7), after 6.13 and sharing its card rules (§0:
    /// 6.15.0 did not change `InboxCardKind.kt`); no 6.14 was found; the default stays 6.13.
    @Test func profile615IsItsOwn() {
        #expect(AndroidProfile(rawValue: "6.15") == .v6_15)
        #expect(AndroidProfile(rawValue: "6.12") == .v6_12)
        #expect(AndroidProfile(rawValue: "6.14") == nil)
        #expect(AndroidProfile.allCases == [.v6_11, .v6_12, .v6_13, .v6_15])
        #expect(AndroidProfile.allCases == AndroidProfile.allCases.sorted())
        #expect(AndroidProfile.latest == .v6_13)
        #expect(AndroidProfile.v6_15.requiresTitleAndBody && AndroidProfile.v6_15.slideCap == 5)
    }
}

// MARK: - §1 Where the fields come from

@Suite struct AndroidFieldTests {
    static let rows: [Named<([(String, JSONValue)], String?, String?)>] = [
        Named(
            "android_header wins over title", ([("title", "Shared"), ("android_header", "Android")], "Android", "iOS")),
        Named("title when there is no android_header (never ios_title)", ([("title", "Shared")], "Shared", "iOS")),
        Named("neither: no Android title", ([], nil, "iOS")),
    ]

    /// §1.2: createMessage `title` is "ignored if platform-specific titles are specified": Android shows
    /// `android_header`, else `title`; iOS shows `ios_title`.
    @Test(arguments: rows)
    func createMessageTitle(_ row: Named<([(String, JSONValue)], String?, String?)>) throws {
        let cards = try AndroidFixture.cards(
            Input.request([Input.notification(title: "iOS", extra: row.value.0)]), profiles: [.v6_13],
            platforms: [.ios, .android])
        #expect(cards.map(\.platform) == [.ios, .android])
        #expect(cards[1].title == row.value.1)
        #expect(cards[0].title == row.value.2)
        #expect(cards[1].body == "Body")
    }

    static let emptyRows: [Named<(String, Platform)>] = [
        Named("ios_title empty", ("ios_title", .ios)),
        Named("android_header empty", ("android_header", .android)),
    ]

    /// §1.2: an empty platform title is "specified", so it wins and that platform's card has no title; the other
    /// platform still shows `title`.
    @Test(arguments: emptyRows)
    func emptyPlatformTitle(_ row: Named<(String, Platform)>) throws {
        let (field, platform) = row.value
        let notification = Input.notification(title: nil, extra: [("title", "Shared"), (field, "")])
        let cards = try AndroidFixture.cards(
            Input.request([notification]), profiles: [.v6_13], platforms: [.ios, .android])
        let empty = try #require(cards.first { $0.platform == platform })
        let other = try #require(cards.first { $0.platform != platform })
        #expect((empty.title ?? "").isEmpty)
        #expect(empty.finding("input.emptyPlatformTitle")?.path == "request.notifications[0].\(field)")
        #expect(other.title == "Shared")
        #expect(!other.has("input.emptyPlatformTitle"))
    }

    /// §1.1: a push entry's Android title is the bundle's `header` and its body the bundle's `title`; iOS reads
    /// `aps.alert`.
    @Test func pushTitleAndBody() throws {
        let push: JSONValue = [
            "pw_inbox": "push-1", "header": "Android title", "title": "Android body",
            "aps": ["alert": ["title": "iOS title", "body": "iOS body"]],
            "inbox_params": ["rt": .int(Int(AndroidFixture.at) + 86_400)],
        ]
        let cards = try AndroidFixture.cards(Input.bytes(push), profiles: [.v6_13], platforms: [.ios, .android])
        #expect(cards.map(\.platform) == [.ios, .android])
        #expect(cards[0].title == "iOS title")
        #expect(cards[0].body == "iOS body")
        #expect(cards[1].title == "Android title")
        #expect(cards[1].body == "Android body")
    }

    /// §1.1: without `header` an Android push entry has no title, whatever `aps.alert` says.
    @Test func pushWithoutHeaderHasNoAndroidTitle() throws {
        let push: JSONValue = [
            "pw_inbox": "push-1", "title": "Android body",
            "aps": ["alert": ["title": "iOS title", "body": "iOS body"]],
            "inbox_params": ["rt": .int(Int(AndroidFixture.at) + 86_400)],
        ]
        let cards = try AndroidFixture.cards(Input.bytes(push), profiles: [.v6_13], platforms: [.android])
        let card = try #require(cards.first)
        #expect(card.title == nil)
        #expect(card.body == "Android body")
    }

    /// §1.1: a feed `action_params` given as a JSON object is read on Android (org.json `getString` stringifies it);
    /// the iOS SDK sees no actionParams.
    @Test func actionParamsObject() throws {
        let message = Input.feed(
            id: "inbox-1", image: AndroidFixture.img, params: ["displayType": "banner"], encode: false)
        let cards = try AndroidFixture.cards(Input.bytes(message), profiles: [.v6_13], platforms: [.ios, .android])
        #expect(cards.map(\.platform) == [.ios, .android])
        #expect(cards[0].resolved == .captioned, "iOS: no displayType, the heuristic decides")
        #expect(cards[0].has("input.actionParamsObject"))
        #expect(cards[1].resolved == .banner)
        #expect(!cards[1].has("input.actionParamsObject"))
    }

    /// §1.2: `android_root_params` keys land at the Android payload root, `ios_root_params` keys at the iOS root;
    /// each with an `input.rootParams` warning on its own platform only.
    @Test func rootParamsReachTheirPlatform() throws {
        let notification = Input.notification(
            image: .string(AndroidFixture.img),
            extra: [
                ("android_root_params", ["displayType": "banner", "pw_channel": "sales"]),
                ("ios_root_params", ["displayType": "classic"]),
            ])
        let cards = try AndroidFixture.cards(
            Input.request([notification]), profiles: [.v6_13], platforms: [.ios, .android])
        #expect(cards.map(\.platform) == [.ios, .android])
        #expect(cards[0].resolved == .classic)
        #expect(cards[1].resolved == .banner)
        #expect(cards[0].finding("input.rootParams")?.path == "request.notifications[0].ios_root_params")
        #expect(cards[1].finding("input.rootParams")?.path == "request.notifications[0].android_root_params")
        #expect(cards[0].findings.filter { $0.code == "input.rootParams" }.count == 1)
        #expect(cards[1].findings.filter { $0.code == "input.rootParams" }.count == 1)
        let warning = cards[1].finding("input.rootParams")?.message ?? ""
        #expect(!warning.contains("pw_channel"), "only card keys are worth the warning")
    }

    /// §1.2: `android_banner` becomes `b` (the hero after attachment), on Android only.
    @Test func androidBannerIsB() throws {
        let notification = Input.notification(
            title: nil, data: ["displayType": "banner"], extra: [("android_banner", .string(AndroidFixture.banner))])
        let cards = try AndroidFixture.cards(
            Input.request([notification]), profiles: [.v6_12], platforms: [.ios, .android])
        #expect(cards.map(\.resolved) == [.classic, .banner])
        #expect(cards[1].urls(.heroImage) == [AndroidFixture.banner])
    }
}
