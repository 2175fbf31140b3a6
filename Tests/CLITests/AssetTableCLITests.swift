import Foundation
import StrictJSON
import TestSupport
import Testing

/// `check --format json` schemaVersion 2: every asset URL once in the top-level `assets` table, cards referring to
/// it by key and use.
@Suite(.serialized) struct AssetTableCLITests {
    @Test func eachURLIsListedOnceAndEveryCardRefersToIt() async throws {
        let env = try CheckCLITests.Environment()
        let cdn = CheckCLITests.cdn
        let hero = { (query: String) in
            #"{"content": "b", "inbox_days": 1, "inbox_image": "\#(cdn)/inbox/summer-sale.png?\#(query)", "data": {"displayType": "banner"}}"#
        }
        // Two URLs that differ only in a secret redact alike; the third message repeats the first URL.
        let campaign = CheckCLITests.campaign(
            [hero("token=a1"), hero("token=b2"), hero("token=a1")].joined(separator: ","))
        let result = try await env.check(campaign, ["--format", "json", "--fail-on", "never", "--platform", "all"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("a1") && !result.stdout.contains("b2"), "secrets stay redacted")
        let report = try JSON.parse(result.stdout)
        #expect(report["schemaVersion"] == 3)
        let table = try #require(report["assets"]?.objectValue)
        let key = "\(cdn)/inbox/summer-sale.png?token=REDACTED"
        #expect(Set(table.map(\.key)) == [key, key + " (2)"])
        let cards = CheckReportJSON.cards(of: report)
        #expect(cards.count == 6, "three messages, iOS and Android")
        var references = 0
        for (index, card) in cards.enumerated() {
            let refs = card["assets"]?.arrayValue ?? []
            references += refs.count
            #expect(CheckReportJSON.assets(of: card, in: report).count == refs.count, "card \(index) resolves")
            // Message 0 and 2 share a URL; message 1 has its own entry.
            let message = card["id"]?.stringValue?.hasSuffix("notifications[1]") == true ? 1 : 0
            #expect(refs.first?["url"] == .string(message == 1 ? key + " (2)" : key), "card \(index)")
        }
        // One use per platform per URL, however many cards share it.
        let uses = table.map { $0.value["uses"]?.arrayValue?.count ?? 0 }.reduce(0, +)
        #expect(uses == 4 && references == 6)
        for (_, entry) in table {
            #expect(entry["httpStatus"] == 200 && entry["format"] == "png" && entry["sha256"]?.stringValue?.count == 64)
            #expect(
                Set((entry["uses"]?.arrayValue ?? []).compactMap { $0["platform"]?.stringValue }) == ["ios", "android"])
        }
        let flat = CheckReportJSON.flattened(report)
        #expect(flat["cards"]?[0]?["assets"]?[0]?["status"] == "ok")
        #expect(flat["cards"]?[0]?["assets"]?[0]?["width"] != .null)
    }
}
