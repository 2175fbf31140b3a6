public import Findings

/// The answer to a byte-range request (`Range: bytes=0-1` or similar) for a video URL, as HTTPFetch saw it.
public struct RangeProbeResponse: Sendable, Hashable {
    /// The final HTTP status (after redirects).
    public var status: Int
    /// The `Content-Type` header, if any.
    public var contentType: String?
    /// The `Content-Length` header, if any (the length of this response's body, not of the file).
    public var contentLength: Int64?
    /// The `Content-Range` header, if any, e.g. `bytes 0-1/12345`.
    public var contentRange: String?
    /// The `Accept-Ranges` header, if any.
    public var acceptRanges: String?
    /// The range that was asked for (first and last byte, inclusive). Default `0...1`, what AVPlayer asks first.
    public var requestedRange: ClosedRange<Int64>

    /// A probe answer; headers default to "not sent".
    public init(
        status: Int, contentType: String? = nil, contentLength: Int64? = nil, contentRange: String? = nil,
        acceptRanges: String? = nil, requestedRange: ClosedRange<Int64> = 0...1
    ) {
        self.status = status
        self.contentType = contentType
        self.contentLength = contentLength
        self.contentRange = contentRange
        self.acceptRanges = acceptRanges
        self.requestedRange = requestedRange
    }
}

/// A parsed `Content-Range: bytes first-last/total` (RFC 9110 §14.4); `total` is nil for `*`.
public struct ContentRange: Sendable, Hashable {
    /// First byte sent.
    public var first: Int64
    /// Last byte sent (inclusive).
    public var last: Int64
    /// The full length, nil for `*` (unknown).
    public var total: Int64?

    /// Parses the header value; nil when it is not a satisfied byte range (e.g. `bytes */100`, garbage, last < first,
    /// last ≥ total).
    public init?(_ value: String) {
        let trimmed = value.trimmingASCIIWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmingASCIIWhitespace()
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.digits(bounds[0]), let last = Self.digits(bounds[1]), first <= last
        else { return nil }
        if parts[1] == "*" {
            total = nil
        } else {
            guard let total = Self.digits(parts[1]), last < total else { return nil }
            self.total = total
        }
        self.first = first
        self.last = last
    }

    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int64(text)
    }
}

/// What a range probe says about a video URL.
public struct RangeProbeEvaluation: Sendable, Hashable {
    /// True when the server answered the range request with a correct 206.
    public var supportsByteRanges: Bool
    /// The resource's full size, from Content-Range (206) or Content-Length (200), when known.
    public var totalBytes: Int64?
    /// True when the Content-Type says HLS playlist (no ranges needed).
    public var isPlaylist: Bool
    /// Everything worth telling, most severe first.
    public var findings: [Finding]
}

/// Pure checks on what a server answers for a video: range support, type, size, transport security.
public enum VideoChecks {
    /// Judges a range probe: AVPlayer streams progressive media (MP4/MOV) only from servers that answer byte-range
    /// requests with `206 Partial Content` and a correct `Content-Range`. HLS playlists need no ranges.
    ///
    /// - Parameters:
    ///   - response: Status and headers of the probe.
    ///   - limits: The size threshold.
    /// - Returns: Range support, total size and findings. Never throws.
    public static func evaluate(_ response: RangeProbeResponse, limits: VideoLimits = VideoLimits())
        -> RangeProbeEvaluation
    {
        let type = MediaContentType.essence(response.contentType)
        let isPlaylist = type.map(MediaContentType.hlsTypes.contains) ?? false
        var result = RangeProbeEvaluation(
            supportsByteRanges: false, totalBytes: nil, isPlaylist: isPlaylist, findings: [])
        let asked = "bytes=\(response.requestedRange.lowerBound)-\(response.requestedRange.upperBound)"

        switch response.status {
        case 206:
            checkPartialContent(response, asked: asked, into: &result)
        case 200:
            result.totalBytes = response.contentLength
            if !isPlaylist {
                let advertised =
                    response.acceptRanges?.lowercased().contains("bytes") == true
                    ? " although it sends Accept-Ranges: bytes" : ""
                // AVPlayer needs 206 for progressive media (iOS, an error); MediaRules' Android row is a warning.
                result.findings.append(
                    .error(
                        VideoFindingCode.noRangeSupport,
                        "The server answered the range request (\(asked)) with 200 and the whole body\(advertised); "
                            + "AVPlayer on iOS needs 206 Partial Content to play progressive video."
                    ).on(.ios))
            }
        case 416 where Self.unsatisfiedLength(response.contentRange) == 0:
            // RFC 9110 §14.4: a 416 carries `Content-Range: bytes */<complete-length>`. A length of 0 means the
            // file is empty (any range of it is unsatisfiable): that is the problem to report, not the status.
            result.totalBytes = 0
            result.findings.append(
                .error(
                    VideoFindingCode.empty,
                    "The range request (\(asked)) was answered 416 with Content-Range: bytes */0: the video is empty "
                        + "(zero bytes)."))
            return result
        default:
            result.findings.append(
                .error(
                    VideoFindingCode.httpStatus,
                    "The range request (\(asked)) was answered with HTTP \(response.status)"
                        + (response.status == 416 ? " (range not satisfiable: the file may be empty)." : ".")))
            return result
        }
        checkContentType(type, isPlaylist: isPlaylist, into: &result.findings)
        if let total = result.totalBytes {
            if total == 0 {
                result.findings.append(.error(VideoFindingCode.empty, "The server reports a zero-length video."))
            } else if !isPlaylist, let finding = VideoSniffer.tooLarge(Int64(total), limits: limits) {
                result.findings.append(finding)
            }
        }
        result.findings.sort { $0.severity > $1.severity }
        return result
    }

    /// The complete length of an unsatisfied-range `Content-Range: bytes */<length>` (RFC 9110 §14.4), else nil.
    static func unsatisfiedLength(_ header: String?) -> Int64? {
        guard let header else { return nil }
        let value = header.trimmingASCIIWhitespace().lowercased()
        guard value.hasPrefix("bytes */") else { return nil }
        let digits = value.dropFirst(8)
        guard !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int64(digits)
    }

    private static func checkPartialContent(
        _ response: RangeProbeResponse, asked: String, into result: inout RangeProbeEvaluation
    ) {
        guard let header = response.contentRange else {
            result.findings.append(
                .error(
                    VideoFindingCode.badContentRange,
                    "The server answered 206 to \(asked) without a Content-Range header; players cannot use it."))
            return
        }
        guard let range = ContentRange(header) else {
            result.findings.append(
                .error(
                    VideoFindingCode.badContentRange,
                    "The server answered 206 to \(asked) with an unusable Content-Range '\(excerpt(header))'."))
            return
        }
        let requested = response.requestedRange
        guard range.first == requested.lowerBound, range.last <= requested.upperBound else {
            result.findings.append(
                .error(
                    VideoFindingCode.badContentRange,
                    "Asked for \(asked) but the server sent bytes \(range.first)-\(range.last)."))
            return
        }
        result.supportsByteRanges = true
        result.totalBytes = range.total
        if range.total == nil {
            result.findings.append(
                .warning(
                    VideoFindingCode.unknownLength,
                    "The Content-Range '\(excerpt(header))' does not give the full length; players need it to seek."))
        }
        if let length = response.contentLength, length != range.last - range.first + 1 {
            result.findings.append(
                .warning(
                    VideoFindingCode.lengthMismatch,
                    "Content-Length \(length) disagrees with Content-Range '\(excerpt(header))' "
                        + "(\(range.last - range.first + 1) bytes)."))
        }
        if response.acceptRanges?.lowercased() == "none" {
            result.findings.append(
                .warning(
                    VideoFindingCode.noRangeSupport,
                    "The server sends Accept-Ranges: none yet answered the range request; players may not seek."))
        }
    }

    /// Content types AVPlayer plays progressively.
    static let progressiveTypes: Set<String> = [
        "video/mp4", "video/quicktime", "video/x-m4v", "audio/mp4", "application/mp4", "video/3gpp",
    ]

    /// AVPlayer (iOS) decides how to play a URL by its type, else its extension: those findings are iOS's.
    /// MediaPlayer (Android) sniffs the bytes; only a type that says "not video" is true for both.
    private static func checkContentType(_ type: String?, isPlaylist: Bool, into findings: inout [Finding]) {
        guard let type else {
            findings.append(
                .warning(
                    VideoFindingCode.contentType,
                    "No Content-Type was sent; AVPlayer on iOS then guesses from the URL's extension."
                ).on(.ios))
            return
        }
        if isPlaylist || progressiveTypes.contains(type) { return }
        if MediaContentType.genericTypes.contains(type) {
            findings.append(
                .warning(
                    VideoFindingCode.contentType,
                    "Served as \(type); AVPlayer on iOS then guesses from the URL's extension. Serve video/mp4."
                ).on(.ios))
        } else if type.hasPrefix("text/") || type == "application/json" || type.hasPrefix("image/") {
            findings.append(
                .error(
                    VideoFindingCode.contentType,
                    "Served as \(type), which is not video: probably an error page or the wrong URL."))
        } else if type == "video/webm" || type == "video/x-matroska" || type == "video/mp2t" {
            findings.append(
                .error(
                    VideoFindingCode.contentType, "Served as \(type), which AVPlayer on iOS cannot play progressively."
                ).on(.ios))
        } else {
            findings.append(
                .warning(VideoFindingCode.contentType, "Served as \(type), an unusual type for an inbox video.").on(
                    .ios))
        }
    }
}
