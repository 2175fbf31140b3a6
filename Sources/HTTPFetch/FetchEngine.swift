import Synchronization

/// The HTTP engine: one libcurl multi handle driven by a dedicated thread, with an async API.
///
/// ```swift
/// let engine = try FetchEngine(options: FetchOptions(concurrency: 32, timeout: 10))
/// let probe = await engine.probe("https://cdn.example/hero.jpg")          // HEAD (GET fallback)
/// let body = MemorySink()
/// let download = await engine.get("https://cdn.example/pass.pkpass", into: body)
/// await engine.shutdown()
/// ```
/// Every call returns a ``FetchOutcome`` value — failures included; nothing is thrown after `init`. Calls for
/// the same URL (and kind and validators) while one is in flight share it: the server sees one request.
/// Policies (``FetchOptions``): http/https only also across redirects, at most `maxRedirects` redirects with
/// the chain recorded, global and per-host concurrency limits, retries with exponential backoff honouring
/// `Retry-After` only for timeouts, 408, 429, 5xx and resets, connect timeout + stall limit, size caps on
/// declared and counted bytes, deny-private on the connected address of every hop, connect-to mappings,
/// a CA file, HTTP/2 over TLS when offered, and connection reuse. Cancelling the calling task cancels the call.
public final class FetchEngine: Sendable {
    /// The options the engine was created with.
    public let options: FetchOptions
    private let loop: EngineLoop
    private let nextID = Atomic<UInt64>(0)

    /// Creates the engine and starts its thread.
    /// - Parameter options: network options (see ``FetchOptions``).
    /// - Throws: ``FetchEngineError`` when an option is invalid (a concurrency below 1, an unreadable CA file,
    ///   a malformed connect-to mapping) or libcurl cannot provide what the engine needs.
    public init(options: FetchOptions = FetchOptions()) throws(FetchEngineError) {
        try Self.validate(options)
        self.options = options
        var curlOptions = options
        // curl matches HOST against the URL's host in its normalised form: hand it the mappings normalised too.
        curlOptions.connectTo = options.connectTo.compactMap { try? ConnectTo(parsing: $0).description }
        loop = try EngineLoop(options: curlOptions)
        try loop.start()
    }

    deinit { loop.requestShutdown() }

    /// Checks reachability without downloading: HEAD, then GET (stopped at the first body byte) when the
    /// server refuses HEAD with 403/404/405/501 or drops the connection — never after a timeout.
    /// - Parameters:
    ///   - url: an http or https URL.
    ///   - validators: a stored copy's validators; an unchanged resource then answers `notModified`.
    /// - Returns: the outcome (status, failure class, redirects, content type and length, timings, …).
    public func probe(_ url: String, validators: Validators = Validators()) async -> FetchOutcome {
        await submit(kind: .probe, url: url, validators: validators, range: nil, sink: nil)
    }

    /// Downloads `url` into `sink`, hashing the body (SHA-256) as it arrives; memory stays bounded.
    /// - Parameters:
    ///   - url: an http or https URL.
    ///   - sink: receives the body of the final 2xx response (default: discard, keeping only hash and size).
    ///   - validators: a stored copy's validators; a `304` answers `notModified` and the sink sees nothing.
    ///   - range: only these bytes (e.g. `0...65_535` to sniff a video's header): a `206` is ok, and a server
    ///     that ignores `Range` is cut off after `range.count` bytes (its `200` is kept as `httpStatus`). The
    ///     hash and `bytes` cover the bytes delivered. A range past the end fails with `http-status` 416.
    /// - Returns: the outcome, with `sha256` and `bytes` when it is ok.
    public func get(
        _ url: String, into sink: any FetchSink = DiscardingSink(), validators: Validators = Validators(),
        range: ClosedRange<Int>? = nil
    ) async -> FetchOutcome {
        precondition(range.map { $0.lowerBound >= 0 } ?? true, "a byte range starts at 0 or later")
        return await submit(kind: .get, url: url, validators: validators, range: range, sink: sink)
    }

    /// Cancels everything in flight (outcomes `cancelled`), stops the engine thread and frees every curl
    /// handle. Calls made afterwards return `cancelled` at once. Safe to call more than once.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !loop.mailbox.post(.shutdown(continuation)) { continuation.resume() }
        }
    }

    /// Probes, or downloads with `kind: .get` (bodies discarded, hashed), every URL at once within the
    /// engine's limits; duplicates are fetched once (single-flight). The URLs reach the engine thread in one
    /// hand-over and the outcomes come back a poll round at a time, so a large list costs neither a task nor a
    /// thread hand-off per URL. Cancelling the calling task cancels every URL not finished yet (`cancelled`).
    /// - Parameters:
    ///   - urls: the URLs, in the order results should come back.
    ///   - kind: `.probe` (HEAD with GET fallback) or `.get`.
    ///   - progress: called after each outcome with (done, total) — e.g. a progress bar.
    /// - Returns: one outcome per URL, in input order.
    public func fetchAll(
        _ urls: [String], kind: FetchKind = .probe, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async -> [FetchOutcome] {
        guard !urls.isEmpty else { return [] }
        let count = urls.count
        let firstID = nextID.add(UInt64(count), ordering: .relaxed).newValue - UInt64(count) + 1
        let channel = BatchChannel<FetchOutcome>()
        let loop = self.loop
        return await withTaskCancellationHandler {
            guard
                loop.mailbox.submit(
                    .submitBatch(BatchSubmission(firstID: firstID, kind: kind, urls: urls, channel: channel)))
            else {
                return urls.enumerated().map { index, url in
                    progress?(index + 1, count)
                    return FetchOutcome(url: url, kind: kind, failure: .cancelled, errorText: "cancelled")
                }
            }
            var results = [FetchOutcome?](repeating: nil, count: count)
            var done = 0
            while done < count {
                for (index, outcome) in await channel.next() {
                    results[index] = outcome
                    done += 1
                    progress?(done, count)
                }
            }
            return results.indices.map { results[$0].take()! }  // moved out, not copied
        } onCancel: {
            _ = loop.mailbox.post(.cancelBatch(first: firstID, count: count))
        }
    }

    private func submit(
        kind: FetchKind, url: String, validators: Validators, range: ClosedRange<Int>?, sink: (any FetchSink)?
    ) async -> FetchOutcome {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let loop = self.loop
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let submission = Submission(
                    id: id, kind: kind, url: url, validators: validators, range: range, sink: sink,
                    delivery: .single(continuation))
                if !loop.mailbox.submit(.submit(submission)) {
                    continuation.resume(
                        returning: FetchOutcome(url: url, kind: kind, failure: .cancelled, errorText: "cancelled"))
                }
            }
        } onCancel: {
            _ = loop.mailbox.post(.cancel(id))
        }
    }

    private static func validate(_ options: FetchOptions) throws(FetchEngineError) {
        guard options.concurrency >= 1 else { throw FetchEngineError("concurrency must be at least 1") }
        guard options.hostConcurrency >= 1 else { throw FetchEngineError("host concurrency must be at least 1") }
        guard options.timeout > 0, options.timeout.isFinite else { throw FetchEngineError("timeout must be > 0") }
        guard options.retries >= 0 else { throw FetchEngineError("retries must be 0 or more") }
        guard options.maxRedirects >= 0 else { throw FetchEngineError("max redirects must be 0 or more") }
        if let maxSize = options.maxSize, maxSize < 0 { throw FetchEngineError("max size must be 0 or more") }
        for mapping in options.connectTo {
            do throws(ConnectToError) {
                _ = try ConnectTo(parsing: mapping)
            } catch {
                throw FetchEngineError("connect-to \(error.description)")
            }
        }
        if let caFile = options.caFile, !isReadableFile(caFile) {
            throw FetchEngineError("CA file \(caFile) cannot be read")
        }
    }
}
