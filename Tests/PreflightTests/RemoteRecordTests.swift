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

    /// The writer's layout: a JSON header saying `inlineBytes`, a newline, the blob as it is (newlines and all).
    @Test(arguments: [0, 1, 2, 3, 100, 16 << 10])
    func anInlineCopyRoundTrips(size: Int) throws {
        let blob = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } + (size > 2 ? [0x0A, 0x7B] : [])
        let entry = Self.entry(blob)
        let record = RemoteTier.record(url: "https://cdn.example.com/a.png", entry: entry, inline: blob)
        let newline = try #require(record.firstIndex(of: 0x0A))
        let header = try JSON.parse(Array(record[..<newline]))
        #expect(header["inlineBytes"]?.numberValue?.intValue == blob.count)
        #expect(header["inline"] == nil)
        #expect(Array(record[(newline + 1)...]) == blob)
        let parsed = try #require(RemoteTier.parse(record))
        #expect(parsed.entry == entry)
        #expect(parsed.inline.map(Array.init) == blob)
        // Without the inline copy: JSON alone, the same entry, no bytes.
        let plain = RemoteTier.record(url: "https://x/a", entry: entry)
        #expect(!plain.contains(0x0A))
        let parsedPlain = try #require(RemoteTier.parse(plain))
        #expect(parsedPlain.entry == entry && parsedPlain.inline == nil)
    }

    /// Records of earlier versions carry the copy as base64 in an `"inline"` member: still read, the writer's old
    /// layout (the member last) straight from the record's bytes. Blob sizes end the base64 with no, one and two
    /// padding characters.
    @Test(arguments: [0, 1, 2, 3, 4, 5, 100, 16 << 10])
    func aBase64InlineCopyOfAnEarlierVersionIsRead(size: Int) throws {
        let blob = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let entry = Self.entry(blob)
        var record = RemoteTier.record(url: "https://cdn.example.com/a.png", entry: entry)
        record.removeLast()  // "}"
        record += Array(#","inline":"\#(Data(blob).base64EncodedString())"}"#.utf8)
        let split = try #require(InlineMember.split(record), "the old writer's layout takes the direct path")
        #expect(split.text.elementsEqual(Data(blob).base64EncodedString().utf8))
        let parsed = try #require(RemoteTier.parse(record))
        #expect(parsed.entry == entry)
        #expect(parsed.inline.map(Array.init) == blob)
    }

    /// Framed records that are not what the writer writes.
    enum Oddity: String, CaseIterable, Sendable {
        case bodyShort, bodyLong, noBody, countNotANumber, base64MemberToo, prettyJSONWithoutCopy

        /// The record made from the writer's header and blob.
        func record(header: String, blob: [UInt8]) -> [UInt8] {
            switch self {
            case .bodyShort: return Array((header + "\n").utf8) + blob.dropLast()
            case .bodyLong: return Array((header + "\n").utf8) + blob + [0]
            case .noBody: return Array(header.utf8)
            case .countNotANumber:
                let quoted = header.replacingOccurrences(of: #""inlineBytes":3"#, with: #""inlineBytes":"3""#)
                return Array((quoted + "\n").utf8) + blob
            case .base64MemberToo: return Array((header.dropLast() + #","inline":"QUJD"}"# + "\n").utf8) + blob
            case .prettyJSONWithoutCopy:
                let plain = header.replacingOccurrences(of: #","inlineBytes":3"#, with: "")
                return Array(plain.replacingOccurrences(of: ",", with: ",\n  ").utf8)
            }
        }

        /// Only a plain JSON record (no copy) is usable; the rest are misses.
        var usable: Bool { self == .prettyJSONWithoutCopy }
    }

    @Test(arguments: Oddity.allCases)
    func anOddFramedRecordIsAMissUnlessItIsPlainJSON(_ oddity: Oddity) throws {
        let blob: [UInt8] = [0x41, 0x0A, 0x42]
        let entry = Self.entry(blob)
        let framed = RemoteTier.record(url: "https://cdn.example.com/a.png", entry: entry, inline: blob)
        let header = String(decoding: framed[..<framed.firstIndex(of: 0x0A)!], as: UTF8.self)
        let parsed = RemoteTier.parse(oddity.record(header: header, blob: blob))
        #expect((parsed != nil) == oddity.usable)
        if oddity.usable { #expect(parsed?.entry == entry && parsed?.inline == nil) }
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
        #expect(parsed?.inline.map(Array.init) == expected, "as the whole parse and Foundation decode it")
    }
}
