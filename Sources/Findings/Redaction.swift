/// Keeps secrets out of every output format and log.
///
/// Campaign inputs carry secrets: the createMessage request's `auth` (handled by the readers, which never
/// keep it) and signed or tokenised asset URLs such as `https://cdn/x.png?token=abc`. Every URL that
/// reaches a report, a log line or an error message goes through ``redactURL(_:)`` first.
///
/// What is redacted (each becomes `REDACTED`):
/// - **userinfo**: everything before the last `@` of an authority, `https://user:pass@host/` and
///   `https://TOKEN@host/` alike (a bare token is as secret as a password). An authority starts after every
///   `://`, after a leading `//`, and after a leading `http:`/`https:`/`ws:`/`wss:`/`ftp:` with any number of
///   slashes or backslashes (as browsers read `https:user@host`); it ends at `/`, `?` or `#` (inside a query or
///   fragment — a URL nested in a parameter — also at `&` and `;`).
/// - the values of parameters with a secret name (``secretQueryNames``) in the **query** (`?token=…`), the
///   **fragment** (`#access_token=…&state=…`, also after a `?` inside it, as single-page apps write
///   `#/cb?access_token=…`) and **matrix parameters** of the path (`/a;token=…/b`). Query and fragment parameters
///   are separated by `&` or `;` (a `?` also starts one, for URLs nested in a value); a secret value runs to the
///   next `&` or `;` (matrix: `;` or `/`), so a `?` or `=` inside it is redacted with it.
/// - names are compared after percent-decoding and case-folding: `to%6Ben=`, `TOKEN=`, `Access_Token=`.
///
/// Redaction is idempotent (``redactURL(_:)`` of its own output changes nothing) and leaves every other byte as it
/// was: ordinary parameters (`page=`, `w=`), hosts, paths and e-mail addresses (`mailto:a@b`, no authority) stay.
public enum Redaction {
    /// The text that replaces a secret value.
    public static let placeholder = "REDACTED"

    /// Parameter names (compared after percent-decoding, case-insensitively) whose values are secrets, in the
    /// query, the fragment and matrix parameters.
    public static let secretQueryNames: Set<String> = [
        "token", "access_token", "accesstoken", "id_token", "refresh_token", "auth", "authorization", "key",
        "api_key", "apikey", "secret", "client_secret", "password", "passwd", "pwd", "sig", "signature",
        "session", "sessionid", "sid", "credential", "x-amz-signature", "x-amz-credential",
        "x-amz-security-token", "x-goog-signature", "x-goog-credential", "se", "sv", "sp", "auth_token",
        "authtoken", "api-key", "x-api-key", "private_token", "jwt", "jsessionid", "phpsessid",
    ]

    /// The longest secret name in bytes; a longer parameter name (even percent-encoded thrice over) is no secret.
    private static let longestSecretName = secretQueryNames.map(\.utf8.count).max() ?? 0

    /// Returns `url` with userinfo and the values of secret parameters (query, fragment, matrix) replaced by
    /// `REDACTED` (see ``Redaction``). Text that is not a URL comes back unchanged except for the same rules, so it
    /// is safe to call on anything that might hold a URL.
    public static func redactURL(_ url: String) -> String {
        // Fast path: most URLs hold none of `? @ # ;` and cannot hold a secret (a byte scan, no allocation). The
        // resolver and every report call this for every URL of every card.
        guard mayHoldSecret(url) else { return url }
        let userinfo = withBytes(url, userinfoRanges)
        let withoutUserinfo = userinfo.isEmpty ? url : replacing(userinfo, in: url)
        let parameters = withBytes(withoutUserinfo, parameterRanges)
        return parameters.isEmpty ? withoutUserinfo : replacing(parameters, in: withoutUserinfo)
    }

    /// Replaces every URL-looking word (`http://…`, `https://…`) inside free text with its redacted form. A word
    /// is URL-looking when its bytes hold `://` (not its Characters: `://` before a combining mark or a joiner is
    /// one grapheme short of `"://"`, and such a word once kept its token).
    public static func redactText(_ text: String) -> String {
        guard containsSchemeSeparator(text), withBytes(text, someURLWordMayHoldSecret) else { return text }
        if let redacted = withBytes(text, redactWordsOfBytes) { return redacted }
        var out = ""
        var word = ""
        for character in text {
            if character == " " || character == "\n" || character == "\t" || character == "\"" {
                out += containsSchemeSeparator(word) ? redactURL(word) : word
                out.append(character)
                word = ""
            } else {
                word.append(character)
            }
        }
        out += containsSchemeSeparator(word) ? redactURL(word) : word
        return out
    }

    /// ``redactText(_:)`` on bytes, when its words can be cut on bytes: every separator byte is a grapheme of its
    /// own, so the byte words are exactly the Character words. `nil` when one is not (the Character loop decides).
    private static func redactWordsOfBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        let exact = forEachWord(of: bytes) { word, separator in
            if containsSchemeSeparator(word) {
                out.append(contentsOf: redactURL(String(decoding: word, as: UTF8.self)).utf8)
            } else {
                out.append(contentsOf: word)
            }
            if let separator { out.append(separator) }
            return true
        }
        return exact ? String(decoding: out, as: UTF8.self) : nil
    }

    // MARK: Scanning

    private static let question = UInt8(ascii: "?")
    private static let hash = UInt8(ascii: "#")
    private static let semicolon = UInt8(ascii: ";")
    private static let ampersand = UInt8(ascii: "&")
    private static let slash = UInt8(ascii: "/")
    private static let backslash = UInt8(ascii: "\\")
    private static let at = UInt8(ascii: "@")
    private static let colon = UInt8(ascii: ":")
    private static let equals = UInt8(ascii: "=")
    private static let percent = UInt8(ascii: "%")
    private static let placeholderBytes = Array(placeholder.utf8)

    /// Whether `url` holds one of `? @ # ;`, scanning the contiguous bytes of native strings directly.
    private static func mayHoldSecret(_ url: String) -> Bool {
        withBytes(url) { bytes in
            for byte in bytes where byte == question || byte == at || byte == hash || byte == semicolon {
                return true
            }
            return false
        }
    }

    /// Runs `body` on the UTF-8 bytes of `text` (native strings are contiguous; others are copied once).
    private static func withBytes<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }

    /// `text` with each of the sorted, disjoint byte `ranges` replaced by ``placeholder``.
    private static func replacing(_ ranges: [Range<Int>], in text: String) -> String {
        withBytes(text) { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + ranges.count * placeholderBytes.count)
            var position = 0
            for range in ranges {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<range.lowerBound]))
                out.append(contentsOf: placeholderBytes)
                position = range.upperBound
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position...]))
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Where the query or the fragment starts (the first `?` or `#`), or the end.
    private static func queryOrFragmentStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.firstIndex { $0 == question || $0 == hash } ?? bytes.count
    }

    /// The userinfo of every authority in `bytes` (see ``Redaction``), sorted and disjoint; userinfo that already
    /// is ``placeholder`` is left out.
    private static func userinfoRanges(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        let count = bytes.count
        let nestedFrom = queryOrFragmentStart(bytes)
        var ranges: [Range<Int>] = []
        var lastStart = -1
        func authority(from start: Int) {
            guard start > lastStart, start <= count else { return }
            lastStart = start
            let nested = start > nestedFrom
            var end = start
            var lastAt = -1
            while end < count {
                let byte = bytes[end]
                if byte == slash || byte == question || byte == hash { break }
                if nested && (byte == ampersand || byte == semicolon) { break }
                if byte == at { lastAt = end }
                end += 1
            }
            guard lastAt > start, !matchesPlaceholder(bytes, start..<lastAt) else { return }
            ranges.append(start..<lastAt)
        }
        if count >= 2 && bytes[0] == slash && bytes[1] == slash {
            authority(from: 2)
        } else if let afterScheme = specialSchemeEnd(bytes) {
            var start = afterScheme
            while start < count && (bytes[start] == slash || bytes[start] == backslash) { start += 1 }
            authority(from: start)
        }
        var index = 0
        while index + 2 < count {
            if bytes[index] == colon && bytes[index + 1] == slash && bytes[index + 2] == slash {
                authority(from: index + 3)
                index += 3
            } else {
                index += 1
            }
        }
        return ranges
    }

    /// The index after `scheme:` when `bytes` starts with a scheme browsers read an authority after even without
    /// `//` (`http`, `https`, `ws`, `wss`, `ftp`; any case), else `nil`.
    private static func specialSchemeEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        for scheme in specialSchemes where bytes.count > scheme.count && bytes[scheme.count] == colon {
            if zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }) { return scheme.count + 1 }
        }
        return nil
    }

    private static let specialSchemes: [[UInt8]] = ["http", "https", "ws", "wss", "ftp"].map { Array($0.utf8) }

    /// The values of secret parameters in the path (matrix), the query and the fragment, sorted and disjoint.
    private static func parameterRanges(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        let count = bytes.count
        let firstQuestion = bytes.firstIndex(of: question)
        let firstHash = bytes.firstIndex(of: hash)
        let pathEnd = min(firstQuestion ?? count, firstHash ?? count)
        var ranges: [Range<Int>] = []

        // Matrix parameters: after every `;` before the query or fragment.
        var index = 0
        while index < pathEnd {
            if bytes[index] == semicolon {
                index = parameter(bytes, at: index + 1, end: pathEnd, inPath: true, into: &ranges)
            } else {
                index += 1
            }
        }
        // The query (when it comes before any `#`), then the fragment.
        var regions: [Range<Int>] = []
        if let firstQuestion, firstQuestion < (firstHash ?? count) {
            regions.append(firstQuestion + 1..<(firstHash ?? count))
        }
        if let firstHash { regions.append(firstHash + 1..<count) }
        for region in regions {
            index = parameter(bytes, at: region.lowerBound, end: region.upperBound, inPath: false, into: &ranges)
            while index < region.upperBound {
                let byte = bytes[index]
                if byte == ampersand || byte == semicolon || byte == question || byte == hash {
                    index = parameter(bytes, at: index + 1, end: region.upperBound, inPath: false, into: &ranges)
                } else {
                    index += 1
                }
            }
        }
        return ranges
    }

    /// Reads the parameter starting at `start`; when its name is secret, appends its value's range. Returns where
    /// scanning for the next parameter goes on: after a secret value, else just after the name (or its `=`).
    private static func parameter(
        _ bytes: UnsafeBufferPointer<UInt8>, at start: Int, end: Int, inPath: Bool, into ranges: inout [Range<Int>]
    ) -> Int {
        var nameEnd = start
        while nameEnd < end {
            let byte = bytes[nameEnd]
            if byte == equals || byte == semicolon { break }
            if inPath ? byte == slash : (byte == ampersand || byte == question || byte == hash) { break }
            nameEnd += 1
        }
        guard nameEnd < end, bytes[nameEnd] == equals else { return nameEnd }
        guard isSecretName(UnsafeBufferPointer(rebasing: bytes[start..<nameEnd])) else { return nameEnd + 1 }
        var valueEnd = nameEnd + 1
        while valueEnd < end {
            let byte = bytes[valueEnd]
            if byte == semicolon || (inPath ? byte == slash : byte == ampersand) { break }
            valueEnd += 1
        }
        let value = nameEnd + 1..<valueEnd
        if !value.isEmpty && !matchesPlaceholder(bytes, value) { ranges.append(value) }
        return valueEnd
    }

    /// Whether a raw parameter name is one of ``secretQueryNames`` once percent-decoded and case-folded.
    private static func isSecretName(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !raw.isEmpty, raw.count <= 3 * longestSecretName else { return false }
        // Decoded on the stack: query names are checked for every parameter of every URL with a query.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: raw.count) { decoded in
            var length = 0
            var ascii = true
            var index = 0
            while index < raw.count {
                var byte = raw[index]
                if byte == percent, index + 2 < raw.count, let high = hexValue(raw[index + 1]),
                    let low = hexValue(raw[index + 2])
                {
                    byte = high << 4 | low
                    index += 3
                } else {
                    index += 1
                }
                if byte >= 0x80 { ascii = false }
                decoded[length] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                length += 1
            }
            guard ascii else {
                // Folded the Unicode way (the Kelvin sign folds to `k`): a server might fold so too.
                let name = String(decoding: UnsafeBufferPointer(rebasing: decoded[..<length]), as: UTF8.self)
                return secretQueryNames.contains(name.lowercased())
            }
            guard length <= longestSecretName, secretNameLengths.contains(length) else { return false }
            return secretQueryNames.contains(
                String(decoding: UnsafeBufferPointer(rebasing: decoded[..<length]), as: UTF8.self))
        }
    }

    /// The byte lengths of the secret names: most parameter names are ruled out without building a string.
    private static let secretNameLengths = Set(secretQueryNames.map(\.utf8.count))

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func matchesPlaceholder(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        range.count == placeholderBytes.count && bytes[range].elementsEqual(placeholderBytes)
    }

    /// Whether `text` holds `://`, by a byte scan: most texts hold no URL, and this runs on every message.
    /// Whether some word of `text` holds both `://` and one of `? @ # ;` — the only words ``redactText(_:)`` can
    /// change (``redactURL(_:)``'s fast path) — so that a finding message naming a plain URL (every card's
    /// transport finding on a feed of `http://` images) is written without splitting it into characters. The words
    /// are ``forEachWord(of:_:)``'s, unions of that function's words: `false` means none of those can change.
    private static func someURLWordMayHoldSecret(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var found = false
        _ = forEachWord(of: bytes) { word, _ in
            found =
                containsSchemeSeparator(word)
                && word.contains { $0 == question || $0 == at || $0 == hash || $0 == semicolon }
            return !found
        }
        return found
    }

    /// Calls `body` with each word of `bytes` as ``redactText(_:)`` cuts them (at space, newline, tab and quote) and
    /// the separator after it (`nil` after the last), until `body` returns `false`. A separator that may share a
    /// grapheme cluster with a neighbour (`\r\n`, or a non-ASCII byte just before or after it) is not cut at but kept
    /// in its word, so each word is a union of the Character loop's words.
    /// - Returns: whether every separator was cut at (the words are then exactly the Character loop's).
    private static func forEachWord(
        of bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, UInt8?) -> Bool
    ) -> Bool {
        var exact = true
        var start = 0
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x22 else { continue }
            let before = index > 0 ? bytes[index - 1] : 0
            let after = index + 1 < bytes.count ? bytes[index + 1] : 0
            guard before < 0x80, after < 0x80, !(byte == 0x0A && before == 0x0D) else {
                exact = false
                continue
            }
            guard body(UnsafeBufferPointer(rebasing: bytes[start..<index]), byte) else { return exact }
            start = index + 1
        }
        _ = body(UnsafeBufferPointer(rebasing: bytes[start...]), nil)
        return exact
    }

    private static func containsSchemeSeparator(_ text: String) -> Bool { withBytes(text, containsSchemeSeparator) }

    private static func containsSchemeSeparator(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var matched = 0  // how much of "://" the bytes just seen end with
        for byte in bytes {
            if byte == colon {
                matched = 1
            } else if byte == slash && matched > 0 {
                if matched == 2 { return true }
                matched = 2
            } else {
                matched = 0
            }
        }
        return false
    }
}
