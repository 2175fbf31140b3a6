import StrictJSON
import Testing

@testable import InboxCards

private func slide(_ n: Int, title: JSONValue? = nil, url: JSONValue? = nil) -> JSONValue {
    var object = JSONObject([("image", .string("https://cdn.example.com/inbox/slide\(n).jpg"))])
    if let title { object["title"] = title }
    if let url { object["url"] = url }
    return .object(object)
}

/// inboxkit-cards.md "Payload decoders": carousel.
@Suite struct CarouselTests {
    struct Row: Sendable {
        var profile: SDKProfile = .v7_2
        var params: JSONValue
        var slides: Int
        var labels: [String]? = nil
        var links: [String] = []
        var codes: [String] = []
    }

    static let rows: [Named<Row>] = [
        Named(
            "three slides, optional title and url",
            Row(
                params: [
                    "carousel": [
                        slide(1, title: "New in", url: "myapp://product/1"), slide(2, title: "On sale"), slide(3),
                    ]
                ],
                slides: 3, labels: ["New in", "On sale", "Slide"], links: ["myapp://product/1"],
                codes: ["card.slideUntitled"])),
        Named("carousel as a string", Row(params: ["carousel": "x"], slides: 0, codes: ["card.wrongType"])),
        Named(
            "carousel as an object",
            Row(params: ["carousel": ["image": "https://cdn.example.com/a.jpg"]], slides: 0, codes: ["card.wrongType"])),
        Named(
            "typed lookup: root string skipped, u array used",
            Row(
                params: ["carousel": "x", "u": ["carousel": [slide(1, title: "A")]]], slides: 1,
                codes: ["card.wrongType"])),
        Named(
            "slide that is a string is dropped",
            Row(
                params: ["carousel": ["https://cdn.example.com/a.jpg", slide(1, title: "A")]], slides: 1,
                codes: ["card.slideDropped"])),
        Named(
            "slide with empty image is dropped",
            Row(
                params: ["carousel": [["image": ""], ["image": 5], ["title": "no image"]]], slides: 0,
                codes: ["card.slideDropped"])),
        Named(
            "slide image is not validated as a URL",
            Row(params: ["carousel": [["image": "slide one", "title": "A"]]], slides: 1, labels: ["A"])),
        Named(
            "empty title is no title",
            Row(
                params: ["carousel": [slide(1, title: "")]], slides: 1, labels: ["Slide"], codes: ["card.slideUntitled"]
            )),
        Named(
            "url without scheme is dropped",
            Row(
                params: ["carousel": [slide(1, title: "A", url: "product/1")]], slides: 1, links: [],
                codes: ["card.slideURLInvalid"])),
        Named(
            "url that does not parse is dropped",
            Row(
                params: ["carousel": [slide(1, title: "A", url: "https://exa mple.com/")]], slides: 1, links: [],
                codes: ["card.slideURLInvalid"])),
        Named(
            "url of the wrong type is dropped",
            Row(
                params: ["carousel": [slide(1, title: "A", url: 5)]], slides: 1, links: [],
                codes: ["card.slideURLInvalid"])),
        Named(
            "any scheme is kept",
            Row(
                params: ["carousel": [slide(1, title: "A", url: "https://shop.example.com/p/1")]], slides: 1,
                links: ["https://shop.example.com/p/1"])),
        Named(
            "unsafe slide url is kept and reported",
            Row(
                params: ["carousel": [slide(1, title: "A", url: "javascript:alert(1)")]], slides: 1,
                links: ["javascript:alert(1)"], codes: ["card.unsafeURL"])),
        Named(
            "7.2 caps at five",
            Row(
                params: ["carousel": .array((1...7).map { slide($0, title: "S") })], slides: 5,
                codes: ["card.slidesCapped"])),
        Named(
            "7.2 dropped slides take no slot",
            Row(
                params: [
                    "carousel": .array([["image": ""]] + (1...5).map { slide($0, title: "S") } + [["title": "x"]])
                ],
                slides: 5, codes: ["card.slideDropped"])),
        Named(
            "7.1 has no cap",
            Row(profile: .v7_1, params: ["carousel": .array((1...7).map { slide($0, title: "S") })], slides: 7)),
    ]

    @Test(arguments: rows)
    func decode(_ row: Named<Row>) throws {
        var params = try #require(row.value.params.objectValue)
        params["displayType"] = "carousel"
        let card = try feedCard(Input.feed(params: .object(params)), profile: row.value.profile)
        let slides = card.urls(.carouselSlide)
        #expect(slides.count == row.value.slides)
        #expect(card.resolved == (row.value.slides > 0 ? .carousel : .classic))
        #expect(
            card.assets.filter { $0.role == .carouselSlide }.map(\.index) == Array(0..<slides.count).map(Optional.some))
        if let labels = row.value.labels { #expect(card.accessibilityLabels == labels) }
        #expect(card.urls(.slideLink) == row.value.links)
        for code in row.value.codes { #expect(card.has(code), "missing \(code): \(card.findings)") }
        #expect(!card.has("card.slidesCapped") || row.value.codes.contains("card.slidesCapped"))
    }

    @Test func slideFindingsPointAtTheSlide() throws {
        let card = try card(
            Input.notification(data: ["displayType": "carousel", "carousel": [slide(0), ["image": ""]]]))
        #expect(card.finding("card.slideDropped")?.path == "request.notifications[0].data.carousel[1].image")
    }
}

/// inboxkit-cards.md "Payload decoders": video and wallet.
@Suite struct VideoAndWalletTests {
    struct Row: Sendable {
        var kind: CardKind
        var params: JSONValue
        var ok: Bool
        var assets: [AssetReference.Role] = []
        var codes: [String] = []
    }

    static let mp4 = "https://cdn.example.com/video/reveal.mp4"
    static let pass = "https://cdn.example.com/passes/loyalty.pkpass"

    static let rows: [Named<Row>] = [
        Named(
            "video with poster",
            Row(
                kind: .video,
                params: ["video": ["url": .string(mp4), "poster": "https://cdn.example.com/inbox/poster.jpg"]],
                ok: true, assets: [.video, .videoPoster])),
        Named(
            "video scheme is case-insensitive",
            Row(
                kind: .video, params: ["video": ["url": "HTTPS://cdn.example.com/video/a.mp4"]], ok: true,
                assets: [.video], codes: ["card.videoNoPoster"])),
        Named(
            "HLS over http",
            Row(
                kind: .video, params: ["video": ["url": "http://cdn.example.com/video/live.m3u8"]], ok: true,
                assets: [.video])),
        Named(
            "empty poster is no poster",
            Row(
                kind: .video, params: ["video": ["url": .string(mp4), "poster": ""]], ok: true, assets: [.video],
                codes: ["card.videoNoPoster"])),
        Named(
            "video url ftp",
            Row(
                kind: .video, params: ["video": ["url": "ftp://cdn.example.com/a.mp4"]], ok: false,
                codes: ["card.videoInvalid"])),
        Named(
            "video url without scheme",
            Row(
                kind: .video, params: ["video": ["url": "cdn.example.com/a.mp4"]], ok: false,
                codes: ["card.videoInvalid"])),
        Named(
            "video url with a space",
            Row(
                kind: .video, params: ["video": ["url": "https://cdn.example.com/my clip.mp4"]], ok: false,
                codes: ["card.videoInvalid"])),
        Named(
            "video url empty",
            Row(kind: .video, params: ["video": ["url": ""]], ok: false, codes: ["card.videoInvalid"])),
        Named(
            "video url missing",
            Row(
                kind: .video, params: ["video": ["poster": "https://cdn.example.com/p.jpg"]], ok: false,
                codes: ["card.videoInvalid"])),
        Named(
            "video url a number",
            Row(kind: .video, params: ["video": ["url": 5]], ok: false, codes: ["card.videoInvalid"])),
        Named(
            "video as a string",
            Row(kind: .video, params: ["video": .string(mp4)], ok: false, codes: ["card.wrongType"])),
        Named(
            "wallet URL string", Row(kind: .wallet, params: ["wallet": .string(pass)], ok: true, assets: [.walletPass])),
        Named(
            "wallet {pass}",
            Row(kind: .wallet, params: ["wallet": ["pass": .string(pass)]], ok: true, assets: [.walletPass])),
        Named(
            "wallet with hero image",
            Row(
                kind: .wallet, params: ["wallet": .string(pass), "image": "https://cdn.example.com/inbox/loyalty.png"],
                ok: true, assets: [.heroImage, .walletPass])),
        Named(
            "wallet scheme is case-insensitive",
            Row(
                kind: .wallet, params: ["wallet": "HTTP://cdn.example.com/passes/a.pkpass"], ok: true,
                assets: [.walletPass])),
        Named(
            "wallet ftp",
            Row(
                kind: .wallet, params: ["wallet": "ftp://cdn.example.com/a.pkpass"], ok: false,
                codes: ["card.walletInvalid"])),
        Named(
            "wallet relative",
            Row(kind: .wallet, params: ["wallet": "/passes/a.pkpass"], ok: false, codes: ["card.walletInvalid"])),
        Named(
            "wallet {pass: 5}",
            Row(kind: .wallet, params: ["wallet": ["pass": 5]], ok: false, codes: ["card.walletInvalid"])),
        Named(
            "wallet {url} is not {pass}",
            Row(kind: .wallet, params: ["wallet": ["url": .string(pass)]], ok: false, codes: ["card.walletInvalid"])),
        Named("wallet a number", Row(kind: .wallet, params: ["wallet": 5], ok: false, codes: ["card.wrongType"])),
        Named(
            "wallet an array",
            Row(kind: .wallet, params: ["wallet": [.string(pass)]], ok: false, codes: ["card.wrongType"])),
    ]

    @Test(arguments: rows)
    func decode(_ row: Named<Row>) throws {
        var params = try #require(row.value.params.objectValue)
        params["displayType"] = .string(row.value.kind.rawValue)
        let card = try feedCard(Input.feed(params: .object(params)))
        #expect(card.resolved == (row.value.ok ? row.value.kind : .classic))
        if !row.value.ok {
            #expect(card.degradeReason == (row.value.kind == .video ? "no video descriptor" : "no pass URL"))
        }
        if row.value.ok { #expect(card.assets.map(\.role) == row.value.assets) }
        for code in row.value.codes { #expect(card.has(code), "missing \(code): \(card.findings)") }
    }

    @Test func videoIsAnnouncedAsPlayVideo() throws {
        let card = try feedCard(Input.feed(params: ["displayType": "video", "video": ["url": .string(Self.mp4)]]))
        #expect(card.accessibilityLabels == ["Play video"])
    }
}
