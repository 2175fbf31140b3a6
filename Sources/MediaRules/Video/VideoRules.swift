public import Findings
public import MediaProbe

/// What a video URL is, platform-free: the probe's and the crawl's facts the per-platform rules read.
public struct VideoFacts: Sendable, Hashable {
    /// The video URL as in the card.
    public var url: String
    /// An HLS stream (by URL, type or bytes).
    public var isHLS: Bool
    /// A progressive file's container (`mp4`, `quickTime`, `webm`, `matroska`, `mpegTS`), when its bytes arrived.
    public var container: MediaFormat?
    /// The first video track's codec (`avc1`, `hvc1`, `av01`…), when known.
    public var videoCodec: String?
    /// The H.264 `profile_idc`, when the codec is H.264.
    public var avcProfile: UInt8?
    /// The server answered the range probe with 206 (true) or the whole body (false); nil when not probed.
    public var supportsByteRanges: Bool?
    /// HLS: a media playlist maps an init segment (`EXT-X-MAP`) or a sampled segment is fMP4/CMAF.
    public var hlsFragmentedMP4: Bool
    /// HLS: every playlist, segment and key URI the crawl saw (for the transport rules).
    public var playlistURIs: [String]
    /// The redirect targets of the first request, in order.
    public var redirectTargets: [String]

    public init(
        url: String, isHLS: Bool, container: MediaFormat? = nil, videoCodec: String? = nil, avcProfile: UInt8? = nil,
        supportsByteRanges: Bool? = nil, hlsFragmentedMP4: Bool = false, playlistURIs: [String] = [],
        redirectTargets: [String] = []
    ) {
        self.url = url
        self.isHLS = isHLS
        self.container = container
        self.videoCodec = videoCodec
        self.avcProfile = avcProfile
        self.supportsByteRanges = supportsByteRanges
        self.hlsFragmentedMP4 = hlsFragmentedMP4
        self.playlistURIs = playlistURIs
        self.redirectTargets = redirectTargets
    }
}

/// Video rules per platform. iOS's container, codec, range and HLS-authoring rules (AVPlayer) are evaluated where
/// their context is, in MediaProbe's sniffers and HLS crawl, and marked ``Finding/platform`` `ios`; this adds the
/// transport rule for iOS and Android's MediaPlayer table (android-assets.md §4, rows V1–V9).
public enum VideoRules {
    /// What Android's player does on any failure (V9: `InboxVideoActivity.onError`).
    static let androidFailure = "the player shows \"Couldn't play this video\" and closes"

    /// The platform's findings for a video.
    public static func judge(_ facts: VideoFacts, on platform: RulePlatform, app: AppSettings) -> [Finding] {
        var findings = TransportRules.judge(
            TransferFacts(hops: [facts.url] + facts.redirectTargets, listedURIs: facts.playlistURIs), use: .media,
            on: platform, app: app)
        if platform == .android { findings += android(facts, app: app.android).map { $0.on(.android) } }
        findings.sort { $0.severity > $1.severity }
        return findings
    }

    static func android(_ facts: VideoFacts, app: AndroidAppSettings) -> [Finding] {
        var findings: [Finding] = []
        if facts.isHLS {
            // V5: NuPlayer's IsHTTPLiveURL: HLS only when the URL ends in .m3u8 or contains "m3u8" (NuPlayer.cpp
            // @017770e); anything else is opened as a progressive file.
            if !facts.url.lowercased().contains("m3u8") {
                findings.append(
                    .error(
                        AndroidFindingCode.videoHLSURL,
                        "The HLS URL does not contain 'm3u8': Android's MediaPlayer opens it as a plain file, not a "
                            + "playlist, so \(androidFailure). Serve the playlist under a .m3u8 path."))
            }
            // V6: PlaylistFetcher extracts MPEG-TS only ("MPEG-2 TS media files only", supported-formats).
            if facts.hlsFragmentedMP4 {
                findings.append(
                    .error(
                        AndroidFindingCode.videoHLSSegments,
                        "The HLS stream uses fMP4/CMAF segments (EXT-X-MAP): Android's MediaPlayer plays HLS from "
                            + "MPEG-TS segments only, so \(androidFailure). Add a TS variant."))
            }
            return findings
        }
        if facts.container == .mpegTS {
            findings.append(
                .warning(
                    AndroidFindingCode.videoContainer,
                    "A progressive MPEG-TS file: Android's MediaPlayer plays it but cannot seek (supported-formats: "
                        + "\"not seekable\")."))
        }
        if facts.supportsByteRanges == false {
            findings.append(
                .warning(
                    AndroidFindingCode.videoNoRangeSupport,
                    "The server ignores byte ranges: Android's MediaPlayer plays from the start but cannot seek."))
        }
        // V3: AV1 decoder from Android 10 (API 29), mandatory from Android 14 (API 34) (supported-formats).
        if facts.videoCodec == "av01", app.minSdk < 34 {
            findings.append(
                .warning(
                    AndroidFindingCode.videoCodec,
                    "AV1 video decodes from \(AndroidVersion.name(api: 29)) and on every device only from "
                        + "\(AndroidVersion.name(api: 34)); the app supports \(AndroidVersion.name(api: app.minSdk)), "
                        + "where some devices fail: \(androidFailure)."))
        }
        // Supported-formats lists H.264 Baseline and Main; 10-bit and 4:2:2/4:4:4 profiles are beyond what phone
        // decoders are required to take [INF]: a warning, not an error.
        if let profile = facts.avcProfile, [110, 122, 244, 44].contains(profile) {
            findings.append(
                .warning(
                    AndroidFindingCode.videoCodec,
                    "The H.264 track uses profile_idc \(profile) (10-bit or 4:2:2/4:4:4), which Android's required "
                        + "decoders (Baseline, Main) do not cover: many devices fail."))
        }
        return findings
    }
}
