/// RFC 3986 URI references: splitting into components and resolving a relative reference against a base (§5.2).
///
/// Written by hand rather than with Foundation's `URL` because `URL(string:relativeTo:)` differs across platforms
/// on edge cases (dot segments, empty paths, `?`-only references) and the pipeline needs one stable answer.
/// No percent-decoding or normalisation beyond dot-segment removal is done: the result is what a player requests.
public struct URIReference: Sendable, Hashable {
    /// The scheme without `:` (`https`), nil for a relative reference.
    public var scheme: String?
    /// The authority without the leading `//`; nil when the reference has none (distinct from empty).
    public var authority: String?
    /// The path, possibly empty; never percent-decoded.
    public var path: String
    /// The query without `?`; nil when there is no `?` (distinct from empty).
    public var query: String?
    /// The fragment without `#`; nil when there is no `#`.
    public var fragment: String?

    /// Splits a reference with the regular expression of RFC 3986 appendix B (which accepts any string).
    public init(_ text: String) {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        if let colon = rest.firstIndex(of: ":"), Self.isScheme(rest[..<colon]) {
            scheme = String(rest[..<colon])
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            let afterSlashes = rest.index(rest.startIndex, offsetBy: 2)
            let end = rest[afterSlashes...].firstIndex(of: "/") ?? rest.endIndex
            authority = String(rest[afterSlashes..<end])
            rest = rest[end...]
        }
        path = String(rest)
    }

    init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, isAlpha(first) else { return false }
        return text.utf8.allSatisfy {
            isAlpha($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                || $0 == UInt8(ascii: ".")
        }
    }

    private static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    /// The reference as text (RFC 3986 §5.3).
    public var text: String {
        var result = ""
        if let scheme { result += scheme + ":" }
        if let authority { result += "//" + authority }
        result += path
        if let query { result += "?" + query }
        if let fragment { result += "#" + fragment }
        return result
    }

    /// True when the reference has a scheme (an absolute URI).
    public var isAbsolute: Bool { scheme != nil }

    /// Resolves `reference` against `base` (RFC 3986 §5.2.2, strict). Returns nil when `base` is not absolute and
    /// `reference` is relative, since there is then nothing to resolve against.
    public static func resolve(_ reference: String, against base: String) -> String? {
        resolve(reference, against: URIReference(base))
    }

    /// ``resolve(_:against:)`` with the base already split, for resolving many references against one playlist.
    static func resolve(_ reference: String, against base: URIReference) -> String? {
        let ref = URIReference(reference)
        if ref.scheme != nil {
            return URIReference(
                scheme: ref.scheme, authority: ref.authority, path: removeDotSegments(ref.path), query: ref.query,
                fragment: ref.fragment
            ).text
        }
        guard base.scheme != nil else { return nil }
        var target = URIReference(
            scheme: base.scheme, authority: base.authority, path: "", query: nil, fragment: ref.fragment)
        if ref.authority != nil {
            target.authority = ref.authority
            target.path = removeDotSegments(ref.path)
            target.query = ref.query
        } else if ref.path.isEmpty {
            target.path = base.path
            target.query = ref.query ?? base.query
        } else {
            target.path =
                ref.path.hasPrefix("/") ? removeDotSegments(ref.path) : removeDotSegments(merge(base, ref.path))
            target.query = ref.query
        }
        return target.text
    }

    /// §5.2.3: the base path without its last segment, then the reference path.
    private static func merge(_ base: URIReference, _ path: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return base.path[...slash] + path
    }

    /// §5.2.4: removes `.` and `..` segments. Linear: segments are kept on a stack.
    static func removeDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let absolute = path.hasPrefix("/")
        for (index, segment) in segments.enumerated() {
            if index == 0 && absolute { continue }  // the empty segment before the leading "/"
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return (absolute ? "/" : "") + output.joined(separator: "/")
    }
}
