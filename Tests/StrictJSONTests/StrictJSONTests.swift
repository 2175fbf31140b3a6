import StrictJSON
import Testing

struct ParseValidTests {
    @Test(
        arguments: [
            ("null", JSONValue.null),
            ("true", .bool(true)),
            (" false ", .bool(false)),
            ("0", .int(0)),
            ("-12", .int(-12)),
            ("\"\"", .string("")),
            ("\"héllo \\u00e9 \\ud83d\\ude00 \\n\\t\\\"\\\\\\/\"", .string("héllo é 😀 \n\t\"\\/")),
            ("[]", .array([])),
            ("{}", .object(JSONObject())),
            ("[1, [2, {\"a\": null}]]", [1, [2, ["a": nil]]]),
            ("{\"b\": 1, \"a\": \"x\"}", ["b": 1, "a": "x"]),
        ] as [(String, JSONValue)])
    func parses(text: String, expected: JSONValue) throws {
        #expect(try JSON.parse(text) == expected)
    }

    @Test(arguments: ["1.5", "-0.25e-3", "1E+10", "12345678901234567890", "0.0"])
    func keepsNumberText(text: String) throws {
        let value = try JSON.parse(text)
        #expect(value.numberValue?.text == text)
    }

    @Test func numberReadings() throws {
        #expect(try JSON.parse("42").numberValue?.intValue == 42)
        #expect(try JSON.parse("4.5").numberValue?.intValue == nil)
        #expect(try JSON.parse("4.5").numberValue?.doubleValue == 4.5)
        #expect(try JSON.parse("1e2").numberValue?.isInteger == false)
        #expect(try JSON.parse("99999999999999999999").numberValue?.intValue == nil)
    }

    @Test func objectKeepsOrderAndLastDuplicateWins() throws {
        let (value, warnings) = try JSON.parseDocument(Array(#"{"z": 1, "a": 2, "z": 3}"#.utf8))
        #expect(value.objectValue?.keys == ["z", "a", "z"])
        #expect(value["z"] == .int(3))
        #expect(warnings == [JSONWarning(kind: .duplicateKey("z"), line: 1, column: 18)])
    }

    @Test func duplicateKeysInLargeObjects() throws {
        let members = (0..<40).map { "\"k\($0)\": \($0)" } + ["\"k7\": 0"]
        let (_, warnings) = try JSON.parseDocument(Array(("{" + members.joined(separator: ",") + "}").utf8))
        #expect(warnings.map(\.kind) == [.duplicateKey("k7")])
    }

    @Test func byteOrderMarkIsAWarning() throws {
        let (value, warnings) = try JSON.parseDocument([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))
        #expect(value == [1])
        #expect(warnings.map(\.kind) == [.byteOrderMark])
    }

    @Test func trailingCommasOnlyWhenAllowed() throws {
        let text = Array("{\"a\": [1, 2,],\n \"b\": 1,}".utf8)
        #expect(throws: JSONParseError.self) { try JSON.parse(text) }
        let (value, warnings) = try JSON.parseDocument(text, options: .init(allowTrailingCommas: true))
        #expect(value == ["a": [1, 2], "b": 1])
        #expect(warnings.map(\.kind) == [.trailingComma, .trailingComma])
        #expect(warnings.map(\.line) == [1, 2])
    }

    @Test func accessors() throws {
        let value = try JSON.parse(#"{"s": "x", "n": 1, "b": true, "a": [1], "o": {}, "z": null}"#)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["n"]?.stringValue == nil)
        #expect(value["b"]?.boolValue == true)
        #expect(value["a"]?[0] == .int(1))
        #expect(value["a"]?[1] == nil)
        #expect(value["o"]?.objectValue?.isEmpty == true)
        #expect(value["z"]?.isNull == true)
        #expect(value["missing"] == nil)
        #expect(value["a"]?["x"] == nil)
        #expect(
            value.objectValue.map { $0.map(\.value.typeName) } == [
                "string", "number", "boolean", "array", "object", "null",
            ])
    }
}

struct ParseErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let kind: JSONParseError.Kind
        let line: Int
        let column: Int
        var testDescription: String { name }

        init(_ name: String, _ text: String, _ kind: JSONParseError.Kind, _ line: Int, _ column: Int) {
            self.init(name, Array(text.utf8), kind, line, column)
        }

        init(_ name: String, _ bytes: [UInt8], _ kind: JSONParseError.Kind, _ line: Int, _ column: Int) {
            self.name = name
            self.bytes = bytes
            self.kind = kind
            self.line = line
            self.column = column
        }
    }

    static let cases: [Case] = [
        Case("empty", "", .empty, 1, 1),
        Case("whitespace only", "  \n ", .empty, 2, 2),
        Case("unclosed object", "{\"a\": 1", .unexpectedEnd, 1, 8),
        Case("missing colon", "{\"a\" 1}", .unexpectedCharacter(UInt8(ascii: "1")), 1, 6),
        Case("single quotes", "{'a': 1}", .unexpectedCharacter(UInt8(ascii: "'")), 1, 2),
        Case("bad literal", "[tru]", .unexpectedCharacter(UInt8(ascii: "]")), 1, 5),
        Case("leading zero", "01", .trailingContent, 1, 2),
        Case("lone minus", "-", .invalidNumber, 1, 1),
        Case("dot without digits", "1.", .invalidNumber, 1, 1),
        Case("exponent without digits", "[1e]", .invalidNumber, 1, 2),
        Case("second line", "{\n  \"a\": x\n}", .unexpectedCharacter(UInt8(ascii: "x")), 2, 8),
        Case("trailing content", "{} {}", .trailingContent, 1, 4),
        Case("raw newline in string", "\"a\nb\"", .controlCharacterInString, 1, 3),
        Case("bad escape", #""\x""#, .invalidEscape, 1, 2),
        Case("lone low surrogate", #""\udc00""#, .invalidEscape, 1, 2),
        Case("high surrogate without low", #""\ud800x""#, .invalidEscape, 1, 2),
        Case("short unicode escape", #""\u12"#, .unexpectedEnd, 1, 6),
        Case("unterminated string", "\"abc", .unexpectedEnd, 1, 5),
        Case("invalid UTF-8 in string", [0x22, 0x61, 0xFF, 0x22], .invalidUTF8, 1, 3),
        Case("overlong UTF-8", [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, 1, 2),
        Case("UTF-16 surrogate in UTF-8", [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, 1, 2),
        Case("truncated UTF-8", [0x22, 0xE2, 0x82], .invalidUTF8, 1, 2),
        Case("invalid UTF-8 outside string", [0x5B, 0xFE, 0x5D], .invalidUTF8, 1, 2),
        Case("trailing comma by default", "[1,]", .unexpectedCharacter(UInt8(ascii: "]")), 1, 4),
        Case("comma only", "[,]", .unexpectedCharacter(UInt8(ascii: ",")), 1, 2),
        Case("NaN", "NaN", .unexpectedCharacter(UInt8(ascii: "N")), 1, 1),
    ]

    @Test(arguments: cases)
    func reportsKindAndPosition(testCase: Case) {
        #expect(throws: JSONParseError.self) { try JSON.parse(testCase.bytes) }
        do {
            _ = try JSON.parse(testCase.bytes)
        } catch {
            #expect(error.kind == testCase.kind)
            #expect(error.line == testCase.line)
            #expect(error.column == testCase.column)
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep =
            Array(repeating: UInt8(ascii: "["), count: 10_000) + Array(repeating: UInt8(ascii: "]"), count: 10_000)
        do {
            _ = try JSON.parse(deep)
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .tooDeep(512))
            #expect(error.description == "line 1, column 513: nesting deeper than 512 levels")
        }
        let ok = Array(repeating: UInt8(ascii: "["), count: 512) + Array(repeating: UInt8(ascii: "]"), count: 512)
        #expect((try? JSON.parse(ok)) != nil)
    }

    @Test func sizeLimit() {
        #expect(throws: JSONParseError(kind: .tooLarge(4), line: 1, column: 1, offset: 0)) {
            try JSON.parse("[1, 2]", options: .init(maxInputBytes: 4))
        }
    }

    @Test func hugeStringIsFine() throws {
        let big = String(repeating: "é", count: 1_000_000)
        #expect(try JSON.parse("\"" + big + "\"").stringValue?.count == 1_000_000)
    }

    @Test func everyPrefixOfAValidDocumentFailsCleanly() {
        let text = Array(#"{"a": [1, -2.5e3, "x\u00e9\n", true, null, {"b": false}], "é": "ü"}"#.utf8)
        for end in 0..<text.count {
            #expect(throws: JSONParseError.self) { try JSON.parse(Array(text[..<end])) }
        }
        #expect((try? JSON.parse(text)) != nil)
    }
}

struct SerializeTests {
    @Test func compact() {
        let value: JSONValue = ["b": 1, "a": [true, nil, "x\"y\\z\n\u{01}é"], "c": .double(1.5), "d": .double(2)]
        #expect(value.serialized() == #"{"b":1,"a":[true,null,"x\"y\\z\n\u0001é"],"c":1.5,"d":2}"#)
    }

    @Test func pretty() {
        let value: JSONValue = ["a": [1, 2], "b": [:], "c": []]
        #expect(value.serialized(pretty: true) == "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {},\n  \"c\": []\n}")
    }

    @Test func nonFiniteDoublesBecomeNull() {
        #expect(JSONValue.double(.infinity) == .null)
        #expect(JSONValue.double(.nan).serialized() == "null")
    }

    @Test(arguments: [
        #"{"a":[1,2.5,-3e-2,"\u0000",{"":null}],"b":"😀"}"#,
        #"[[[[]]],{},"",0]"#,
    ])
    func roundTrips(text: String) throws {
        let value = try JSON.parse(text)
        #expect(try JSON.parse(value.serialized()) == value)
        #expect(try JSON.parse(value.serialized(pretty: true)) == value)
    }

    @Test func objectEditing() {
        var object = JSONObject([("a", 1), ("b", 2)])
        object["a"] = 10
        object["c"] = 3
        object["b"] = nil
        #expect(JSONValue.object(object).serialized() == #"{"a":10,"c":3}"#)
    }
}
