import HTTPFetch
import Testing

@testable import Preflight

/// ``RemotePack``: which records share a pack (the same on every runner, and local to a change) and the pack's layout.
@Suite("Remote record packs")
struct RemotePackTests {
    static func keys(_ range: Range<Int>, prefix: String = "https://cdn.example.com/img-") -> [String] {
        range.map { RemoteTier.key("\(prefix)\($0).png") }
    }

    @Test func everyKeyFallsInOneChunkCutAfterACutKeyOrAtTheMost() {
        let keys = Self.keys(0..<6_000)
        let chunks = RemotePack.chunks(of: keys + keys[0..<100])  // repeats count once
        #expect(chunks.flatMap { $0 } == Set(keys).sorted(), "in order, each key once")
        #expect(chunks.count > 3, "\(chunks.count) chunks")
        for (index, chunk) in chunks.enumerated() {
            #expect(!chunk.isEmpty && chunk.count <= RemotePack.maxRecords)
            #expect(chunk.dropLast().allSatisfy { !RemotePack.isCut($0) }, "a cut key ends its chunk")
            if index < chunks.count - 1 {
                #expect(RemotePack.isCut(chunk.last!) || chunk.count == RemotePack.maxRecords)
            }
        }
        #expect(RemotePack.chunks(of: []).isEmpty)
        #expect(RemotePack.chunks(of: keys.shuffled()) == chunks, "the order the plan lists them in does not matter")
    }

    @Test(arguments: [
        ("000", true), ("200", true), ("e00", true), ("001", false), ("100", false), ("fff", false), ("zzz", false),
    ])
    func aKeyIsACutWhenItsLastThreeHexDigitsAreAMultipleOf512(suffix: String, cut: Bool) {
        #expect(RemotePack.isCut(String(repeating: "a", count: 61) + suffix) == cut)
    }

    /// Adding one URL to a plan changes the chunk it falls in (two, when it is a cut key and splits one), and leaves
    /// every other chunk — and so every other pack — as it was.
    @Test func addingOneURLChangesOnlyItsOwnChunk() {
        let base = Self.keys(0..<3_000)
        let before = RemotePack.chunks(of: base)
        var checked = 0
        for extra in Self.keys(0..<200, prefix: "https://cdn.example.com/new-") {
            let after = RemotePack.chunks(of: base + [extra])
            // A forced cut (a chunk of maxRecords keys) can move with the change; not what this test is about.
            guard !(before + after).contains(where: { $0.count == RemotePack.maxRecords }) else { continue }
            checked += 1
            let added = Set(after).subtracting(before)
            let removed = Set(before).subtracting(after)
            #expect(removed.count == 1, "one chunk replaced")
            #expect(added.count == (RemotePack.isCut(extra) ? 2 : 1))
            #expect(added.allSatisfy { $0.contains(extra) || RemotePack.isCut(extra) })
            #expect(Set(added.flatMap { $0 }) == Set(removed.flatMap { $0 } + [extra]))
        }
        #expect(checked > 100, "\(checked) samples")
    }

    @Test func aPackKeyIsTheDigestOfItsChunk() {
        let chunk = Self.keys(0..<40).sorted()
        #expect(RemotePack.key(of: chunk) == RemotePack.key(of: chunk))
        #expect(RemotePack.key(of: chunk) != RemotePack.key(of: Array(chunk.dropLast())))
        #expect(RemotePack.key(of: chunk).count == 64)
    }

    @Test func aPackRoundTripsItsRecordsByteForByte() {
        let keys = Self.keys(0..<5)
        let records: [[UInt8]] = [
            Array("{\"a\":1}".utf8), [], Array("{\"b\":2}\n".utf8) + [0, 10, 13, 255, 10], [10, 10, 10],
            Array(repeating: 0x41, count: 70_000),
        ]
        let pack = RemotePack.encode(Array(zip(keys, records)).map { (key: $0.0, record: $0.1) })
        let decoded = RemotePack.decode(pack)
        #expect(decoded.count == keys.count)
        for (key, record) in zip(keys, records) { #expect(decoded[key].map(Array.init) == record) }
        #expect(RemotePack.decode(RemotePack.encode([])).isEmpty)
    }

    /// What is left of a pack that is not one, cut short or damaged: the whole records before the damage. (Bytes lost
    /// in the middle would shift what follows into the lost record's length: such a record is not whole, and is
    /// refused as a damaged `/ac/` record would be — its header does not parse, or its inline copy fails its SHA-256.)
    @Test(arguments: [
        ("not a pack", "hello", 0),
        ("another version", "inbox-assets pack 2\n", 0),
        ("cut in the second record's line", "A B 1 C", 1),
        ("cut in the second record's bytes", "A B 2", 1),
        ("a length that is not a number", "A X", 1),
        ("a key in capitals", "A U", 1),
        ("a short key", "A S", 1),
        ("the same key twice", "A A", 1),
        ("three good records", "A B C", 3),
    ])
    func aDamagedPackKeepsTheWholeRecordsBeforeTheDamage(name: String, layout: String, kept: Int) {
        let keys = Self.keys(0..<3)
        let records = [Array("first".utf8), Array("second record".utf8), Array("third".utf8)]
        func frame(_ index: Int) -> [UInt8] { Array("\(keys[index]) \(records[index].count)\n".utf8) + records[index] }
        var bytes: [UInt8] = []
        if !layout.hasPrefix("inbox-assets") && layout != "hello" { bytes = Array("inbox-assets pack 1\n".utf8) }
        let parts = layout.split(separator: " ")
        if layout == "hello" || layout.hasPrefix("inbox-assets") {
            bytes = Array(layout.utf8) + (layout == "hello" ? [] : frame(0))
        } else {
            for (position, part) in parts.enumerated() {
                switch part {
                case "A": bytes += frame(0)
                case "B": bytes += frame(1)
                case "C": bytes += frame(2)
                case "1": bytes.removeLast(records[1].count + 3)  // into the line `KEY LENGTH\n`
                case "2": bytes.removeLast(4)  // into the record's bytes
                case "X": bytes += Array("\(keys[1]) 1x\n".utf8) + records[1]
                case "U": bytes += Array("\(keys[1].uppercased()) \(records[1].count)\n".utf8) + records[1]
                case "S": bytes += Array("\(keys[1].dropLast()) \(records[1].count)\n".utf8) + records[1]
                default: Issue.record("part \(part) at \(position)")
                }
            }
        }
        let decoded = RemotePack.decode(bytes)
        #expect(decoded.count == kept, "\(name)")
        for (key, record) in zip(keys, records) where decoded[key] != nil {
            #expect(decoded[key].map(Array.init) == record, "\(name): a record is whole or absent")
        }
    }
}
