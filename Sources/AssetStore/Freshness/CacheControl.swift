public import FoundationEssentials

/// The `Cache-Control` directives a private cache acts on (RFC 9111), parsed leniently: unknown
/// directives are ignored, names are case-insensitive, values may be quoted.
public struct CacheControl: Sendable, Hashable {
    /// `max-age=N` (seconds). The first occurrence counts; an invalid value (negative, not a number)
    /// makes the response stale at once, as RFC 9111 §4.2.1 recommends.
    public var maxAge: Int?
    /// `no-store`: the response must not be stored at all.
    public var noStore = false
    /// `no-cache`: a stored response must be revalidated before every use.
    public var noCache = false
    /// `must-revalidate`: once stale, never use without revalidating (the store never does anyway).
    public var mustRevalidate = false
    /// `immutable`: will not change while fresh.
    public var immutable = false

    /// Parses a `Cache-Control` header value; `nil` or empty means no directives.
    public init(_ header: String?) {
        guard var header else {
            self.init(characters: "")
            return
        }
        // Every stored entry's freshness is judged from its header (10,000 a warm-remote run): an ASCII header, as
        // RFC 9110 wants, is read in place; anything else by the same rules on Characters.
        let parsed = header.withUTF8 { bytes in bytes.allSatisfy { $0 < 0x80 } ? Self(ascii: bytes) : nil }
        if let parsed {
            self = parsed
        } else {
            self.init(characters: header)
        }
    }

    /// ``init(_:)`` on an ASCII header's bytes: the same directives, trimming and quoting as ``init(characters:)``.
    private init(ascii header: UnsafeBufferPointer<UInt8>) {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        func trimmed(_ part: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
            var part = part
            while let first = part.first, isSpace(first) { part = part.dropFirst() }
            while let last = part.last, isSpace(last) { part = part.dropLast() }
            return part
        }
        func named(_ name: Slice<UnsafeBufferPointer<UInt8>>, _ expected: StaticString) -> Bool {
            guard name.count == expected.utf8CodeUnitCount else { return false }
            var position = name.startIndex
            for offset in 0..<expected.utf8CodeUnitCount {
                let byte: UInt8 = name[position]
                let lower: UInt8 = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                guard lower == expected.utf8Start[offset] else { return false }
                position += 1
            }
            return true
        }
        var sawMaxAge = false
        for part in header.split(separator: UInt8(ascii: ",")) {
            let equals = part.firstIndex(of: UInt8(ascii: "="))
            let name = trimmed(equals.map { part[..<$0] } ?? part)
            var value = equals.map { trimmed(part[($0 + 1)...]) }
            if let quoted = value, quoted.count >= 2, quoted.first == UInt8(ascii: "\""),
                quoted.last == UInt8(ascii: "\"")
            {
                value = quoted.dropFirst().dropLast()
            }
            if named(name, "max-age") {
                guard !sawMaxAge else { continue }
                sawMaxAge = true
                guard let value, !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    maxAge = 0
                    continue
                }
                var seconds = 0
                for digit in value {
                    let (times, overflowTimes) = seconds.multipliedReportingOverflow(by: 10)
                    let (plus, overflowPlus) = times.addingReportingOverflow(Int(digit - 0x30))
                    guard !overflowTimes, !overflowPlus else {
                        seconds = Int.max  // more digits than Int holds: effectively forever
                        break
                    }
                    seconds = plus
                }
                maxAge = seconds
            } else if named(name, "no-store") {
                noStore = true
            } else if named(name, "no-cache") {
                noCache = true
            } else if named(name, "must-revalidate") {
                mustRevalidate = true
            } else if named(name, "immutable") {
                immutable = true
            }
        }
    }

    /// ``init(_:)`` for a header that is not ASCII, on Characters (internal: the tests hold the ASCII path to it).
    init(characters header: String) {
        var sawMaxAge = false
        for part in header.split(separator: ",") {
            let directive = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = directive[0].trimmingSpaces().lowercased()
            var value = directive.count > 1 ? directive[1].trimmingSpaces() : nil
            if let quoted = value, quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") {
                value = String(quoted.dropFirst().dropLast())
            }
            switch name {
            case "max-age" where !sawMaxAge:
                sawMaxAge = true
                if let value, !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                    maxAge = Int(value) ?? Int.max  // more digits than Int holds: effectively forever
                } else {
                    maxAge = 0
                }
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate": mustRevalidate = true
            case "immutable": immutable = true
            default: break
            }
        }
    }

    /// Whether a response with this `Cache-Control` may be stored (it may unless `no-store`).
    public static func mayStore(_ header: String?) -> Bool { !CacheControl(header).noStore }
}

/// One HTTP request header.
public struct HTTPHeaderField: Sendable, Hashable {
    /// The header name, e.g. `If-None-Match`.
    public var name: String
    /// The header value.
    public var value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// What to do with a stored entry before using it.
public enum CacheDecision: Sendable, Hashable {
    /// Within `max-age`: use the stored body without any request.
    case fresh(until: Date)
    /// Stale (or `no-cache`): send a conditional request with these headers; a `304` means
    /// ``AssetStore/revalidated(_:at:etag:lastModified:cacheControl:)``.
    case revalidate([HTTPHeaderField])
    /// Stale with no validator to revalidate with, or `no-store`: fetch it again unconditionally.
    case refetch(reason: String)
}

extension StoreEntry {
    /// An entry from a response's headers: `Content-Type`, `ETag`, `Last-Modified` and `Cache-Control`
    /// are picked by case-insensitive name (the last occurrence wins; repeated `Cache-Control` lines are
    /// joined with commas, as HTTP defines).
    /// - Parameters:
    ///   - blob: The committed body.
    ///   - headers: The response header fields as received.
    ///   - httpStatus: The response status.
    ///   - fetchedAt: When the response arrived.
    public init(blob: BlobRef, headers: [HTTPHeaderField], httpStatus: Int, fetchedAt: Date) {
        var contentType: String?
        var etag: String?
        var lastModified: String?
        var cacheControl: [String] = []
        for field in headers {
            let value = field.value.trimming(" \t\r\n")
            switch field.name.lowercased() {
            case "content-type": contentType = value
            case "etag": etag = value
            case "last-modified": lastModified = value
            case "cache-control": cacheControl.append(value)
            default: break
            }
        }
        self.init(
            blob: blob, contentType: contentType, etag: etag, lastModified: lastModified,
            cacheControl: cacheControl.isEmpty ? nil : cacheControl.joined(separator: ", "), fetchedAt: fetchedAt,
            httpStatus: httpStatus)
    }

    /// The entry's parsed `Cache-Control`.
    public var cacheDirectives: CacheControl { CacheControl(cacheControl) }

    /// Until when the entry is fresh: `fetchedAt + max-age`; `nil` when it has no usable `max-age`, is
    /// `no-cache` or `no-store` (then it is never fresh).
    public var freshUntil: Date? {
        let directives = cacheDirectives
        guard !directives.noStore, !directives.noCache, let maxAge = directives.maxAge, maxAge > 0 else { return nil }
        return fetchedAt.addingTimeInterval(Double(min(maxAge, 100 * 365 * 86_400)))
    }

    /// Whether the entry may be used at `now` without asking the server. A clock that went back before
    /// `fetchedAt` counts as age zero.
    public func isFresh(at now: Date) -> Bool {
        guard let freshUntil else { return false }
        return now < freshUntil
    }

    /// `If-None-Match` (from the `ETag`) and `If-Modified-Since` (from `Last-Modified`), for a
    /// conditional request. Empty when the entry has neither validator.
    public var conditionalHeaders: [HTTPHeaderField] {
        var fields: [HTTPHeaderField] = []
        if let etag, !etag.isEmpty { fields.append(HTTPHeaderField(name: "If-None-Match", value: etag)) }
        if let lastModified, !lastModified.isEmpty {
            fields.append(HTTPHeaderField(name: "If-Modified-Since", value: lastModified))
        }
        return fields
    }

    /// What the fetch engine should do with this entry at `now`: nothing (fresh), a conditional
    /// request, or a full fetch.
    public func cacheDecision(at now: Date) -> CacheDecision {
        if cacheDirectives.noStore { return .refetch(reason: "stored response is marked no-store") }
        if let freshUntil, now < freshUntil { return .fresh(until: freshUntil) }
        let headers = conditionalHeaders
        guard !headers.isEmpty else { return .refetch(reason: "stale and no ETag or Last-Modified to revalidate") }
        return .revalidate(headers)
    }
}

extension StringProtocol {
    fileprivate func trimmingSpaces() -> String { trimming(" \t") }

    /// The text without leading and trailing characters from `set` (Foundation-free).
    func trimming(_ set: String) -> String {
        guard let first = firstIndex(where: { !set.contains($0) }), let last = lastIndex(where: { !set.contains($0) })
        else { return "" }
        return String(self[first...last])
    }
}
