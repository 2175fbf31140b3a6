import Foundation
import Testing

@testable import AssetStore

/// The keyed-record area: whole records under hex keys, nothing outside `records/`.
@Suite struct RecordAreaTests {
    @Test func aRecordRoundTripsAndIsReplacedWhole() throws {
        let directory = TemporaryDirectory()
        let records = try AssetStore(directory: directory.path).records
        let key = String(repeating: "ab", count: 32)
        #expect(records.load(key) == nil)
        records.save(key, Data("first".utf8))
        #expect(records.load(key) == Data("first".utf8))
        records.save(key, Data("second, longer".utf8))
        #expect(records.load(key) == Data("second, longer".utf8))
        #expect(FileManager.default.fileExists(atPath: directory.path + "/records/ab/" + key))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/records/ab")
        #expect(names == [key], "no temporary file is left behind")
        records.save(key, Data())
        #expect(records.load(key) == Data())
    }

    @Test(arguments: [
        "", "abc", "../../../../etc/passwd", String(repeating: "A", count: 64),
        "zz" + String(repeating: "0", count: 30), String(repeating: "0", count: 130),
    ])
    func aKeyThatIsNotHexIsNeverAPath(_ key: String) throws {
        let directory = TemporaryDirectory()
        let records = try AssetStore(directory: directory.path).records
        records.save(key, Data("x".utf8))
        #expect(records.load(key) == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/records"))
    }
}
