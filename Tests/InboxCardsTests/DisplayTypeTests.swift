import StrictJSON
import Testing

@testable import InboxCards

/// inboxkit-cards.md §2 (lookup order) and §3 "displayType".
@Suite struct DisplayTypeTests {
    struct Row: Sendable {
        var params: JSONValue
        var profile: SDKProfile = .v7_2
        var requested: CardKind
        var codes: [String] = []
    }

    static let image = "https://cdn.example.com/inbox/hero.png"

    /// A feed message with image, title and body: the heuristic gives captioned, so any other kind came
    /// from displayType.
    static let rows: [Named<Row>] = [
        Named(
            "root wins over u",
            Row(params: ["displayType": "banner", "u": ["displayType": "video"]], requested: .banner)),
        Named(
            "u object wins over userdata",
            Row(params: ["u": ["displayType": "banner"], "userdata": ["displayType": "classic"]], requested: .banner)),
        Named(
            "u as JSON string is parsed",
            Row(params: ["u": .string((["displayType": "banner"] as JSONValue).serialized())], requested: .banner)),
        Named("userdata is the last level", Row(params: ["userdata": ["displayType": "banner"]], requested: .banner)),
        Named(
            "non-string at root is skipped, u string wins",
            Row(
                params: ["displayType": 5, "u": ["displayType": "banner"]], requested: .banner,
                codes: ["card.wrongType"])),
        Named("uppercase is lowercased", Row(params: ["displayType": "BANNER"], requested: .banner)),
        Named("mixed case is lowercased", Row(params: ["u": ["displayType": "Classic"]], requested: .classic)),
        Named(
            "leading space is not trimmed",
            Row(params: ["displayType": " banner"], requested: .captioned, codes: ["card.unknownDisplayType"])),
        Named(
            "trailing newline is not trimmed",
            Row(params: ["displayType": "banner\n"], requested: .captioned, codes: ["card.unknownDisplayType"])),
        Named(
            "default is unknown",
            Row(params: ["displayType": "default"], requested: .captioned, codes: ["card.unknownDisplayType"])),
        Named(
            "empty string is unknown",
            Row(params: ["displayType": ""], requested: .captioned, codes: ["card.unknownDisplayType"])),
        Named(
            "number only → heuristic", Row(params: ["displayType": 5], requested: .captioned, codes: ["card.wrongType"])
        ),
        Named(
            "bool only → heuristic",
            Row(params: ["u": ["displayType": true]], requested: .captioned, codes: ["card.wrongType"])),
        Named(
            "object only → heuristic",
            Row(params: ["displayType": ["kind": "banner"]], requested: .captioned, codes: ["card.wrongType"])),
        Named("null is absent, silently", Row(params: ["displayType": nil], requested: .captioned)),
        Named(
            "7.0 knows banner", Row(params: ["displayType": "banner"], profile: .v7_0, requested: .banner)),
        // inboxkit-cards.md §3: on 7.0 the heuristic renders it, a degrade of intent (requested stays carousel).
        Named(
            "7.0: carousel is unknown",
            Row(params: ["displayType": "carousel"], profile: .v7_0, requested: .carousel, codes: ["card.degraded"])),
        // inboxkit-cards.md §3: on 7.0 the heuristic renders it, a degrade of intent (requested stays video).
        Named(
            "7.0: video is unknown",
            Row(params: ["displayType": "video"], profile: .v7_0, requested: .video, codes: ["card.degraded"])),
        // inboxkit-cards.md §3: on 7.0 the heuristic renders it, a degrade of intent (requested stays wallet).
        Named(
            "7.0: wallet is unknown",
            Row(params: ["displayType": "wallet"], profile: .v7_0, requested: .wallet, codes: ["card.degraded"])),
        Named("7.1 knows video", Row(params: ["displayType": "video"], profile: .v7_1, requested: .video)),
        Named("7.2 knows wallet", Row(params: ["displayType": "wallet"], profile: .v7_2, requested: .wallet)),
        Named(
            "unknown string at root is the hit, u is not consulted",
            Row(
                params: ["displayType": "fancy", "u": ["displayType": "banner"]], requested: .captioned,
                codes: ["card.unknownDisplayType"])),
    ]

    @Test(arguments: rows)
    func lookup(_ row: Named<Row>) throws {
        let card = try feedCard(Input.feed(image: Self.image, params: row.value.params), profile: row.value.profile)
        #expect(card.requested == row.value.requested)
        for code in row.value.codes { #expect(card.has(code), "expected \(code) in \(card.findings)") }
        if row.value.codes.isEmpty {
            #expect(!card.has("card.unknownDisplayType") && !card.has("card.wrongType"))
        }
    }

    @Test func unknownValueMessageExplainsTheMissingTrim() throws {
        let card = try feedCard(Input.feed(image: Self.image, params: ["displayType": " banner"]))
        let finding = try #require(card.finding("card.unknownDisplayType"))
        #expect(finding.message.contains("does not trim"))
        #expect(finding.path == "action_params.displayType")
    }

    @Test func unknownPerProfileMessageNamesTheProfile() throws {
        let card = try feedCard(Input.feed(image: Self.image, params: ["displayType": "carousel"]), profile: .v7_0)
        let finding = try #require(card.finding("card.degraded"))
        #expect(finding.message.contains("SDK 7.0 has no carousel"))
        #expect(card.degradeReason == "carousel unknown to SDK 7.0")
        #expect(card.resolved == .captioned)
        #expect(!card.has("card.unknownDisplayType"))
    }

    @Test func createMessageDataPlaysTheRoleOfU() throws {
        let card = try card(
            Input.notification(image: "https://cdn.example.com/inbox/a.png", data: ["displayType": "banner"]))
        #expect(card.requested == .banner)
        #expect(card.resolved == .banner)
    }

    @Test func createMessageDataAsJSONString() throws {
        let data = JSONValue.string((["displayType": "banner"] as JSONValue).serialized())
        let card = try card(Input.notification(image: "https://cdn.example.com/inbox/a.png", data: data))
        #expect(card.requested == .banner)
    }

    @Test func wrongTypeFindingPointsAtTheLevel() throws {
        let card = try feedCard(Input.feed(image: Self.image, params: ["u": ["displayType": 5]]))
        #expect(card.finding("card.wrongType")?.path == "action_params.u.displayType")
    }
}
