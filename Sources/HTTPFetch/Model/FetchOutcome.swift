import Findings

/// Why a fetch failed: exactly one class per failed outcome. The raw values are the stable JSON strings.
public enum FetchFailure: String, Sendable, Hashable, CaseIterable {
    /// The host name did not resolve.
    case dns
    /// The TCP connection was refused or could not be made.
    case connect
    /// The TLS handshake or certificate verification failed (expired, wrong host, unknown CA, …).
    case tls
    /// Connecting took longer than the timeout, or the transfer stalled below the low-speed limit.
    case timeout
    /// The server answered with a status that is not success (4xx, 5xx, a 3xx without a usable Location).
    case httpStatus = "http-status"
    /// More redirects than allowed, or a redirect loop.
    case tooManyRedirects = "too-many-redirects"
    /// The URL, or a redirect, uses a scheme other than http/https (`file://`, `ftp://`, …).
    case scheme
    /// With deny-private: the connected address is loopback, private, link-local or otherwise not public.
    case privateAddress = "private-address"
    /// The declared or counted body size is larger than the maximum.
    case tooLarge = "too-large"
    /// The connection was reset or closed before a complete response.
    case reset
    /// The body ended before its declared length (or a chunked body ended mid-chunk).
    case truncated
    /// The URL is not a URL curl can parse (extension to the issue's list: no other class is honest here).
    case invalidURL = "invalid-url"
    /// The caller cancelled, or the engine shut down first (extension to the issue's list).
    case cancelled
    /// The sink refused the bytes, e.g. a disk write failed (extension to the issue's list).
    case sink

    /// The stable finding code for reports, in the package's camelCase style: `asset.httpStatus`,
    /// `asset.tooManyRedirects`, `asset.privateAddress`, … (the JSON `failure` value keeps the issue's spelling).
    public var findingCode: String {
        switch self {
        case .httpStatus: "asset.httpStatus"
        case .tooManyRedirects: "asset.tooManyRedirects"
        case .privateAddress: "asset.privateAddress"
        case .tooLarge: "asset.tooLarge"
        case .invalidURL: "asset.invalidURL"
        default: "asset.\(rawValue)"
        }
    }

    /// Whether a retry can help: timeouts and resets, and the statuses 408, 429 and 5xx.
    func isRetryable(httpStatus: Int?) -> Bool {
        switch self {
        case .timeout, .reset: true
        case .httpStatus: httpStatus.map { $0 == 408 || $0 == 429 || (500...599).contains($0) } ?? false
        default: false
        }
    }
}

/// What was asked for.
public enum FetchKind: String, Sendable, Hashable {
    /// HEAD, falling back to a GET (whose body is not read) when the server refuses HEAD.
    case probe
    /// GET with the body streamed into a sink and hashed.
    case get
}

/// One redirect followed: the URL requested, the status it answered with and where it pointed.
public struct RedirectHop: Sendable, Hashable {
    /// The URL that answered with a redirect (secrets redacted).
    public var url: String
    /// The 3xx status.
    public var status: Int
    /// The absolute URL it redirected to (secrets redacted).
    public var location: String

    /// A hop; both URLs are redacted here.
    public init(url: String, status: Int, location: String) {
        self.url = Redaction.redactURL(url)
        self.status = status
        self.location = Redaction.redactURL(location)
    }
}

/// Timings of the last attempt's last hop, in seconds from its start (curl's `*_TIME_T` infos).
public struct FetchTimings: Sendable, Hashable {
    /// Name lookup done.
    public var dns: Double = 0
    /// TCP connected.
    public var connect: Double = 0
    /// TLS handshake done (0 for plain HTTP or a reused connection).
    public var tls: Double = 0
    /// First response byte.
    public var firstByte: Double = 0
    /// The hop's total.
    public var total: Double = 0
    /// Wall time from the first attempt's start to the outcome, redirects, fallbacks and retry waits included
    /// (time spent queued behind the concurrency limits is not counted).
    public var elapsed: Double = 0

    public init() {}
}

/// The result of a probe or GET. A 404, a timeout or a refused redirect is an outcome, never a thrown error.
public struct FetchOutcome: Sendable, Hashable {
    /// `ok` or `failed`.
    public enum Status: String, Sendable, Hashable {
        case ok
        case failed
    }

    /// The URL as requested (secrets redacted).
    public var url: String
    /// Probe or GET.
    public var kind: FetchKind
    /// `ok` when the final response was 2xx (or a 304 to a conditional request).
    public var status: Status
    /// Why it failed; `nil` exactly when ``status`` is `ok`.
    public var failure: FetchFailure?
    /// `true` when a conditional request got `304 Not Modified` (status `ok`, no body).
    public var notModified = false
    /// The final response's status code, when a response arrived.
    public var httpStatus: Int?
    /// The last URL requested, after redirects (secrets redacted).
    public var finalURL: String
    /// Every redirect followed, in order.
    public var redirects: [RedirectHop] = []
    /// The final response's `Content-Type`.
    public var contentType: String?
    /// The final response's declared `Content-Length`.
    public var contentLength: Int?
    /// Lowercase hex SHA-256 of the body (GET with status ok and a body only).
    public var sha256: String?
    /// Body bytes received in the final attempt (GET only).
    public var bytes: Int?
    /// The final response's `ETag`, for the store's revalidation (``Validators``).
    public var etag: String?
    /// The final response's `Last-Modified`, for the store's revalidation (``Validators``).
    public var lastModified: String?
    /// The final response's `Cache-Control`, for the store's freshness rules.
    public var cacheControl: String?
    /// The final response's `Content-Range` (ranged GETs: `bytes 0-1/12345`), for video range probes.
    public var contentRange: String?
    /// The final response's `Accept-Ranges`, for video range probes.
    public var acceptRanges: String?
    /// A 403, 429 or 503 that is a CDN or WAF bot challenge (`cf-mitigated: challenge`, `x-amzn-waf-action`, or a
    /// Cloudflare HTML page): its finding is `asset.botChallenge`, a warning — the app, with its own headers, may
    /// still load the asset.
    public var botChallenge = false
    /// Timings.
    public var timings = FetchTimings()
    /// `1.1`, `2` or `3`.
    public var httpVersion: String?
    /// `TLSv1.3`, … for HTTPS.
    public var tlsVersion: String?
    /// The IP address connected to last.
    public var remoteAddress: String?
    /// curl's own error text (or the engine's reason), redacted.
    public var errorText: String?
    /// Attempts made (1 + retries used).
    public var attempts = 1
    /// Whether a probe fell back from HEAD to GET.
    public var usedGETFallback = false

    /// Creates an outcome (the engine builds them; public so stages can be tested with scripted outcomes).
    /// `url` and `errorText` are redacted here; ``status`` follows `failure`.
    public init(url: String, kind: FetchKind, failure: FetchFailure?, errorText: String? = nil) {
        self.url = Redaction.redactURL(url)
        self.kind = kind
        self.status = failure == nil ? .ok : .failed
        self.failure = failure
        self.finalURL = self.url
        self.errorText = errorText.map(Redaction.redactText)
    }

    /// `true` when ``status`` is `ok`.
    public var isOK: Bool { status == .ok }

    /// The outcome as a finding for reports: `nil` when ok; otherwise an error coded
    /// ``FetchFailure/findingCode`` (e.g. `asset.httpStatus`) with a one-line reason.
    public var finding: Finding? {
        guard let failure else { return nil }
        if botChallenge {
            return .warning(
                "asset.botChallenge",
                "\(url) answered with a bot-protection challenge (HTTP \(httpStatus ?? 0)), not the asset: allow "
                    + "the checker's User-Agent (--user-agent) at the CDN, or set a header for the host in "
                    + "inbox-assets.json (\"headers\")")
        }
        var reason = "\(kind == .probe ? "probe" : "download") of \(url) failed: \(failure.rawValue)"
        if let httpStatus, failure == .httpStatus { reason += " \(httpStatus)" }
        if let errorText { reason += " (\(errorText))" }
        return .error(failure.findingCode, reason)
    }
}
