import StrictJSON
import Testing

@testable import InboxCards

/// inboxkit-cards.md §3 "Image of a message (hasImage)".
@Suite struct ImageSourceTests {
    struct Row: Sendable {
        var profile: SDKProfile = .v7_2
        var image: String? = nil
        var params: JSONValue
        /// The hero URL of the banner, or nil when the banner degrades for want of an image.
        var hero: String?
        var codes: [String] = []
    }

    static let rows: [Named<Row>] = [
        Named(
            "message imageUrl",
            Row(image: "https://cdn.example.com/inbox/m.png", params: [:], hero: "https://cdn.example.com/inbox/m.png")),
        Named(
            "imageUrl before root image",
            Row(
                image: "https://cdn.example.com/inbox/m.png",
                params: ["image": "https://cdn.example.com/inbox/root.png"], hero: "https://cdn.example.com/inbox/m.png"
            )),
        Named(
            "root image",
            Row(
                params: ["image": "https://cdn.example.com/inbox/root.png"],
                hero: "https://cdn.example.com/inbox/root.png")),
        Named(
            "root image before u.image",
            Row(
                params: [
                    "image": "https://cdn.example.com/inbox/root.png",
                    "u": ["image": "https://cdn.example.com/inbox/u.png"],
                ], hero: "https://cdn.example.com/inbox/root.png")),
        Named(
            "u.image",
            Row(
                params: ["u": ["image": "https://cdn.example.com/inbox/u.png"]],
                hero: "https://cdn.example.com/inbox/u.png")),
        Named("any non-empty string counts (no URL check)", Row(params: ["image": "not a url"], hero: "not a url")),
        Named("empty string is no image", Row(image: "", params: ["image": ""], hero: nil)),
        Named("number is no image", Row(params: ["image": 5], hero: nil, codes: ["card.wrongType"])),
        Named(
            "7.2 attachment before imageUrl",
            Row(
                image: "https://cdn.example.com/inbox/m.png",
                params: ["attachment": "https://cdn.example.com/inbox/att.jpg"],
                hero: "https://cdn.example.com/inbox/att.jpg")),
        Named(
            "7.2 attachment before b",
            Row(
                params: [
                    "attachment": "http://cdn.example.com/inbox/att.jpg", "b": "https://cdn.example.com/inbox/b.jpg",
                ], hero: "http://cdn.example.com/inbox/att.jpg")),
        Named(
            "7.2 b",
            Row(params: ["b": "https://cdn.example.com/inbox/b.jpg"], hero: "https://cdn.example.com/inbox/b.jpg")),
        Named(
            "7.2 attachment prefix is case-sensitive",
            Row(params: ["attachment": "HTTPS://cdn.example.com/inbox/att.jpg"], hero: nil, codes: ["card.heroIgnored"])
        ),
        Named(
            "7.2 attachment without http prefix falls through to b",
            Row(
                params: ["attachment": "ftp://cdn.example.com/a.jpg", "b": "https://cdn.example.com/inbox/b.jpg"],
                hero: "https://cdn.example.com/inbox/b.jpg", codes: ["card.heroIgnored"])),
        Named(
            "7.1 ignores attachment",
            Row(profile: .v7_1, params: ["attachment": "https://cdn.example.com/inbox/att.jpg"], hero: nil)),
        Named("7.0 ignores b", Row(profile: .v7_0, params: ["b": "https://cdn.example.com/inbox/b.jpg"], hero: nil)),
        Named(
            "7.1 uses imageUrl even with attachment",
            Row(
                profile: .v7_1, image: "https://cdn.example.com/inbox/m.png",
                params: ["attachment": "https://cdn.example.com/inbox/att.jpg"],
                hero: "https://cdn.example.com/inbox/m.png")),
    ]

    @Test(arguments: rows)
    func source(_ row: Named<Row>) throws {
        var params = try #require(row.value.params.objectValue)
        params["displayType"] = "banner"
        let card = try feedCard(
            Input.feed(title: nil, image: row.value.image, params: .object(params)), profile: row.value.profile)
        if let hero = row.value.hero {
            #expect(card.resolved == .banner)
            #expect(card.urls(.heroImage) == [hero])
        } else {
            #expect(card.resolved == .classic)
            #expect(card.degradeReason == "no imageUrl")
            // 7.0 logs its INFO resolve line; later profiles the WARN degrade line.
            let expected = row.value.profile == .v7_0 ? "(degraded from banner — no imageUrl)" : "hasImage=false"
            #expect(card.sdkLog?.contains(expected) == true)
        }
        for code in row.value.codes { #expect(card.has(code)) }
    }

    @Test func createMessageIOSAttachmentIsTheRootAttachment() throws {
        let card = try card(
            Input.notification(
                title: nil, data: ["displayType": "banner"],
                extra: [("ios_attachment", "https://cdn.example.com/inbox/att.jpg")]))
        #expect(card.resolved == .banner)
        #expect(card.assets.first?.path == "request.notifications[0].ios_attachment")
    }

    @Test func heroPathPointsIntoTheInput() throws {
        let card = try card(Input.notification(title: nil, image: "https://cdn.example.com/inbox/a.png"))
        #expect(card.assets.map(\.path) == ["request.notifications[0].inbox_image"])
    }
}
