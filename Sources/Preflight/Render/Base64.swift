/// Standard base64 (RFC 4648 §4, padded): encoded for `data:` URIs, written straight into the output string so an
/// embedded image costs one pass and no intermediate buffers; decoded for the remote cache's inline blobs.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The base64 text of `bytes`.
    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let second = rest == 2 ? UInt32(bytes[index + 1]) : 0
            let value = UInt32(bytes[index]) << 16 | second << 8
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(rest == 2 ? alphabet[Int(value >> 6 & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Each byte's 6-bit value, or 0xFF for a byte outside the alphabet (`=` included).
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// The bytes of `text` when it is canonical base64 — padded to a multiple of 4, only the alphabet before the
    /// padding, and zero bits after the last byte — decoded in one pass into the result; `nil` for anything else
    /// (the caller then decodes as before: canonical text has exactly one decoding, so both agree on it).
    static func decodeCanonical(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        guard !text.isEmpty else { return [] }
        return text.withUnsafeBufferPointer { input -> [UInt8]? in
            values.withUnsafeBufferPointer { values -> [UInt8]? in
                let equals = UInt8(ascii: "=")
                let padding = input[input.count - 1] != equals ? 0 : input[input.count - 2] == equals ? 2 : 1
                let size = input.count / 4 * 3 - padding
                var valid = true
                let bytes = [UInt8](unsafeUninitializedCapacity: size) { output, initialized in
                    var read = 0
                    var written = 0
                    while read + 4 <= input.count - (padding > 0 ? 4 : 0) {
                        let a = values[Int(input[read])], b = values[Int(input[read + 1])]
                        let c = values[Int(input[read + 2])], d = values[Int(input[read + 3])]
                        guard (a | b | c | d) & 0xC0 == 0 else {  // 0xFF marks a byte outside the alphabet
                            valid = false
                            break
                        }
                        let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                        output[written] = UInt8(truncatingIfNeeded: value >> 16)
                        output[written + 1] = UInt8(truncatingIfNeeded: value >> 8)
                        output[written + 2] = UInt8(truncatingIfNeeded: value)
                        read += 4
                        written += 3
                    }
                    if valid && padding > 0 {
                        let a = values[Int(input[read])], b = values[Int(input[read + 1])]
                        let c = padding == 1 ? values[Int(input[read + 2])] : 0
                        // Zero bits after the last byte, or the text is not canonical.
                        if (a | b | c) & 0xC0 != 0 || (padding == 2 ? b & 0x0F : c & 0x03) != 0 {
                            valid = false
                        } else {
                            let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                            output[written] = UInt8(truncatingIfNeeded: value >> 16)
                            if padding == 1 { output[written + 1] = UInt8(truncatingIfNeeded: value >> 8) }
                            written += 3 - padding
                        }
                    }
                    initialized = valid ? written : 0
                }
                return valid ? bytes : nil
            }
        }
    }
}
