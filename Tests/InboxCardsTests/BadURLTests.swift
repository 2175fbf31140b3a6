import Findings
import StrictJSON
import Testing

@testable import InboxCards

/// `input.badURL`: a URL holding a control character is a finding that says where (issue 17 item 6).
@Suite struct BadURLTests {
    struct Row: Sendable {
        var notification: JSONValue
        var platforms: [Platform] = [.ios]
        /// The finding's path, severity and the byte it names.
        var path: String
        var severity: Severity = .error
        var control: String = #"\x00"#
    }

    static let cdn = "https://cdn.example.com"

    static let rows: [Named<Row>] = [
        Named(
            "NUL in a banner's hero image",
            Row(
                notification: Input.notification(
                    image: .string("\(cdn)/png/a\u{0}b.png"), data: ["displayType": "banner"]),
                path: "request.notifications[0].inbox_image")),
        Named(
            "ESC in a classic card's avatar",
            Row(
                notification: Input.notification(image: .string("\(cdn)/a\u{1B}[2J.png")),
                path: "request.notifications[0].inbox_image", control: #"\x1b"#)),
        Named(
            "DEL in a carousel slide",
            Row(
                notification: Input.notification(data: [
                    "displayType": "carousel",
                    "carousel": [["image": .string("\(cdn)/s1.jpg")], ["image": .string("\(cdn)/s2\u{7F}.jpg")]],
                ]),
                path: "request.notifications[0].data.carousel[1].image", control: #"\x7f"#)),
        Named(
            "a tab in an Android slide link is a warning (iOS already drops the link: it does not parse)",
            Row(
                notification: Input.notification(
                    data: [
                        "displayType": "carousel",
                        "carousel": [["image": .string("\(cdn)/s1.jpg"), "url": .string("myapp://p/1\t2")]],
                    ], extra: [("android_header", "Title")]), platforms: [.android],
                path: "request.notifications[0].data.carousel[0].url", severity: .warning, control: #"\x09"#)),
        Named(
            "NUL in an Android icon",
            Row(
                notification: Input.notification(image: .string("\(cdn)/icon\u{0}.png")), platforms: [.android],
                path: "request.notifications[0].inbox_image")),
    ]

    @Test(arguments: rows)
    func controlCharacterInAURLIsAFindingWithItsPath(_ row: Named<Row>) throws {
        let batch = try CampaignReader.read(bytes: Input.request([row.value.notification]), source: "c.json")
        let cards = CardResolver(options: ResolveOptions(platforms: row.value.platforms)).resolve(batch.messages)
        let card = try #require(cards.first)
        let findings = card.findings.filter { $0.code == CardFindingCode.badURL }
        try #require(findings.count == 1, "\(card.findings)")
        #expect(findings[0].path == row.value.path)
        #expect(findings[0].severity == row.value.severity)
        #expect(findings[0].message.contains("control character \(row.value.control) at byte"))
        // The URL itself is still the card's asset, exactly as written: the plan refuses it, nothing rewrites it.
        #expect(card.assets.contains { ControlCharacters.first(in: $0.fetchURL) != nil })
    }

    @Test func cleanURLsMakeNoFinding() throws {
        let card = try card(
            Input.notification(image: "https://cdn.example.com/ü/a.png?w=1", data: ["displayType": "banner"]))
        #expect(!card.has(CardFindingCode.badURL))
    }
}
