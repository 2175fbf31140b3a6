/// What the pipeline needs from an HTTP engine, so stages can be tested with a scripted fetcher and run
/// against ``FetchEngine`` for real.
public protocol AssetFetching: Sendable {
    /// Checks reachability (see ``FetchEngine/probe(_:validators:)``).
    func probe(_ url: String, validators: Validators) async -> FetchOutcome
    /// Streams a body, or a byte range of it, into a sink (see ``FetchEngine/get(_:into:validators:range:)``).
    func get(_ url: String, into sink: any FetchSink, validators: Validators, range: ClosedRange<Int>?) async
        -> FetchOutcome
    /// Streams many bodies, each into its own sink, calling `body` as each finishes (see
    /// ``FetchEngine/fetchEach(_:window:_:)``; the default runs `get` in up to `window` tasks at once).
    func fetchEach(_ requests: [FetchRequest], window: Int, _ body: (_ index: Int, _ outcome: FetchOutcome) -> Void)
        async
}

/// One download of ``AssetFetching/fetchEach(_:window:_:)``: the URL, a stored copy's validators and where the
/// body goes.
public struct FetchRequest: Sendable {
    public var url: String
    public var validators: Validators
    public var sink: any FetchSink

    public init(url: String, validators: Validators = Validators(), sink: any FetchSink) {
        self.url = url
        self.validators = validators
        self.sink = sink
    }
}

extension FetchEngine: AssetFetching {}

extension AssetFetching {
    /// One task per request, at most `window` at once; `body` runs on the calling task as each one finishes.
    public func fetchEach(
        _ requests: [FetchRequest], window: Int, _ body: (_ index: Int, _ outcome: FetchOutcome) -> Void
    ) async {
        await withTaskGroup(of: (Int, FetchOutcome).self) { group in
            var next = 0
            func startNext() {
                guard next < requests.count else { return }
                let index = next
                let request = requests[index]
                next += 1
                group.addTask {
                    (index, await get(request.url, into: request.sink, validators: request.validators, range: nil))
                }
            }
            for _ in 0..<min(max(1, window), requests.count) { startNext() }
            for await (index, outcome) in group {
                body(index, outcome)
                startNext()
            }
        }
    }

    /// Probes, or downloads with `kind: .get` (bodies discarded, hashed), every URL at once within the
    /// engine's limits. Duplicates are fetched once (single-flight). One task per URL; ``FetchEngine`` has its own
    /// ``FetchEngine/fetchAll(_:kind:progress:)`` that hands the whole list over at once (used wherever the static
    /// type is `FetchEngine`).
    /// - Parameters:
    ///   - urls: the URLs, in the order results should come back.
    ///   - kind: `.probe` (HEAD with GET fallback) or `.get`.
    ///   - progress: called after each outcome with (done, total), from any thread — e.g. a progress bar.
    /// - Returns: one outcome per URL, in input order.
    public func fetchAll(
        _ urls: [String], kind: FetchKind = .probe, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async -> [FetchOutcome] {
        await withTaskGroup(of: (Int, FetchOutcome).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    let outcome =
                        kind == .probe
                        ? await probe(url, validators: Validators())
                        : await get(url, into: DiscardingSink(), validators: Validators(), range: nil)
                    return (index, outcome)
                }
            }
            var results = [FetchOutcome?](repeating: nil, count: urls.count)
            var done = 0
            for await (index, outcome) in group {
                results[index] = outcome
                done += 1
                progress?(done, urls.count)
            }
            return results.map { $0! }
        }
    }
}
