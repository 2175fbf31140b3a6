/// Where each value of a JSON text starts, by path (`request.notifications[2].data.carousel[1].image`, the
/// format findings use; keys that are not identifiers as `["pt-BR"]`): for reports that point at a line and
/// column (SARIF) and for errors about keys (a config file's unknown key). A second, light pass over a text
/// ``JSON/parse(_:options:)`` accepted; it never runs on the hot path.
public struct JSONPositions: Sendable {
    /// Byte offset of each value, by path; the root is `""`.
    public private(set) var values: [String: Int] = [:]
    /// Byte offset of each object member's key (its opening quote), by the member's path.
    public private(set) var keys: [String: Int] = [:]
    private let lineStarts: [Int]
    /// For a text with non-ASCII bytes: characters before each byte offset (columns in O(1) on a long line).
    private let characters: [Int32]?

    /// Indexes `bytes`, which must be valid JSON (parse them first); a text that is not yields what was reached.
    public init(_ bytes: [UInt8]) {
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") { starts.append(offset + 1) }
        lineStarts = starts
        if bytes.allSatisfy({ $0 < 0x80 }) {
            characters = nil
        } else {
            var counts = [Int32](repeating: 0, count: bytes.count + 1)
            for (offset, byte) in bytes.enumerated() {
                counts[offset + 1] = counts[offset] + (byte & 0xC0 == 0x80 ? 0 : 1)
            }
            characters = counts
        }
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        scanner.value(at: "")
        values = scanner.values
        keys = scanner.keys
    }

    /// The 1-based line and column (in characters, counting a tab as one) of a byte offset.
    public func lineColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        let start = lineStarts[low]
        let end = min(max(offset, start), bytes.count)
        guard let characters else { return (low + 1, end - start + 1) }
        return (low + 1, Int(characters[end] - characters[start]) + 1)
    }

    /// The offset of the value at `path`, or of its nearest ancestor that exists (a path into a string that
    /// holds JSON, such as `action_params`, points at that string).
    public func offset(of path: String) -> Int? {
        var path = path
        while true {
            if let offset = values[path] { return offset }
            guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { return values[""] }
            path = String(path[..<cut])
        }
    }

    /// The path of member `key` of the object at `base`: `base.key`, or `base["pt-BR"]` for a key that is not an
    /// identifier.
    public static func member(_ base: String, _ key: String) -> String {
        let first = key.utf8.first ?? 0
        let identifier =
            !key.isEmpty && !(first >= 0x30 && first <= 0x39)
            && key.utf8.allSatisfy { byte in
                let lower = byte | 0x20
                return (lower >= 0x61 && lower <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F
            }
        if identifier { return base.isEmpty ? key : base + "." + key }
        var escaped = ""
        for character in key {
            if character == "\"" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return base + "[\"" + escaped + "\"]"
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var values: [String: Int] = [:]
        var keys: [String: Int] = [:]

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(at path: String) {
            guard index < bytes.count else { return }
            values[path] = index
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { break }
                    let keyStart = index
                    let key = string()
                    let member = JSONPositions.member(path, key)
                    keys[member] = keyStart
                    skipWhitespace()
                    index += 1  // :
                    skipWhitespace()
                    value(at: member)
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
                    index += 1
                }
                index += 1  // }
            case UInt8(ascii: "["):
                index += 1
                var element = 0
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] != UInt8(ascii: "]") else { break }
                    value(at: "\(path)[\(element)]")
                    element += 1
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
                    index += 1
                }
                index += 1  // ]
            case UInt8(ascii: "\""): _ = string()
            default:
                while index < bytes.count, !",]} \t\r\n".utf8.contains(bytes[index]) { index += 1 }
            }
        }

        /// Consumes a string token and returns its text (decoded by the strict parser).
        mutating func string() -> String {
            let start = index
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            index += 1
            let token = Array(bytes[start..<min(index, bytes.count)])
            if case .string(let text)? = try? JSON.parse(token) { return text }
            return ""
        }
    }
}
