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
/// not a gigabyte. Each body is capped (``BodyLimits``: 64 MiB for images, the pass reader's 10 MiB for passes, no cap
/// only for video bodies, which stream), in the store as in memory, so an endless body cannot fill the disk. Every
/// outcome — a 404, a full disk — is a ``RetrievedAsset`` value.
///
/// ## A store that cannot be written
/// A read-only mount, another user's store, a `chmod 0555` directory or a full disk: with
/// ``UnwritableStorePolicy/keepInMemory`` (the default) the retriever finds out once — by a probe before its first
/// download (``AssetStore/checkWritable()``) or from the first write that fails — and then goes on without writing:
/// stored copies are still read (and revalidated, the `304` not recorded), new downloads are kept in memory for this
/// run (``RetrievedAsset/Source/memory``), and ``storeFinding`` is the one `store.readOnly` warning to report. With
/// ``UnwritableStorePolicy/fail`` (`prefetch`, whose whole job is writing) every write failure is the asset's
/// `asset.storeFailed` error and carries its ``RetrievedAsset/storeError``.
public final class AssetRetriever: Sendable {
    /// The engine every request goes through (its concurrency limits bound the whole run).
    public let fetcher: any AssetFetching
    /// The store, or `nil` to keep bodies in memory only.
    public let store: AssetStore?
    /// Use only the store: no request at all.
    public let offline: Bool
    /// The largest body kept in memory (without a store, for `no-store` responses, or when the store cannot be
    /// written), whatever a request's own limit.
    public let memoryLimit: Int
    /// The largest body accepted, by what it is for (requests carry their own; ``retrieve(_:)-(String)`` uses the
    /// image limit).
    public let limits: BodyLimits
    /// What a store that cannot be written means for this run.
    public let unwritableStore: UnwritableStorePolicy
    /// The shared remote store (`--remote-cache`), asked before origin when the local store cannot serve a URL,
    /// and given every origin download (offline too: offline means no origin traffic).
    public let remote: RemoteTier?
    let now: @Sendable () -> Date
    /// Whether the store was probed yet, and why it cannot be written (once found).
    private let writes = Mutex<(probed: Bool, failure: StoreError?)>((false, nil))

    /// How many retrievals ``retrieveAll(_:progress:)`` keeps started at once; the engine's own limits decide how
    /// many transfers actually run. Bounded so that 100,000 URLs do not become 100,000 pending tasks.
    static let window = 64

    /// Creates a retriever.
    /// - Parameters:
    ///   - fetcher: the HTTP engine (``FetchEngine``).
    ///   - store: where bodies go; `nil` keeps them in memory (up to `memoryLimit` each).
    ///   - offline: use only `store`; make no request.
    ///   - memoryLimit: the largest body held in memory (default 64 MiB).
    ///   - limits: the largest body accepted, by role (default ``BodyLimits/init(maxSize:)`` without `--max-size`).
    ///   - unwritableStore: what a store that cannot be written means (see the type's documentation).
    ///   - remote: the shared remote store, if any (see ``RemoteTier``).
    ///   - now: the clock for freshness decisions and `fetchedAt` (tests move it).
    public init(
        fetcher: any AssetFetching, store: AssetStore?, offline: Bool = false, memoryLimit: Int = 64 << 20,
        limits: BodyLimits = BodyLimits(), unwritableStore: UnwritableStorePolicy = .keepInMemory,
        remote: RemoteTier? = nil, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.remote = remote
        self.fetcher = fetcher
        self.store = store
        self.offline = offline
        self.memoryLimit = memoryLimit
        self.limits = limits
        self.unwritableStore = unwritableStore
        self.now = now
    }

    /// Checks that the store accepts new blobs and records (``AssetStore/checkWritable()``), so that a read-only or
    /// unwritable store stops a run before any download.
    /// - Throws: the ``StoreError`` (`.readOnly`, `.permissionDenied`, `.noSpace`, …).
    public func checkStoreWritable() throws(StoreError) {
        guard let store, !offline else { return }
        try store.checkWritable()
    }

    /// Why the store cannot be written, once a probe or a write found out (``UnwritableStorePolicy/keepInMemory``
    /// only): the rest of the run keeps new downloads in memory.
    public var storeUnwritable: StoreError? { writes.withLock { $0.failure } }

    /// The one `store.readOnly` warning for a run whose store could not be written, or `nil`.
    public var storeFinding: Finding? {
        guard let failure = storeUnwritable, let store else { return nil }
        return .warning(
            AssetFindingCode.storeReadOnly,
            "the store \(store.directory) cannot be written (\(failure.message)): stored copies were used, new "
                + "downloads were kept in memory for this run only")
    }

    /// Retrieves one URL with the image limit (``BodyLimits/image``). See ``retrieve(_:)-(AssetRequest)``.
    public func retrieve(_ url: String) async -> RetrievedAsset {
        await retrieve(AssetRequest(url: url, maxBytes: limits.image))
    }

    /// Retrieves one URL: from the store when it is fresh, by revalidation when it is stale, else by a GET into
    /// the store (or memory).
    /// - Parameter request: the raw URL (secrets included) and the largest body accepted.
    /// - Returns: where the body came from, with findings; never throws.
    public func retrieve(_ request: AssetRequest) async -> RetrievedAsset {
        await retrieve(request, prefetched: nil)
    }

    /// - Parameter prefetched: what a batch read of the remote's records found for this URL (``retrieveAll``), used
    ///   instead of asking the remote again when the local store has no entry for it.
    private func retrieve(_ request: AssetRequest, prefetched: RemoteTier.Prefetched?) async -> RetrievedAsset {
        let url = request.url
        let limit = request.maxBytes
        guard let store else {
            if offline {
                return RetrievedAsset(
                    url: url, source: .missing,
                    findings: [.error(AssetFindingCode.notInStore, "\(Redaction.redactURL(url)): offline and no store")]
                )
            }
            return await fetchIntoMemory(url, limit: limit, validators: Validators(), stored: nil, findings: [])
        }
        let stored: StoreEntry?
        do {
            stored = try store.lookup(url)
        } catch {
            return storeFailure(url, error, outcome: nil)
        }
        // Offline nothing is written, so there is nothing to find out.
        let writable = offline || isWritable(store)
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
                    if writable { try? store.touch(url, at: now()) }  // least-recently-used bookkeeping only
                    return RetrievedAsset(url: url, source: .store, entry: entry, store: store)
                case .revalidate:
                    let validators = Validators(etag: entry.etag, lastModified: entry.lastModified)
                    guard writable else {
                        return await fetchIntoMemory(
                            url, limit: limit, validators: validators, stored: entry, findings: [])
                    }
                    return await fetchIntoStore(
                        url, store: store, limit: limit, validators: validators, stored: entry, findings: [])
                case .refetch:
                    if let served = await fromRemote(url, store: store, limit: limit, findings: &findings) {
                        return served
                    }
                }
            case .missing:
                if let served = await fromRemote(url, store: store, limit: limit, findings: &findings) {
                    return served
                }
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
                if let served = await fromRemote(url, store: store, limit: limit, findings: &findings) {
                    return served
                }
                if offline { return RetrievedAsset(url: url, source: .missing, findings: [damage.finding]) }
                // Repaired by the fetch below: worth knowing (a failing disk?), not a failure of the asset.
                let repair = writable ? "removed; fetched again" : "fetched again into memory"
                findings.append(
                    .warning(
                        AssetFindingCode.storeDamaged,
                        "the stored copy of \(Redaction.redactURL(url)) was damaged (\(repair))", path: damage.path))
            }
        } else if let served = await fromRemote(
            url, store: store, limit: limit, findings: &findings, prefetched: prefetched)
        {
            return served
        } else if offline {
            return RetrievedAsset(
                url: url, source: .missing,
                findings: [
                    .error(
                        AssetFindingCode.notInStore,
                        "\(Redaction.redactURL(url)) is not in the store; prefetch it first")
                ] + findings)
        }
        guard writable else {
            return await fetchIntoMemory(url, limit: limit, validators: Validators(), stored: nil, findings: findings)
        }
        return await fetchIntoStore(
            url, store: store, limit: limit, validators: Validators(), stored: nil, findings: findings)
    }

    /// Asks the remote cache for a URL the local store cannot serve: a hit is verified into the store; a fresh
    /// entry (or any entry offline) serves without an origin request, a stale one is revalidated with its validators
    /// (a `304` keeps the remote's body). `nil`: no remote, a miss, or a damaged remote blob (`findings` says so).
    private func fromRemote(
        _ url: String, store: AssetStore, limit: Int?, findings: inout [Finding],
        prefetched: RemoteTier.Prefetched? = nil
    ) async -> RetrievedAsset? {
        guard let remote, offline || isWritable(store) else { return nil }
        switch await remote.pull(url, store: store, limit: limit, prefetched: prefetched) {
        case .miss: return nil
        case .damaged(let finding):
            findings.append(finding)
            return nil
        case .stored(let entry):
            if offline {
                return RetrievedAsset(url: url, source: .remote, entry: entry, findings: findings, store: store)
            }
            switch entry.cacheDecision(at: now()) {
            case .fresh:
                return RetrievedAsset(url: url, source: .remote, entry: entry, findings: findings, store: store)
            case .revalidate:
                return await fetchIntoStore(
                    url, store: store, limit: limit,
                    validators: Validators(etag: entry.etag, lastModified: entry.lastModified), stored: entry,
                    findings: findings, remoteHasBlob: true)
            case .refetch:
                return nil
            }
        }
    }

    /// Retrieves every URL with the image limit. See ``retrieveAll(_:progress:)-([AssetRequest],_)``.
    public func retrieveAll(_ urls: [String], progress: (@Sendable (ProgressSnapshot) -> Void)? = nil) async
        -> [RetrievedAsset]
    {
        await retrieveAll(urls.map { AssetRequest(url: $0, maxBytes: limits.image) }, progress: progress)
    }

    /// Retrieves every URL, several at once (the engine's concurrency limits apply); a URL listed twice is
    /// retrieved once (with the first request's limit).
    /// - Parameters:
    ///   - requests: raw URLs with their limits.
    ///   - progress: called after each URL with the running totals, from any thread.
    /// - Returns: one result per request, in input order.
    public func retrieveAll(_ requests: [AssetRequest], progress: (@Sendable (ProgressSnapshot) -> Void)? = nil)
        async -> [RetrievedAsset]
    {
        let urls = requests.map(\.url)
        var firstIndex: [String: Int] = [:]
        var once: [AssetRequest] = []
        for request in requests where firstIndex[request.url] == nil {
            firstIndex[request.url] = once.count
            once.append(request)
        }
        let unique = once
        var results = [RetrievedAsset?](repeating: nil, count: unique.count)
        var snapshot = ProgressSnapshot(total: unique.count)
        func done(_ index: Int, _ asset: RetrievedAsset) {
            results[index] = asset
            snapshot.done += 1
            snapshot.bytes += asset.bytesFetched
            if !asset.isOK { snapshot.failed += 1 }
            progress?(snapshot)
        }
        // The remote's batch phase runs alongside: what it serves is done, what it cannot (a miss, a blob to read, a
        // stale entry) starts its own retrieval at once, within the window, while later batches are still read.
        let (settled, feed) = AsyncStream<[(Int, Settled?)]>.makeStream()
        let packing = remote == nil || store == nil ? nil : Packing(unique.map(\.url))
        async let settling: Void = settleFromRemote(unique, packing, feed)
        await withTaskGroup(of: (Int, RetrievedAsset).self) { group in
            var running = 0
            for await items in settled {
                for (index, outcome) in items {
                    let hint: RemoteTier.Prefetched?
                    switch outcome {
                    case .served(let asset)?:
                        done(index, asset)
                        continue
                    case .hint(let found)?: hint = found
                    case nil: hint = nil
                    }
                    if running == Self.window, let (finished, asset) = await group.next() {
                        done(finished, asset)
                        running -= 1
                    }
                    let request = unique[index]
                    group.addTask { (index, await self.retrieve(request, prefetched: hint)) }
                    running += 1
                }
            }
            for await (index, asset) in group { done(index, asset) }
        }
        await settling
        defer {
            if let packing, let remote, let store { remote.pushPacks(packing.chunks, urls: packing.urls, store: store) }
        }
        var ordered: [RetrievedAsset] = []
        ordered.reserveCapacity(urls.count)
        if unique.count == urls.count {
            // Every URL once (a plan's downloads): the results are in order already, and each is moved out, not
            // copied (a copy retains a dozen fields, and freeing the original releases them again).
            for index in results.indices { ordered.append(results[index].take()!) }
        } else {
            for url in urls { ordered.append(results[firstIndex[url]!]!) }
        }
        return recordsFlushed(ordered)
    }

    // MARK: Many URLs from the remote at once

    /// Starts reading the remote's records of `urls` — a guess at what a coming
    /// ``retrieveAll(_:progress:)-([AssetRequest],_)`` will ask for, made before its plan exists (the images of a
    /// feed's messages, before their cards are resolved) — so that its batch phase finds them read and the remote's
    /// reads overlap the reading and resolving. Called as the messages are read; over all calls at most as many as
    /// the batch phase reads ahead (``remoteBatch`` × ``remoteBatchesAhead``), which bounds the memory. Left out: URLs the
    /// local store has an entry for (their retrieval does not ask the remote first) and URLs that are never requested
    /// (``AssetPlan/refusal(of:)``). A guess that is not in the plan costs one `/ac/` read and is dropped. No-op
    /// without a remote, or when the batch phase would not use it (a store that cannot be written, online).
    public func readAhead(_ urls: [String]) {
        guard let remote, let store, offline || isWritable(store) else { return }
        let wanted = urls.filter { !$0.isEmpty && AssetPlan.refusal(of: $0) == nil }
        guard !wanted.isEmpty, let stored = try? store.lookup(wanted) else { return }
        remote.readAhead(
            zip(wanted, stored).filter { $0.1 == nil }.map(\.0), limit: Self.remoteBatch * Self.remoteBatchesAhead,
            batch: Self.remoteBatch)
    }

    /// How many `/ac/` records are read ahead (``readAhead(_:)``: `remoteBatch` × `remoteBatchesAhead`, in batches
    /// of `remoteBatch`), and how many batches (one a chunk of ``RemotePack``) are read ahead of the one being settled
    /// (memory: that many packs, each at most ``RemotePack/maxBytes``, a few MB as a rule).
    static let remoteBatch = 512
    static let remoteBatchesAhead = 3
    /// How many records a settling lane takes at a time (see ``settleFromRemote(_:_:_:)``).
    static let settleChunk = 8

    /// What the batch phase made of a URL: served (fresh, verified, stored), or what its own retrieval should know.
    private enum Settled: Sendable {
        case served(RetrievedAsset)
        case hint(RemoteTier.Prefetched)
    }

    /// The remote's share of ``retrieveAll(_:progress:)-([AssetRequest],_)``: the records of every URL the local store
    /// has no entry for are read in batches, one per chunk of `packing` (``RemoteTier/records(for:keys:inChunk:)``: the
    /// chunk's pack in one request, then what it lacks as one hand-over to the remote's read loop, answers back in
    /// groups), and each whose blob rides inline (or is stored already) and that is fresh
    /// (any, offline) is verified, stored and recorded here (``RemoteTier/settle(_:record:store:limit:accept:)``),
    /// several at once — no task, no continuation, no request of its own. The rest (a miss, a blob to read from
    /// `/cas/`, a stale entry to revalidate, a damaged inline copy) go through ``retrieve(_:)-(AssetRequest)`` as
    /// usual with what the batch found, so the remote is never asked twice for a record.
    ///
    /// Every index of `unique` reaches `feed` once — first those it leaves to the usual path (`nil`), then each
    /// candidate as its batch is settled — and `feed` is finished.
    private func settleFromRemote(
        _ unique: [AssetRequest], _ packing: Packing?, _ feed: AsyncStream<[(Int, Settled?)]>.Continuation
    ) async {
        defer { feed.finish() }
        guard let remote, let store, offline || isWritable(store),
            let stored = try? store.lookup(unique.map(\.url))  // (a store it cannot look up: the usual path says so)
        else {
            feed.yield(unique.indices.map { ($0, nil) })
            return
        }
        // URLs the store has an entry for take the usual path, at once.
        feed.yield(unique.indices.filter { stored[$0] != nil }.map { ($0, nil) })
        let candidates = unique.indices.filter { stored[$0] == nil }
        guard !candidates.isEmpty, let packing else { return }
        // A batch is the candidates of one chunk: its pack, then one by one what the pack lacks.
        var batches: [(indices: [Int], chunk: Int)] = []
        var batchOfChunk: [Int: Int] = [:]
        for index in candidates {
            let chunk = packing.chunkOf[index]
            if let batch = batchOfChunk[chunk] {
                batches[batch].indices.append(index)
            } else {
                batchOfChunk[chunk] = batches.count
                batches.append(([index], chunk))
            }
        }
        func read(_ batch: Int) -> Task<[[UInt8]?], Never> {
            let indices = batches[batch].indices
            let urls = indices.map { unique[$0].url }
            let keys = indices.map { packing.keys[$0] }
            let chunk = packing.chunks[batches[batch].chunk]
            return Task { await remote.records(for: urls, keys: keys, inChunk: chunk) }
        }
        // Batches are read ahead (the loop starts each one's reads as soon as the one before frees a connection),
        // so the connections stay busy while a batch is settled, and the tail of one overlaps the next.
        var reading: [Task<[[UInt8]?], Never>] = []
        var nextRead = 0
        func readAhead() {
            while reading.count < Self.remoteBatchesAhead, nextRead < batches.count {
                reading.append(read(nextRead))
                nextRead += 1
            }
        }
        readAhead()
        let lanes = max(1, min(4, ProcessInfo.processInfo.activeProcessorCount))
        var settling = 0
        while !reading.isEmpty {
            let batch = batches[settling].indices
            let records = await reading.removeFirst().value
            settling += 1
            readAhead()
            let requests = batch.map { unique[$0] }
            // Each lane takes the batch's next few records until none is left, rather than a fixed share: lanes
            // that share the cores with the read loop and the remote's server run at different speeds, and a fixed
            // half left one lane idle for up to half the batch while the other finished (found by tracing them).
            let next = ChunkCounter()
            await withTaskGroup(of: [(Int, Settled)].self) { group in
                for _ in 0..<lanes {
                    group.addTask {
                        var settled: [(Int, Settled)] = []
                        while case let start = next.take(Self.settleChunk), start < batch.count {
                            for position in start..<min(start + Self.settleChunk, batch.count) {
                                settled.append(
                                    (batch[position], self.settle(requests[position], records[position], remote, store))
                                )
                            }
                        }
                        return settled
                    }
                }
                for await settled in group {
                    feed.yield(settled)
                }
            }
        }
    }

    /// How a run's URLs fall into the remote's record packs (``RemotePack``).
    private struct Packing: Sendable {
        /// The record key of each URL, by its index in the run's list.
        let keys: [String]
        /// The chunks' record keys.
        let chunks: [[String]]
        /// The chunk of each URL, by its index in the run's list.
        let chunkOf: [Int]
        /// The run's URLs by record key.
        let urls: [String: String]

        init(_ list: [String]) {
            let keys = list.map(RemoteTier.key)
            self.keys = keys
            chunks = RemotePack.chunks(of: keys)
            var chunkOfKey: [String: Int] = [:]
            chunkOfKey.reserveCapacity(keys.count)
            for (index, chunk) in chunks.enumerated() { for key in chunk { chunkOfKey[key] = index } }
            chunkOf = keys.map { chunkOfKey[$0]! }
            urls = Dictionary(zip(keys, list), uniquingKeysWith: { first, _ in first })
        }
    }

    /// One record of a batch: served when it needs nothing more (see ``settleFromRemote(_:_:_:)``).
    private func settle(_ request: AssetRequest, _ record: [UInt8]?, _ remote: RemoteTier, _ store: AssetStore)
        -> Settled
    {
        guard let record else { return .hint(.absent) }
        let at = now()
        let offline = self.offline
        let settled = remote.settle(request.url, record: record, store: store, limit: request.maxBytes) { entry in
            if offline { return true }
            if case .fresh = entry.cacheDecision(at: at) { return true }
            return false
        }
        switch settled {
        case nil: return .hint(.record(record))
        case .stored(let entry)?:
            return .served(RetrievedAsset(url: request.url, source: .remote, entry: entry, store: store))
        case .miss?: return .hint(.absent)
        case .damaged(let finding)?: return .hint(.damaged(finding))
        }
    }

    /// Flushes the store's batched records (see ``AssetStore/flush()``) and turns every asset whose record could not
    /// be appended into a store failure: its URL is not in the index after all.
    func recordsFlushed(_ assets: [RetrievedAsset]) -> [RetrievedAsset] {
        guard let store, !offline || remote != nil else { return assets }
        let unrecorded = store.flush()
        guard !unrecorded.isEmpty else { return assets }
        let errors = Dictionary(unrecorded.map { ($0.url, $0.error) }, uniquingKeysWith: { first, _ in first })
        return assets.map { asset in
            guard let error = errors[asset.url] else { return asset }
            // The blob is in the store, only its record is not: this run can still read it (gc may remove it later).
            if markUnwritable(error), let blob = asset.entry?.blob,
                let kept = keptInMemory(asset.url, blob: blob, store: store, outcome: asset.outcome, asset.findings)
            {
                return kept
            }
            return storeFailure(asset.url, error, outcome: asset.outcome)
        }
    }

    // MARK: A store that cannot be written

    /// Whether the store may be written: probed once, before the first download, unless the policy is to fail.
    private func isWritable(_ store: AssetStore) -> Bool {
        guard unwritableStore == .keepInMemory else { return true }
        return writes.withLock { state in
            if !state.probed {
                state.probed = true
                do throws(StoreError) {
                    try store.checkWritable()
                } catch  where Self.meansUnwritable(error) {
                    state.failure = error
                } catch {
                    // Another failure (an I/O error): the writes themselves will say what it is.
                }
            }
            return state.failure == nil
        }
    }

    /// Notes that the store cannot be written, when `error` says so and the policy is to go on in memory.
    /// - Returns: whether the caller should go on without the store.
    private func markUnwritable(_ error: StoreError) -> Bool {
        guard unwritableStore == .keepInMemory, Self.meansUnwritable(error) else { return false }
        writes.withLock { state in
            if state.failure == nil { state.failure = error }
        }
        return true
    }

    /// Read-only file system, permission denied, no space: the store cannot take new bytes, but can still be read.
    static func meansUnwritable(_ error: StoreError) -> Bool {
        [.readOnly, .permissionDenied, .noSpace].contains(error.code)
    }

    /// A committed blob whose record could not be written, read back into memory for this run.
    private func keptInMemory(
        _ url: String, blob: BlobRef, store: AssetStore, outcome: FetchOutcome?, _ findings: [Finding]
    ) -> RetrievedAsset? {
        guard blob.size <= memoryLimit, case .intact(let bytes)? = try? store.read(blob) else { return nil }
        return RetrievedAsset(url: url, source: .memory, outcome: outcome, findings: findings, memory: bytes)
    }

    // MARK: Fetching

    /// - Parameter remoteHasBlob: the stored entry came from the remote cache: after a `304` only its record is
    ///   uploaded again (else the blob goes first, so the remote never holds a record without its blob).
    private func fetchIntoStore(
        _ url: String, store: AssetStore, limit: Int?, validators: Validators, stored: StoreEntry?,
        findings: [Finding], remoteHasBlob: Bool = false
    ) async -> RetrievedAsset {
        let sink = StoreSink(store: store, limit: limit)
        let outcome = await fetcher.get(url, into: sink, validators: validators, range: nil)
        var findings = findings
        /// The store refused the bytes: go on in memory (fetching again) when that is the policy.
        func unstored(_ error: StoreError) async -> RetrievedAsset {
            guard markUnwritable(error) else { return storeFailure(url, error, outcome: outcome) }
            return await fetchIntoMemory(url, limit: limit, validators: validators, stored: stored, findings: findings)
        }
        if let error = sink.failure { return await unstored(error) }
        guard outcome.isOK else {
            sink.abort()
            if let finding = outcome.finding { findings.append(finding) }
            return RetrievedAsset(url: url, source: .missing, outcome: outcome, findings: findings)
        }
        let fetchedAt = now()
        if outcome.notModified, let stored {
            do throws(StoreError) {
                let entry =
                    try store.revalidated(
                        url, at: fetchedAt, etag: outcome.etag, lastModified: outcome.lastModified,
                        cacheControl: outcome.cacheControl) ?? stored
                if remoteHasBlob {
                    remote?.pushRecord(url, entry: entry, store: store)
                } else {
                    remote?.push(url, entry: entry, store: store)
                }
                return RetrievedAsset(
                    url: url, source: .revalidated, outcome: outcome, entry: entry, findings: findings, store: store)
            } catch {
                guard markUnwritable(error) else { return storeFailure(url, error, outcome: outcome) }
                // The stored copy is confirmed; only its new record could not be written.
                return RetrievedAsset(
                    url: url, source: .revalidated, outcome: outcome,
                    entry: Self.revalidated(stored, at: fetchedAt, by: outcome), findings: findings, store: store)
            }
        }
        let blob: BlobRef
        do throws(StoreError) {
            // An ok outcome without a body (a 304 nobody asked for) leaves nothing to commit: store it empty.
            if let committed = try sink.commit() { blob = committed } else { blob = try store.put(bytes: []) }
        } catch {
            return await unstored(error)
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
            findings.append(Self.noStoreWarning(url))
            return RetrievedAsset(url: url, source: .memory, outcome: outcome, findings: findings, memory: bytes)
        }
        let entry = StoreEntry(
            blob: blob, contentType: outcome.contentType, etag: outcome.etag, lastModified: outcome.lastModified,
            cacheControl: outcome.cacheControl, fetchedAt: fetchedAt, httpStatus: outcome.httpStatus ?? 200)
        do throws(StoreError) {
            try store.record(url: url, entry: entry)
        } catch {
            if markUnwritable(error),
                let kept = keptInMemory(url, blob: blob, store: store, outcome: outcome, findings)
            {
                return kept
            }
            return storeFailure(url, error, outcome: outcome)
        }
        remote?.push(url, entry: entry, store: store)
        return RetrievedAsset(
            url: url, source: .network, outcome: outcome, entry: entry, findings: findings, store: store)
    }

    /// Fetches into memory: without a store, or when the store cannot be written (then a stale stored copy is
    /// revalidated with `validators`, and a `304` serves it without rewriting its record).
    private func fetchIntoMemory(
        _ url: String, limit: Int?, validators: Validators, stored: StoreEntry?, findings: [Finding]
    ) async -> RetrievedAsset {
        let sink = MemorySink(capacity: min(limit ?? memoryLimit, memoryLimit))
        let outcome = await fetcher.get(url, into: sink, validators: validators, range: nil)
        var findings = findings
        guard outcome.isOK else {
            if let finding = outcome.finding { findings.append(finding) }
            return RetrievedAsset(url: url, source: .missing, outcome: outcome, findings: findings)
        }
        if outcome.notModified, let stored, let store {
            return RetrievedAsset(
                url: url, source: .revalidated, outcome: outcome,
                entry: Self.revalidated(stored, at: now(), by: outcome), findings: findings, store: store)
        }
        // With a store (that cannot be written) a no-store body is flagged as usual: it must not reach an export.
        if store != nil, !CacheControl.mayStore(outcome.cacheControl) { findings.append(Self.noStoreWarning(url)) }
        return RetrievedAsset(url: url, source: .memory, outcome: outcome, findings: findings, memory: sink.bytes)
    }

    /// The entry as a `304` leaves it (what ``AssetStore/revalidated(_:at:etag:lastModified:cacheControl:)`` records).
    private static func revalidated(_ stored: StoreEntry, at: Date, by outcome: FetchOutcome) -> StoreEntry {
        var entry = stored
        entry.fetchedAt = at
        if let etag = outcome.etag { entry.etag = etag }
        if let lastModified = outcome.lastModified { entry.lastModified = lastModified }
        if let cacheControl = outcome.cacheControl { entry.cacheControl = cacheControl }
        return entry
    }

    private static func noStoreWarning(_ url: String) -> Finding {
        .warning(
            AssetFindingCode.noStore,
            "\(Redaction.redactURL(url)) is served with Cache-Control: no-store: used for this run only, not stored, so "
                + "it will not be available offline")
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

/// Hands out consecutive ranges of positions to the lanes settling one batch.
private final class ChunkCounter: Sendable {
    private let next = Atomic(0)

    /// The first position of the next `count` (at or past the end when none is left).
    func take(_ count: Int) -> Int { next.wrappingAdd(count, ordering: .relaxed).oldValue }
}
