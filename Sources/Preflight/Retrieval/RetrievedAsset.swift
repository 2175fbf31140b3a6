public import AssetStore
public import Findings
public import HTTPFetch
public import StrictJSON

/// Progress of ``AssetRetriever/retrieveAll(_:progress:)``, for a progress line.
public struct ProgressSnapshot: Sendable, Hashable {
    /// URLs finished.
    public var done: Int
    /// URLs in all.
    public var total: Int
    /// Body bytes received from the network so far.
    public var bytes: Int
    /// URLs that failed so far.
    public var failed: Int

    /// Creates a snapshot.
    public init(done: Int = 0, total: Int = 0, bytes: Int = 0, failed: Int = 0) {
        self.done = done
        self.total = total
        self.bytes = bytes
        self.failed = failed
    }
}

/// One URL after retrieval: where its bytes came from, the HTTP outcome when a request was made, the store entry
/// when the body is stored, and `asset.*` findings. A failure is a value, never a throw.
public struct RetrievedAsset: Sendable {
    /// Where the body came from.
    public enum Source: String, Sendable, Hashable {
        /// Downloaded now (a `200`), and stored.
        case network
        /// The stored copy, confirmed unchanged by a `304`.
        case revalidated
        /// The stored copy, fresh by `Cache-Control: max-age` (or offline): no request was made.
        case store
        /// From the shared remote cache (`--remote-cache`), verified into the store: no origin request was made.
        case remote
        /// Held in memory for this run only: no store (`--no-store`), or the server said `no-store`.
        case memory
        /// No body: the fetch failed, or offline and not stored.
        case missing
        /// Not retrieved: another shard's asset in a sharded run (`--shard I/N`).
        case otherShard = "other-shard"
    }

    /// The URL as retrieved (raw, secrets included: print ``redactedURL``).
    public var url: String
    /// Where the body came from.
    public var source: Source
    /// The HTTP result, when a request was made.
    public var outcome: FetchOutcome?
    /// The store entry, when the body is in the store.
    public var entry: StoreEntry?
    /// `asset.*` findings: fetch failures, store damage, offline gaps, `no-store`.
    public var findings: [Finding]
    /// Set when the store itself failed (full disk, read-only): the caller should stop with this error.
    public var storeError: StoreError?

    let store: AssetStore?
    let memory: [UInt8]?

    init(
        url: String, source: Source, outcome: FetchOutcome? = nil, entry: StoreEntry? = nil, findings: [Finding] = [],
        storeError: StoreError? = nil, store: AssetStore? = nil, memory: [UInt8]? = nil
    ) {
        self.url = url
        self.source = source
        self.outcome = outcome
        self.entry = entry
        self.findings = findings
        self.storeError = storeError
        self.store = store
        self.memory = memory
    }

    /// `true` when the body is available (stored or in memory) and no error finding was raised.
    public var isOK: Bool {
        source != .missing && !findings.contains { $0.severity == .error }
    }

    /// The URL with secrets redacted, for every output.
    public var redactedURL: String { Redaction.redactURL(url) }

    /// The body's size in bytes, when it is available.
    public var size: Int? { entry?.blob.size ?? memory?.count }

    /// The body's SHA-256, when it is available.
    public var sha256: String? { entry?.blob.sha256 ?? (memory != nil ? outcome?.sha256 : nil) }

    /// The `Content-Type` the body was served with.
    public var contentType: String? { entry?.contentType ?? outcome?.contentType }

    /// Body bytes this retrieval received from the network (0 for store hits and `304`s).
    public var bytesFetched: Int {
        guard let outcome, outcome.isOK, !outcome.notModified else { return 0 }
        return outcome.bytes ?? 0
    }

    /// The body: from memory, or read from the store with its size and hash checked.
    /// - Parameter limit: the most bytes the caller accepts.
    /// - Returns: the bytes, or `nil` when the body is absent, larger than `limit`, or the stored copy is gone
    ///   or damaged (re-run the retrieval to fetch it again).
    public func body(limit: Int) -> [UInt8]? {
        if let memory { return memory.count <= limit ? memory : nil }
        guard let entry, let store, entry.blob.size <= limit else { return nil }
        guard case .intact(let bytes) = try? store.read(entry.blob) else { return nil }
        return bytes
    }

    /// The stored body's file, checked (streamed, bounded memory): for libzip and large videos. Do not modify it.
    /// - Returns: the path, or `nil` when the body is not stored or the stored copy is gone or damaged.
    public func file() -> String? {
        guard let entry, let store, case .intact(let path) = try? store.path(entry.blob) else { return nil }
        return path
    }

    /// `{"url", "source", "ok", "httpStatus", "contentType", "bytes", "sha256", "bytesFetched", "findings"}`,
    /// with the URL redacted.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("url", .string(redactedURL)), ("source", .string(source.rawValue)), ("ok", .bool(isOK)),
                ("httpStatus", outcome?.httpStatus.map(JSONValue.int) ?? entry.map { .int($0.httpStatus) } ?? .null),
                ("contentType", .optional(contentType)), ("bytes", size.map(JSONValue.int) ?? .null),
                ("sha256", .optional(sha256)), ("bytesFetched", .int(bytesFetched)),
                ("findings", .array(findings.map(\.json))),
            ]))
    }
}
