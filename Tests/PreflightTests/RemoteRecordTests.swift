import AssetStore
import Foundation
import StrictJSON
import Testing

@testable import Preflight

/// The asset records of the remote cache (`/ac/` entries) as ``RemoteTier`` writes and reads them: the inline copy
/// decoded from the record's bytes without the JSON parser must give exactly what the whole parse gives.
@Suite struct RemoteRecordTests {
    static func entry(_ blob: [UInt8]) -> StoreEntry {
        // Any 64 hex digits name a blob here: nothing is stored, only parsed.
        let sha256 = String(repeating: String(blob.count % 16, radix: 16), count: 64)
        return StoreEntry(
            blob: BlobRef(sha256: sha256, size: blob.count)!, contentType: "image/png", etag: "\"e\"",
            lastModified: nil, cacheControl: "max-age=60", fetchedAt: Date(timeIntervalSince1970: 1_800_000_000),
            httpStatus: 200)
    }

    /// Blob sizes that end the base64 with no, one and two padding characters, and the empty blob.
    @Test(arguments: [0, 1, 2, 3, 4, 5, 100, 16 << 10])
    func anInlineCopyRoundTrips(size: Int) throws {
        let blob = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let entry = Self.entry(blob)
        let record = RemoteTier.record(url: "https://cdn.example.com/a.png", entry: entry, inline: blob)
        let split = try #require(InlineMember.split(record), "the writer's layout takes the direct path")
        #expect(split.text.elementsEqual(Data(blob).base64EncodedString().utf8))
        let parsed = try #require(RemoteTier.parse(record))
        #expect(parsed.entry == entry)
        #expect(parsed.inline == blob)
        // Without the inline member: the same entry, no bytes.
        let plain = try #require(RemoteTier.parse(RemoteTier.record(url: "https://x/a", entry: entry)))
        #expect(plain.entry == entry && plain.inline == nil)
    }

    /// Records whose last member is not the writer's plain base64: whether the direct path finds the member, and that
    /// either way the answer is the JSON parser's (with Foundation's base64 decoding).
    @Test(arguments: [
        // Not canonical base64 (a character outside the alphabet, a bad length, padding in the middle, non-zero
        // trailing bits): found, then decoded as the whole parse would, or parsed whole.
        (#""inline":"QQ=A""#, true), (#""inline":"QQ=""#, true), (#""inline":"Q===""#, true),
        (#""inline":"QR==""#, true),
        // An escape in the string, a second inline member, another member last: parsed whole.
        (#""inline":"Q\u0051==""#, false), (#""inline":"QUFB","inline":"QQ==""#, false),
        (#""inline":"QQ==","note":"x""#, false),
    ])
    func anUnusualRecordIsParsedAsTheWholeParserWould(tail: String, found: Bool) throws {
        let entry = Self.entry([0x41])
        var record = RemoteTier.record(url: "https://cdn.example.com/a.png", entry: entry)
        record.removeLast()  // "}"
        record += Array(("," + tail + "}").utf8)
        // What the JSON parser makes of the whole record (a repeated member: the parser's pick).
        let member = try JSON.parse(record)["inline"]?.stringValue
        let expected = member.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
        #expect((InlineMember.split(record) != nil) == found)
        let parsed = RemoteTier.parse(record)
        #expect(parsed?.entry == entry)
        #expect(parsed?.inline == expected, "as the whole parse and Foundation decode it")
    }
}
