public import Findings

/// A picture size in pixels, as a variant's `RESOLUTION` or its probed media give it.
public struct HLSPictureSize: Sendable, Hashable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// One thing the pipeline should fetch for an HLS stream.
public struct HLSFetch: Sendable, Hashable {
    /// Why it is fetched; decides what ``HLSCrawl/record(_:body:finalURL:)`` does with the bytes.
    public enum Purpose: String, Sendable, Hashable {
        /// The playlist the card points at (master or media).
        case rootPlaylist
        /// A variant stream's media playlist.
        case variantPlaylist
        /// A trick-play (I-frame) playlist.
        case iFramePlaylist
        /// An alternative rendition's playlist (audio, subtitles).
        case renditionPlaylist
        /// An fMP4 init segment (`EXT-X-MAP`).
        case initSegment
        /// A media segment.
        case segment
        /// An `EXT-X-KEY` `METHOD=AES-128` key file (16 bytes).
        case key

        /// True for the purposes whose body is a playlist to parse.
        public var isPlaylist: Bool {
            switch self {
            case .rootPlaylist, .variantPlaylist, .iFramePlaylist, .renditionPlaylist: true
            case .initSegment, .segment, .key: false
            }
        }
    }

    /// Absolute URL to request.
    public var url: String
    /// What the body is for.
    public var purpose: Purpose
    /// Send `Range: bytes=offset-(offset+length-1)` when set (byte-range segments).
    public var byteRange: HLSByteRange?
    /// The playlist that listed it (nil for the root).
    public var referrer: String?

    /// A request; the crawl makes these, tests and callers may too.
    public init(url: String, purpose: Purpose, byteRange: HLSByteRange? = nil, referrer: String? = nil) {
        self.url = url
        self.purpose = purpose
        self.byteRange = byteRange
        self.referrer = referrer
    }
}

/// What to fetch next, given a parsed playlist. Pure functions; ``HLSCrawl`` drives them with loop protection.
public enum HLSPlanner {
    /// The playlists a master refers to: every variant, I-frame stream and rendition with a URI, each URL once,
    /// in playlist order. Empty for anything but a master playlist.
    public static func playlistsToFetch(from master: HLSPlaylist) -> [HLSFetch] {
        guard master.kind == .master else { return [] }
        var seen: Set<String> = []
        var fetches: [HLSFetch] = []
        func add(_ url: String, _ purpose: HLSFetch.Purpose) {
            if seen.insert(withoutFragment(url)).inserted {
                fetches.append(HLSFetch(url: url, purpose: purpose, referrer: master.baseURL))
            }
        }
        for variant in master.variants where !variant.isIFrameOnly { add(variant.url, .variantPlaylist) }
        for rendition in master.renditions { if let url = rendition.url { add(url, .renditionPlaylist) } }
        for variant in master.variants where variant.isIFrameOnly { add(variant.url, .iFramePlaylist) }
        return fetches
    }

    /// The segments that prove a media playlist plays, each preceded by its init segment and its AES-128 key when it
    /// has them (a player needs both before the segment; a 404 there breaks the variant as a missing segment does).
    /// A VOD or EVENT playlist: `count` segments spread evenly from the first to the last (3: first, middle, last),
    /// every segment when it has no more. A live playlist: only the newest (its oldest may already have left the
    /// window, and the window moves while the crawl runs; a player starts near the live edge, RFC 8216 §6.3.3, so
    /// older segments are not what it fetches). SAMPLE-AES keys (FairPlay, `skd://`) are not fetched.
    public static func segmentsToFetch(from media: HLSPlaylist, count: Int = 3) -> [HLSFetch] {
        guard media.kind == .media, !media.segments.isEmpty, count > 0 else { return [] }
        let segments = media.segments
        var picked: [Int]
        if media.isLive {
            picked = [segments.count - 1]
        } else if count >= segments.count {
            picked = Array(segments.indices)
        } else if count == 1 {
            picked = [0]
        } else {
            picked = (0..<count).map { $0 * (segments.count - 1) / (count - 1) }
        }
        var seenIndices: Set<Int> = []
        picked = picked.filter { seenIndices.insert($0).inserted }
        var fetches: [HLSFetch] = []
        var seen: Set<String> = []
        for segment in picked.map({ segments[$0] }) {
            // Segments usually share one init segment and one key: each is fetched once.
            if let initURL = segment.initSegmentURL,
                seen.insert(withoutFragment(initURL) + (segment.initSegmentByteRange?.rangeHeader ?? "")).inserted
            {
                fetches.append(
                    HLSFetch(
                        url: initURL, purpose: .initSegment, byteRange: segment.initSegmentByteRange,
                        referrer: media.baseURL))
            }
            if segment.keyMethod == "AES-128", let keyURL = segment.keyURL,
                keyURL.prefix(7).lowercased() == "http://" || keyURL.prefix(8).lowercased() == "https://",
                seen.insert(withoutFragment(keyURL)).inserted
            {
                fetches.append(HLSFetch(url: keyURL, purpose: .key, referrer: media.baseURL))
            }
            fetches.append(
                HLSFetch(url: segment.url, purpose: .segment, byteRange: segment.byteRange, referrer: media.baseURL))
        }
        return fetches
    }

    /// `url` without its `#fragment` (also the key of ``HLSCrawl/probedSizes``).
    public static func withoutFragment(_ url: String) -> String {
        url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
    }
}

/// Caps for one stream's crawl.
public struct HLSCrawlLimits: Sendable, Hashable {
    /// Playlists fetched per stream (root included). Default 64.
    public var maxPlaylists: Int
    /// Parser caps for each playlist.
    public var playlist: HLSLimits
    /// Segments fetched per VOD media playlist, spread from the first to the last (`check --hls-segments N`).
    /// Default 3: the first, the middle and the last.
    public var segmentsPerPlaylist: Int

    /// Caps with documented defaults.
    public init(maxPlaylists: Int = 64, playlist: HLSLimits = HLSLimits(), segmentsPerPlaylist: Int = 3) {
        self.maxPlaylists = maxPlaylists
        self.playlist = playlist
        self.segmentsPerPlaylist = max(1, segmentsPerPlaylist)
    }
}

/// Drives the checks of one HLS stream without doing any I/O: it hands out ``HLSFetch`` requests and takes back
/// what the pipeline fetched. It keeps a visited set, so a playlist that lists itself (or a variant that points back
/// at the master) is reported as ``HLSFindingCode/loop`` instead of being fetched forever; nested masters are
/// reported, not followed (players do not follow them either); the number of playlists is capped.
///
/// ```swift
/// var crawl = HLSCrawl(url: videoURL)
/// while let fetch = crawl.next() {            // several may be taken before recording: fetch them in parallel
///     switch await fetcher.get(fetch.url, range: fetch.byteRange) {
///     case .ok(let body, let finalURL): crawl.record(fetch, body: body, finalURL: finalURL)
///     case .failed(let reason): crawl.recordFailure(fetch, reason: reason)
///     }
/// }
/// report(crawl.findings)
/// ```
public struct HLSCrawl: Sendable {
    /// Every finding of every playlist and fetch; `path` holds the (redacted) URL a finding is about.
    public private(set) var findings: [Finding] = []
    /// A playlist the crawl parsed, with the URL it was requested with.
    public struct Entry: Sendable, Hashable {
        /// The requested URL (secrets included: redact before printing).
        public var url: String
        /// Why it was fetched.
        public var purpose: HLSFetch.Purpose
        /// The parsed playlist, with its own findings.
        public var playlist: HLSPlaylist
    }

    /// Parsed playlists in the order they were recorded.
    public private(set) var playlists: [Entry] = []
    /// What the sampled media segments' bytes are (`mpegTS`, `mp4` for fMP4/CMAF, …): Android's MediaPlayer plays
    /// TS segments only (android-assets.md §4).
    public private(set) var sampledSegmentFormats: Set<MediaFormat> = []
    /// The picture size each media playlist's media shows, from its first sampled init segment (`tkhd`) or MPEG-TS
    /// segment (the H.264 SPS), keyed by the playlist's base URL without fragment: a master whose variants do not all
    /// carry `RESOLUTION` is sized by what the player would decode.
    public private(set) var probedSizes: [String: HLSPictureSize] = [:]
    /// True when nothing is queued: everything handed out has been or is being fetched.
    public var isDrained: Bool { queue.isEmpty }

    private let limits: HLSCrawlLimits
    private let rootURL: String
    private var queue: [HLSFetch]
    private var visited: Set<String>
    private var playlistsHandedOut = 0
    private var reportedLimit = false
    /// True once the root turned out to be a master playlist.
    private var rootIsMaster = false
    /// The master's variant playlists (I-frame streams excluded), and those whose init segment AVPlayer cannot
    /// decode: when every variant is in the second set, nothing plays.
    private var variantURLs: Set<String> = []
    private var undecodableVariants: Set<String> = []

    /// Starts a crawl at the playlist the card points at.
    public init(url: String, limits: HLSCrawlLimits = HLSCrawlLimits()) {
        self.limits = limits
        rootURL = url
        queue = [HLSFetch(url: url, purpose: .rootPlaylist)]
        visited = [HLSPlanner.withoutFragment(url)]
    }

    /// The next request to make, or nil when nothing is left.
    public mutating func next() -> HLSFetch? {
        guard !queue.isEmpty else { return nil }
        let fetch = queue.removeFirst()
        if fetch.purpose.isPlaylist { playlistsHandedOut += 1 }
        return fetch
    }

    /// Records a successful fetch: playlists are parsed and their follow-ups queued; segments are sniffed.
    ///
    /// - Parameters:
    ///   - fetch: The request, as returned by ``next()``.
    ///   - body: The bytes received (for a segment, its first bytes are enough).
    ///   - finalURL: The URL after redirects, which relative URIs resolve against; nil means `fetch.url`.
    ///   - contentType: The response's Content-Type, when known; a playlist must be served as one (or end in .m3u8).
    public mutating func record(
        _ fetch: HLSFetch, body: [UInt8], finalURL: String? = nil, contentType: String? = nil
    ) {
        let path = Redaction.redactURL(fetch.url)
        guard fetch.purpose.isPlaylist else { return checkSegment(fetch, body: body, path: path) }
        let playlist = HLSPlaylist.parse(bytes: body, baseURL: finalURL ?? fetch.url, limits: limits.playlist)
        playlists.append(Entry(url: fetch.url, purpose: fetch.purpose, playlist: playlist))
        findings += playlist.findings.map { with(path, $0) }
        if playlist.kind != .unknown, let contentType, let finding = Self.playlistType(contentType, url: fetch.url) {
            findings.append(with(path, finding.on(.ios)))
        }
        switch (playlist.kind, fetch.purpose) {
        case (.master, .rootPlaylist):
            rootIsMaster = true
            variantURLs = Set(playlist.variants.filter { !$0.isIFrameOnly }.map { HLSPlanner.withoutFragment($0.url) })
            enqueue(HLSPlanner.playlistsToFetch(from: playlist), from: path)
        case (.master, _):
            findings.append(
                .error(
                    HLSFindingCode.nestedMaster,
                    "This \(fetch.purpose.rawValue) is itself a master playlist; players do not follow nested "
                        + "masters.", path: path))
        case (.media, _):
            enqueue(HLSPlanner.segmentsToFetch(from: playlist, count: limits.segmentsPerPlaylist), from: path)
        case (.unknown, _):
            break
        }
    }

    /// Records a failed fetch (DNS, TLS, HTTP status…); `reason` should already be redacted by the fetcher.
    ///
    /// An I-frame playlist serves trick play only (scrubbing thumbnails, fast-forward): AVPlayer plays the stream
    /// without it, so its failure is a warning. A key answered 401/403 may want the app's credentials (a cookie or
    /// a token the app adds through AVAssetResourceLoader), which the crawl does not have: a warning too.
    public mutating func recordFailure(_ fetch: HLSFetch, reason: String, httpStatus: Int? = nil) {
        let path = Redaction.redactURL(fetch.url)
        let message = "The \(describe(fetch.purpose)) could not be fetched: \(reason)"
        switch fetch.purpose {
        case .iFramePlaylist:
            findings.append(
                .warning(
                    HLSFindingCode.unreachable, message + "; only trick play (scrubbing, fast-forward) is lost.",
                    path: path))
        case .key where httpStatus == 401 || httpStatus == 403:
            findings.append(
                .warning(
                    HLSFindingCode.key,
                    message + "; the key server may want the app's credentials, which this check does not send.",
                    path: path))
        case .key:
            findings.append(
                .error(HLSFindingCode.key, message + "; no segment of the variant can be decrypted.", path: path))
        default:
            findings.append(.error(HLSFindingCode.unreachable, message, path: path))
        }
    }

    private mutating func enqueue(_ fetches: [HLSFetch], from path: String) {
        for fetch in fetches {
            var key = HLSPlanner.withoutFragment(fetch.url)
            if let range = fetch.byteRange { key += " " + range.rangeHeader }
            if !fetch.purpose.isPlaylist && visited.contains(key) {
                continue  // two playlists sharing a segment (the I-frame playlist usually does): fetch it once
            }
            if fetch.purpose.isPlaylist {
                guard !visited.contains(key) else {
                    findings.append(
                        .error(
                            HLSFindingCode.loop,
                            "The playlist refers to \(Redaction.redactURL(fetch.url)), which was already fetched "
                                + "(\(key == HLSPlanner.withoutFragment(rootURL) ? "the root playlist" : "a loop")).",
                            path: path))
                    continue
                }
                guard playlistsHandedOut + queue.filter(\.purpose.isPlaylist).count < limits.maxPlaylists else {
                    if !reportedLimit {
                        reportedLimit = true
                        findings.append(
                            .warning(
                                HLSFindingCode.crawlLimit,
                                "More than \(limits.maxPlaylists) playlists; the rest were not checked.", path: path))
                    }
                    continue
                }
            }
            visited.insert(key)
            queue.append(fetch)
        }
    }

    /// AVPlayer (iOS) recognises a playlist by its media type, or failing that by a `.m3u8` path. (Android's
    /// NuPlayer looks only at the URL, for `m3u8` anywhere in it: MediaRules' Android table.)
    static func playlistType(_ contentType: String, url: String) -> Finding? {
        guard let type = MediaContentType.essence(contentType), !MediaContentType.hlsTypes.contains(type) else {
            return nil
        }
        let path = URIReference(url).path.lowercased()
        if path.hasSuffix(".m3u8") || path.hasSuffix(".m3u") { return nil }
        return .warning(
            VideoFindingCode.contentType,
            "The playlist is served as \(type) and its URL does not end in .m3u8; AVPlayer on iOS may not recognise it. "
                + "Serve application/vnd.apple.mpegurl.")
    }

    private mutating func checkSegment(_ fetch: HLSFetch, body: [UInt8], path: String) {
        if fetch.purpose == .key {
            // RFC 8216 §5.2: an AES-128 key file "is a single packed array of 16 octets in binary format".
            if body.count != 16 {
                let format = MediaSniffer.sniff(body)
                let what = [.html, .json, .xml, .text].contains(format) ? " (\(format.describedForHumans))" : ""
                findings.append(
                    .error(
                        HLSFindingCode.key,
                        "The AES-128 key is \(body.count) bytes\(what), not the 16 bytes RFC 8216 §5.2 requires; "
                            + "the segments cannot be decrypted.", path: path))
            }
            return
        }
        let format = MediaSniffer.sniff(body)
        if fetch.purpose == .segment { sampledSegmentFormats.insert(format) }
        if let referrer = fetch.referrer, probedSizes[HLSPlanner.withoutFragment(referrer)] == nil,
            let size = Self.pictureSize(body, format: format, purpose: fetch.purpose)
        {
            probedSizes[HLSPlanner.withoutFragment(referrer)] = size
        }
        if fetch.purpose == .initSegment, format == .mp4 || format == .quickTime {
            checkInitSegment(body, path: path, variant: fetch.referrer)
        }
        if fetch.purpose == .segment, format == .mpegTS,
            TransportStream.streamTypes(body).contains(TransportStream.hevcStreamType)
        {
            // Apple's HLS Authoring Specification for Apple Devices §1.5: "The container format for HEVC video MUST
            // be fMP4"; AVPlayer does not play HEVC from MPEG-TS segments.
            findings.append(
                .error(
                    HLSFindingCode.hevcInTS,
                    "The segment carries HEVC video in MPEG-TS; Apple devices play HEVC in HLS only from fMP4 "
                        + "segments. Package with `-hls_segment_type fmp4 -tag:v hvc1`.", path: path
                ).on(.ios))
        }
        let wrong: Set<MediaFormat> = [.html, .xml, .json, .empty, .hls, .svg, .pdf, .png, .jpeg, .gif, .webp]
        guard wrong.contains(format) else { return }
        findings.append(
            .error(
                HLSFindingCode.unreachable,
                "The \(describe(fetch.purpose)) is \(format.describedForHumans), not media data.", path: path))
    }

    /// The codec of an fMP4 init segment's video track. Under a master playlist the variant's CODECS decide what
    /// AVPlayer skips (a warning here, the master's check says whether any variant is left); a media playlist the
    /// card points at directly has no other variant, so an undecodable codec is an error.
    private mutating func checkInitSegment(_ body: [UInt8], path: String, variant: String?) {
        let walk = walkISOBoxes(body, from: 0, to: Int.max, maxBoxes: 64)
        guard let moov = walk.boxes.first(where: { $0.type == "moov" }), moov.end <= body.count else { return }
        guard let track = MovieHeader(body, moov: moov, maxBoxes: 256).videoTrack else { return }
        var reason: String?
        if track.codec == "hev1" {
            reason =
                "The init segment's HEVC track is tagged 'hev1'; AVPlayer on iOS plays HEVC only when tagged 'hvc1'"
        } else if let profile = track.avcProfile, let name = H264Profile.unsupportedName(profile) {
            reason = "The init segment's H.264 track uses the \(name), which AVPlayer on iOS does not decode"
        }
        guard let reason else { return }
        guard rootIsMaster else {
            return findings.append(
                .error(VideoFindingCode.codec, reason + "; the playlist has no other variant.", path: path).on(.ios))
        }
        findings.append(
            .warning(VideoFindingCode.codec, reason + "; AVPlayer skips this variant.", path: path).on(.ios))
        if let variant { undecodableVariants.insert(HLSPlanner.withoutFragment(variant)) }
        if !variantURLs.isEmpty, variantURLs.isSubset(of: undecodableVariants) {
            findings.append(
                .error(
                    VideoFindingCode.codec,
                    "No variant plays: the init segment of every one of the \(variantURLs.count) variant "
                        + "stream(s) has a codec AVPlayer on iOS does not decode.", path: path
                ).on(.ios))
            variantURLs = []  // reported once
        }
    }

    /// The video's picture size in an init segment (the first video track's `tkhd`, rotation applied) or a TS
    /// segment (the first H.264 SPS); nil for anything else.
    static func pictureSize(_ body: [UInt8], format: MediaFormat, purpose: HLSFetch.Purpose) -> HLSPictureSize? {
        switch (purpose, format) {
        case (.initSegment, .mp4), (.initSegment, .quickTime):
            let walk = walkISOBoxes(body, from: 0, to: Int.max, maxBoxes: 64)
            guard let moov = walk.boxes.first(where: { $0.type == "moov" }), moov.end <= body.count,
                let track = MovieHeader(body, moov: moov, maxBoxes: 256).videoTrack, let width = track.width,
                let height = track.height, width > 0, height > 0
            else { return nil }
            return HLSPictureSize(width: width, height: height)
        case (.segment, .mpegTS):
            return TransportStream.h264PictureSize(body).map { HLSPictureSize(width: $0.width, height: $0.height) }
        default:
            return nil
        }
    }

    private func describe(_ purpose: HLSFetch.Purpose) -> String {
        switch purpose {
        case .rootPlaylist: "playlist"
        case .variantPlaylist: "variant playlist"
        case .iFramePlaylist: "I-frame playlist"
        case .renditionPlaylist: "rendition playlist"
        case .initSegment: "init segment"
        case .segment: "segment"
        case .key: "AES-128 key"
        }
    }

    private func with(_ path: String, _ finding: Finding) -> Finding {
        var copy = finding
        copy.path = path
        return copy
    }
}
