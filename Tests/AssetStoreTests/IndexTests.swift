import AssetStore
import Foundation
import Glibc
import Testing

/// Ways an index log gets damaged, each applied to a log holding three good records (u1, u2, u3).
enum LogDamage: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case tornTail, tornHeader, tornThenAppendedByAnotherProcess, zeroFilledTail, flippedByteInSecondRecord,
        garbageLine, lengthShorterThanBody, invalidRecordJSON

    var testDescription: String { rawValue }

    /// How many of u1…u3 (and u4, appended after the damage by some cases) remain readable.
    var readableURLs: [String] {
        switch self {
        case .flippedByteInSecondRecord, .lengthShorterThanBody: ["u1", "u3"]
        case .tornThenAppendedByAnotherProcess: ["u1", "u2", "u3", "u4"]
        default: ["u1", "u2", "u3"]
        }
    }

    /// What verify calls the damage: torn records are crash debris (warning), the rest corruption (error).
    var expectedKind: StoreProblem.Kind {
        switch self {
        case .tornTail, .tornHeader, .tornThenAppendedByAnotherProcess, .zeroFilledTail: .tornRecord
        default: .corruptRecord
        }
    }

    func apply(to log: [UInt8]) -> [UInt8] {
        let lines = log.split(separator: 0x0a).map(Array.init)
        switch self {
        case .tornTail: return log + [0x0a] + lines[2].prefix(lines[2].count / 2)
        case .tornHeader: return log + Array("\nIA".utf8)
        case .tornThenAppendedByAnotherProcess: return log + [0x0a] + lines[1].prefix(lines[1].count - 9)
        case .zeroFilledTail: return log + [UInt8](repeating: 0, count: 4096)
        case .flippedByteInSecondRecord:
            var second = lines[1]
            second[second.count - 5] ^= 0x01
            return [0x0a] + lines[0] + [0x0a, 0x0a] + second + [0x0a, 0x0a] + lines[2] + [0x0a]
        case .garbageLine: return log + Array("\nhello, this is not a record\n".utf8)
        case .lengthShorterThanBody:
            var text = String(decoding: lines[1], as: UTF8.self)
            let parts = text.split(separator: " ", maxSplits: 2)
            text = "IA1 \(Int(parts[1])! - 1) " + parts[2]
            return [0x0a] + lines[0] + [0x0a, 0x0a] + Array(text.utf8) + [0x0a, 0x0a] + lines[2] + [0x0a]
        case .invalidRecordJSON:
            // A well-formed line whose checksum is right but whose JSON is not a record: only a buggy
            // writer makes this, and the reader must still not trust it.
            let body = Array("{\"op\":\"put\",\"url\":\"u9\"}".utf8)
            let checksum = (try? coreutilsSHA256(body))?.prefix(16) ?? ""
            return log + Array("\nIA1 \(body.count) \(checksum) ".utf8) + body + [0x0a]
        }
    }
}

struct IndexTests {
    @Test(arguments: LogDamage.allCases)
    func damagedRecordsAreSkippedCountedAndReported(_ damage: LogDamage) throws {
        let directory = TemporaryDirectory()
        let logPath = directory.path + "/index/records.log"
        do {
            // Let go before the gc below: an open store holds its blobs, the damaged record's orphan too.
            let store = try AssetStore(directory: directory.path)
            for (index, url) in ["u1", "u2", "u3"].enumerated() { try ingest(store, url: url, [UInt8(index)]) }
            try writeFile(logPath, damage.apply(to: fileBytes(logPath)))
            if damage == .tornThenAppendedByAnotherProcess { try ingest(store, url: "u4", [4]) }
        }

        let fresh = try AssetStore(directory: directory.path)
        #expect(try fresh.list().map(\.url) == damage.readableURLs)
        #expect(try fresh.stats().damagedRecords == 1)
        let report = try fresh.verify()
        let recordProblems = report.problems.filter { $0.kind == .tornRecord || $0.kind == .corruptRecord }
        #expect(recordProblems.map(\.kind) == [damage.expectedKind])
        #expect(report.isClean == (damage.expectedKind == .tornRecord))
        #expect(recordProblems.first?.path.hasPrefix(logPath + "@") == true)

        // gc compacts the damage away and keeps every readable entry.
        let gc = try fresh.gc(orphanGrace: .zero)
        #expect(gc.compacted)
        let after = try fresh.verify()
        #expect(after.isSpotless, "\(after.problems)")
        #expect(try fresh.list().map(\.url) == damage.readableURLs)
    }

    @Test func cachedViewIgnoresAnUnfinishedTailUntilItCompletes() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        try ingest(store, url: "u1", [1])
        let logPath = directory.path + "/index/records.log"
        let complete = fileBytes(logPath)
        try ingest(store, url: "u2", [2])
        let both = fileBytes(logPath)
        let second = Array(both[complete.count...])
        // Another process is half-way through writing u2's record.
        try writeFile(logPath, complete + second.prefix(second.count / 2))
        let reader = try AssetStore(directory: directory.path)
        #expect(try reader.list().map(\.url) == ["u1"])
        try writeFile(logPath, both)
        #expect(try reader.list().map(\.url) == ["u1", "u2"])
    }

    @Test func aLogReplacedUnderTheSameInodeIsNoticed() throws {
        // File systems reuse inode numbers, so a compacted log can look like the file a reader cached.
        let directory = TemporaryDirectory()
        let reader = try AssetStore(directory: directory.path)
        try ingest(reader, url: "https://a.test/1", [1])
        try ingest(reader, url: "https://a.test/2", [2])
        #expect(try reader.list().count == 2)

        let other = TemporaryDirectory()
        let writer = try AssetStore(directory: other.path)
        for index in 3..<9 { try ingest(writer, url: "https://a.test/\(index)", [UInt8(index)]) }
        try writer.remove("https://a.test/8")
        #expect(try writer.gc(orphanGrace: .zero).compacted)
        let compacted = fileBytes(other.path + "/index/records.log")

        let logPath = directory.path + "/index/records.log"
        let fd = open(logPath, O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        _ = compacted.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #expect(try reader.list().map(\.url) == (3..<8).map { "https://a.test/\($0)" })
    }

    @Test func touchMovesLastAccessForward() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        try ingest(store, url: "https://a.test/1", [1])
        let later = Date().addingTimeInterval(3_600)
        try store.touch("https://a.test/1", at: later)
        try store.touch("https://a.test/1", at: later.addingTimeInterval(-7_200))
        let listed = try #require(try store.list().first)
        #expect(abs(listed.lastAccess.timeIntervalSince(later)) < 0.001)
        try store.touch("https://unknown.test/")
        #expect(try store.list().count == 1)
    }

    @Test func listingJSONRedactsSecrets() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        try ingest(store, url: "https://cdn.test/a.png?token=s3cret&w=2", [1])
        let listed = try #require(try store.list().first)
        let text = listed.json.serialized()
        #expect(!text.contains("s3cret"))
        #expect(listed.json["url"]?.stringValue == "https://cdn.test/a.png?token=REDACTED&w=2")
        #expect(listed.url == "https://cdn.test/a.png?token=s3cret&w=2")
    }
}
