/// Just enough DER to read the two Apple extensions the pass rules need: the Pass Type ID extension
/// (1.2.840.113635.100.6.1.16, a UTF8String) and the extended key usage list (a SEQUENCE OF OID).
/// Every read is bounds-checked: certificates come from untrusted passes.
enum DER {
    struct Element {
        var tag: UInt8
        var content: ArraySlice<UInt8>
    }

    /// Reads one TLV from the front of `bytes`; returns it and the remaining bytes, or `nil` when malformed
    /// (indefinite lengths are not DER and are refused).
    static func read(_ bytes: ArraySlice<UInt8>) -> (Element, rest: ArraySlice<UInt8>)? {
        var index = bytes.startIndex
        guard index < bytes.endIndex else { return nil }
        let tag = bytes[index]
        index += 1
        guard index < bytes.endIndex else { return nil }
        let first = bytes[index]
        index += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 4, bytes.endIndex - index >= count else { return nil }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard bytes.endIndex - index >= length else { return nil }
        let content = bytes[index..<(index + length)]
        return (Element(tag: tag, content: content), bytes[(index + length)...])
    }

    /// Encodes one TLV with a definite (DER minimal) length.
    static func encode(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        let count = content.count
        if count < 0x80 {
            out.append(UInt8(count))
        } else {
            var lengthBytes: [UInt8] = []
            var value = count
            while value > 0 {
                lengthBytes.insert(UInt8(value & 0xFF), at: 0)
                value >>= 8
            }
            out.append(0x80 | UInt8(lengthBytes.count))
            out += lengthBytes
        }
        return out + content
    }

    /// The text of a DER string value (UTF8String, PrintableString or IA5String), `nil` for anything else.
    static func string(_ bytes: [UInt8]) -> String? {
        guard let (element, rest) = read(bytes[...]), rest.isEmpty else { return nil }
        switch element.tag {
        case 0x0C, 0x13, 0x16: return String(validating: element.content, as: UTF8.self)
        default: return nil
        }
    }

    /// The encoded OIDs (content bytes) of a SEQUENCE OF OBJECT IDENTIFIER, `nil` when malformed.
    static func objectIdentifiers(_ bytes: [UInt8]) -> [[UInt8]]? {
        guard let (sequence, rest) = read(bytes[...]), sequence.tag == 0x30, rest.isEmpty else { return nil }
        var remaining = sequence.content
        var result: [[UInt8]] = []
        while !remaining.isEmpty {
            guard let (element, next) = read(remaining), element.tag == 0x06 else { return nil }
            result.append(Array(element.content))
            remaining = next
        }
        return result
    }

    /// DER content bytes of 1.2.840.113635.100.4.14, the "Pass Type ID" extended key usage.
    static let passTypeKeyUsage: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x04, 0x0E]
}
