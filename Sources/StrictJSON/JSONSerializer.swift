extension JSONValue {
    /// RFC 8259 text of the value. Object members keep their order, so reports read in the order the
    /// schema documents. Non-ASCII text is written as UTF-8; control characters, `"` and `\` are escaped.
    /// - Parameter pretty: two-space indentation and one member per line, for people.
    public func serialized(pretty: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output, pretty: pretty, indent: 0)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the value's JSON text to `output` (for writers that stream many values, such as NDJSON).
    public func write(to output: inout [UInt8], pretty: Bool = false) {
        write(to: &output, pretty: pretty, indent: 0)
    }

    func write(to output: inout [UInt8], pretty: Bool, indent: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let number): output.append(contentsOf: number.text.utf8)
        case .string(let string): Self.writeString(string, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                if pretty { Self.newline(&output, indent + 1) }
                element.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { Self.newline(&output, indent) }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            guard !object.isEmpty else {
                output.append(contentsOf: "{}".utf8)
                return
            }
            output.append(UInt8(ascii: "{"))
            var first = true
            for (key, value) in object {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                if pretty { Self.newline(&output, indent + 1) }
                Self.writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { Self.newline(&output, indent) }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func newline(_ output: inout [UInt8], _ indent: Int) {
        // A newline and the indentation in one copy from a prepared run (pretty reports are a third spaces).
        var remaining = indent * 2 + 1
        var first = true
        while remaining > 0 {
            let chunk = min(remaining, newlineAndSpaces.count - (first ? 0 : 1))
            newlineAndSpaces.withUnsafeBufferPointer { run in
                output.append(contentsOf: UnsafeBufferPointer(rebasing: run[(first ? 0 : 1)..<(first ? 0 : 1) + chunk]))
            }
            remaining -= chunk
            first = false
        }
    }

    private static let newlineAndSpaces: [UInt8] = [0x0A] + Array(repeating: UInt8(ascii: " "), count: 128)

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Native strings are contiguous UTF-8: copy each run of bytes that need no escape in one append (reports
        // are mostly such runs); bridged or other non-contiguous strings take the byte-by-byte path.
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            var runStart = 0
            for (index, byte) in bytes.enumerated() where needsEscape(byte) {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                writeEscaped(byte, to: &output)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        if copied == nil {
            for byte in string.utf8 {
                if needsEscape(byte) { writeEscaped(byte, to: &output) } else { output.append(byte) }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    static func writeEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case 0x0A: output.append(contentsOf: #"\n"#.utf8)
        case 0x0D: output.append(contentsOf: #"\r"#.utf8)
        case 0x09: output.append(contentsOf: #"\t"#.utf8)
        default:
            output.append(contentsOf: #"\u00"#.utf8)
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        }
    }
}
