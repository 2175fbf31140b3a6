import Findings
import Foundation
import StrictJSON
import Testing

@testable import InboxCards

/// The report model: key order, redaction, the run container, and the demo campaign.
@Suite struct ReportTests {
    @Test func cardKeysAreInReportOrder() throws {
        let card = try card(Input.notification())
        let keys = try #require(card.json.objectValue).keys
        #expect(
            keys == [
                "id", "code", "sdk", "platform", "language", "requested", "resolved", "degraded", "degradeReason",
                "sdkLog", "findings", "assets", "forced", "pinned", "buttons", "accessibility", "title", "body",
                "tapActions", "slides", "feedPosition",
            ])
        let finding = Finding.warning("card.x", "m", path: "data")
        #expect(try #require(finding.json.objectValue).keys == ["severity", "code", "message", "path"])
    }

    @Test func degradedCardJSON() throws {
        let card = try feedCard(Input.feed(id: "m-1", params: ["displayType": "banner"]))
        let json = card.json
        #expect(json["id"] == "campaign.json")
        #expect(json["code"] == "m-1")
        #expect(json["sdk"] == "7.2")
        #expect(json["platform"] == "ios")
        #expect(json["requested"] == "banner")
        #expect(json["resolved"] == "classic")
        #expect(json["degraded"] == true)
        #expect(json["degradeReason"] == "no imageUrl")
        #expect(json["sdkLog"]?.stringValue?.hasPrefix("Inbox cell degraded — code=m-1 ") == true)
    }

    static let secret = "s3cr3t-value"

    @Test func tokensAreRedactedEverywhereButFetchURL() throws {
        let image = "https://cdn.example.com/inbox/a.png?token=\(Self.secret)"
        let video = "ftp://cdn.example.com/video/a.mp4?token=\(Self.secret)"
        let cards = try resolve(
            Input.request([
                Input.notification(title: nil, image: .string(image)),
                Input.notification(data: ["displayType": "video", "video": ["url": .string(video)]]),
                Input.notification(data: ["buttons": [["title": "Go", "url": .string(image)]]]),
            ]))
        #expect(cards[0].assets.first?.fetchURL == image)
        #expect(cards[0].assets.first?.url == "https://cdn.example.com/inbox/a.png?token=REDACTED")
        #expect(cards[1].has("card.videoInvalid"))
        for card in cards {
            let text = card.json.serialized()
            #expect(!text.contains(Self.secret), "\(text)")
            #expect(card.findings.allSatisfy { !$0.message.contains(Self.secret) })
        }
        #expect(cards[2].json.serialized().contains("token=REDACTED"))
        for card in cards {
            #expect(!String(describing: card).contains(Self.secret), "printing a card shows no secret")
            #expect(!String(reflecting: card).contains(Self.secret))
        }
    }

    static let leakyValues: [Named<JSONValue>] = [
        Named(
            "scheme-less video url",
            ["displayType": "video", "video": ["url": "cdn.example.com/v.mp4?token=s3cr3t-value"]]),
        Named("scheme-less wallet", ["displayType": "wallet", "wallet": "passes/a.pkpass?token=s3cr3t-value"]),
        Named("scheme-less button", ["buttons": [["title": "Go", "url": "go?token=s3cr3t-value"]]]),
        Named(
            "scheme-less slide url",
            ["displayType": "carousel", "carousel": [["image": "a.jpg", "url": "x y?token=s3cr3t-value"]]]),
        Named("odd displayType", ["displayType": "a?token=s3cr3t-value"]),
        Named("pinned string", ["pinned": "x?token=s3cr3t-value"]),
    ]

    @Test(arguments: leakyValues)
    func quotedValuesAreRedacted(_ row: Named<JSONValue>) throws {
        let card = try feedCard(Input.feed(params: row.value))
        #expect(card.findings.contains { $0.message.contains("token=REDACTED") }, "\(card.findings)")
        #expect(!card.json.serialized().contains(Self.secret))
    }

    @Test func hugeQuotedValuesAreCut() throws {
        let card = try feedCard(Input.feed(params: ["displayType": .string(String(repeating: "x", count: 100_000))]))
        let finding = try #require(card.finding("card.unknownDisplayType"))
        #expect(finding.message.count < 400)
    }

    @Test func runSummary() throws {
        let text = "\(Input.feed(params: ["displayType": "banner"]).serialized())\n{broken\n"
        let batch = try CampaignReader.read(bytes: Array(text.utf8), source: "in.ndjson")
        let run = CardResolver().run(batch)
        #expect(run.messagesRead == 1)
        #expect(run.degradedCount == 1)
        let json = run.json
        #expect(json["schemaVersion"] == 1)
        #expect(json["summary"]?["cards"] == 1)
        #expect(json["summary"]?["degraded"] == 1)
        #expect(json["summary"]?["errors"] == 1)
        #expect(json["findings"]?[0]?["source"] == "in.ndjson#[1]")
        #expect(json["findings"]?[0]?["code"] == "input.invalidJSON")
    }
}

/// The demo campaign must show what the tool is for.
@Suite struct DemoCampaignTests {
    static let url: String = {
        let file = #filePath
        let tests = file.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
        return tests + "/Fixtures/campaigns/demo.json"
    }()

    static func load() throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: url) else {
            Issue.record("cannot read \(url)")
            return []
        }
        return [UInt8](data)
    }

    @Test func demoShowsEveryKindAndDegrade() throws {
        let batch = try CampaignReader.read(bytes: try Self.load(), source: "demo.json")
        let run = CardResolver(options: ResolveOptions(profiles: [.v7_2], platforms: [.ios, .android])).run(batch)
        let ios = run.cards.filter { $0.platform == .ios }
        #expect(Set(ios.map(\.resolved)) == Set(CardKind.requestable))
        #expect(Set(ios.map(\.requested)) == Set(CardKind.requestable))
        let reasons = Set(ios.compactMap(\.degradeReason))
        #expect(reasons.isSuperset(of: ["no title/body", "no video descriptor", "no imageUrl"]))
        #expect(run.cards.contains { $0.platform == .android && $0.requested == .wallet })
        #expect(Set(ios.compactMap(\.language)).isSuperset(of: ["en", "de", "es"]))
        #expect(ios.contains { $0.has("card.unsafeURL") })
        #expect(batch.has("input.notInbox"))
        let text = run.json.serialized()
        #expect(text.contains("token=REDACTED"))
        #expect(!text.contains("DEMO-API-TOKEN"))
        #expect(!text.contains("b7f3c9e1a2d4"))
        #expect(run.inputFindings.allSatisfy { $0.finding.severity != .error })
    }

    @Test func demoInEveryProfile() throws {
        let batch = try CampaignReader.read(bytes: try Self.load(), source: "demo.json")
        let run = CardResolver(options: ResolveOptions(profiles: SDKProfile.allCases)).run(batch)
        let byProfile = Dictionary(grouping: run.cards, by: { $0.sdk })
        #expect(byProfile[.v7_0]?.contains { $0.resolved == .carousel } == false)
        #expect(byProfile[.v7_1]?.contains { $0.resolved == .carousel } == true)
        #expect(byProfile[.v7_0]?.count == byProfile[.v7_2]?.count)
    }
}

/// The byte-level pre-checks must never let a secret through that `Redaction` would catch.
