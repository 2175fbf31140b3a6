/// An RFC 8216 §4.2 attribute list: `NAME=value,NAME="quoted, with commas",…`.
struct HLSAttributes {
    private(set) var values: [String: String] = [:]
    private(set) var quoted: Set<String> = []
    /// The first syntax problem, if any; the attributes before it are kept.
    private(set) var problem: String?

    init(_ text: Substring) {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "=") && bytes[index] != UInt8(ascii: ",") {
                index += 1
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                problem = "attribute '\(excerpt(name))' has no '=value'"
                return
            }
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isNameByte) else {
                problem = "'\(excerpt(name))' is not an attribute name (A–Z, 0–9, '-')"
                return
            }
            index += 1
            var value: String
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                let valueStart = index + 1
                guard let close = bytes[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else {
                    problem = "the quoted value of \(excerpt(name)) is not closed"
                    return
                }
                value = String(decoding: bytes[valueStart..<close], as: UTF8.self)
                quoted.insert(name)
                index = close + 1
                guard index == bytes.count || bytes[index] == UInt8(ascii: ",") else {
                    problem = "unexpected text after the quoted value of \(excerpt(name))"
                    return
                }
            } else {
                let valueStart = index
                while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
                value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                quoted.remove(name)
            }
            if values[name] != nil, problem == nil { problem = "attribute \(excerpt(name)) appears twice" }
            values[name] = value
            index += 1  // the comma (or past the end)
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-")
    }

    subscript(name: String) -> String? { values[name] }

    /// A quoted-string attribute (URI, CODECS, GROUP-ID…); nil when absent.
    func string(_ name: String) -> String? { values[name] }

    /// A decimal-integer attribute; nil when absent, not digits, or beyond 2⁶³.
    func integer(_ name: String) -> Int? { values[name].flatMap(parseDecimalInteger) }
}

/// RFC 8216 decimal-integer: 1 to 20 digits. Leading `+`/`-` and anything else are refused.
func parseDecimalInteger(_ text: some StringProtocol) -> Int? {
    guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
    return Int(text)
}

/// RFC 8216 decimal-floating-point without sign: digits with an optional fraction (no exponent, no nan/inf).
func parseDecimalFloat(_ text: some StringProtocol) -> Double? {
    guard !text.isEmpty, text.utf8.count <= 40 else { return nil }
    var dots = 0
    var digits = 0
    for byte in text.utf8 {
        if byte == UInt8(ascii: ".") {
            dots += 1
        } else if byte >= 0x30 && byte <= 0x39 {
            digits += 1
        } else {
            return nil
        }
    }
    guard dots <= 1, digits > 0 else { return nil }
    return Double(String(text))
}
