import StrictJSON
import Testing

/// `JSONWriter(omitsNullMembers:marksMembers:)`: what the check report's `messages` are made of.
@Suite struct CompactMembersTests {
    /// Drops every null member, recursively (what the null-omitting writer should give for `value`).
    static func withoutNullMembers(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): .array(elements.map(withoutNullMembers))
        case .object(let object):
            .object(JSONObject(object.filter { $0.value != .null }.map { ($0.key, withoutNullMembers($0.value)) }))
        default: value
        }
    }

    /// Every case of the writer's table, written event by event, keys at run time and in the code.
    @Test(arguments: JSONWriterTests.cases)
    func nullMembersAreLeftOut(_ row: JSONWriterTests.Case) {
        var writer = JSONWriter(omitsNullMembers: true)
        JSONWriterTests.emit(row.value, to: &writer)
        #expect(JSONWriterTests.text(writer) == Self.withoutNullMembers(row.value).serialized())
    }

    @Test func codeKeysAndWholeValues() {
        var writer = JSONWriter(omitsNullMembers: true)
        writer.beginObject()
        writer.key("a")
        writer.null()
        writer.key("b")
        writer.string(String?.none)
        writer.key("c")
        writer.int(1)
        writer.key("d")
        writer.value(.null)
        writer.key("e")
        // A whole value is written as it is, its own nulls kept (a custom payload is the app's data).
        writer.value(["x": .null])
        writer.key("f")
        writer.bool(Bool?.none)
        writer.endObject()
        #expect(JSONWriterTests.text(writer) == #"{"c":1,"e":{"x":null}}"#)
        writer.removeAll()
        writer.beginArray()
        writer.null()  // an element is not a member: kept
        writer.endArray()
        #expect(JSONWriterTests.text(writer) == "[null]")
    }

    /// Every writer case that is an object, written twice in a row with marks: each mark starts a top-level member
    /// whose key and value texts (up to the next mark's comma or the closing brace) are its member's.
    @Test(arguments: JSONWriterTests.cases, [false, true])
    func marksStartEachTopLevelMember(_ row: JSONWriterTests.Case, omittingNulls: Bool) throws {
        guard case .object = row.value else { return }
        let value = omittingNulls ? Self.withoutNullMembers(row.value) : row.value
        guard case .object(let object) = value else { return }
        var writer = JSONWriter(omitsNullMembers: omittingNulls, marksMembers: true)
        JSONWriterTests.emit(row.value, to: &writer)
        let end = writer.count
        JSONWriterTests.emit(row.value, to: &writer)
        let bytes = writer.bytes
        #expect(writer.memberMarks.count == 2 * object.count)
        let ends = [end, bytes.count]
        let members = Array(object)
        for (index, mark) in writer.memberMarks.enumerated() {
            let (key, member) = (members[index % members.count].key, members[index % members.count].value)
            let objectEnd = ends[index / object.count]
            let next = index + 1 < writer.memberMarks.count ? writer.memberMarks[index + 1].key : bytes.count
            let valueEnd = min(next, objectEnd) - 1
            #expect(try JSON.parse(Array(bytes[mark.key..<mark.value - 1])) == .string(key))
            #expect(String(decoding: bytes[mark.value..<valueEnd], as: UTF8.self) == member.serialized())
        }
        writer.removeAll()
        #expect(writer.memberMarks.isEmpty && writer.count == 0)
    }

    /// Members of nested objects and of objects in arrays are not marked; a writer without marks keeps none.
    @Test func onlyTopLevelMembersAreMarked() {
        var writer = JSONWriter(marksMembers: true)
        writer.beginArray()
        writer.beginObject()
        writer.key("a")
        writer.int(1)
        writer.endObject()
        writer.endArray()
        #expect(writer.memberMarks.isEmpty)
        writer.removeAll()
        writer.beginObject()
        writer.key("a")
        writer.beginObject()
        writer.key("b")
        writer.int(1)
        writer.endObject()
        writer.key("c")
        writer.int(2)
        writer.endObject()
        #expect(writer.memberMarks == [.init(key: 1, value: 5), .init(key: 13, value: 17)])
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"a":{"b":1},"c":2}"#)
        var plain = JSONWriter()
        plain.beginObject()
        plain.key("a")
        plain.int(1)
        plain.endObject()
        #expect(plain.memberMarks.isEmpty)
    }
}
