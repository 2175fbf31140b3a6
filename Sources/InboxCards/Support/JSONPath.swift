/// Builds the JSON paths that findings point at (`request.notifications[2].data.carousel[1].image`).
///
/// Paths are only built when a finding is made, so the common (clean) case allocates nothing here.
/// Keys that are not plain identifiers are written as `["pt-BR"]` so the path stays unambiguous.
enum JSONPath {
    static func key(_ base: String, _ key: String) -> String {
        if isIdentifier(key) {
            if base.isEmpty { return key }
            // One allocation for the result (at most; short paths stay small strings), not one per `+`.
            let count = base.utf8.count + 1 + key.utf8.count
            var path = base
            if count > 15 { path.reserveCapacity(count) }
            path.append(".")
            path.append(key)
            return path
        }
        var escaped = ""
        for character in key {
            if character == "\"" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return base + "[\"" + escaped + "\"]"
    }

    static func index(_ base: String, _ index: Int) -> String {
        let digits = String(index)
        let count = base.utf8.count + 2 + digits.utf8.count
        var path = base
        if count > 15 { path.reserveCapacity(count) }
        path.append("[")
        path.append(digits)
        path.append("]")
        return path
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else {
            return false
        }
        for byte in key.utf8 {
            let letter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            guard letter || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            else { return false }
        }
        return true
    }
}

/// The URL checks the SDK makes, without Foundation (the resolve hot path stays allocation-light).
///
/// "Parses" follows RFC 3986 as `URL(string:)` did before iOS 17: ASCII only, no spaces or other
/// characters outside the URI set, and every `%` followed by two hex digits. iOS 17+ percent-encodes
/// such strings instead of failing, so a URL failing here is worth a warning on every SDK.
enum URLCheck {
    /// Schemes the SDK refuses to open from a button or a slide (it logs a WARN and does nothing).
    static let unsafeSchemes: Set<String> = ["file", "javascript", "data", "facetime", "facetime-audio"]

    /// Whether `text` is a URI reference `URL(string:)` accepts.
    static func parses(_ text: String) -> Bool {
        let bytes = text.utf8
        guard !bytes.isEmpty else { return false }
        var pendingHex = 0
        var inFragment = false
        for byte in bytes {
            if pendingHex > 0 {
                guard isHex(byte) else { return false }
                pendingHex -= 1
                continue
            }
            if byte == UInt8(ascii: "%") {
                pendingHex = 2
                continue
            }
            guard isURIByte(byte) else { return false }
            if byte == UInt8(ascii: "#") {
                guard !inFragment else { return false }  // a second '#' is not allowed in a fragment
                inFragment = true
            }
        }
        return pendingHex == 0
    }

    /// The scheme (as written) when `text` starts with `scheme:`; `nil` for relative references.
    static func scheme(_ text: String) -> Substring? {
        guard let first = text.utf8.first, isAlpha(first) else { return nil }
        for index in text.utf8.indices {
            let byte = text.utf8[index]
            if byte == UInt8(ascii: ":") { return text[text.startIndex..<index] }
            guard
                isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".")
            else { return nil }
        }
        return nil
    }

    /// A string that parses and has an `http` or `https` scheme (case-insensitive), as the video and
    /// wallet decoders require.
    static func isHTTP(_ text: String) -> Bool {
        guard parses(text), let scheme = scheme(text) else { return false }
        let lower = scheme.lowercased()
        return lower == "http" || lower == "https"
    }

    /// The case-sensitive prefix test 7.2 applies to `attachment`/`b`.
    static func hasHTTPPrefix(_ text: String) -> Bool {
        text.hasPrefix("http://") || text.hasPrefix("https://")
    }

    /// Android's `InboxCardKind.isHttpUrl`: a case-insensitive `http://` or `https://` prefix (no parse).
    static func hasHTTPPrefixIgnoringCase(_ text: String) -> Bool {
        let head = text.prefix(8).lowercased()
        return head.hasPrefix("http://") || head.hasPrefix("https://")
    }

    /// `android.net.Uri.parse(text).scheme`: everything before the first `:` (it may be empty); `nil` without `:`.
    static func androidScheme(_ text: String) -> Substring? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return text[text.startIndex..<colon]
    }

    /// The schemes `InboxCardButton.isSafeUrl` refuses (android-inbox.md §2.8).
    static let androidUnsafeSchemes: Set<String> = ["file", "javascript", "data", "intent"]

    /// Why Android's `isSafeUrl` refuses `text` (`scheme intent`, `no scheme`), or `nil` when it opens it.
    static func androidRefusal(_ text: String) -> String? {
        guard let scheme = androidScheme(text) else { return "no scheme" }
        let lower = scheme.lowercased()
        return androidUnsafeSchemes.contains(lower) ? "scheme \(lower)" : nil
    }

    /// The lowercased scheme when it is one the SDK refuses to open.
    static func unsafeScheme(_ text: String) -> String? {
        guard let scheme = scheme(text) else { return nil }
        let lower = scheme.lowercased()
        return unsafeSchemes.contains(lower) ? lower : nil
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isHex(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }

    /// Unreserved, gen-delims and sub-delims of RFC 3986.
    private static func isURIByte(_ byte: UInt8) -> Bool {
        if isAlpha(byte) || isDigit(byte) { return true }
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}

/// Finding newlines eight bytes at a time: NDJSON reading looks at every byte of the input twice (counting lines to
/// reserve the messages, finding each line's end), and a byte loop was a twentieth of a whole run.
enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// The high bit of every byte of `word` that equals `byte`, exactly (no false positives from borrows).
    @inline(__always)
    private static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (ones &* UInt64(byte))
        return ~(((x & low7) &+ low7) | x | low7)
    }

    /// How many bytes of `buffer` equal `byte`.
    static func count(of byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        var count = 0
        var offset = 0
        while offset + 8 <= buffer.count {
            count += matches(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self), byte).nonzeroBitCount
            offset += 8
        }
        while offset < buffer.count {
            if buffer[offset] == byte { count += 1 }
            offset += 1
        }
        return count
    }

    /// The first index at or after `start` whose byte equals `byte`, else `buffer.count`.
    static func firstIndex(of byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = buffer.baseAddress else { return buffer.count }
        let raw = UnsafeRawPointer(base)
        var offset = start
        while offset + 8 <= buffer.count {
            let found = matches(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self), byte)
            if found != 0 { return offset + found.trailingZeroBitCount / 8 }
            offset += 8
        }
        while offset < buffer.count {
            if buffer[offset] == byte { return offset }
            offset += 1
        }
        return buffer.count
    }
}
