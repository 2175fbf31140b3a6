/// What the pipeline needs from an HTTP engine, so stages can be tested with a scripted fetcher and run
/// against ``FetchEngine`` for real.
public protocol AssetFetching: Sendable {
    /// Checks reachability (see ``FetchEngine/probe(_:validators:)``).
    func probe(_ url: String, validators: Validators) async -> FetchOutcome
    /// Streams a body, or a byte range of it, into a sink (see ``FetchEngine/get(_:into:validators:range:)``).
    func get(_ url: String, into sink: any FetchSink, validators: Validators, range: ClosedRange<Int>?) async
        -> FetchOutcome
}

extension FetchEngine: AssetFetching {}

extension AssetFetching {
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
