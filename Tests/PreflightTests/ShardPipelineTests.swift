import Foundation
import Preflight
import StrictJSON
import Testing
import WalletPass

/// A sharded check of the demo campaign through the real pipeline: every card resolved in every shard, each fetched
/// asset in exactly one, the rest `other-shard` — and the report valid against docs/report.schema.json.
@Suite(.serialized) struct ShardPipelineTests {
    static func outcome(_ shard: Shard) async throws -> CheckPipeline.Outcome {
        try await RenderFixtures.withDemoPipeline(CheckOptions(shard: shard)) { await $0.run($1) }
    }

    @Test func threeShardsSplitTheDemoAndEachReportIsValid() async throws {
        let validator = try #require(SchemaTests.validator)
        let whole = try await Self.outcome(.all).report
        var owners: [String: Int] = [:]
        for index in 1...3 {
            let report = try await Self.outcome(try #require(Shard(index, of: 3))).report
            #expect(validator.validate(try JSON.parse(report.json.serialized())) == [])
            #expect(report.cards.count == whole.cards.count, "every card resolved")
            for asset in report.cards.flatMap(\.assets) where !asset.role.isLink {
                if asset.source == "other-shard" {
                    #expect(asset.status == .skipped && asset.findings.isEmpty, "\(asset.url)")
                } else if asset.source != nil {
                    owners[asset.url, default: 0] |= 1 << index
                }
            }
        }
        let fetched = Set(whole.cards.flatMap(\.assets).filter { !$0.role.isLink && $0.source != nil }.map(\.url))
        #expect(Set(owners.keys) == fetched)
        #expect(owners.values.allSatisfy { $0.nonzeroBitCount == 1 }, "each asset in exactly one shard: \(owners)")
    }
}
