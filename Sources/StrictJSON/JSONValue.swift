/// A parsed JSON value that keeps what the inputs say: object member order, duplicate keys (last wins on
/// lookup, as Foundation's JSONSerialization does) and the exact text of numbers.
///
/// Campaign files, pass.json and manifest.json all go through this one type, so every stage sees the same
/// answer to "is `displayType` a string?" and every report is written by the same serializer.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// An integer number value.
    public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }

    /// A floating-point number value; non-finite values become `null` because JSON cannot carry them.
    public static func double(_ value: Double) -> JSONValue {
        value.isFinite ? .number(JSONNumber(value)) : .null
    }

    /// A string value, or `null` when `value` is `nil`.
    public static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// The member named `key` when this is an object (the last one when the key is duplicated).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` when this is an array and the index is in range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The JSON type name, for messages such as "displayType is a number, expected a string".
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// A JSON number as written in the input, with its numeric readings.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number's text, exactly as in the input (or as the serializer will write it).
    public let text: String

    /// The value as a `Double` (rounded as `Double(text)` rounds; huge exponents give ±infinity).
    public var doubleValue: Double { Double(text) ?? .nan }

    /// The value as an `Int` when the text is an integer that fits; `nil` for `1.5`, `1e3` or overflow.
    public var intValue: Int? { Int(text) }

    /// Whether the text has neither a fraction nor an exponent.
    public var isInteger: Bool { !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }

    /// Makes a number from already-validated JSON number text.
    init(validatedText: String) { self.text = validatedText }

    public init(_ value: Int) { self.text = String(value) }

    public init(_ value: Double) {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            self.text = String(Int(value))
        } else {
            self.text = value.isFinite ? String(value) : "null"
        }
    }

    public var description: String { text }
}

/// A JSON object: members in input order; lookups see the last member of a duplicated key.
public struct JSONObject: Sendable, Hashable, Sequence {
    public typealias Element = (key: String, value: JSONValue)

    /// One array of members, not one of keys and one of values: an object costs one allocation (a feed dump is
    /// hundreds of thousands of small objects).
    private var members: [Element]

    public init() {
        members = []
    }

    public init(_ pairs: [(String, JSONValue)]) {
        members = pairs.map { (key: $0.0, value: $0.1) }
    }

    init(members: [Element]) {
        self.members = members
    }

    /// Member keys in input order (a duplicated key appears as often as it was written).
    public var keys: [String] { members.map(\.key) }

    /// Number of members as written (duplicates included).
    public var count: Int { members.count }

    public var isEmpty: Bool { members.isEmpty }

    /// The last member named `key`; setting replaces that member in place, or appends a new one.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = members.lastIndex(where: { $0.key == key }) else { return nil }
            return members[index].value
        }
        set {
            let index = members.lastIndex(where: { $0.key == key })
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// Walks the members in input order. A concrete iterator, not `AnyIterator`: serialising a large report walks
    /// millions of members, and `AnyIterator` boxed a closure on the heap for every object.
    public struct Iterator: IteratorProtocol {
        private let members: [Element]
        private var index = 0

        init(members: [Element]) {
            self.members = members
        }

        public mutating func next() -> Element? {
            guard index < members.count else { return nil }
            defer { index += 1 }
            return members[index]
        }
    }

    public func makeIterator() -> Iterator { Iterator(members: members) }

    public var underestimatedCount: Int { members.count }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (left, right) in zip(lhs.members, rhs.members) where left.key != right.key || left.value != right.value {
            return false
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
    public init(nilLiteral: ()) { self = .null }
}
