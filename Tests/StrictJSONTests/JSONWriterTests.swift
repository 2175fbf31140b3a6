import StrictJSON
import Testing

/// `JSONWriter` must give the bytes `serialized(pretty:)` gives for the same tree: reports are pinned byte for byte,
/// and the CLI streams them through the writer while `check` still builds trees.
@Suite struct JSONWriterTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let value: JSONValue
        var testDescription: String { name }
    }

    static let hostile = "quote \" backslash \\ slash / nul \u{0} bell \u{7} esc \u{1B} del \u{7F} tab \t cr \r lf \n"
    static let cases: [Case] = [
        Case(name: "null", value: .null),
        Case(name: "booleans", value: [true, false]),
        Case(
            name: "numbers as written",
            value: [0, 7, 10, -3, 123_456_789, .number(try! JSON.parse("1.5e3").numberValue!)]),
        Case(name: "empty string", value: ""),
        Case(name: "hostile string", value: .string(hostile)),
        Case(name: "non-ASCII", value: "é 日本 😀 \u{2028} \u{0600} e\u{301}"),
        Case(name: "only escapes", value: "\"\\\n\r\t\u{1}"),
        Case(name: "long run then escape", value: .string(String(repeating: "x", count: 70_000) + "\"")),
        Case(name: "empty containers", value: ["a": [], "b": [:], "c": [[], [:], [[]]]]),
        Case(
            name: "hostile keys",
            value: .object(JSONObject([(hostile, 1), ("", 2), ("😀", [3]), ("dup", 4), ("dup", 5)]))),
        Case(
            name: "nested",
            value: [
                "cards": [
                    ["id": "a#[0]", "assets": [["role": "heroImage", "index": nil, "url": "https://x/a.png"]]],
                    ["id": "b", "findings": [], "n": [1, [2, [3, [:]]]]],
                ]
            ]),
        Case(name: "deep", value: (0..<40).reduce(JSONValue.string("leaf")) { inner, _ in ["k": [inner]] }),
    ]

    /// Writes `value` event by event (containers opened and closed, members keyed), the way report writers do.
    static func emit(_ value: JSONValue, to writer: inout JSONWriter) {
        switch value {
        case .null: writer.null()
        case .bool(let flag): writer.bool(flag)
        case .number(let number):
            if let int = number.intValue, String(int) == number.text { writer.int(int) } else { writer.value(value) }
        case .string(let text): writer.string(text)
        case .array(let elements):
            writer.beginArray()
            for element in elements { emit(element, to: &writer) }
            writer.endArray()
        case .object(let object):
            writer.beginObject()
            for (key, member) in object {
                writer.key(string: key)
                emit(member, to: &writer)
            }
            writer.endObject()
        }
    }

    static func text(_ writer: borrowing JSONWriter) -> String { String(decoding: writer.bytes, as: UTF8.self) }

    @Test(arguments: cases, [false, true])
    func eventsGiveTheSerializedBytes(_ row: Case, pretty: Bool) {
        var writer = JSONWriter(pretty: pretty)
        Self.emit(row.value, to: &writer)
        #expect(Self.text(writer) == row.value.serialized(pretty: pretty))
    }

    /// `value(_:)` inside containers indents a whole subtree as the serializer does at that depth.
    @Test(arguments: cases, [false, true])
    func wholeValuesNestInside(_ row: Case, pretty: Bool) {
        var writer = JSONWriter(pretty: pretty)
        writer.beginObject()
        writer.key("first")
        writer.value(row.value)
        writer.key("list")
        writer.beginArray()
        writer.value(row.value)
        writer.value(row.value)
        writer.endArray()
        writer.endObject()
        let tree: JSONValue = ["first": row.value, "list": [row.value, row.value]]
        #expect(Self.text(writer) == tree.serialized(pretty: pretty))
    }

    /// Chunks handed to the sink join to the same text, whatever the chunk size.
    @Test(arguments: [1, 7, 64, 1 << 16])
    func chunksJoinToTheWholeText(threshold: Int) {
        let value: JSONValue = .array(Self.cases.map(\.value))
        var joined: [UInt8] = []
        var chunks = 0
        var writer = JSONWriter(pretty: true, flushThreshold: threshold) { chunk in
            joined.append(contentsOf: chunk)
            chunks += 1
        }
        Self.emit(value, to: &writer)
        writer.raw("\n")
        writer.flush()
        #expect(writer.bytes.isEmpty)
        #expect(String(decoding: joined, as: UTF8.self) == value.serialized(pretty: true) + "\n")
        #expect(threshold > 1000 || chunks > 1)
    }

    /// Keys written in the code take the unescaped fast path; one that needs escapes still comes out escaped.
    @Test func staticKeysMatchRunTimeKeys() {
        var fast = JSONWriter(pretty: true)
        var slow = JSONWriter(pretty: true)
        fast.beginObject()
        slow.beginObject()
        fast.key("plain")
        slow.key(string: "plain")
        fast.int(1)
        slow.int(1)
        fast.key("needs \"escape\"\n")
        slow.key(string: "needs \"escape\"\n")
        fast.string(nil)
        slow.null()
        fast.endObject()
        slow.endObject()
        #expect(Self.text(fast) == Self.text(slow))
        #expect(Self.text(fast) == #"{"# + "\n" + #"  "plain": 1,"# + "\n" + #"  "needs \"escape\"\n": null"# + "\n}")
    }
}

/// `JSONDocumentParser` reuses its buffers between documents: every result must equal a fresh parse, also after
/// a document that failed half-way.
@Suite struct JSONDocumentParserTests {
    static let documents: [String] = [
        #"{"inbox_id":"m1","action_params":"{\"displayType\":\"banner\"}","n":[1,2,{"a":[]}]}"#,
        #"{"a": 1, "a": 2}"#,
        #"[1, 2"#,
        #"{"deep": [[[[{"x": "é\u00e9\ud83d\ude00"}]]]]}"#,
        #"{"k": "unterminated"#,
        "\u{FEFF}{\"bom\": true}",
        #"{"bad": "\x"}"#,
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        #"{"after": "errors", "list": [1, 2, 3], "obj": {"z": null}}"#,
        "",
    ]

    static func parse(_ text: String, with parser: inout JSONDocumentParser) -> String {
        let bytes = Array(text.utf8)
        let result: Result<(value: JSONValue, warnings: [JSONWarning]), JSONParseError> = bytes.withUnsafeBytes {
            raw in Result { () throws(JSONParseError) in try parser.parseDocument(raw) }
        }
        return describe(result)
    }

    static func describe(_ result: Result<(value: JSONValue, warnings: [JSONWarning]), JSONParseError>) -> String {
        switch result {
        case .success(let document): "\(document.value.serialized()) \(document.warnings)"
        case .failure(let error): "error \(error)"
        }
    }

    @Test func everyDocumentParsesAsAFreshParse() {
        var parser = JSONDocumentParser()
        for _ in 0..<2 {
            for text in Self.documents {
                let fresh = Self.describe(
                    Result { () throws(JSONParseError) in try JSON.parseDocument(Array(text.utf8)) })
                #expect(Self.parse(text, with: &parser) == fresh, "\(text.prefix(40))")
            }
        }
    }
}

@Suite struct JSONObjectTests {
    @Test func membersKeepOrderDuplicatesAndLastWins() {
        var object = JSONObject([("b", 1), ("a", 2), ("b", 3)])
        #expect(object.keys == ["b", "a", "b"])
        #expect(object["b"] == 3)
        object["b"] = 4
        #expect(object.map(\.value) == [1, 2, 4])
        object["b"] = nil
        #expect(object.keys == ["b", "a"])
        object["c"] = "x"
        #expect(JSONValue.object(object).serialized() == #"{"b":1,"a":2,"c":"x"}"#)
    }

    @Test func equalityAndHashFollowTheMembers() {
        let one = JSONObject([("a", 1), ("b", [true])])
        let same = JSONObject([("a", 1), ("b", [true])])
        #expect(one == same && one.hashValue == same.hashValue)
        #expect(one != JSONObject([("b", [true]), ("a", 1)]))
        #expect(one != JSONObject([("a", 1)]))
        #expect(try! JSON.parse(#"{"a":1,"b":[true]}"#) == .object(one))
    }
}
