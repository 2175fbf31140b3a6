import StrictJSON
import Testing

@testable import InboxCards

/// inboxkit-cards.md "Payload decoders": buttons.
@Suite struct ButtonTests {
    struct Row: Sendable {
        var profile: SDKProfile = .v7_2
        var kind: String = "classic"
        var buttons: JSONValue
        var actions: [String]
        var links: [String] = []
        var codes: [String] = []
    }

    static let rows: [Named<Row>] = [
        Named(
            "url → openURL",
            Row(
                buttons: [["title": "Claim", "url": "https://example.com/promo/SUMMER2026"]], actions: ["openURL"],
                links: ["https://example.com/promo/SUMMER2026"])),
        Named("markRead token", Row(buttons: [["title": "Read", "action": "markRead"]], actions: ["markRead"])),
        Named(
            "tokens are case-insensitive",
            Row(
                buttons: [["title": "Read", "action": "MARKREAD"], ["title": "Bye", "action": "Dismiss"]],
                actions: ["markRead", "dismiss"])),
        Named(
            "token wins over url",
            Row(buttons: [["title": "Bye", "action": "dismiss", "url": "https://example.com"]], actions: ["dismiss"])),
        Named(
            "custom without url",
            Row(buttons: [["title": "Save", "action": "custom", "tag": "save_promo"]], actions: ["custom"])),
        Named(
            "custom with url opens the url (docs differ)",
            Row(
                buttons: [["title": "Save", "action": "custom", "url": "https://example.com/s"]], actions: ["openURL"],
                links: ["https://example.com/s"], codes: ["card.buttonCustomWithURL"])),
        Named(
            "unknown action without url is custom",
            Row(buttons: [["title": "Go", "action": "open"]], actions: ["custom"])),
        Named(
            "missing title is dropped",
            Row(
                buttons: [["url": "https://example.com"], ["title": "Ok", "action": "dismiss"]], actions: ["dismiss"],
                codes: ["card.buttonDropped"])),
        Named(
            "empty title is dropped",
            Row(buttons: [["title": "", "action": "dismiss"]], actions: [], codes: ["card.buttonDropped"])),
        Named(
            "number title is dropped",
            Row(buttons: [["title": 5, "action": "dismiss"]], actions: [], codes: ["card.buttonDropped"])),
        Named("non-object button is dropped", Row(buttons: ["Claim"], actions: [], codes: ["card.buttonDropped"])),
        Named(
            "7.2: url without scheme is custom",
            Row(buttons: [["title": "Go", "url": "promo/1"]], actions: ["custom"], codes: ["card.buttonURLInvalid"])),
        Named(
            "7.1: url without scheme is custom",
            Row(
                profile: .v7_1, buttons: [["title": "Go", "url": "promo/1"]], actions: ["custom"],
                codes: ["card.buttonURLInvalid"])),
        Named(
            "7.0: url needs no scheme",
            Row(profile: .v7_0, buttons: [["title": "Go", "url": "promo/1"]], actions: ["openURL"], links: ["promo/1"])),
        Named(
            "url that does not parse is custom",
            Row(
                buttons: [["title": "Go", "url": "https://exa mple.com"]], actions: ["custom"],
                codes: ["card.buttonURLInvalid"])),
        Named(
            "javascript is unsafe",
            Row(
                buttons: [["title": "X", "url": "javascript:alert(1)"]], actions: ["openURL"],
                links: ["javascript:alert(1)"], codes: ["card.unsafeURL"])),
        Named(
            "file is unsafe",
            Row(
                buttons: [["title": "X", "url": "file:///etc/passwd"]], actions: ["openURL"],
                links: ["file:///etc/passwd"], codes: ["card.unsafeURL"])),
        Named(
            "data is unsafe",
            Row(
                buttons: [["title": "X", "url": "data:text/html,hi"]], actions: ["openURL"],
                links: ["data:text/html,hi"], codes: ["card.unsafeURL"])),
        Named(
            "facetime is unsafe",
            Row(
                buttons: [["title": "X", "url": "FaceTime:+15550100"]], actions: ["openURL"],
                links: ["FaceTime:+15550100"], codes: ["card.unsafeURL"])),
        Named(
            "facetime-audio is unsafe",
            Row(
                buttons: [["title": "X", "url": "facetime-audio:+15550100"]], actions: ["openURL"],
                links: ["facetime-audio:+15550100"], codes: ["card.unsafeURL"])),
        Named(
            "tel is fine",
            Row(buttons: [["title": "Call", "url": "tel:+15550100"]], actions: ["openURL"], links: ["tel:+15550100"])),
        Named(
            "more than three: warned, all rendered",
            Row(
                buttons: .array((1...4).map { ["title": .string("B\($0)"), "action": "dismiss"] }),
                actions: Array(repeating: "dismiss", count: 4), codes: ["card.tooManyButtons"])),
        Named("buttons as an object", Row(buttons: ["title": "Claim"], actions: [], codes: ["card.wrongType"])),
        Named(
            "captioned renders buttons",
            Row(kind: "captioned", buttons: [["title": "Read", "action": "markRead"]], actions: ["markRead"])),
        Named(
            "banner does not",
            Row(
                kind: "banner", buttons: [["title": "Read", "action": "markRead"]], actions: [],
                codes: ["card.buttonsNotRendered"])),
        Named(
            "carousel does not (and no detail findings)",
            Row(
                kind: "carousel", buttons: [["title": "X", "url": "javascript:x"]], actions: [],
                codes: ["card.buttonsNotRendered"])),
    ]

    @Test(arguments: rows)
    func decode(_ row: Named<Row>) throws {
        let params: JSONValue = [
            "displayType": .string(row.value.kind), "buttons": row.value.buttons,
            "carousel": [["image": "https://cdn.example.com/inbox/1.jpg", "title": "One"]],
        ]
        let card = try feedCard(
            Input.feed(image: "https://cdn.example.com/inbox/a.png", params: params), profile: row.value.profile)
        #expect(card.resolved.rawValue == row.value.kind)
        // Buttons a kind does not draw are still listed, with rendered: false.
        #expect(card.buttons.filter(\.rendered).map(\.action.name) == row.value.actions)
        #expect(card.urls(.buttonLink) == row.value.links)
        for code in row.value.codes { #expect(card.has(code), "missing \(code): \(card.findings)") }
        if row.value.kind == "carousel" { #expect(!card.has("card.unsafeURL")) }
    }

    @Test func customButtonCarriesItsOtherKeys() throws {
        let button: JSONValue = [
            "title": "Save", "action": "custom", "tag": "save_promo",
            "meta": ["next": "https://example.com/n?token=abc"],
        ]
        let card = try feedCard(Input.feed(params: ["buttons": [button]]))
        let action = try #require(card.buttons.first?.action)
        guard case .custom(let payload) = action else {
            Issue.record("expected custom, got \(action)")
            return
        }
        #expect(payload.keys == ["tag", "meta"])
        let json = try #require(card.buttons.first?.json)
        #expect(json["payload"]?["tag"] == "save_promo")
        #expect(json["payload"]?["meta"]?["next"] == "https://example.com/n?token=REDACTED")
    }

    @Test func buttonsAreRenderedOnADegradedCard() throws {
        let params: JSONValue = ["displayType": "banner", "buttons": [["title": "Read", "action": "markRead"]]]
        let card = try feedCard(Input.feed(params: params))
        #expect(card.resolved == .classic)
        #expect(card.buttons.count == 1)
    }
}

/// inboxkit-cards.md "Payload decoders": pinned.
@Suite struct PinnedTests {
    static let rows: [Named<(JSONValue, Bool, Bool)>] = [
        Named("root true", (["pinned": true], true, false)),
        Named("root 1", (["pinned": 1], true, false)),
        Named("root 0", (["pinned": 0], false, false)),
        Named("u true", (["u": ["pinned": true]], true, false)),
        Named("u JSON string true", (["u": "{\"pinned\":true}"], true, false)),
        Named("userdata true", (["userdata": ["pinned": true]], true, false)),
        Named("string true does not pin", (["pinned": "true"], false, true)),
        Named("string true is skipped, u true pins", (["pinned": "true", "u": ["pinned": true]], true, true)),
        Named("explicit false ends the lookup", (["pinned": false, "u": ["pinned": true]], false, false)),
        Named("u false ends before userdata", (["u": ["pinned": false], "userdata": ["pinned": true]], false, false)),
        Named("null is absent", (["pinned": nil, "u": ["pinned": true]], true, false)),
        Named("array does not pin", (["pinned": [true]], false, true)),
        Named("absent", ([:], false, false)),
    ]

    @Test(arguments: rows)
    func pinned(_ row: Named<(JSONValue, Bool, Bool)>) throws {
        let (params, pinned, warned) = row.value
        let card = try feedCard(Input.feed(params: params))
        #expect(card.pinned == pinned)
        #expect(card.has("card.pinnedNotBoolean") == warned)
    }
}
