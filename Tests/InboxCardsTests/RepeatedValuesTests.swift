import TestSupport
import Testing

@testable import InboxCards

/// `RepeatedValues`: the values added twice or more, the same in memory, in sorted runs on disk (one, two, many),
/// and when the disk cannot be used at all or fills up part way.
@Suite struct RepeatedValuesTests {
    /// `count` values out of `range`: small ranges repeat a lot, huge ones hardly at all.
    static func values(_ count: Int, in range: UInt64, seed: UInt64) -> [UInt64] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt64.random(in: 0...range, using: &generator) }
    }

    static func expected(_ values: [UInt64]) -> Set<UInt64> {
        var seen = Set<UInt64>()
        var repeated = Set<UInt64>()
        for value in values where !seen.insert(value).inserted { repeated.insert(value) }
        return repeated
    }

    static let shapes: [(name: String, limits: SpillLimits, run: Int)] = [
        ("in memory", .standard, 1 << 19),
        ("one value a run", .standard, 1),
        ("runs of 7", .standard, 7),
        ("two runs", .standard, 600),
        ("no directory", SpillLimits(threshold: 1, directory: "/nonexistent-inbox-assets-dir"), 5),
        ("full after 0 bytes", SpillLimits(threshold: 1, failWritesAfter: 0), 5),
        ("full after 400 bytes", SpillLimits(threshold: 1, failWritesAfter: 400), 5),
    ]

    @Test(arguments: 0..<shapes.count, [(0, UInt64(10)), (1, 10), (1_000, 50), (1_000, .max), (5_000, 3_000)])
    func repeatsAreFoundHoweverTheyAreStored(shape: Int, input: (count: Int, range: UInt64)) {
        let values = Self.values(input.count, in: input.range, seed: UInt64(input.count) &+ input.range)
        var repeats = RepeatedValues(limits: Self.shapes[shape].limits, runValues: Self.shapes[shape].run)
        for value in values { repeats.add(value) }
        #expect(repeats.repeated() == Self.expected(values), "\(Self.shapes[shape].name)")
        #expect(repeats.complete)
    }

    /// The extremes of the range sort and merge like any value (the runs hold them as raw bits).
    @Test func extremesAndNeighbours() {
        let values: [UInt64] = [.max, 0, .max, 1 << 63, (1 << 63) - 1, 1 << 63, 0, 7]
        var repeats = RepeatedValues(limits: .standard, runValues: 3)
        for value in values { repeats.add(value) }
        #expect(repeats.repeated() == [.max, 1 << 63, 0])
    }
}
