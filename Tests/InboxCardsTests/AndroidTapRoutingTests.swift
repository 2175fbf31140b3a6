import Foundation
import StrictJSON
import Testing

@testable import InboxCards

/// Where a tap goes on Android 6.13 and 6.15 (issue 30), per android-inbox.md (Pushwoosh/pushwoosh-android-sdk):
/// - §2.1: 6.15.0 routes the row tap of a card with a destination of its own (video) to the card
///   (`OwnRowDestination`, `InboxAdapter.kt` @9357bd7); 6.12.0–6.13.0 have `InboxAdapter.kt` @a9a39ef, where the
///   row runs the message's own action (`l`/`rm`) or opens the message, and only the poster opens the player.
/// - §2.7, §2.8: on 6.15.0 every button tap first marks the message opened (`markMessageOpened`,
///   `RichCardViewHolder.kt` @9357bd7), a refused URL included; 6.12/6.13 mark it read and leave it unread on a
///   refused URL.
/// - §2.1: the legacy row's `b` banner thumbnail opens `AttachmentActivity` full screen, on every profile (the
///   legacy row is `InboxViewHolder` on all of them; android-assets.md §1: `InboxViewHolder.kt` @9357bd7).

private enum RoutingFixture {
    static let at: Int64 = 1_750_000_000
    static let clip = "https://cdn.example.com/inbox/clip.mp4"
    static let link = "https://example.com/sale"
    static let banner = "https://cdn.example.com/inbox/banner.jpg"
    static let l: (String, JSONValue) = ("l", .string(link))
    static let rm: (String, JSONValue) = ("rm", "{\"url\":\"https://rm.example.com/page\"}")
    static let video: JSONValue = ["displayType": "video", "video": ["url": .string(clip)]]

    /// The one Android card of a feed message (code `inbox-1`) whose `action_params` carry `params`.
    static func card(_ params: JSONValue, profile: AndroidProfile, image: String? = nil) throws -> ResolvedCard {
        let batch = try CampaignReader.read(
            bytes: Input.bytes(Input.feed(id: "inbox-1", image: image, params: params)), source: "taps.json")
        let options = ResolveOptions(platforms: [.android], androidProfiles: [profile], at: at)
        let cards = CardResolver(options: options).resolve(batch.messages)
        try #require(cards.count == 1)
        return cards[0]
    }

    /// `base` with `extra` members added.
    static func with(_ base: JSONValue, _ extra: [(String, JSONValue)]) -> JSONValue {
        var object = base.objectValue ?? JSONObject()
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }
}

extension TapAction {
    /// `target[index]:action(via)`, e.g. `row:messageAction(link)`.
    fileprivate var brief: String {
        var text = target.rawValue
        if let index { text += "[\(index)]" }
        text += ":\(action.rawValue)"
        if let via { text += "(\(via))" }
        return text
    }
}

// MARK: - §2.1 a video card's row

@Suite struct AndroidVideoRowTests {
    struct Row: Sendable {
        var profile: AndroidProfile
        var params: JSONValue
        var taps: [String]
        /// The row tap's note.
        var note: String?
        /// `card.tapOverridden`: the message's own action never runs.
        var overridden = false
    }

    static let before = "outside the poster; from 6.15.0 the whole row opens the player (OwnRowDestination)"
    static let owns = "the video card owns the row (OwnRowDestination)"
    static let ownsNever = "the video card owns the row (OwnRowDestination): the message's own action never runs"
    static let video = RoutingFixture.video
    static let withL = RoutingFixture.with(video, [RoutingFixture.l])
    static let withRM = RoutingFixture.with(video, [RoutingFixture.rm])
    static let withBoth = RoutingFixture.with(video, [RoutingFixture.l, RoutingFixture.rm])
    static let noDescriptor = RoutingFixture.with(["displayType": "video"], [RoutingFixture.l])

    static let rows: [Named<Row>] = [
        Named(
            "6.12 video: the row opens the message, the poster plays",
            Row(profile: .v6_12, params: video, taps: ["row:openMessage", "poster:playVideo"], note: before)),
        Named(
            "6.12 video with l: the row runs l, the poster plays",
            Row(profile: .v6_12, params: withL, taps: ["row:messageAction(link)", "poster:playVideo"], note: before)),
        Named(
            "6.13 video: the row opens the message, the poster plays",
            Row(profile: .v6_13, params: video, taps: ["row:openMessage", "poster:playVideo"], note: before)),
        Named(
            "6.13 video with l: the row runs l, the poster plays, nothing is lost",
            Row(profile: .v6_13, params: withL, taps: ["row:messageAction(link)", "poster:playVideo"], note: before)),
        Named(
            "6.13 video with rm: the row runs rm, the poster plays",
            Row(
                profile: .v6_13, params: withRM, taps: ["row:messageAction(richMedia)", "poster:playVideo"],
                note: before)),
        Named(
            "6.13 video with l and rm: the row runs rm (getType)",
            Row(
                profile: .v6_13, params: withBoth, taps: ["row:messageAction(richMedia)", "poster:playVideo"],
                note: before)),
        Named(
            "6.15 video: the row opens the player",
            Row(profile: .v6_15, params: video, taps: ["row:playVideo", "poster:playVideo"], note: owns)),
        Named(
            "6.15 video with l: the row opens the player, l never runs",
            Row(
                profile: .v6_15, params: withL, taps: ["row:playVideo", "poster:playVideo"], note: ownsNever,
                overridden: true)),
        Named(
            "6.15 video with rm: the row opens the player, rm never runs",
            Row(
                profile: .v6_15, params: withRM, taps: ["row:playVideo", "poster:playVideo"], note: ownsNever,
                overridden: true)),
        Named(
            "6.13 video without descriptor is classic: the row runs l",
            Row(profile: .v6_13, params: noDescriptor, taps: ["row:messageAction(link)"], note: nil)),
        Named(
            "6.15 video without descriptor is classic: no card owns the row, it runs l",
            Row(profile: .v6_15, params: noDescriptor, taps: ["row:messageAction(link)"], note: nil)),
    ]

    /// §2.1: 6.15.0's `OwnRowDestination` (`InboxAdapter.kt` @9357bd7) against 6.12.0–6.13.0's adapter (@a9a39ef).
    @Test(arguments: rows)
    func videoRow(_ row: Named<Row>) throws {
        let card = try RoutingFixture.card(row.value.params, profile: row.value.profile)
        #expect(card.tapActions.map(\.brief) == row.value.taps)
        #expect(card.tapActions.first?.note == row.value.note)
        #expect(card.tapActions.allSatisfy { !$0.overridden }, "the card's own destinations are all reachable")
        #expect(card.has("card.tapOverridden") == row.value.overridden)
        if let finding = card.finding("card.tapOverridden") {
            #expect(finding.severity == .warning)
            #expect(finding.message.contains("on Android SDK 6.15 a tap anywhere on a video card opens the player"))
        }
        for tap in card.tapActions where tap.via == "link" { #expect(tap.url == RoutingFixture.link) }
    }
}

// MARK: - §2.7, §2.8 button taps

@Suite struct AndroidButtonTapTests {
    struct Row: Sendable {
        var profile: AndroidProfile
        var button: JSONValue
        var action: TapAction.Action
        var note: String?
    }

    static let open: JSONValue = ["title": "Open", "url": "https://shop.example.com/b"]
    static let read: JSONValue = ["title": "Read", "action": "markRead"]
    static let hide: JSONValue = ["title": "Hide", "action": "dismiss"]
    static let later: JSONValue = ["title": "Later", "action": "custom", "id": "later"]
    static let unsafe: JSONValue = ["title": "Run", "url": "javascript:alert(1)"]

    static let rows: [Named<Row>] = [
        Named("6.13 openURL: opens the url", Row(profile: .v6_13, button: open, action: .openURL, note: nil)),
        Named("6.13 markRead: marks it read", Row(profile: .v6_13, button: read, action: .markRead, note: nil)),
        Named("6.13 dismiss: deletes it", Row(profile: .v6_13, button: hide, action: .dismiss, note: nil)),
        Named("6.13 custom: the app's", Row(profile: .v6_13, button: later, action: .custom, note: nil)),
        Named(
            "6.13 refused url: opens nothing, the message stays unread",
            Row(profile: .v6_13, button: unsafe, action: .refused, note: nil)),
        Named(
            "6.15 openURL: marked opened, then opens the url",
            Row(
                profile: .v6_15, button: open, action: .openURL,
                note: "marks the message opened first (markMessageOpened)")),
        Named(
            "6.15 markRead: marked opened, nothing more",
            Row(
                profile: .v6_15, button: read, action: .markRead,
                note: "marks the message opened (markMessageOpened), not just read")),
        Named(
            "6.15 dismiss: marked opened, then deleted",
            Row(
                profile: .v6_15, button: hide, action: .dismiss,
                note: "marks the message opened (markMessageOpened), then deletes it")),
        Named(
            "6.15 custom: marked opened, the SDK only logs",
            Row(
                profile: .v6_15, button: later, action: .custom,
                note: "marks the message opened (markMessageOpened); the SDK then only logs")),
        Named(
            "6.15 refused url: opens nothing but is marked opened",
            Row(
                profile: .v6_15, button: unsafe, action: .refused,
                note: "opens nothing, but marks the message opened (markMessageOpened)")),
    ]

    /// §2.7 "Tap → 6.15.0 (@9357bd7): every tap first calls `PushwooshInbox.markMessageOpened`"; §2.8 "6.12/6.13
    /// leave the message unread. 6.15.0 still reports it opened". Where each button goes is the same.
    @Test(arguments: rows)
    func buttonTap(_ row: Named<Row>) throws {
        let card = try RoutingFixture.card(
            ["displayType": "classic", "buttons": [row.value.button]], profile: row.value.profile)
        let taps = card.tapActions.filter { $0.target == .button }
        try #require(taps.count == 1)
        #expect(taps[0].action == row.value.action)
        #expect(taps[0].note == row.value.note)
        #expect(card.tapActions.first?.brief == "row:openMessage")
        #expect(card.tapActions.first?.note == nil, "the row of a card without a destination of its own")
    }
}

// MARK: - §2.1 the legacy row's banner thumbnail

@Suite struct AndroidAttachmentTapTests {
    struct Row: Sendable {
        var params: JSONValue
        var taps: [String]
        var url: String? = nil
    }

    static let banner = RoutingFixture.banner

    static let rows: [Named<Row>] = [
        Named(
            "b: the thumbnail opens the attachment",
            Row(params: ["b": .string(banner)], taps: ["row:openMessage", "attachment:openAttachment"], url: banner)),
        Named(
            "b and l: the row runs l, the thumbnail still opens the attachment",
            Row(
                params: ["b": .string(banner), "l": .string(RoutingFixture.link)],
                taps: ["row:messageAction(link)", "attachment:openAttachment"], url: banner)),
        Named(
            "b that is not http(s): drawn as it is, so a target",
            Row(
                params: ["b": "myapp://banner"], taps: ["row:openMessage", "attachment:openAttachment"],
                url: "myapp://banner")),
        Named("no b: no thumbnail, no target", Row(params: ["pinned": false], taps: ["row:openMessage"])),
        Named("b empty: no thumbnail, no target", Row(params: ["b": ""], taps: ["row:openMessage"])),
        Named("b null: no thumbnail, no target", Row(params: ["b": nil], taps: ["row:openMessage"])),
    ]

    /// §2.1: the legacy row "shows a banner from `b` (a tap opens `AttachmentActivity`)", on every profile (≤ 6.11
    /// draws nothing else; 6.12+ for a message without a known displayType).
    @Test(arguments: rows, AndroidProfile.allCases)
    func legacyRow(_ row: Named<Row>, profile: AndroidProfile) throws {
        let card = try RoutingFixture.card(row.value.params, profile: profile)
        #expect(card.resolved == .legacy)
        #expect(card.tapActions.map(\.brief) == row.value.taps)
        let attachment = card.tapActions.first { $0.target == .attachment }
        #expect(attachment?.url == row.value.url)
        #expect(attachment?.index == nil)
        #expect(card.urls(.heroImage) == (row.value.url.map { [$0] } ?? []), "the target is the drawn thumbnail")
    }

    static let cardRows: [Named<(AndroidProfile, [String])>] = [
        Named(
            "6.11 a banner request is the legacy row: the thumbnail opens",
            (.v6_11, ["row:openMessage", "attachment:openAttachment"])),
        Named("6.12 a banner card: b is its hero, no attachment", (.v6_12, ["row:openMessage"])),
        Named("6.13 a banner card: b is its hero, no attachment", (.v6_13, ["row:openMessage"])),
        Named("6.15 a banner card: b is its hero, no attachment", (.v6_15, ["row:openMessage"])),
    ]

    /// Only the legacy row has the thumbnail: on a rich card `b` is the hero (§2.6) and opens nothing of its own.
    @Test(arguments: cardRows)
    func bannerRequest(_ row: Named<(AndroidProfile, [String])>) throws {
        let card = try RoutingFixture.card(["displayType": "banner", "b": .string(Self.banner)], profile: row.value.0)
        #expect(card.tapActions.map(\.brief) == row.value.1)
        #expect(card.urls(.heroImage) == [Self.banner])
    }

    /// The JSON names the target and action, and redacts the URL like every other.
    @Test func attachmentInJSON() throws {
        let card = try RoutingFixture.card(
            ["b": "https://cdn.example.com/b.jpg?token=SECRET-1"], profile: .v6_15)
        let json = try #require(card.json["tapActions"]?[1])
        #expect(json["target"] == "attachment")
        #expect(json["action"] == "openAttachment")
        #expect(json["index"] == .null)
        #expect(json["overridden"] == false)
        let url = try #require(json["url"]?.stringValue)
        #expect(!url.contains("SECRET-1") && url.contains("REDACTED"), "\(url)")
    }
}

// MARK: - 6.15 shares 6.13's card rules

@Suite struct Android615ProfileTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let path = DemoCampaignTests.url.replacingOccurrences(of: "demo.json", with: name)
        return [UInt8](try #require(FileManager.default.contents(atPath: path)))
    }

    /// The card without its profile's name and what only taps decide: the rest of a 6.15 card is its 6.13 card's
    /// (android-inbox.md §0: 6.15.0 did not change `InboxCardKind.kt`; the slide cap, title/body rule, decoders,
    /// pins and findings are shared).
    static func withoutTapRouting(_ card: ResolvedCard) -> ResolvedCard {
        var card = card
        let name = "Android SDK \(card.androidSDK?.rawValue ?? "?")"
        card.androidSDK = nil
        card.tapActions = []
        card.findings.removeAll { $0.code == "card.tapOverridden" }
        for index in card.findings.indices {
            card.findings[index].message = card.findings[index].message.replacingOccurrences(
                of: name, with: "Android SDK <profile>")
        }
        return card
    }

    @Test(arguments: ["demo.json", "android-rules.ndjson", "rules.ndjson"])
    func onlyTapRoutingDiffers(_ file: String) throws {
        let batch = try CampaignReader.read(bytes: try Self.fixture(file), source: file)
        let run = CardResolver(
            options: ResolveOptions(
                platforms: [.android], androidProfiles: [.v6_13, .v6_15], at: 1_764_547_200)
        ).run(batch)
        let pairs = stride(from: 0, to: run.cards.count, by: 2).map { (run.cards[$0], run.cards[$0 + 1]) }
        try #require(run.cards.count.isMultiple(of: 2) && !pairs.isEmpty)
        var routed = 0
        for (old, new) in pairs {
            let name = "\(old.id) \(old.language ?? "")"
            #expect(old.androidSDK == .v6_13 && new.androidSDK == .v6_15, "\(name)")
            #expect(Self.withoutTapRouting(old) == Self.withoutTapRouting(new), "\(name)")
            #expect(new.json["sdk"] == "6.15", "\(name)")
            // Where a tap goes differs only on a video card's row; the button notes say what 6.15 marks.
            let targets = { (card: ResolvedCard) in card.tapActions.map { "\($0.target):\($0.index ?? -1)" } }
            #expect(targets(old) == targets(new), "\(name)")
            for (a, b) in zip(old.tapActions, new.tapActions) where !(a.target == .row && new.resolved == .video) {
                #expect(a.action == b.action && a.url == b.url && a.via == b.via, "\(name) \(a.target)")
            }
            if new.resolved == .video && old.tapActions.first != new.tapActions.first { routed += 1 }
        }
        if file == "demo.json" { #expect(routed == 2, "the demo's two video cards") }
    }

    /// `--android-sdk all` is every profile, in order, and the report header names 6.15.
    @Test func allProfilesIncludes615() {
        let options = ResolveOptions(platforms: [.android], androidProfiles: AndroidProfile.allCases)
        #expect(options.targetDescription == "Android SDK 6.11, 6.12, 6.13, 6.15; android")
    }
}
