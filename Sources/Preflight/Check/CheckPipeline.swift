import AssetStore
import Findings
import HTTPFetch
public import InboxCards
public import MediaProbe
public import MediaRules
public import WalletPass

/// What `check` looks at and how hard.
public struct CheckOptions: Sendable {
    public var resolve: ResolveOptions
    public var imageLimits: ImageLimits
    /// The app's settings each platform's rules judge by: OS levels, ATS exceptions, cleartext hosts
    /// (`--ios-target`, `--android-min-sdk`, `--android-target-sdk`, `--ios-ats-exceptions`,
    /// `--android-cleartext-hosts`).
    public var app: AppSettings
    /// Bodies up to this size are inspected whole; larger images are sniffed from their first bytes.
    public var maxInspectBytes: Int
    /// Videos probed at once (each probe is one or a few small requests).
    public var videoConcurrency: Int
    /// Limits of reading each campaign input (the CLI's `--max-input` sets the byte limit).
    public var reader: ReaderOptions
    /// HLS segments sampled per VOD media playlist, first to last (`--hls-segments N`; default 3: first, middle,
    /// last).
    public var hlsSegments: Int
    /// The slice of the assets this run fetches (`--shard I/N`); the others are reported as skipped.
    public var shard: Shard

    public init(
        resolve: ResolveOptions = .init(), imageLimits: ImageLimits = .init(), app: AppSettings = .init(),
        maxInspectBytes: Int = 32 << 20, videoConcurrency: Int = 8, reader: ReaderOptions = .init(),
        hlsSegments: Int = 3, shard: Shard = .all
    ) {
        self.app = app
        self.hlsSegments = max(1, hlsSegments)
        self.shard = shard
        self.resolve = resolve
        self.imageLimits = imageLimits
        self.maxInspectBytes = maxInspectBytes
        self.videoConcurrency = videoConcurrency
        self.reader = reader
    }
}

/// The product's main job as a library call: resolve → plan → fetch → store → inspect → report.
///
/// ```swift
/// let engine = try FetchEngine(options: FetchOptions())
/// let store = try AssetStore()                       // or nil: fetch into memory only
/// let pipeline = CheckPipeline(
///     options: CheckOptions(), retriever: AssetRetriever(fetcher: engine, store: store),
///     passVerifier: try PassVerifier())
/// let outcome = await pipeline.run([("campaign.json", bytes)])
/// print(outcome.report.summary.broken, outcome.report.json.serialized())
/// await engine.shutdown()
/// ```
public struct CheckPipeline: Sendable {
    public var options: CheckOptions
    public let retriever: AssetRetriever
    public let passVerifier: PassVerifier

    public init(options: CheckOptions, retriever: AssetRetriever, passVerifier: PassVerifier) {
        self.options = options
        self.retriever = retriever
        self.passVerifier = passVerifier
    }

    /// A finished check: the report, the inputs that were unusable as a whole (exit 2), and access to the
    /// fetched image bodies for the HTML preview.
    public struct Outcome: Sendable {
        public var report: CheckReport
        public var unusableInputs: [InputError]
        let retrieved: [String: RetrievedAsset]
        let bodyLimit: Int

        /// The bytes and content type of a fetched asset (for embedding images in the HTML report).
        public func body(for url: String) -> (bytes: [UInt8], contentType: String)? {
            Self.body(of: retrieved[url], limit: bodyLimit)
        }

        static func body(of asset: RetrievedAsset?, limit: Int) -> (bytes: [UInt8], contentType: String)? {
            guard let asset, asset.isOK, let bytes = asset.body(limit: limit) else { return nil }
            let type = asset.outcome?.contentType ?? asset.entry?.contentType ?? "application/octet-stream"
            return (bytes, type)
        }
    }

    /// What one URL turned out to be, inspected once however many cards use it: platform-free facts.
    struct Inspection: Sendable {
        var image: ImageInfo?
        var pass: PassVerification?
        var video: VideoProbe?
        var tooLargeToInspect = false
    }

    /// Runs the whole check: ``prepare(_:progress:)``, then every card checked into one ``CheckReport``.
    /// - Parameters:
    ///   - inputs: campaign files (name as given, bytes).
    ///   - verdict: judges the report (``Verdict/apply(to:)``) at the end; `nil` leaves that to the caller, which
    ///     then must apply one before reading any verdict (`check` adds its own input findings first, and
    ///     judging a report of 100,000 cards twice was a fifth of the run).
    ///   - progress: called as assets complete (from any thread).
    public func run(
        _ inputs: [(name: String, bytes: [UInt8])], verdict: Verdict? = Verdict(policy: .error),
        progress: (@Sendable (ProgressSnapshot) -> Void)? = nil
    ) async -> Outcome {
        let prepared = await prepare(inputs, progress: progress)
        var report = prepared.report()
        verdict?.apply(to: &report)
        return Outcome(
            report: report, unusableInputs: prepared.unusableInputs, retrieved: prepared.retrieved,
            bodyLimit: prepared.bodyLimit)
    }

    /// The check up to its cards: every input read and resolved, every distinct asset fetched, inspected and
    /// judged once per use, the passes verified, the root causes found. Its cards are checked one at a time when
    /// a report is written (``PreparedCheck/report()``, ``CheckReportStream``).
    public func prepare(
        _ inputs: [(name: String, bytes: [UInt8])], progress: (@Sendable (ProgressSnapshot) -> Void)? = nil
    ) async -> PreparedCheck {
        await prepare(inputs.map { CampaignInput(name: $0.name, bytes: $0.bytes) }, progress: progress)
    }

    /// ``prepare(_:progress:)`` of inputs that may be files left on disk: the cards are never all held. A first
    /// read resolves every message and keeps only the plan, the cards' distinct asset uses and their feed order;
    /// each report walk resolves the cards again (``CardStream``).
    public func prepare(
        _ inputs: [CampaignInput], progress: (@Sendable (ProgressSnapshot) -> Void)? = nil
    ) async -> PreparedCheck {
        var planned = AssetPlan.Builder()
        var uses: [AssetUse] = []
        var seen: Set<AssetUseKey> = []
        // While the inputs are read, the remote's records of the messages' images are read ahead (most cards show
        // their message's image; the rest of the plan is read when it is known), so those reads overlap resolving.
        var ahead: [String] = []
        let shard = options.shard
        let resolved = CardResolver(options: options.resolve).stream(
            inputs, readerOptions: options.reader,
            observer: { message in
                guard let url = ResolveJob.likelyAssetURL(of: message, in: shard) else { return }
                ahead.append(url)
                if ahead.count >= CampaignReader.observedBatch {
                    retriever.readAhead(ahead)
                    ahead.removeAll(keepingCapacity: true)
                }
            },
            card: { card in
                planned.add(card)
                for reference in card.assets {
                    let key = AssetUseKey(url: reference.fetchURL, role: reference.role, on: card)
                    if seen.insert(key).inserted { uses.append(AssetUse(key: key, platform: card.platform)) }
                }
            })
        if !ahead.isEmpty { retriever.readAhead(ahead) }
        let plan = planned.plan.sharded(options.shard)

        let downloads = plan.items.filter { $0.mode == .download && !$0.otherShard }
        let fetched = await retriever.retrieveAll(plan.downloadRequests(retriever.limits), progress: progress)
        var retrieved: [String: RetrievedAsset] = [:]
        for asset in fetched { retrieved[asset.url] = asset }
        // URLs with a control character are never requested: each is a failed asset with its `input.badURL`.
        for asset in plan.refusedAssets() { retrieved[asset.url] = asset }
        for asset in plan.otherShardAssets() { retrieved[asset.url] = asset }
        let videos = await probeVideos(plan.urls(.video))

        var inspections: [String: Inspection] = [:]
        for item in downloads {
            guard let asset = retrieved[item.url], asset.isOK else { continue }
            inspections[item.url] = inspect(item, asset)
        }
        for (url, probe) in videos { inspections[url, default: Inspection()].video = probe }

        // Every use judged once, however many cards share it: 100,000 cards on 1,000 images hold 1,000 sets of
        // findings, not 100,000.
        var judged: [AssetUseKey: AssetCheck] = [:]
        for use in uses {
            judged[use.key] = judge(use.key, retrieved: retrieved[use.key.url], inspection: inspections[use.key.url])
        }
        var passes: [PassCheck] = []
        for item in downloads where item.roles.contains(.walletPass) {
            if let verification = inspections[item.url]?.pass {
                passes.append(PassCheck(url: item.url, verification: verification))
            }
        }

        var inputFindings = resolved.inputFindings
        if let finding = retriever.storeFinding, let store = retriever.store {
            // One warning for the run, not a finding per asset: no card is broken because of the store.
            inputFindings.append(SourcedFinding(source: store.directory, finding: finding))
        }
        if options.shard.count > 1 {
            let fetchedHere = plan.items.filter { $0.mode != .skip && !$0.otherShard }.count
            let others = plan.items.filter(\.otherShard).count
            inputFindings.append(
                SourcedFinding(
                    source: "--shard \(options.shard)",
                    finding: .info(
                        AssetFindingCode.otherShard,
                        "shard \(options.shard): \(fetchedHere) asset\(fetchedHere == 1 ? "" : "s") checked here; "
                            + "\(others) belong to other shards and are reported as skipped (their cards' verdicts "
                            + "are complete only in an un-sharded check)")))
        }
        var summary = CheckSummary()
        summary.messages = resolved.messagesRead
        summary.assets = plan.items.filter { $0.mode != .skip }.count
        summary.bytesFetched =
            fetched.reduce(0) { $0 + $1.bytesFetched }
            + videos.values.reduce(0) { $0 + ($1.outcome?.bytes ?? 0) + $1.extraBytes }
        // Every planned URL is some card's asset, and a failed fetch, probe or inspection marks it failed there.
        summary.assetsFailed = Set(judged.values.filter { $0.status == .failed }.map(\.url)).count
        var prepared = PreparedCheck(
            options: options.resolve, cards: resolved.cards, uses: uses, judged: judged,
            retrieved: retrieved,
            inputFindings: inputFindings, passes: passes, unusableInputs: resolved.unusableInputs,
            summary: summary, bodyLimit: options.maxInspectBytes)
        prepared.inputsNamedAlike = Set(inputs.map(\.name)).count != inputs.count
        return prepared
    }

    /// Probes every video URL, a few at a time.
    func probeVideos(_ urls: [String]) async -> [String: VideoProbe] {
        let hlsSegments = options.hlsSegments
        return await withTaskGroup(of: VideoProbe.self) { group in
            var results: [String: VideoProbe] = [:]
            var next = 0
            for _ in 0..<min(options.videoConcurrency, urls.count) {
                let url = urls[next]
                next += 1
                group.addTask { await retriever.probeVideo(url, hlsSegments: hlsSegments) }
            }
            for await probe in group {
                results[probe.url] = probe
                if next < urls.count {
                    let url = urls[next]
                    next += 1
                    group.addTask { await retriever.probeVideo(url, hlsSegments: hlsSegments) }
                }
            }
            return results
        }
    }

    /// Sniffs an image or verifies a pass from the fetched bytes.
    func inspect(_ item: AssetPlan.Item, _ asset: RetrievedAsset) -> Inspection {
        var inspection = Inspection()
        guard let bytes = asset.body(limit: options.maxInspectBytes) else {
            inspection.tooLargeToInspect = true
            return inspection
        }
        let contentType = asset.outcome?.contentType ?? asset.entry?.contentType ?? ""
        if item.roles.contains(.walletPass) {
            // A wallet card's URL may serve a .pkpasses bundle: verified pass by pass, reported as one verdict.
            let bundle = contentType.lowercased().hasPrefix("application/vnd.apple.pkpasses")
            let result = passVerifier.verifyPassOrBundle(bytes: bytes, source: item.url, bundle: bundle)
            var verification = result.flattened
            if let finding = PassVerifier.checkContentType(contentType, bundle: bundle || result.isBundle) {
                verification.findings.append(finding)
            }
            inspection.pass = verification
        }
        if item.roles.contains(where: AssetRoles.isImage) {
            inspection.image = ImageSniffer.inspect(bytes: bytes, contentType: contentType, limits: options.imageLimits)
        }
        return inspection
    }

    /// One URL in one role on one platform: its fetch facts, inspection and the platform's rules (no index).
    func judge(_ key: AssetUseKey, retrieved: RetrievedAsset?, inspection: Inspection?) -> AssetCheck {
        var asset = AssetCheck(role: key.role, index: nil, url: key.url, status: .skipped, needed: key.needed)
        if !key.role.isLink {
            let findings = judge(retrieved, inspection, url: key.url, use: key.use, on: key.platform)
            fill(&asset, retrieved: retrieved, inspection: inspection, platform: key.platform, judged: findings)
        }
        if !key.needed {
            // The card still renders without it: an unusable avatar, icon or poster is worth a warning only.
            asset.findings = asset.findings.map { finding in
                var softened = finding
                if softened.severity == .error { softened.severity = .warning }
                return softened
            }
        }
        return asset
    }

    /// Everything one platform says about one URL in one use: the facts' own defects as it weighs them, then its
    /// image, transport, geometry and video rules (MediaRules), on the facts inspected once.
    func judge(
        _ retrieved: RetrievedAsset?, _ inspection: Inspection?, url: String, use: ImageUse?, on platform: RulePlatform
    ) -> [Finding] {
        let app = options.app
        if let video = inspection?.video {
            return video.findings(on: platform) + VideoRules.judge(video.facts, on: platform, app: app)
        }
        // Transport is judged for every image that arrived (also one too large to inspect); a failed fetch is
        // already the card's problem.
        guard let retrieved, retrieved.isOK, let use else { return [] }
        let hops = [url] + (retrieved.outcome?.redirects.map(\.location) ?? [])
        let firstByte = retrieved.source == .network ? retrieved.outcome?.timings.firstByte : nil
        var findings = TransportRules.judge(
            TransferFacts(hops: hops, redirectCount: retrieved.outcome?.redirects.count, firstByteSeconds: firstByte),
            use: .image, on: platform, app: app)
        guard let image = inspection?.image else { return findings }
        findings =
            ImageRules.weigh(image.findings, on: platform)
            + ImageRules.judge(image, use: use, on: platform, app: app, limits: options.imageLimits) + findings
        if image.isDisplayable, (findings.maxSeverity ?? .info) < .error {
            findings += CellGeometry.judge(width: image.width, height: image.height, use: use, on: platform)
        }
        return findings
    }

    /// Copies fetch facts, inspection results and the platform's judgement into an asset check.
    func fill(
        _ asset: inout AssetCheck, retrieved: RetrievedAsset?, inspection: Inspection?, platform: RulePlatform,
        judged: [Finding]
    ) {
        if let video = inspection?.video {
            asset.findings = judged
            asset.format = video.isHLS ? "hls" : video.video?.format.rawValue
            if let outcome = video.outcome { copy(outcome, into: &asset) }
            asset.width = video.width
            asset.height = video.height
            asset.codec = video.codec
            asset.durationSeconds = video.durationSeconds
            asset.moovBeforeMdat = video.moovBeforeMdat
            asset.source = "network"
            asset.status = judged.contains { $0.severity == .error } ? .failed : .ok
            if asset.status == .failed, asset.failure == nil { asset.failure = "unplayable" }
            return
        }
        guard let retrieved else { return }
        asset.source = retrieved.source.rawValue
        if retrieved.source == .otherShard { return }  // skipped: another shard checks it
        asset.findings = retrieved.findings
        if let outcome = retrieved.outcome { copy(outcome, into: &asset) }
        if let entry = retrieved.entry {
            // The stored response describes the body (a revalidation's 304 carries no type or length).
            asset.sha256 = entry.blob.sha256
            asset.bytes = entry.blob.size
            asset.contentType = entry.contentType ?? asset.contentType
            asset.httpStatus = entry.httpStatus
        }
        guard retrieved.isOK else {
            asset.status = .failed
            if asset.failure == nil { asset.failure = retrieved.source == .missing ? "not-in-store" : "fetch" }
            return
        }
        asset.status = .ok
        if inspection?.tooLargeToInspect == true {
            asset.findings.append(.info(AssetFindingCode.notInspected, "too large to inspect in memory"))
        }
        if AssetRoles.isImage(asset.role) {
            if let image = inspection?.image {
                asset.format = image.format.rawValue
                asset.width = image.width
                asset.height = image.height
                if !image.isDisplayable {
                    asset.status = .failed
                    asset.failure = image.format.isRasterImage ? "unreadable-image" : "not-an-image"
                }
            }
            // The image's facts as the platform weighs them, then its rules (also the transport of an image too
            // large to inspect): bytes that are fine may still be bytes this platform does not show.
            asset.findings += judged
            if asset.status == .ok, let blocking = judged.first(where: { $0.severity == .error }) {
                asset.status = .failed
                asset.failure = AssetRoles.failure(of: blocking)
            }
        }
        if asset.role == .walletPass, let pass = inspection?.pass {
            asset.format = "pkpass"
            if !pass.valid {
                asset.status = .failed
                asset.failure = "invalid-pass"
                let codes = pass.findings.filter { $0.severity == .error }.map(\.code)
                asset.findings.append(
                    .error(
                        AssetFindingCode.passInvalid,
                        "the pass is invalid (\(codes.prefix(5).joined(separator: ", "))"
                            + "\(codes.count > 5 ? ", …" : "")): \"Add to Apple Wallet\" fails; see passes[]"))
            }
        }
    }

    func copy(_ outcome: FetchOutcome, into asset: inout AssetCheck) {
        asset.failure = outcome.botChallenge ? AssetCheck.botChallengeFailure : outcome.failure?.rawValue
        asset.httpStatus = outcome.httpStatus
        asset.contentType = outcome.contentType
        asset.bytes = outcome.bytes ?? outcome.contentLength
        asset.sha256 = outcome.sha256
    }

}
