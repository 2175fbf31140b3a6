import Findings
import Foundation
import Testing

@testable import InboxCards

/// Inputs `make fuzz` found crashing the campaign target, committed under `Fixtures/fuzz/campaign/` (see
/// Fuzz/README.md), fed through what the target runs: the reader, every profile of both platforms, the report JSON.
@Suite struct CampaignFuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/fuzz/campaign").standardizedFileURL
    static let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()

    static func run(_ name: String) throws -> ResolveRun {
        let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(name)))
        let batch = try CampaignReader.read(bytes: bytes, source: name)
        let options = ResolveOptions(
            profiles: SDKProfile.allCases, platforms: [.ios, .android], androidProfiles: AndroidProfile.allCases,
            at: 1_764_547_200)
        return CardResolver(options: options).run(batch)
    }

    /// Every finding of a run, the input's and the cards'.
    static func findings(_ run: ResolveRun) -> [Finding] {
        run.inputFindings.map(\.finding) + run.cards.flatMap(\.findings)
    }

    @Test func theFolderIsNotEmpty() {
        #expect(!Self.names.isEmpty)
    }

    @Test(arguments: names)
    func resolvesWithFindings(_ name: String) throws {
        let run = try Self.run(name)
        #expect(!Self.findings(run).isEmpty, "\(name) resolved without any finding")
        #expect(!run.json.serialized().isEmpty)
    }

    /// `status: 1e300` trapped in `Int(_:)` on iOS: no status code, so iOS shows the message; Android cannot parse it.
    @Test func statusBeyondInt64() throws {
        let run = try Self.run("feed-status-beyond-int64.json")
        #expect(run.cards.contains { $0.platform == .ios })
        #expect(!run.cards.contains { $0.platform == .android })
        let codes = Set(run.inputFindings.map(\.finding.code))
        #expect(codes.contains(CardFindingCode.feedValueInvalid))
        #expect(!codes.contains(CardFindingCode.deleted))
    }

    /// `rt: -1e300` trapped in `Int64(_:)` while writing the expiry: iOS hides an expired message, naming the number.
    @Test func expiryBeyondInt64() throws {
        let run = try Self.run("feed-rt-beyond-int64.json")
        #expect(run.cards.isEmpty)
        let expired = run.inputFindings.map(\.finding).filter { $0.code == CardFindingCode.expired }
        #expect(!expired.isEmpty)
        #expect(expired.allSatisfy { $0.message.hasPrefix("rt -1e+300 is not after 2025-12-01T00:00:00Z") })
        #expect(run.inputFindings.contains { $0.finding.code == CardFindingCode.feedValueInvalid })
    }
}
