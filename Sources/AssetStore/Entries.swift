import Findings
public import FoundationEssentials
import Glibc
public import StrictJSON

/// A blob in the store: its SHA-256 (64 lowercase hex digits) and its size in bytes.
public struct BlobRef: Sendable, Hashable, CustomStringConvertible {
    /// Lowercase hex SHA-256 of the content; also the blob's file name.
    public let sha256: String
    /// Size in bytes.
    public let size: Int

    /// Creates a reference; `nil` when `sha256` is not 64 lowercase hex digits or `size` is negative.
    public init?(sha256: String, size: Int) {
        guard Hex.isDigest(sha256), size >= 0 else { return nil }
        self.sha256 = sha256
        self.size = size
    }

    init(trusted sha256: String, size: Int) {
        self.sha256 = sha256
        self.size = size
    }

    public var description: String { "sha256:\(sha256) (\(size) bytes)" }
}

/// What the store knows about one URL: which blob holds its body and the HTTP metadata needed to decide
/// whether to use it as is, revalidate it or fetch it again.
public struct StoreEntry: Sendable, Hashable {
    /// The blob holding the response body.
    public var blob: BlobRef
    /// `Content-Type` as the server sent it.
    public var contentType: String?
    /// `ETag` as the server sent it (quotes and `W/` included), for `If-None-Match`.
    public var etag: String?
    /// `Last-Modified` as the server sent it, for `If-Modified-Since`.
    public var lastModified: String?
    /// `Cache-Control` as the server sent it.
    public var cacheControl: String?
    /// When the response (or its last `304`) arrived. Stored with millisecond precision.
    public var fetchedAt: Date
    /// The status of the response that produced the body (200 usually).
    public var httpStatus: Int

    /// Creates an entry. `fetchedAt` is rounded to whole milliseconds, the precision of the index.
    public init(
        blob: BlobRef, contentType: String? = nil, etag: String? = nil, lastModified: String? = nil,
        cacheControl: String? = nil, fetchedAt: Date, httpStatus: Int = 200
    ) {
        self.blob = blob
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.fetchedAt = Millis.round(fetchedAt)
        self.httpStatus = httpStatus
    }

    /// The entry as JSON, for `store ls --format json` and reports.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("sha256", .string(blob.sha256)), ("size", .int(blob.size)),
                ("contentType", .optional(contentType)), ("etag", .optional(etag)),
                ("lastModified", .optional(lastModified)), ("cacheControl", .optional(cacheControl)),
                ("fetchedAt", .string(Millis.iso8601(fetchedAt))), ("httpStatus", .int(httpStatus)),
            ]))
    }
}

/// One indexed URL as `list()` returns it: the entry plus the last time anyone used it (for LRU).
public struct StoredURL: Sendable, Hashable {
    /// The URL exactly as recorded (secrets included — redact before printing).
    public var url: String
    /// Its newest entry.
    public var entry: StoreEntry
    /// The newest of the record time and every `touch`.
    public var lastAccess: Date

    /// The listing row as JSON, with the URL redacted of secrets.
    public var json: JSONValue {
        var result = JSONObject([("url", .string(Redaction.redactURL(url)))])
        for (key, value) in entry.json.objectValue ?? JSONObject() { result[key] = value }
        result["lastAccess"] = .string(Millis.iso8601(lastAccess))
        return .object(result)
    }
}

/// Dates in the index are integer milliseconds since the epoch.
enum Millis {
    /// Clamped to ±2^53 ms (about 285,000 years) so that no date — not even an infinite one — traps.
    static func from(_ date: Date) -> Int {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        guard millis.isFinite else { return millis > 0 ? limit : (millis < 0 ? -limit : 0) }
        return Int(max(-Double(limit), min(Double(limit), millis)))
    }

    private static let limit = 1 << 53

    static func date(_ millis: Int) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
    static func round(_ date: Date) -> Date { Self.date(from(date)) }

    /// `2026-11-29T13:52:09.123Z`, for humans and JSON output.
    static func iso8601(_ date: Date) -> String {
        let millis = from(date)
        var seconds = time_t(millis >= 0 ? millis / 1000 : (millis - 999) / 1000)
        let fraction = millis - Int(seconds) * 1000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(fraction), 3))Z"
    }
}
