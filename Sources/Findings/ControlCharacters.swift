/// Control characters in campaign data: a URL holding one is never fetched (``first(in:)``), and terminal text shows
/// them escaped (``escaped(_:)``) so that a title, an id or a URL cannot move the cursor, recolour or rewrite the
/// terminal with escape sequences.
public enum ControlCharacters {
    /// The first C0 control byte (0x00–0x1F) or DEL (0x7F) in `text`, with its offset in UTF-8 bytes. Such a
    /// byte cannot be sent in a request line: libcurl would cut the URL at a NUL and refuses the others.
    public static func first(in text: String) -> (offset: Int, byte: UInt8)? {
        let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> (offset: Int, byte: UInt8)? in
            for (offset, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x7F { return (offset, byte) }
            return nil
        }
        if let found = text.utf8.withContiguousStorageIfAvailable(scan) { return found }
        return Array(text.utf8).withUnsafeBufferPointer(scan)
    }

    /// `text` for a terminal: each C0 control (tab and newline too), DEL and C1 control (U+0080–U+009F, which some
    /// terminals obey as escape sequences) written as `\xNN` — `\u{1B}` becomes the four characters `\x1b`, U+009B
    /// becomes `\xc2\x9b`, its UTF-8 bytes. Everything else is kept; text without controls comes back as it is
    /// (a byte scan: the resolve report runs this on every cell of every card).
    /// - Parameters:
    ///   - text: campaign data, or a block of lines quoting it.
    ///   - keepingNewlines: keep `\n` as it is (for a block of lines); every other control is still escaped.
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard needsEscaping(text) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where keepingNewlines:
                out.append(0x0A)
            case 0x00..<0x20, 0x7F:
                append(UInt8(scalar.value), to: &out)
            case 0x80...0x9F:
                for byte in String(scalar).utf8 { append(byte, to: &out) }
            default:
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `\x1b` for 0x1B: the notation ``escaped(_:)`` writes and findings use to name a byte.
    public static func notation(_ byte: UInt8) -> String {
        var out: [UInt8] = []
        append(byte, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func append(_ byte: UInt8, to out: inout [UInt8]) {
        let digits = Array("0123456789abcdef".utf8)
        out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
    }

    /// Whether `text` holds a byte below 0x20, DEL, or a 0xC2 lead byte (U+0080–U+00BF; only some are C1 controls,
    /// the slow path tells them apart).
    private static func needsEscaping(_ text: String) -> Bool {
        let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
            for byte in bytes where byte < 0x20 || byte == 0x7F || byte == 0xC2 { return true }
            return false
        }
        if let found = text.utf8.withContiguousStorageIfAvailable(scan) { return found }
        return text.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }
    }
}
