import Foundation
import StrictJSON
import TestSupport
import Testing

@testable import InboxCards

/// Deterministic mutations of the demo campaign: whatever the bytes, reading and resolving end with
/// an `InputError` or with cards, never a crash or a hang (the fuzz target does this at scale).
@Suite struct MutationTests {
    static let replacements: [[UInt8]] = [
        Array("5".utf8), Array("\"x\"".utf8), Array("{}".utf8), Array("[]".utf8), Array("null".utf8),
        Array("true".utf8), Array("\"javascript:x\"".utf8), [0xFF], Array("[[[[".utf8), Array("\n".utf8),
    ]

    static func mutate(_ bytes: [UInt8], seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var result = bytes
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            guard !result.isEmpty else { break }
            let at = Int.random(in: 0..<result.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: result.removeSubrange(at..<min(result.count, at + Int.random(in: 1...40, using: &generator)))
            case 1: result[at] = UInt8.random(in: 0...255, using: &generator)
            case 2: result.insert(contentsOf: replacements.randomElement(using: &generator)!, at: at)
            default: result = Array(result[..<at])
            }
        }
        return result
    }

    @Test(arguments: 0..<200)
    func mutatedDemoNeverCrashes(_ seed: Int) throws {
        let demo = try DemoCampaignTests.load()
        let bytes = Self.mutate(demo, seed: UInt64(seed))
        let options = ResolveOptions(profiles: SDKProfile.allCases, platforms: Platform.allCases, forceKind: nil)
        do {
            let batch = try CampaignReader.read(bytes: bytes, source: "demo.json")
            let run = CardResolver(options: options).run(batch)
            #expect(run.cards.allSatisfy { $0.id.hasPrefix("demo.json") })
            #expect(!run.json.serialized().contains("b7f3c9e1a2d4"), "the token never leaks")
        } catch {
            #expect(error.description.hasPrefix("demo.json: "))
        }
    }
}
