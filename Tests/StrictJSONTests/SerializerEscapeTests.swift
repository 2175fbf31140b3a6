import Foundation
import StrictJSON
import Testing

/// The serializer copies runs of bytes that need no escape in one append (a `make bench` finding); these cases put
/// escapes at the edges of runs, next to each other and inside multi-byte UTF-8, where a run boundary could slip.
@Suite struct SerializerEscapeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let string: String
        let json: String
        var testDescription: String { name }
    }

    static let long = String(repeating: "x", count: 1_000)
    static let cases: [Case] = [
        Case(name: "empty", string: "", json: #""""#),
        Case(name: "plain only", string: "https://cdn.example.com/a.png", json: #""https://cdn.example.com/a.png""#),
        Case(name: "escape first", string: "\"ab", json: #""\"ab""#),
        Case(name: "escape last", string: "ab\\", json: #""ab\\""#),
        Case(name: "only escapes", string: "\"\\\n\r\t", json: #""\"\\\n\r\t""#),
        Case(name: "control bytes", string: "a\u{0}b\u{1F}c", json: #""a\u0000b\u001fc""#),
        Case(name: "escape between multi-byte", string: "é\"😀\n日本", json: "\"é\\\"😀\\n日本\""),
        Case(name: "DEL and non-ASCII stay raw", string: "\u{7F}ü", json: "\"\u{7F}ü\""),
        Case(name: "long run then escape", string: long + "\"", json: "\"" + long + "\\\"\""),
    ]

    @Test(arguments: cases)
    func escapes(_ row: Case) throws {
        #expect(JSONValue.string(row.string).serialized() == row.json)
        #expect(try JSON.parse(row.json) == .string(row.string))
    }

    /// A bridged NSString may not offer contiguous UTF-8: the byte-by-byte path must give the same text.
    @Test func bridgedStringMatchesNative() {
        let native = "tab\there \"quoted\" é 😀 \u{1}"
        let bridged = NSString(string: native) as String
        #expect(JSONValue.string(bridged).serialized() == JSONValue.string(native).serialized())
    }

    @Test func objectMembersKeepTheirOrderThroughTheIterator() {
        let object = JSONObject([("z", 1), ("a", 2), ("z", 3)])
        #expect(object.map(\.key) == ["z", "a", "z"])
        #expect(JSONValue.object(object).serialized() == #"{"z":1,"a":2,"z":3}"#)
    }
}
