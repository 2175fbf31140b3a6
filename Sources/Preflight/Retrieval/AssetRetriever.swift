public import AssetStore
import Findings
public import FoundationEssentials
public import HTTPFetch
import Synchronization

/// Fetches asset URLs into the content-addressed store (or into memory), honouring what is already stored:
///
/// - a fresh entry (`Cache-Control: max-age` not yet passed) is used without any request;
/// - a stale entry with an `ETag` or `Last-Modified` is revalidated (`If-None-Match`/`If-Modified-Since`); a `304`
///   rewrites only its record (``AssetStore/revalidated(_:at:etag:lastModified:cacheControl:)``);
/// - a stored body is checked (size and SHA-256) before it is used; a damaged one is removed and fetched again;
/// - a `no-store` response is not recorded: its body is kept in memory for this run (``RetrievedAsset/Source/memory``);
/// - offline, only the store is used and what it lacks is reported (`asset.notInStore`).
///
/// Bodies stream to disk through bounded buffers: a 1 GB video costs the engine's and the blob writer's buffers,
/// not a gigabyte. Every outcome — a 404, a full disk — is a ``RetrievedAsset`` value.
public final class AssetRetriever: Sendable {
    /// The engine every request goes through (its concurrency limits bound the whole run).
    public let fetcher: any AssetFetching
    /// The store, or `nil` to keep bodies in memory only.
    public let store: AssetStore?
    /// Use only the store: no request at all.
    public let offline: Bool
    /// The largest body kept in memory (without a store, or for `no-store` responses).
    public let memoryLimit: Int
    let now: @Sendable () -> Date

    /// How many retrievals ``retrieveAll(_:progress:)`` keeps started at once; the engine's own limits decide how
    /// many transfers actually run. Bounded so that 100,000 URLs do not become 100,000 pending tasks.
    static let window = 64

    /// Creates a retriever.
    /// - Parameters:
    ///   - fetcher: the HTTP engine (``FetchEngine``).
    ///   - store: where bodies go; `nil` keeps them in memory (up to `memoryLimit` each).
    ///   - offline: use only `store`; make no request.
    ///   - memoryLimit: the largest body held in memory (default 64 MiB).
    ///   - now: the clock for freshness decisions and `fetchedAt` (tests move it).
    public init(
        fetcher: any AssetFetching, store: AssetStore?, offline: Bool = false, memoryLimit: Int = 64 << 20,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.fetcher = fetcher
        self.store = store
        self.offline = offline
        self.memoryLimit = memoryLimit
        self.now = now
    }

    /// Checks that the store accepts new blobs (creates and removes a temporary file), so that a read-only or
    /// unwritable store stops a run before any download.
    /// - Throws: the ``StoreError`` (`.readOnly`, `.permissionDenied`, `.noSpace`, …).
    public func checkStoreWritable() throws(StoreError) {
        guard let store, !offline else { return }
        let writer = try store.beginBlob()
        writer.abort()
    }

    /// Retrieves one URL: from the store when it is fresh, by revalidation when it is stale, else by a GET into
    /// the store (or memory).
    /// - Parameter url: the raw URL (secrets included).
    /// - Returns: where the body came from, with findings; never throws.
    public func retrieve(_ url: String) async -> RetrievedAsset {
        guard let store else {
            if offline {
                return RetrievedAsset(
                    url: url, source: .missing,
                    findings: [.error(AssetFindingCode.notInStore, "\(Redaction.redactURL(url)): offline and no store")]
                )
            }
            return await fetchIntoMemory(url)
        }
        let stored: StoreEntry?
        do {
            stored = try store.lookup(url)
        } catch {
            return storeFailure(url, error, outcome: nil)
        }
        var findings: [Finding] = []
        if let entry = stored {
            let decision = entry.cacheDecision(at: now())
            let check: BlobFile
            do {
                check = try store.path(entry.blob)
            } catch {
                return storeFailure(url, error, outcome: nil)
            }
            switch check {
            case .intact:
                if offline {
                    return RetrievedAsset(url: url, source: .store, entry: entry, store: store)
                }
                switch decision {
                case .fresh:
                    try? store.touch(url, at: now())  // least-recently-used bookkeeping only
                    return RetrievedAsset(url: url, source: .store, entry: entry, store: store)
                case .revalidate:
                    return await fetchIntoStore(
                        url, store: store, validators: Validators(etag: entry.etag, lastModified: entry.lastModified),
                        stored: entry, findings: [])
                case .refetch:
                    break
                }
            case .missing:
                if offline {
                    return RetrievedAsset(
                        url: url, source: .missing,
                        findings: [
                            .error(
                                AssetFindingCode.storeMissing,
                                "the stored body of \(Redaction.redactURL(url)) is missing; fetch it again")
                        ])
                }
            case .damaged(let damage):
                if offline { return RetrievedAsset(url: url, source: .missing, findings: [damage.finding]) }
                // Repaired by the fetch below: worth knowing (a failing disk?), not a failure of the asset.
                findings.append(
                    .warning(
                        AssetFindingCode.storeDamaged,
                        "the stored copy of \(Redaction.redactURL(url)) was damaged (removed; fetched again)",
                        path: damage.path))
            }
        } else if offline {
            return RetrievedAsset(
                url: url, source: .missing,
                findings: [
                    .error(
                        AssetFindingCode.notInStore,
                        "\(Redaction.redactURL(url)) is not in the store; prefetch it first")
                ])
        }
        return await fetchIntoStore(url, store: store, validators: Validators(), stored: nil, findings: findings)
    }

    /// Retrieves every URL, several at once (the engine's concurrency limits apply); a URL listed twice is
    /// retrieved once.
    /// - Parameters:
    ///   - urls: raw URLs.
    ///   - progress: called after each URL with the running totals, from any thread.
    /// - Returns: one result per URL, in input order.
    public func retrieveAll(_ urls: [String], progress: (@Sendable (ProgressSnapshot) -> Void)? = nil) async
        -> [RetrievedAsset]
    {
        var firstIndex: [String: Int] = [:]
        var unique: [String] = []
        for url in urls where firstIndex[url] == nil {
            firstIndex[url] = unique.count
            unique.append(url)
        }
        var results = [RetrievedAsset?](repeating: nil, count: unique.count)
        var snapshot = ProgressSnapshot(total: unique.count)
        await withTaskGroup(of: (Int, RetrievedAsset).self) { group in
            var next = 0
            func startNext() {
                guard next < unique.count else { return }
                let index = next
                let url = unique[index]
                next += 1
                group.addTask { (index, await self.retrieve(url)) }
            }
            for _ in 0..<min(Self.window, unique.count) { startNext() }
            for await (index, asset) in group {
                results[index] = asset
                snapshot.done += 1
                snapshot.bytes += asset.bytesFetched
                if !asset.isOK { snapshot.failed += 1 }
                progress?(snapshot)
                startNext()
            }
        }
        return recordsFlushed(urls.map { results[firstIndex[$0]!]! })
    }

    /// Flushes the store's batched records (see ``AssetStore/flush()``) and turns every asset whose record could not
    /// be appended into a store failure: its URL is not in the index after all.
    func recordsFlushed(_ assets: [RetrievedAsset]) -> [RetrievedAsset] {
        guard let store, !offline else { return assets }
        let unrecorded = store.flush()
        guard !unrecorded.isEmpty else { return assets }
        let errors = Dictionary(unrecorded.map { ($0.url, $0.error) }, uniquingKeysWith: { first, _ in first })
        return assets.map { asset in
            guard let error = errors[asset.url] else { return asset }
            return storeFailure(asset.url, error, outcome: asset.outcome)
        }
    }

    // MARK: Fetching

    private func fetchIntoStore(
        _ url: String, store: AssetStore, validators: Validators, stored: StoreEntry?, findings: [Finding]
    ) async -> RetrievedAsset {
        let sink = StoreSink(store: store)
        let outcome = await fetcher.get(url, into: sink, validators: validators, range: nil)
        var findings = findings
        if let error = sink.failure { return storeFailure(url, error, outcome: outcome) }
        guard outcome.isOK else {
            sink.abort()
            if let finding = outcome.finding { findings.append(finding) }
            return RetrievedAsset(url: url, source: .missing, outcome: outcome, findings: findings)
        }
        let fetchedAt = now()
        if outcome.notModified, let stored {
            do {
                let entry =
                    try store.revalidated(
                        url, at: fetchedAt, etag: outcome.etag, lastModified: outcome.lastModified,
                        cacheControl: outcome.cacheControl) ?? stored
                return RetrievedAsset(
                    url: url, source: .revalidated, outcome: outcome, entry: entry, findings: findings, store: store)
            } catch {
                return storeFailure(url, error, outcome: outcome)
            }
        }
        let blob: BlobRef
        do throws(StoreError) {
            // An ok outcome without a body (a 304 nobody asked for) leaves nothing to commit: store it empty.
            if let committed = try sink.commit() { blob = committed } else { blob = try store.put(bytes: []) }
        } catch {
            return storeFailure(url, error, outcome: outcome)
        }
        guard CacheControl.mayStore(outcome.cacheControl) else {
            // The blob is committed but never recorded: an orphan gc removes. Its bytes serve this run only.
            let shown = Redaction.redactURL(url)
            guard blob.size <= memoryLimit, case .intact(let bytes)? = try? store.read(blob) else {
                findings.append(
                    .error(
                        AssetFindingCode.noStore,
                        "\(shown) is served with Cache-Control: no-store and is larger than the \(memoryLimit)-byte "
                            + "memory limit; it cannot be kept"))
                return RetrievedAsset(url: url, source: .missing, outcome: outcome, findings: findings)
            }
            findings.append(
                .warning(
                    AssetFindingCode.noStore,
                    "\(shown) is served with Cache-Control: no-store: used for this run only, not stored, so it will "
                        + "not be available offline"))
            return RetrievedAsset(url: url, source: .memory, outcome: outcome, findings: findings, memory: bytes)
        }
        let entry = StoreEntry(
            blob: blob, contentType: outcome.contentType, etag: outcome.etag, lastModified: outcome.lastModified,
            cacheControl: outcome.cacheControl, fetchedAt: fetchedAt, httpStatus: outcome.httpStatus ?? 200)
        do {
            try store.record(url: url, entry: entry)
        } catch {
            return storeFailure(url, error, outcome: outcome)
        }
        return RetrievedAsset(
            url: url, source: .network, outcome: outcome, entry: entry, findings: findings, store: store)
    }

    private func fetchIntoMemory(_ url: String) async -> RetrievedAsset {
        let sink = MemorySink(capacity: memoryLimit)
        let outcome = await fetcher.get(url, into: sink, validators: Validators(), range: nil)
        guard outcome.isOK else {
            return RetrievedAsset(
                url: url, source: .missing, outcome: outcome, findings: outcome.finding.map { [$0] } ?? [])
        }
        return RetrievedAsset(url: url, source: .memory, outcome: outcome, memory: sink.bytes)
    }

    private func storeFailure(_ url: String, _ error: StoreError, outcome: FetchOutcome?) -> RetrievedAsset {
        RetrievedAsset(
            url: url, source: .missing, outcome: outcome,
            findings: [
                .error(
                    AssetFindingCode.storeFailed, "\(Redaction.redactURL(url)) could not be stored: \(error.message)")
            ], storeError: error)
    }
}
