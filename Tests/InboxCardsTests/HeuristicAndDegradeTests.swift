import StrictJSON
import Testing

@testable import InboxCards

/// inboxkit-cards.md §3 "Heuristic" and "Required payload per kind, and the degrade".
@Suite struct HeuristicTests {
    struct Row: Sendable {
        var profile: SDKProfile
        var image: Bool
        var title: Bool
        var body: Bool
        var kind: CardKind
    }

    static let rows: [Named<Row>] = [
        Named(
            "7.0 image, no title → banner", Row(profile: .v7_0, image: true, title: false, body: true, kind: .banner)),
        Named(
            "7.0 image + title → captioned",
            Row(profile: .v7_0, image: true, title: true, body: false, kind: .captioned)),
        Named(
            "7.0 image + title + body → captioned",
            Row(profile: .v7_0, image: true, title: true, body: true, kind: .captioned)),
        Named("7.0 no image → classic", Row(profile: .v7_0, image: false, title: true, body: true, kind: .classic)),
        Named(
            "7.1 image, nothing else → banner",
            Row(profile: .v7_1, image: true, title: false, body: false, kind: .banner)),
        Named(
            "7.1 image + title → captioned",
            Row(profile: .v7_1, image: true, title: true, body: false, kind: .captioned)),
        Named("7.1 nothing → classic", Row(profile: .v7_1, image: false, title: false, body: false, kind: .classic)),
        Named(
            "7.2 image, no title → banner", Row(profile: .v7_2, image: true, title: false, body: true, kind: .banner)),
        Named(
            "7.2 image + title, no body → classic",
            Row(profile: .v7_2, image: true, title: true, body: false, kind: .classic)),
        Named(
            "7.2 image + title + body → captioned",
            Row(profile: .v7_2, image: true, title: true, body: true, kind: .captioned)),
        Named(
            "7.2 title + body, no image → classic",
            Row(profile: .v7_2, image: false, title: true, body: true, kind: .classic)),
    ]

    @Test(arguments: rows)
    func heuristic(_ row: Named<Row>) throws {
        let value = row.value
        let card = try card(
            Input.notification(
                title: value.title ? "Summer sale" : nil, body: value.body ? "30% off" : nil,
                image: value.image ? "https://cdn.example.com/inbox/summer.png" : nil),
            profile: value.profile)
        #expect(card.requested == value.kind)
        #expect(card.resolved == value.kind, "the heuristic never picks a kind that degrades")
        #expect(!card.degraded)
        // 7.0 logs its INFO line on every resolve; later profiles log only degrades.
        let log = value.profile == .v7_0 ? "Inbox cell resolve — code=? displayType=nil → kind=\(value.kind)" : nil
        #expect(card.sdkLog == log)
    }

    @Test func emptyTitleCountsAsNoTitle() throws {
        let card = try card(Input.notification(title: "", image: "https://cdn.example.com/inbox/a.png"))
        #expect(card.requested == .banner)
    }
}

@Suite struct DegradeTests {
    struct Row: Sendable {
        var profile: SDKProfile = .v7_2
        var title: String? = "Title"
        var text: String? = "Body"
        var image: String? = nil
        var params: JSONValue
        var resolved: CardKind
        var reason: String? = nil
        var log: String? = nil
    }

    static let img = "https://cdn.example.com/inbox/a.png"
    static let slides: JSONValue = [["image": "https://cdn.example.com/inbox/1.jpg"]]

    static let rows: [Named<Row>] = [
        Named(
            "banner without image",
            Row(
                params: ["displayType": "banner"], resolved: .classic, reason: "no imageUrl",
                log: "Inbox cell degraded — code=m-42 displayType=banner hasImage=false banner→classic (no imageUrl)")),
        Named("banner with image", Row(image: img, params: ["displayType": "banner"], resolved: .banner)),
        Named(
            "captioned without image",
            Row(
                params: ["displayType": "captioned"], resolved: .classic, reason: "no imageUrl",
                log:
                    "Inbox cell degraded — code=m-42 displayType=captioned hasImage=false captioned→classic (no imageUrl)"
            )),
        Named(
            "7.2 captioned without body",
            Row(
                text: nil, image: img, params: ["displayType": "captioned"], resolved: .classic,
                reason: "no title/body",
                log:
                    "Inbox cell degraded — code=m-42 displayType=captioned hasImage=true captioned→classic (no title/body)"
            )),
        Named(
            "7.2 captioned without title",
            Row(
                title: nil, image: img, params: ["displayType": "captioned"], resolved: .classic,
                reason: "no title/body")),
        Named(
            "7.2 captioned, no image and no body: image first",
            Row(text: nil, params: ["displayType": "captioned"], resolved: .classic, reason: "no imageUrl")),
        Named(
            "7.1 captioned needs only an image",
            Row(profile: .v7_1, text: nil, image: img, params: ["displayType": "captioned"], resolved: .captioned)),
        Named(
            "7.0 captioned needs only an image",
            Row(
                profile: .v7_0, title: nil, text: nil, image: img, params: ["displayType": "captioned"],
                resolved: .captioned)),
        Named(
            "7.1 captioned without image",
            Row(profile: .v7_1, params: ["displayType": "captioned"], resolved: .classic, reason: "no imageUrl")),
        Named(
            "classic never degrades", Row(title: nil, text: nil, params: ["displayType": "classic"], resolved: .classic)
        ),
        Named(
            "carousel without slides",
            Row(
                params: ["displayType": "carousel"], resolved: .classic, reason: "no slides",
                log: "Inbox cell degraded — code=m-42 displayType=carousel hasImage=false carousel→classic (no slides)")
        ),
        Named(
            "7.2 carousel without body",
            Row(
                text: nil, params: ["displayType": "carousel", "carousel": slides], resolved: .classic,
                reason: "no title/body",
                log:
                    "Inbox cell degraded — code=m-42 displayType=carousel hasImage=false carousel→classic (no title/body)"
            )),
        Named(
            "7.2 carousel without slides and body: slides first",
            Row(text: nil, params: ["displayType": "carousel"], resolved: .classic, reason: "no slides")),
        Named(
            "7.1 carousel needs only slides",
            Row(
                profile: .v7_1, title: nil, text: nil, params: ["displayType": "carousel", "carousel": slides],
                resolved: .carousel)),
        Named(
            "7.1 carousel without slides",
            Row(
                profile: .v7_1, params: ["displayType": "carousel", "carousel": []], resolved: .classic,
                reason: "no slides")),
        Named(
            "video without descriptor",
            Row(
                params: ["displayType": "video"], resolved: .classic, reason: "no video descriptor",
                log:
                    "Inbox cell degraded — code=m-42 displayType=video hasImage=false video→classic (no video descriptor)"
            )),
        Named(
            "7.1 video with rtmp url",
            Row(
                profile: .v7_1, params: ["displayType": "video", "video": ["url": "rtmp://cdn.example.com/v"]],
                resolved: .classic, reason: "no video descriptor")),
        Named(
            "wallet without pass",
            Row(
                image: img, params: ["displayType": "wallet"], resolved: .classic, reason: "no pass URL",
                log: "Inbox cell degraded — code=m-42 displayType=wallet hasImage=true wallet→classic (no pass URL)")),
        Named(
            "uppercase displayType logs lowercased",
            Row(
                params: ["displayType": "BANNER"], resolved: .classic, reason: "no imageUrl",
                log: "Inbox cell degraded — code=m-42 displayType=banner hasImage=false banner→classic (no imageUrl)")),
    ]

    @Test(arguments: rows)
    func degrade(_ row: Named<Row>) throws {
        let value = row.value
        let card = try feedCard(
            Input.feed(id: "m-42", title: value.title, text: value.text, image: value.image, params: value.params),
            profile: value.profile)
        #expect(card.resolved == value.resolved)
        #expect(card.degraded == (value.reason != nil))
        #expect(card.degradeReason == value.reason)
        if let log = value.log { #expect(card.sdkLog == log) }
        // 7.0 logs INFO on every resolve; later profiles log WARN for degraded cards only.
        #expect((card.sdkLog != nil) == (card.degraded || value.profile == .v7_0))
        #expect(card.has("card.degraded") == card.degraded)
        if card.degraded && value.profile != .v7_0 {
            #expect(card.sdkLog?.hasSuffix("(\(value.reason ?? ""))") == true)
        }
    }

    @Test func createMessageHasNoCodeSoTheLogSaysQuestionMark() throws {
        let card = try card(
            Input.notification(
                body: nil, image: "https://cdn.example.com/inbox/a.png", data: ["displayType": "captioned"]))
        #expect(
            card.sdkLog
                == "Inbox cell degraded — code=? displayType=captioned hasImage=true captioned→classic (no title/body)")
    }

    @Test func theLogUsesEmDashAndArrow() throws {
        let card = try feedCard(Input.feed(params: ["displayType": "banner"]))
        let log = try #require(card.sdkLog)
        #expect(log.unicodeScalars.contains("\u{2014}"))
        #expect(log.unicodeScalars.contains("\u{2192}"))
    }

    @Test func numericInboxIDIsTheCode() throws {
        let message = Input.feed(params: ["displayType": "banner"]).withMember("inbox_id", 981)
        let card = try feedCard(message)
        #expect(card.code == "981")
        #expect(card.sdkLog?.contains("code=981 ") == true)
    }
}
