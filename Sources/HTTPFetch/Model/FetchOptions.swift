import Findings

/// Network options, mirroring the CLI's shared network flags (`--concurrency`, `--host-concurrency`,
/// `--timeout`, `--retries`, `--connect-to`, `--cacert`, `--deny-private`, `--user-agent`, `--max-size`).
public struct FetchOptions: Sendable, Hashable {
    /// Transfers running at once, all hosts together (`--concurrency`).
    public var concurrency: Int
    /// Transfers running at once against one scheme+host+port (`--host-concurrency`).
    public var hostConcurrency: Int
    /// Seconds (`--timeout`): the connect timeout (DNS + TCP + TLS) and the stall window — a transfer slower
    /// than ``lowSpeedLimit`` bytes/s for this long (rounded up to whole seconds, curl's granularity) fails
    /// with `timeout`. There is no total time limit, so a large download that keeps moving is never cut, and
    /// time spent queued behind the concurrency limits never counts.
    public var timeout: Double
    /// Extra attempts after a timeout, 408, 429, 5xx or reset (`--retries`); never for DNS, connect, TLS, 4xx.
    public var retries: Int
    /// `HOST:PORT:HOST2:PORT2` mappings, as curl's `--connect-to` (`--connect-to`, repeatable): requests for
    /// HOST:PORT connect to HOST2:PORT2 instead. The URL, the Host header and TLS verification keep the
    /// original host name, as with curl.
    public var connectTo: [String]
    /// A PEM bundle of CAs to trust instead of the system's (`--cacert`).
    public var caFile: String?
    /// Refuse to talk to loopback, private, link-local and other non-public addresses, checked on the
    /// address actually connected, on every hop (`--deny-private`).
    public var denyPrivate: Bool
    /// The `User-Agent` header (`--user-agent`).
    public var userAgent: String
    /// The most body bytes accepted (`--max-size`), checked on the declared `Content-Length` (probes too)
    /// and on the bytes counted as they arrive (bodies without a length); `nil` = no limit.
    public var maxSize: Int?
    /// The most redirects followed; one more fails with `too-many-redirects`.
    public var maxRedirects: Int
    /// Bytes per second below which a transfer counts as stalled (see ``timeout``). The default, 1 KiB/s, is
    /// far below any CDN yet catches a slow-drip server: at 1 byte/s a transfer would otherwise "move" forever.
    public var lowSpeedLimit: Int
    /// The first retry's backoff in seconds; doubles per attempt up to ``maxRetryDelay``.
    public var retryBaseDelay: Double
    /// The longest wait before a retry, also capping a server's `Retry-After`.
    public var maxRetryDelay: Double

    /// Options with the CLI's defaults.
    /// Transfers started per second per scheme+host+port (`--host-rate`), `nil` for no limit: for CDNs that
    /// answer a burst with 429.
    public var hostRate: Double? = nil
    /// Request headers for hosts matching a glob (config `headers`: CDN tokens), sent on every hop to such a host
    /// and to no other.
    public var hostHeaders: [HostHeader] = []

    public init(
        concurrency: Int = 16, hostConcurrency: Int = 6, timeout: Double = 30, retries: Int = 2,
        connectTo: [String] = [], caFile: String? = nil, denyPrivate: Bool = false,
        userAgent: String = "inbox-assets/1", maxSize: Int? = nil, maxRedirects: Int = 10, lowSpeedLimit: Int = 1024,
        retryBaseDelay: Double = 0.5, maxRetryDelay: Double = 30
    ) {
        self.concurrency = concurrency
        self.hostConcurrency = hostConcurrency
        self.timeout = timeout
        self.retries = retries
        self.connectTo = connectTo
        self.caFile = caFile
        self.denyPrivate = denyPrivate
        self.userAgent = userAgent
        self.maxSize = maxSize
        self.maxRedirects = maxRedirects
        self.lowSpeedLimit = lowSpeedLimit
        self.retryBaseDelay = retryBaseDelay
        self.maxRetryDelay = maxRetryDelay
    }
}

/// A request header for the hosts a glob matches (`*.cdn.example.com`).
public struct HostHeader: Sendable, Hashable {
    public var host: String
    public var name: String
    public var value: String

    public init(host: String, name: String, value: String) {
        self.host = host
        self.name = name
        self.value = value
    }
}

extension FetchOptions {
    /// `Name: value` lines of ``hostHeaders`` for `url`'s host (values with a line break are never sent).
    func headers(for url: String) -> [String] {
        guard !hostHeaders.isEmpty, let host = Glob.host(of: url) else { return [] }
        return hostHeaders.filter { Glob.matches($0.host.lowercased(), host) && !$0.value.contains(where: \.isNewline) }
            .map { "\($0.name): \($0.value)" }
    }
}

/// The validators of a stored copy, sent as `If-None-Match` / `If-Modified-Since` so an unchanged asset
/// comes back as `304` (``FetchOutcome/notModified``) without a body.
public struct Validators: Sendable, Hashable {
    /// The stored `ETag`, sent as `If-None-Match`.
    public var etag: String?
    /// The stored `Last-Modified`, sent as `If-Modified-Since`.
    public var lastModified: String?

    /// An `Authorization` header value (`ApplePass TOKEN` for a PassKit web service); sent to the URL's host only
    /// (curl drops it on a redirect to another host), never logged or reported.
    public var authorization: String?

    public init(etag: String? = nil, lastModified: String? = nil, authorization: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.authorization = authorization
    }

    var isEmpty: Bool { etag == nil && lastModified == nil && authorization == nil }

    var headers: [String] {
        var headers: [String] = []
        // Header values come from stored server responses; CR/LF would let one inject headers.
        if let etag, !etag.contains(where: \.isNewline) { headers.append("If-None-Match: \(etag)") }
        if let lastModified, !lastModified.contains(where: \.isNewline) {
            headers.append("If-Modified-Since: \(lastModified)")
        }
        if let authorization, !authorization.contains(where: \.isNewline) {
            headers.append("Authorization: \(authorization)")
        }
        return headers
    }
}

/// Why a ``FetchEngine`` cannot be created (bad options or an unusable libcurl); fetch problems are never thrown.
public struct FetchEngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which option or facility is wrong.
    public var description: String

    init(_ description: String) { self.description = description }
}
