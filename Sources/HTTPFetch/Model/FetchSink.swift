internal import COpenSSL
import Synchronization

/// Where a GET's body goes while it arrives (the asset store implements one that writes a temporary file).
///
/// The engine calls these on its own thread, in order, for one transfer at a time per sink; keep them quick
/// (a file write is fine, waiting on other tasks is not). Only the body of the final 2xx response is
/// delivered: redirect and error bodies never reach a sink. The engine computes the SHA-256 itself.
public protocol FetchSink: AnyObject, Sendable {
    /// A body starts. Called again when an attempt is retried after bytes arrived: drop what came before.
    /// - Parameter contentLength: the declared length, when there is one.
    func begin(contentLength: Int?) throws
    /// The next piece of the body (valid only during the call). Throw to stop the transfer
    /// (``SinkCapacityExceeded`` makes the outcome `too-large`, anything else `sink`).
    func write(_ chunk: UnsafeRawBufferPointer) throws
    /// The body is complete and verified against the counted length. Throwing makes the outcome `sink`.
    func finish(sha256: String, bytes: Int) throws
    /// The transfer failed or was cancelled after ``begin(contentLength:)``, or a later sink call threw.
    func abort()
}

/// Thrown by a sink whose own size limit is exceeded; the outcome becomes `too-large`.
public struct SinkCapacityExceeded: Error, Sendable, Hashable {
    /// The limit in bytes.
    public var limit: Int
    public init(limit: Int) { self.limit = limit }
}

/// Discards the body (the engine still counts and hashes it): for checking reachability and hashes only.
public final class DiscardingSink: FetchSink {
    private let received = Atomic<Int>(0)

    public init() {}

    /// Bytes written since the last ``begin(contentLength:)``.
    public var bytesReceived: Int { received.load(ordering: .relaxed) }

    public func begin(contentLength: Int?) throws { received.store(0, ordering: .relaxed) }
    public func write(_ chunk: UnsafeRawBufferPointer) throws { received.add(chunk.count, ordering: .relaxed) }
    public func finish(sha256: String, bytes: Int) throws {}
    public func abort() {}
}

/// Keeps the body in memory, up to a cap (small assets: pass.json, playlists, images to sniff).
public final class MemorySink: FetchSink {
    private struct State {
        var bytes: [UInt8] = []
        var finished = false
    }
    private let state = Mutex(State())
    /// The most bytes kept; one more makes the transfer fail with `too-large`.
    public let capacity: Int

    /// - Parameter capacity: the most bytes to keep (default 16 MiB).
    public init(capacity: Int = 16 * 1024 * 1024) { self.capacity = capacity }

    /// The body received so far (complete once the fetch returned `ok`).
    public var bytes: [UInt8] { state.withLock { $0.bytes } }

    /// Whether ``finish(sha256:bytes:)`` was called.
    public var isFinished: Bool { state.withLock { $0.finished } }

    public func begin(contentLength: Int?) throws {
        if let contentLength, contentLength > capacity { throw SinkCapacityExceeded(limit: capacity) }
        state.withLock { state in
            state = State()
            if let contentLength { state.bytes.reserveCapacity(contentLength) }  // one allocation, not one per chunk
        }
    }

    public func write(_ chunk: UnsafeRawBufferPointer) throws {
        try state.withLock { state throws(SinkCapacityExceeded) in
            guard state.bytes.count + chunk.count <= capacity else { throw SinkCapacityExceeded(limit: capacity) }
            state.bytes.append(contentsOf: chunk)
        }
    }

    public func finish(sha256: String, bytes: Int) throws { state.withLock { $0.finished = true } }

    public func abort() { state.withLock { $0 = State() } }
}

/// Incremental SHA-256 with OpenSSL's EVP (uses the CPU's SHA extensions where present).
/// Owns its `EVP_MD_CTX`; engine-thread only. The engine keeps a few and reuses them (``reset()``), so a
/// transfer costs neither a context allocation nor an algorithm look-up.
final class SHA256Hasher {
    private let context: OpaquePointer

    /// SHA-256 fetched once: `EVP_sha256()` makes OpenSSL 3 look the implementation up again on every init.
    /// `@unchecked Sendable`: fetched once, never mutated or freed, and OpenSSL documents fetched `EVP_MD`
    /// objects as safe to share between threads.
    private struct Algorithm: @unchecked Sendable {
        let pointer: OpaquePointer
    }
    private static let sha256: Algorithm = {
        guard let pointer = EVP_MD_fetch(nil, "SHA256", nil) else {
            preconditionFailure("OpenSSL's default provider has no SHA256")
        }
        return Algorithm(pointer: pointer)
    }()

    init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        self.context = context
        reset()
    }

    deinit { EVP_MD_CTX_free(context) }

    func reset() {
        // Cannot fail for a built-in digest with a valid context short of memory corruption.
        precondition(EVP_DigestInit_ex(context, Self.sha256.pointer, nil) == 1, "EVP_DigestInit_ex(sha256) failed")
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        precondition(EVP_DigestUpdate(context, base, bytes.count) == 1, "EVP_DigestUpdate failed")
    }

    /// The lowercase hex digest; the hasher must be ``reset()`` before reuse.
    func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &digest, &length) == 1, "EVP_DigestFinal_ex failed")
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest.prefix(Int(length)) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
