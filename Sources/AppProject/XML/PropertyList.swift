/// A property list value (Apple's XML plist format, `PropertyList-1.0.dtd`).
public indirect enum PlistValue: Sendable, Hashable {
    case dictionary([(key: String, value: PlistValue)])
    case array([PlistValue])
    case string(String)
    case bool(Bool)
    case integer(String)
    case real(String)
    case date(String)
    case data(String)

    public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool { lhs.description == rhs.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// The plist type's name in messages (`a string`, `a boolean`).
    public var typeName: String {
        switch self {
        case .dictionary: "a dictionary"
        case .array: "an array"
        case .string: "a string"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .real: "a real number"
        case .date: "a date"
        case .data: "data"
        }
    }

    /// The value of `key` in a dictionary (the last one when a key repeats, as CFPropertyList keeps).
    public subscript(key: String) -> PlistValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.last { $0.key == key }?.value
    }
}

extension PlistValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .dictionary(let entries): "{" + entries.map { "\($0.key)=\($0.value)" }.joined(separator: ";") + "}"
        case .array(let items): "(" + items.map(\.description).joined(separator: ",") + ")"
        case .string(let text): "\"\(text)\""
        case .bool(let value): value ? "true" : "false"
        case .integer(let text), .real(let text), .date(let text), .data(let text): text
        }
    }
}

/// Reads an XML property list (an `Info.plist`). A binary plist (`bplist00`) is refused with how to convert it.
public enum PropertyListReader {
    public static func parse(_ bytes: [UInt8], file: String) throws(AppFileError) -> PlistValue {
        if bytes.starts(with: Array("bplist".utf8)) {
            throw AppFileError(
                file: file,
                reason: "a binary property list; convert it to XML first: `plutil -convert xml1 -o Info.xml.plist "
                    + "\(file)` (macOS), or `plistutil -i \(file) -f xml` (libplist), and pass that file")
        }
        let root = try XMLTreeReader.parse(bytes, file: file)
        guard root.name == "plist" else {
            throw AppFileError(file: file, line: root.line, reason: "the root element is <\(root.name)>, not <plist>")
        }
        let values = root.children
        guard values.count == 1, let value = values.first else {
            throw AppFileError(
                file: file, line: root.line, reason: "<plist> holds \(values.count) values; a property list holds one")
        }
        return try self.value(value, file: file)
    }

    static func value(_ element: XMLTreeNode, file: String) throws(AppFileError) -> PlistValue {
        let text = element.text.trimmingWhitespace()
        switch element.name {
        case "dict":
            var entries: [(key: String, value: PlistValue)] = []
            var pendingKey: String?
            for child in element.children {
                if child.name == "key" {
                    if let key = pendingKey {
                        throw AppFileError(file: file, line: child.line, reason: "<key>\(key)</key> has no value")
                    }
                    pendingKey = child.text
                } else {
                    guard let key = pendingKey else {
                        throw AppFileError(
                            file: file, line: child.line,
                            reason: "a <\(child.name)> in a <dict> without a <key> before it")
                    }
                    entries.append((key, try value(child, file: file)))
                    pendingKey = nil
                }
            }
            if let key = pendingKey {
                throw AppFileError(file: file, line: element.line, reason: "<key>\(key)</key> has no value")
            }
            return .dictionary(entries)
        case "array":
            var items: [PlistValue] = []
            for child in element.children { items.append(try value(child, file: file)) }
            return .array(items)
        case "string": return .string(element.text)
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "integer": return .integer(text)
        case "real": return .real(text)
        case "date": return .date(text)
        case "data": return .data(text)
        default:
            throw AppFileError(file: file, line: element.line, reason: "<\(element.name)> is no property list type")
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
