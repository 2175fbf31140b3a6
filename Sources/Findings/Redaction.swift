/// Keeps secrets out of every output format and log.
///
/// Campaign inputs carry secrets: the createMessage request's `auth` (handled by the readers, which never
/// keep it) and signed or tokenised asset URLs such as `https://cdn/x.png?token=abc`. Every URL that
/// reaches a report, a log line or an error message goes through ``redactURL(_:)`` first.
public enum Redaction {
    /// The text that replaces a secret value.
    public static let placeholder = "REDACTED"

    /// Query parameter names (compared case-insensitively) whose values are secrets.
    public static let secretQueryNames: Set<String> = [
        "token", "access_token", "accesstoken", "id_token", "refresh_token", "auth", "authorization", "key",
        "api_key", "apikey", "secret", "client_secret", "password", "passwd", "pwd", "sig", "signature",
        "session", "sessionid", "sid", "credential", "x-amz-signature", "x-amz-credential",
        "x-amz-security-token", "x-goog-signature", "x-goog-credential", "se", "sv", "sp",
    ]

    /// Returns `url` with the values of secret query parameters replaced by `REDACTED` and any
    /// `user:password@` userinfo password removed. Text that is not a URL comes back unchanged except
    /// for the same query rule, so it is safe to call on anything that might hold a URL.
    public static func redactURL(_ url: String) -> String {
        // Fast path: most URLs have neither a query nor userinfo (a byte scan beats the generic search).
        guard hasQueryOrUserinfo(url) else { return url }
        var result = redactUserinfo(url)
        guard let queryStart = result.firstIndex(of: "?") else { return result }
        let fragmentStart = result[queryStart...].firstIndex(of: "#") ?? result.endIndex
        let query = result[result.index(after: queryStart)..<fragmentStart]
        var changed = false
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> Substring in
            guard let equals = part.firstIndex(of: "=") else { return part }
            let name = part[..<equals].lowercased()
            guard secretQueryNames.contains(name), part[part.index(after: equals)...] != Substring(placeholder)
            else { return part }
            changed = true
            return part[...equals] + placeholder
        }
        guard changed else { return result }
        result.replaceSubrange(result.index(after: queryStart)..<fragmentStart, with: parts.joined(separator: "&"))
        return result
    }

    /// Replaces every URL-looking word (`http://…`, `https://…`) inside free text with its redacted form.
    public static func redactText(_ text: String) -> String {
        guard containsSchemeSeparator(text) else { return text }
        var out = ""
        var word = ""
        for character in text {
            if character == " " || character == "\n" || character == "\t" || character == "\"" {
                out += word.contains("://") ? redactURL(word) : word
                out.append(character)
                word = ""
            } else {
                word.append(character)
            }
        }
        out += word.contains("://") ? redactURL(word) : word
        return out
    }

    /// Whether `url` holds a `?` or an `@`, scanning the contiguous bytes of native strings directly (reports call
    /// this for every URL of every card).
    private static func hasQueryOrUserinfo(_ url: String) -> Bool {
        let found: Bool? = url.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte == UInt8(ascii: "?") || byte == UInt8(ascii: "@") { return true }
            return false
        }
        return found ?? url.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "@") })
    }

    /// Whether `text` holds `://`, by a byte scan: most texts hold no URL, and this runs on every message.
    private static func containsSchemeSeparator(_ text: String) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable(containsSchemeSeparator) { return found }
        return containsSchemeSeparator(text.utf8)
    }

    private static func containsSchemeSeparator(_ bytes: some Sequence<UInt8>) -> Bool {
        var matched = 0  // how much of "://" the bytes just seen end with
        for byte in bytes {
            if byte == UInt8(ascii: ":") {
                matched = 1
            } else if byte == UInt8(ascii: "/") && matched > 0 {
                if matched == 2 { return true }
                matched = 2
            } else {
                matched = 0
            }
        }
        return false
    }

    private static func redactUserinfo(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd =
            url[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" })
            ?? url.endIndex
        guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@"),
            let colon = url[authorityStart..<at].firstIndex(of: ":")
        else { return url }
        var copy = url
        copy.replaceSubrange(url.index(after: colon)..<at, with: placeholder)
        return copy
    }
}
