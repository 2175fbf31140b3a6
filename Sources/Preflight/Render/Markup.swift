/// Escaping shared by the XML (JUnit) and HTML renderers.
///
/// Campaign text is hostile input: titles, codes, ids and finding messages may hold `<`, quotes or control
/// characters. XML 1.0 forbids most C0 controls even as character references, so they cannot be escaped, only
/// replaced; HTML parsers would accept them, but one rule for both formats keeps the output predictable.
enum Markup {
    /// What replaces a character XML 1.0 cannot carry (C0 controls other than tab/LF/CR, U+FFFE, U+FFFF).
    static let replacement: Character = "\u{FFFD}"

    /// `text` for element content: `&`, `<`, `>` escaped, forbidden characters replaced.
    static func text(_ text: String) -> String { escape(text, inAttribute: false) }

    /// `text` for a double- or single-quoted attribute value: also quotes and the white space that attribute
    /// normalisation would otherwise turn into spaces (tab, LF, CR as character references).
    static func attribute(_ text: String) -> String { escape(text, inAttribute: true) }

    /// Whether a scalar may appear in an XML 1.0 document (the `Char` production).
    static func isXMLChar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    private static func escape(_ text: String, inAttribute: Bool) -> String {
        // Fast path: most text needs nothing (one byte scan, no allocation).
        let needsWork = text.utf8.contains { byte in
            byte < 0x20 || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == 0xEF  // U+FFFE/FFFF lead byte
        }
        guard needsWork else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "'" where inAttribute: out += "&#39;"
            case "\t" where inAttribute: out += "&#9;"
            case "\n" where inAttribute: out += "&#10;"
            case "\r" where inAttribute: out += "&#13;"
            default:
                if isXMLChar(scalar) {
                    out.unicodeScalars.append(scalar)
                } else {
                    out.append(replacement)
                }
            }
        }
        return out
    }
}
