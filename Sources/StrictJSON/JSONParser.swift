/// Limits and leniencies of one parse.
public struct JSONParseOptions: Sendable, Hashable {
    /// Arrays and objects nested deeper than this are an error (never a stack overflow).
    public var maxDepth: Int
    /// Accept `[1, 2,]` and `{"a": 1,}` (reported as ``JSONWarning/Kind/trailingComma``). Apple's own
    /// BoardingPass sample pass.json has one, and iOS accepts it.
    public var allowTrailingCommas: Bool
    /// Inputs longer than this are refused before parsing (`nil`: no limit).
    public var maxInputBytes: Int?

    public init(maxDepth: Int = 512, allowTrailingCommas: Bool = false, maxInputBytes: Int? = nil) {
        self.maxDepth = maxDepth
        self.allowTrailingCommas = allowTrailingCommas
        self.maxInputBytes = maxInputBytes
    }
}

/// Why an input is not JSON, and where (1-based line and column, 0-based byte offset).
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case empty
        case unexpectedEnd
        case unexpectedCharacter(UInt8)
        case invalidUTF8
        case tooDeep(Int)
        case invalidNumber
        case invalidEscape
        case controlCharacterInString
        case trailingContent
        case tooLarge(Int)
    }

    public var kind: Kind
    public var line: Int
    public var column: Int
    public var offset: Int

    public init(kind: Kind, line: Int, column: Int, offset: Int) {
        self.kind = kind
        self.line = line
        self.column = column
        self.offset = offset
    }

    public var description: String {
        "line \(line), column \(column): \(reason)"
    }

    /// The reason without the position.
    public var reason: String {
        switch kind {
        case .empty: "empty input, expected a JSON value"
        case .unexpectedEnd: "unexpected end of input"
        case .unexpectedCharacter(let byte): "unexpected character \(Self.show(byte))"
        case .invalidUTF8: "invalid UTF-8"
        case .tooDeep(let limit): "nesting deeper than \(limit) levels"
        case .invalidNumber: "invalid number"
        case .invalidEscape: "invalid escape sequence in string"
        case .controlCharacterInString: "unescaped control character in string"
        case .trailingContent: "unexpected content after the JSON value"
        case .tooLarge(let limit): "input larger than \(limit) bytes"
        }
    }

    private static func show(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "0x" + (hex.count == 1 ? "0" + hex : hex)
    }
}

/// Something accepted but worth reporting.
public struct JSONWarning: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case byteOrderMark
        case trailingComma
        case duplicateKey(String)
    }

    public var kind: Kind
    public var line: Int
    public var column: Int

    public init(kind: Kind, line: Int, column: Int) {
        self.kind = kind
        self.line = line
        self.column = column
    }

    public var description: String {
        switch kind {
        case .byteOrderMark: "line \(line), column \(column): UTF-8 byte order mark"
        case .trailingComma: "line \(line), column \(column): trailing comma"
        case .duplicateKey(let key): "line \(line), column \(column): duplicate key \"\(key)\""
        }
    }
}

/// Entry points of the parser.
public enum JSON {
    /// Parses one JSON text (RFC 8259) into a value.
    /// - Throws: ``JSONParseError`` with the line and column of the first problem.
    public static func parse(_ bytes: [UInt8], options: JSONParseOptions = .init()) throws(JSONParseError) -> JSONValue
    {
        try parseDocument(bytes, options: options).value
    }

    /// Parses one JSON text given as a string.
    public static func parse(_ text: String, options: JSONParseOptions = .init()) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), options: options)
    }

    /// Parses one JSON text from raw memory.
    public static func parse(
        _ buffer: UnsafeRawBufferPointer, options: JSONParseOptions = .init()
    ) throws(JSONParseError) -> JSONValue {
        try parseDocument(buffer, options: options).value
    }

    /// Parses one JSON text and also returns what was accepted but is worth reporting.
    public static func parseDocument(
        _ bytes: [UInt8], options: JSONParseOptions = .init()
    ) throws(JSONParseError) -> (value: JSONValue, warnings: [JSONWarning]) {
        let result: Result<(JSONValue, [JSONWarning]), JSONParseError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try parseDocument(buffer, options: options) }
        }
        return try result.get()
    }

    /// Parses one JSON text from raw memory and also returns the warnings.
    public static func parseDocument(
        _ buffer: UnsafeRawBufferPointer, options: JSONParseOptions = .init()
    ) throws(JSONParseError) -> (value: JSONValue, warnings: [JSONWarning]) {
        var parser = Parser(buffer.bindMemory(to: UInt8.self), options: options)
        let value = try parser.parseDocument()
        return (value, parser.warnings.map { parser.warning($0.kind, at: $0.offset) })
    }
}

/// A parser's working buffers, kept by ``JSONDocumentParser`` from one document to the next.
struct ParserBuffers {
    var stack: [(key: String, value: JSONValue)] = []
    var scratch: [UInt8] = []

    init() {
        stack.reserveCapacity(16)
    }

    init(stack: [(key: String, value: JSONValue)], scratch: [UInt8]) {
        self.stack = stack
        self.scratch = scratch
    }
}

/// Parses many documents one after another (NDJSON: one a line) with the same working buffers, so each
/// document does not allocate them anew. Results are the same as `JSON.parseDocument(_:options:)`.
public struct JSONDocumentParser {
    public var options: JSONParseOptions
    private var buffers = ParserBuffers()

    public init(options: JSONParseOptions = .init()) {
        self.options = options
    }

    /// Parses one JSON text from raw memory and also returns the warnings.
    /// - Throws: ``JSONParseError`` with the line and column of the first problem.
    public mutating func parseDocument(
        _ buffer: UnsafeRawBufferPointer
    ) throws(JSONParseError) -> (value: JSONValue, warnings: [JSONWarning]) {
        var parser = Parser(buffer.bindMemory(to: UInt8.self), options: options, buffers: buffers)
        buffers = ParserBuffers(stack: [], scratch: [])  // the parser holds them now: no copy on write
        defer {
            parser.stack.removeAll(keepingCapacity: true)  // an error leaves members behind
            buffers = ParserBuffers(stack: parser.stack, scratch: parser.scratch)
        }
        let value = try parser.parseDocument()
        return (value, parser.warnings.map { parser.warning($0.kind, at: $0.offset) })
    }
}

/// A recursive-descent parser over bytes. Recursion depth is bounded by `maxDepth`.
private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let options: JSONParseOptions
    var index = 0
    var depth = 0
    var warnings: [(kind: JSONWarning.Kind, offset: Int)] = []
    /// Members (elements with an empty key) of the containers being parsed, innermost last (see ``parseObject()``).
    var stack: [(key: String, value: JSONValue)]
    /// The unescaped bytes of the string being parsed, when it has escapes or non-ASCII text.
    var scratch: [UInt8]

    init(_ bytes: UnsafeBufferPointer<UInt8>, options: JSONParseOptions, buffers: ParserBuffers = ParserBuffers()) {
        self.bytes = bytes
        self.options = options
        self.stack = buffers.stack
        self.scratch = buffers.scratch
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if let limit = options.maxInputBytes, bytes.count > limit { throw error(.tooLarge(limit), at: 0) }
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            warnings.append((.byteOrderMark, 0))
            index = 3
        }
        skipWhitespace()
        guard index < bytes.count else { throw error(.empty, at: index) }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error(.trailingContent, at: index) }
        return value
    }

    // MARK: values

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw unexpected()
        }
    }

    mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let utf8 = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expected in utf8 {
            guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
            guard bytes[index] == expected else { throw unexpected() }
            index += 1
        }
        return value
    }

    mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > options.maxDepth { throw error(.tooDeep(options.maxDepth), at: index) }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1  // {
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject())
        }
        // Members collect on the parser's stacks (shared by every level) and move into arrays of the exact size
        // once the object closes: one allocation per array instead of one per doubling.
        let base = stack.count
        defer { stack.removeSubrange(base...) }
        var seen: Set<String>? = nil  // only built for large objects, keeping small ones allocation-light
        while true {
            skipWhitespace()
            guard try peek() == UInt8(ascii: "\"") else { throw unexpected() }
            let keyOffset = index
            let key = try parseString()
            if stack.count - base >= 16 {
                if seen == nil { seen = Set(stack[base...].lazy.map(\.key)) }
                if !seen!.insert(key).inserted { warnings.append((.duplicateKey(key), keyOffset)) }
            } else if stack[base...].contains(where: { $0.key == key }) {
                warnings.append((.duplicateKey(key), keyOffset))
            }
            skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else { throw unexpected() }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            stack.append((key, value))
            if try endOfMember(closing: UInt8(ascii: "}")) {
                // `map`, not `Array(slice)`: an array made from a slice that spans the whole stack shares its buffer,
                // and the object would keep the stack's spare capacity while the stack copies itself.
                return .object(JSONObject(members: stack[base...].map { $0 }))
            }
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1  // [
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        let base = stack.count
        defer { stack.removeSubrange(base...) }
        while true {
            skipWhitespace()
            let element = try parseValue()
            stack.append(("", element))
            if try endOfMember(closing: UInt8(ascii: "]")) { return .array(stack[base...].map(\.value)) }
        }
    }

    /// After an array element or object member: consumes `,` (and a permitted trailing comma before the
    /// closing bracket) or the closing bracket itself. Returns `true` when the container is closed.
    mutating func endOfMember(closing: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        switch try peek() {
        case UInt8(ascii: ","):
            let commaOffset = index
            index += 1
            skipWhitespace()
            guard try peek() == closing else { return false }
            guard options.allowTrailingCommas else { throw unexpected() }
            warnings.append((.trailingComma, commaOffset))
        case closing: break
        default: throw unexpected()
        }
        index += 1
        depth -= 1
        return true
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw error(.invalidNumber, at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(bytes[index]) {
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        } else {
            throw error(.invalidNumber, at: start)
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error(.invalidNumber, at: start) }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error(.invalidNumber, at: start) }
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return .number(JSONNumber(validatedText: text))
    }

    // MARK: strings

    /// Parses a string starting at its opening quote. ASCII without escapes (the common case) is copied
    /// straight from the input; other text is validated as UTF-8 byte by byte so errors have a position.
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        var simple = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if simple {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                break
            }
            if byte == UInt8(ascii: "\\") || byte >= 0x80 {
                simple = false
                break
            }
            if byte < 0x20 { throw error(.controlCharacterInString, at: index) }
            index += 1
        }
        if simple { throw error(.unexpectedEnd, at: index) }
        // The scratch buffer is borrowed for this string (parseEscape mutates the parser while writing into it).
        var utf8: [UInt8] = []
        swap(&utf8, &scratch)
        defer { swap(&utf8, &scratch) }
        utf8.removeAll(keepingCapacity: true)
        utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw error(.controlCharacterInString, at: index)
            case 0x20..<0x80:
                // Copy the run of plain ASCII up to the next quote, backslash, control or non-ASCII byte at once.
                let runStart = index
                index += 1
                while index < bytes.count {
                    let next = bytes[index]
                    guard next >= 0x20 && next < 0x80 && next != UInt8(ascii: "\"") && next != UInt8(ascii: "\\")
                    else { break }
                    index += 1
                }
                utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            default:
                let length = try validateUTF8Sequence()
                utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<index + length]))
                index += length
            }
        }
        throw error(.unexpectedEnd, at: index)
    }

    mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): utf8.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): utf8.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): utf8.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart: escapeStart)
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw error(.invalidEscape, at: escapeStart) }
                index += 2
                let low = try parseHex4(escapeStart: escapeStart)
                guard (0xDC00..<0xE000).contains(low) else { throw error(.invalidEscape, at: escapeStart) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error(.invalidEscape, at: escapeStart)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error(.invalidEscape, at: escapeStart) }
            utf8.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw error(.invalidEscape, at: escapeStart)
        }
    }

    mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error(.unexpectedEnd, at: bytes.count) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(.invalidEscape, at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Checks the multi-byte UTF-8 sequence at `index` (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF)
    /// and returns its length.
    func validateUTF8Sequence() throws(JSONParseError) -> Int {
        let lead = bytes[index]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: throw error(.invalidUTF8, at: index)
        }
        guard index + length <= bytes.count else { throw error(.invalidUTF8, at: index) }
        let second = bytes[index + 1]
        guard second >= lower && second <= upper else { throw error(.invalidUTF8, at: index) }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
            throw error(.invalidUTF8, at: index)
        }
        return length
    }

    // MARK: helpers

    func peek() throws(JSONParseError) -> UInt8 {
        guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
        return bytes[index]
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    func unexpected() -> JSONParseError {
        guard index < bytes.count else { return error(.unexpectedEnd, at: index) }
        let byte = bytes[index]
        if byte >= 0x80 && (try? validateUTF8Sequence()) == nil { return error(.invalidUTF8, at: index) }
        return error(.unexpectedCharacter(byte), at: index)
    }

    /// Line and column are computed only when an error or warning is reported, keeping the hot path free
    /// of bookkeeping. Columns count characters (UTF-8 continuation bytes are not counted).
    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var cursor = 0
        let end = min(offset, bytes.count)
        while cursor < end {
            let byte = bytes[cursor]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            cursor += 1
        }
        return (line, column)
    }

    func error(_ kind: JSONParseError.Kind, at offset: Int) -> JSONParseError {
        let (line, column) = position(of: offset)
        return JSONParseError(kind: kind, line: line, column: column, offset: offset)
    }

    func warning(_ kind: JSONWarning.Kind, at offset: Int) -> JSONWarning {
        let (line, column) = position(of: offset)
        return JSONWarning(kind: kind, line: line, column: column)
    }
}
