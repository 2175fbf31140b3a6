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
        let split = try #require(InlineBase64.split(record), "the writer's layout takes the direct path")
        #expect(split.inline == blob)
        let parsed = try #require(RemoteTier.parse(record))
        #expect(parsed.entry == entry)
        #expect(parsed.inline == blob)
        // Without the inline member: the same entry, no bytes.
        let plain = try #require(RemoteTier.parse(RemoteTier.record(url: "https://x/a", entry: entry)))
        #expect(plain.entry == entry && plain.inline == nil)
    }

    /// Records the direct path must not take: each is parsed whole, so the answer is the JSON parser's.
    @Test(arguments: [
        // Not canonical base64: a character outside the alphabet, a bad length, padding in the middle, non-zero
        // trailing bits ("QR==" decodes to the same byte as "QQ==" with leftover bits).
        #""inline":"QQ=A""#, #""inline":"QQ=""#, #""inline":"Q===""#, #""inline":"QR==""#, #""inline":"Q\u0051==""#,
        // A second inline member before the last.
        #""inline":"QUFB","inline":"QQ==""#,
        // Another member last.
        #""inline":"QQ==","note":"x""#,
    ])
    func anUnusualRecordIsParsedWhole(tail: String) throws {
        let entry = Self.entry([0x41])
        var record = RemoteTier.record(url: "https://cdn.example.com/a.png", entry: entry)
        record.removeLast()  // "}"
        record += Array(("," + tail + "}").utf8)
        // What the JSON parser makes of the whole record (a repeated member: the parser's pick).
        let member = try JSON.parse(record)["inline"]?.stringValue
        let expected = member.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
        #expect(
            (InlineBase64.split(record) != nil) == tail.contains(#","inline""#), "only the repeated member looks right")
        let parsed = RemoteTier.parse(record)
        #expect(parsed?.entry == entry)
        #expect(parsed?.inline == expected, "as the whole parse and Foundation decode it")
    }

    @Test func directDecodingMatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for size in 0..<200 {
            let blob = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Array(Data(blob).base64EncodedString().utf8)
            #expect(InlineBase64.decode(text[...]) == blob, "\(size) bytes")
        }
    }
}
