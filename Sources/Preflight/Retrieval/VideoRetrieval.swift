public import Findings
public import HTTPFetch
public import MediaProbe
public import MediaRules
public import StrictJSON

/// What `check` learns about a video URL without downloading it: a byte-range GET of its first bytes, and of its
/// tail when `moov` is not among them (progressive files), or an HLS crawl (every playlist, and the first, middle
/// and last segment of each media playlist with their init segments and AES-128 keys).
public struct VideoProbe: Sendable {
    /// The video URL (raw, secrets included: redact before printing).
    public var url: String
    /// Whether it is an HLS stream (by its `.m3u8` path, its content type or its bytes).
    public var isHLS: Bool
    /// The range GET's outcome (progressive files; for HLS the root playlist's), when a request was made.
    public var outcome: FetchOutcome?
    /// `video.*` and `video.hls.*` findings from MediaProbe (range support, content type, `moov`/`mdat`, variants,
    /// sampled segments, keys, codecs, App Transport Security), plus `asset.*` when the URL could not be fetched at all.
    public var findings: [Finding]
    /// The range probe's verdict (progressive files).
    public var range: RangeProbeEvaluation?
    /// What the first bytes show (progressive files).
    public var video: VideoInfo?
    /// The playlists the crawl parsed (HLS).
    public var playlists: [HLSCrawl.Entry]
    /// Body bytes of the requests beyond ``outcome``'s: the tail GET of a `moov`-at-end file, the crawl's other
    /// playlists, segments and keys.
    public var extraBytes = 0
    /// HLS: what the sampled media segments are (`mpegTS`, `mp4` for fMP4/CMAF).
    public var sampledSegmentFormats: Set<MediaFormat> = []
    /// HLS: the picture size each media playlist's first init segment or TS segment shows, by the playlist's base
    /// URL (``HLSCrawl/probedSizes``).
    public var probedSizes: [String: HLSPictureSize] = [:]

    /// Creates a probe result.
    public init(
        url: String, isHLS: Bool, outcome: FetchOutcome? = nil, findings: [Finding] = [],
        range: RangeProbeEvaluation? = nil, video: VideoInfo? = nil, playlists: [HLSCrawl.Entry] = []
    ) {
        self.url = url
        self.isHLS = isHLS
        self.outcome = outcome
        self.findings = findings
        self.range = range
        self.video = video
        self.playlists = playlists
    }

    /// The platform-free findings and those of `platform`'s rules the probe and the crawl evaluated in context
    /// (AVPlayer's, marked `ios`).
    public func findings(on platform: RulePlatform) -> [Finding] {
        findings.filter { $0.platform == nil || $0.platform == platform }
    }

    /// What the per-platform video rules read (MediaRules' ``VideoFacts``).
    public var facts: VideoFacts {
        var uris: [String] = []
        var fragmented = sampledSegmentFormats.contains(.mp4) || sampledSegmentFormats.contains(.quickTime)
        for entry in playlists {
            let playlist = entry.playlist
            if entry.url != url { uris.append(entry.url) }
            for segment in playlist.segments {
                if segment.initSegmentURL != nil { fragmented = true }
                uris.append(segment.url)
                if let initURL = segment.initSegmentURL { uris.append(initURL) }
                if let key = segment.keyURL { uris.append(key) }
            }
            for variant in playlist.variants { uris.append(variant.url) }
            for rendition in playlist.renditions { if let url = rendition.url { uris.append(url) } }
        }
        return VideoFacts(
            url: url, isHLS: isHLS, container: isHLS ? nil : video?.format, videoCodec: video?.videoCodec,
            avcProfile: video?.avcProfile, supportsByteRanges: isHLS ? nil : range?.supportsByteRanges,
            hlsFragmentedMP4: isHLS && fragmented, playlistURIs: uris,
            redirectTargets: outcome?.redirects.map(\.location) ?? [])
    }

    /// Width in pixels: the movie's video track (progressive) or the largest working variant's (HLS: its
    /// `RESOLUTION`, else the size its first init segment or TS segment shows).
    public var width: Int? { video?.width ?? largestVariant?.size.width }
    /// The video codec: the movie's sample entry (`avc1`, `hvc1`…) or the largest working variant's `CODECS`.
    public var codec: String? { video?.videoCodec ?? largestVariant?.variant.codecs }
    /// The movie's duration (progressive files).
    public var durationSeconds: Double? { video?.durationSeconds }
    /// Whether `moov` comes before `mdat` (progressive MP4/MOV), nil when not known or not MP4.
    public var moovBeforeMdat: Bool? { video?.moovBeforeMdat }
    /// Height in pixels (see ``width``).
    public var height: Int? { video?.height ?? largestVariant?.size.height }
    /// `hls`, or the container MediaProbe recognised (`mp4`, `quickTime`, …); `nil` when nothing arrived.
    public var format: String? { isHLS ? "hls" : video?.format.rawValue }
    /// The file's full size, from `Content-Range` or `Content-Length` (progressive files).
    public var totalBytes: Int? { range?.totalBytes.map { Int($0) } }
    /// Variant streams of the master playlist (HLS), I-frame streams excluded.
    public var variantCount: Int? {
        guard isHLS else { return nil }
        return playlists.first { $0.purpose == .rootPlaylist }?.playlist.variants.filter { !$0.isIFrameOnly }.count
    }

    /// The largest variant among those whose media playlist was fetched and parsed, by picture area, as the player
    /// picks the top rendition when the network allows: a master whose variants partly fail plays the others
    /// (AVPlayer switches to a variant that loads), so their size and codecs count. A variant without `RESOLUTION`
    /// is sized by its probed media (``probedSizes``); one with neither is not a candidate, and when no variant
    /// has a size the first working one gives the codecs.
    private var largestVariant: (variant: HLSVariant, size: (width: Int?, height: Int?))? {
        var working: [String: String] = [:]  // requested variant URL → the playlist's base URL
        for entry in playlists where entry.purpose == .variantPlaylist && entry.playlist.kind == .media {
            working[entry.url] = HLSPlanner.withoutFragment(entry.playlist.baseURL)
        }
        guard let variants = playlists.first(where: { $0.purpose == .rootPlaylist })?.playlist.variants else {
            return nil
        }
        var best: (variant: HLSVariant, size: (width: Int?, height: Int?), area: Int)?
        for variant in variants where !variant.isIFrameOnly {
            guard let base = working[variant.url] else { continue }
            let probed = probedSizes[base]
            let width = variant.width ?? probed?.width
            let height = variant.height ?? probed?.height
            let area = (width ?? 0) * (height ?? 0)
            if best == nil || area > best!.area { best = (variant, (width, height), area) }
        }
        return best.map { ($0.variant, $0.size) }
    }

    /// `{"url", "hls", "format", "width", "height", "totalBytes", "variants", "range", "video", "playlists",
    /// "findings"}`, URLs redacted.
    public var json: JSONValue {
        func int(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
        return .object(
            JSONObject([
                ("url", .string(Redaction.redactURL(url))), ("hls", .bool(isHLS)), ("format", .optional(format)),
                ("width", int(width)), ("height", int(height)), ("totalBytes", int(totalBytes)),
                ("variants", int(variantCount)), ("range", range?.json ?? .null), ("video", video?.json ?? .null),
                (
                    "playlists",
                    .array(
                        playlists.map {
                            .object(
                                JSONObject([
                                    ("url", .string(Redaction.redactURL($0.url))),
                                    ("purpose", .string($0.purpose.rawValue)),
                                    ("kind", .string($0.playlist.kind.rawValue)),
                                ]))
                        })
                ),
                ("findings", .array(findings.map(\.json))),
            ]))
    }
}

extension AssetRetriever {
    /// Bytes a progressive probe asks for: enough for `ftyp` and, in a fast-start file, the whole `moov`.
    public static let videoProbeBytes = 64 << 10
    /// Bytes the second range GET reads when `moov` is not in the first ones: up to 8 MiB (the index of an
    /// hour-long movie is a few MB).
    public static let videoTailBytes = 8 << 20

    /// Probes a video for `check` without downloading it: a range GET of its first ``videoProbeBytes`` (does the
    /// server answer `206`? is it MP4 with `moov` first?), then, when `moov` is not in them, one of the tail from
    /// the end of `mdat` (at most ``videoTailBytes``) for the codec, size and duration; or, for HLS, a crawl of
    /// every playlist and sampled segments of each media playlist. Nothing is stored.
    /// - Parameters:
    ///   - url: the raw video URL.
    ///   - hlsSegments: segments sampled per VOD media playlist (`check --hls-segments`; default 3: the first,
    ///     the middle and the last), each with its init segment and AES-128 key.
    /// - Returns: the findings and details; never throws.
    public func probeVideo(_ url: String, hlsSegments: Int = 3) async -> VideoProbe {
        if Self.looksLikeHLS(url) { return await crawl(url, outcome: nil, hlsSegments: hlsSegments) }
        var tailBytes = 0
        let sink = MemorySink(capacity: Self.videoProbeBytes)
        let outcome = await fetcher.get(
            url, into: sink, validators: Validators(), range: 0...(Self.videoProbeBytes - 1))
        var findings: [Finding] = []
        guard let status = outcome.httpStatus, outcome.isOK || outcome.failure == .httpStatus else {
            findings += outcome.finding.map { [$0] } ?? []
            return VideoProbe(url: url, isHLS: false, outcome: outcome, findings: findings)
        }
        let response = RangeProbeResponse(
            status: status, contentType: outcome.contentType, contentLength: outcome.contentLength.map { Int64($0) },
            contentRange: outcome.contentRange, acceptRanges: outcome.acceptRanges,
            requestedRange: 0...Int64(Self.videoProbeBytes - 1))
        let evaluation = VideoChecks.evaluate(response)
        let bytes = sink.bytes
        if evaluation.isPlaylist || (outcome.isOK && MediaSniffer.sniff(bytes) == .hls) {
            return await crawl(url, outcome: outcome, hlsSegments: hlsSegments)
        }
        findings += evaluation.findings
        guard outcome.isOK else {
            return VideoProbe(url: url, isHLS: false, outcome: outcome, findings: findings, range: evaluation)
        }
        var info = VideoSniffer.inspect(
            bytes: bytes, contentType: outcome.contentType, byteCount: evaluation.totalBytes.map { Int($0) })
        if let offset = info.movieIndexOffset, evaluation.supportsByteRanges, offset < info.byteCount {
            // `moov` after a long `mdat` (or a `moov` longer than the first bytes): AVPlayer reads it from the end
            // before it plays, so the check does too, to know the codec, size and duration. One more range GET,
            // from the box after `mdat` to the end of the file, capped.
            let last = min(info.byteCount - 1, offset + Self.videoTailBytes - 1)
            let tailSink = MemorySink(capacity: Self.videoTailBytes)
            let tailOutcome = await fetcher.get(url, into: tailSink, validators: Validators(), range: offset...last)
            // Only bytes that start where asked are read as boxes (a server that sends another range is ignored).
            if tailOutcome.isOK, tailOutcome.httpStatus == 206,
                let range = tailOutcome.contentRange.flatMap(ContentRange.init), range.first == Int64(offset)
            {
                info = VideoSniffer.inspectTail(tailSink.bytes, at: offset, of: info)
            } else {
                let why =
                    tailOutcome.isOK
                    ? "the server answered \(tailOutcome.httpStatus.map(String.init) ?? "?") without the range asked for"
                    : tailOutcome.errorText ?? "the request failed"
                info.findings.append(
                    .info(
                        VideoFindingCode.moovNotRead,
                        "The movie index after the media data could not be read (\(Redaction.redactText(why))): "
                            + "the codec, size and duration are not checked."))
            }
            tailBytes = tailOutcome.bytes ?? 0
        }
        // The range verdict already judged the content type and size from the headers: one finding per code.
        let seen = Set(findings.map(\.code))
        findings += info.findings.filter { !seen.contains($0.code) }
        var probe = VideoProbe(
            url: url, isHLS: false, outcome: outcome, findings: findings, range: evaluation, video: info)
        probe.extraBytes = tailBytes
        return probe
    }

    /// Downloads a video into the store for `prefetch --video`: the file (streamed, bounded memory), or for HLS
    /// the root playlist, every playlist it lists and ALL their segments (and init segments). Byte-range segments
    /// share their file, which is fetched once. Nested masters are not followed and playlists are capped, as in
    /// ``HLSCrawl``.
    /// - Parameters:
    ///   - url: the raw video URL.
    ///   - progress: called after each segment with the running totals, from any thread.
    /// - Returns: every URL retrieved, playlists first; never throws.
    public func downloadVideo(_ url: String, progress: (@Sendable (ProgressSnapshot) -> Void)? = nil) async
        -> [RetrievedAsset]
    {
        // Video bodies stream into the store: only `--max-size` limits them (``BodyLimits/video``).
        var root = await retrieve(AssetRequest(url: url, maxBytes: limits.video))
        guard root.isOK else { return [root] }
        let limit = HLSLimits().maxBytes
        guard let body = Self.playlistBody(of: root, limit: limit) else { return recordsFlushed([root]) }
        let rootPlaylist = Self.parse(&root, body: body)
        var playlists = [root]
        var mediaPlaylists: [HLSPlaylist] = []
        switch rootPlaylist.kind {
        case .master:
            let limits = HLSCrawlLimits()
            let listed = HLSPlanner.playlistsToFetch(from: rootPlaylist).map(\.url)
                .filter { Self.withoutFragment($0) != Self.withoutFragment(url) }
            let urls = Array(Self.unique(listed).prefix(limits.maxPlaylists - 1))
            for var asset in await retrieveAll(urls.map { AssetRequest(url: $0, maxBytes: self.limits.video) }) {
                if asset.isOK, let text = asset.body(limit: limit) {
                    let playlist = Self.parse(&asset, body: text)
                    if playlist.kind == .media { mediaPlaylists.append(playlist) }
                }
                playlists.append(asset)
            }
        case .media: mediaPlaylists = [rootPlaylist]
        case .unknown: break
        }
        var segments: [String] = []
        var keys: [String] = []
        for playlist in mediaPlaylists {
            for segment in playlist.segments {
                if let initURL = segment.initSegmentURL { segments.append(Self.withoutFragment(initURL)) }
                segments.append(Self.withoutFragment(segment.url))
                // The AES-128 key the segments need offline too (a FairPlay `skd://` key is the app's business).
                if segment.keyMethod?.uppercased() == "AES-128", let key = segment.keyURL, Self.isHTTP(key) {
                    keys.append(Self.withoutFragment(key))
                }
            }
        }
        let playlistURLs = Set(playlists.map { Self.withoutFragment($0.url) })
        let segmentRequests = Self.unique(segments).filter { !playlistURLs.contains($0) }.map {
            AssetRequest(url: $0, maxBytes: self.limits.video)
        }
        // A key is 16 bytes (RFC 8216 §5.2): a small cap, so an endless "key" cannot fill the store.
        let keyRequests = Self.unique(keys).filter { !playlistURLs.contains($0) && !segments.contains($0) }.map {
            AssetRequest(url: $0, maxBytes: Self.maxKeyBytes)
        }
        let fetched = await retrieveAll(segmentRequests + keyRequests, progress: progress)
        return recordsFlushed(playlists + fetched)
    }

    // MARK: HLS helpers

    /// The largest body taken as an AES-128 key (a key is 16 bytes; servers may pad or wrap it).
    static let maxKeyBytes = 1 << 10

    /// An `http`/`https` URL (case-insensitive scheme).
    private static func isHTTP(_ url: String) -> Bool {
        let lower = url.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// The body of `asset` when it is an HLS playlist: by its URL or content type, or — served as something
    /// generic — by its bytes. A video file is never read into memory to find out.
    private static func playlistBody(of asset: RetrievedAsset, limit: Int) -> [UInt8]? {
        let type = MediaContentType.essence(asset.contentType)
        if looksLikeHLS(asset.url) || type.map(MediaContentType.hlsTypes.contains) == true {
            return asset.body(limit: limit)
        }
        if let type, !MediaContentType.genericTypes.contains(type), !type.hasPrefix("text/") { return nil }
        guard let size = asset.size, size <= limit, let body = asset.body(limit: limit) else { return nil }
        return MediaSniffer.sniff(body) == .hls ? body : nil
    }

    /// A crawl of the playlist at `url` (for ``probeVideo(_:)``): all playlists, sampled segments, keys,
    /// fetched into memory, in rounds of parallel requests.
    private func crawl(_ url: String, outcome: FetchOutcome?, hlsSegments: Int) async -> VideoProbe {
        let limits = HLSCrawlLimits(segmentsPerPlaylist: hlsSegments)
        var crawl = HLSCrawl(url: url, limits: limits)
        var rootOutcome = outcome
        var extraBytes = 0
        while true {
            var batch: [HLSFetch] = []
            while let fetch = crawl.next() { batch.append(fetch) }
            if batch.isEmpty { break }
            let fetcher = self.fetcher
            let results = await withTaskGroup(of: (Int, FetchOutcome, [UInt8]).self) { group in
                for (index, fetch) in batch.enumerated() {
                    group.addTask {
                        let capacity =
                            fetch.purpose.isPlaylist
                            ? limits.playlist.maxBytes : fetch.purpose == .key ? 1_024 : Self.videoProbeBytes
                        var range: ClosedRange<Int>?
                        if let byteRange = fetch.byteRange {
                            range = byteRange.offset...(byteRange.offset + max(1, min(byteRange.length, capacity)) - 1)
                        } else if !fetch.purpose.isPlaylist && fetch.purpose != .key {
                            range = 0...(capacity - 1)
                        }
                        let sink = MemorySink(capacity: capacity)
                        let outcome = await fetcher.get(fetch.url, into: sink, validators: Validators(), range: range)
                        return (index, outcome, sink.bytes)
                    }
                }
                var results = [(FetchOutcome, [UInt8])?](repeating: nil, count: batch.count)
                for await (index, outcome, bytes) in group { results[index] = (outcome, bytes) }
                return results.map { $0! }
            }
            for (fetch, (outcome, bytes)) in zip(batch, results) {
                if fetch.purpose == .rootPlaylist { rootOutcome = outcome } else { extraBytes += outcome.bytes ?? 0 }
                if outcome.isOK {
                    crawl.record(
                        fetch, body: bytes, finalURL: outcome.redirects.isEmpty ? nil : outcome.finalURL,
                        contentType: outcome.contentType)
                } else {
                    crawl.recordFailure(
                        fetch, reason: Self.reason(outcome),
                        httpStatus: outcome.failure == .httpStatus ? outcome.httpStatus : nil)
                }
            }
        }
        var probe = VideoProbe(
            url: url, isHLS: true, outcome: rootOutcome, findings: crawl.findings, playlists: crawl.playlists)
        probe.extraBytes = extraBytes
        probe.sampledSegmentFormats = crawl.sampledSegmentFormats
        probe.probedSizes = crawl.probedSizes
        return probe
    }

    /// Parses a retrieved playlist; a body that is no playlist at all makes the asset fail with the parser's errors.
    private static func parse(_ asset: inout RetrievedAsset, body: [UInt8]) -> HLSPlaylist {
        let redirected = asset.outcome.map { !$0.redirects.isEmpty } ?? false
        let playlist = HLSPlaylist.parse(bytes: body, baseURL: redirected ? asset.outcome!.finalURL : asset.url)
        if playlist.kind == .unknown {
            asset.findings += playlist.findings.filter { $0.severity == .error }.map { finding in
                var copy = finding
                copy.path = asset.redactedURL
                return copy
            }
        }
        return playlist
    }

    private static func reason(_ outcome: FetchOutcome) -> String {
        var reason = outcome.failure?.rawValue ?? "failed"
        if let status = outcome.httpStatus, outcome.failure == .httpStatus { reason += " \(status)" }
        return reason
    }

    static func looksLikeHLS(_ url: String) -> Bool {
        let path = URIReference(url).path.lowercased()
        return path.hasSuffix(".m3u8") || path.hasSuffix(".m3u")
    }

    static func withoutFragment(_ url: String) -> String {
        url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
    }

    private static func unique(_ urls: [String]) -> [String] {
        var seen: Set<String> = []
        return urls.filter { seen.insert($0).inserted }
    }
}
