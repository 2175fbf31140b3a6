public import Findings

/// Caps that keep parsing a hostile or runaway playlist bounded in time and memory.
public struct HLSLimits: Sendable, Hashable {
    /// Bytes of playlist text accepted. Default 8 MiB (a 24-hour VOD with 2-second segments is about 3 MB).
    public var maxBytes: Int
    /// Lines read; the rest is ignored with a finding. Default 200,000.
    public var maxLines: Int
    /// Variant streams (and I-frame streams) kept from a master playlist. Default 500.
    public var maxVariants: Int
    /// Renditions (`EXT-X-MEDIA`) kept. Default 500.
    public var maxRenditions: Int
    /// Segments kept from a media playlist. Default 100,000.
    public var maxSegments: Int
    /// A target duration above this many seconds is absurd for inbox video. Default 60 (RFC 8216 suggests 10).
    public var maxTargetDuration: Int

    /// Caps with documented defaults.
    public init(
        maxBytes: Int = 8 << 20, maxLines: Int = 200_000, maxVariants: Int = 500, maxRenditions: Int = 500,
        maxSegments: Int = 100_000, maxTargetDuration: Int = 60
    ) {
        self.maxBytes = maxBytes
        self.maxLines = maxLines
        self.maxVariants = maxVariants
        self.maxRenditions = maxRenditions
        self.maxSegments = maxSegments
        self.maxTargetDuration = maxTargetDuration
    }
}

/// A variant stream of a master playlist (`EXT-X-STREAM-INF` + URI line, or `EXT-X-I-FRAME-STREAM-INF`).
public struct HLSVariant: Sendable, Hashable {
    /// The variant playlist's URL, resolved against the master's URL.
    public var url: String
    /// `BANDWIDTH` in bits per second (required by RFC 8216; nil when missing or malformed).
    public var bandwidth: Int?
    /// `AVERAGE-BANDWIDTH` in bits per second.
    public var averageBandwidth: Int?
    /// `RESOLUTION`, when given.
    public var width: Int?
    /// See ``width``.
    public var height: Int?
    /// `CODECS`, e.g. `avc1.4d401e,mp4a.40.2`.
    public var codecs: String?
    /// `FRAME-RATE`.
    public var frameRate: Double?
    /// Rendition group ids this variant refers to.
    public var audioGroup: String?
    /// See ``audioGroup``.
    public var videoGroup: String?
    /// See ``audioGroup``.
    public var subtitlesGroup: String?
    /// True for `EXT-X-I-FRAME-STREAM-INF` (trick-play) streams.
    public var isIFrameOnly: Bool
    /// 1-based line of the tag.
    public var line: Int
}

/// An alternative rendition (`EXT-X-MEDIA`): an audio track, subtitles, another camera angle.
public struct HLSRendition: Sendable, Hashable {
    /// `TYPE`: AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS.
    public var type: String
    /// `GROUP-ID`, which variants name in their `AUDIO`/`VIDEO`/`SUBTITLES` attributes.
    public var groupID: String
    /// `NAME`, shown to the user.
    public var name: String
    /// `LANGUAGE` (RFC 5646), when given.
    public var language: String?
    /// The rendition playlist's URL, resolved; nil when the rendition is carried inside the variant streams.
    public var url: String?
    /// 1-based line of the tag.
    public var line: Int
}

/// A byte range of a segment (`EXT-X-BYTERANGE`, or `BYTERANGE` of `EXT-X-MAP`).
public struct HLSByteRange: Sendable, Hashable {
    /// First byte of the range.
    public var offset: Int
    /// Number of bytes.
    public var length: Int

    /// A range of `length` bytes starting at `offset`.
    public init(offset: Int, length: Int) {
        self.offset = offset
        self.length = length
    }

    /// The HTTP `Range` header value for this range, e.g. `bytes=2000-2999`.
    public var rangeHeader: String { "bytes=\(offset)-\(offset + Swift.max(length, 1) - 1)" }
}

/// A media segment (`EXTINF` + URI line).
public struct HLSSegment: Sendable, Hashable {
    /// The segment's URL, resolved against the playlist's URL.
    public var url: String
    /// `EXTINF` duration in seconds.
    public var duration: Double
    /// The `EXTINF` title after the comma, when not empty.
    public var title: String?
    /// `EXT-X-BYTERANGE` for this segment (an offset inherited from the previous range is filled in).
    public var byteRange: HLSByteRange?
    /// The init segment (`EXT-X-MAP`) in force for this segment, resolved.
    public var initSegmentURL: String?
    /// The init segment's `BYTERANGE`, when given.
    public var initSegmentByteRange: HLSByteRange?
    /// `METHOD` of the `EXT-X-KEY` in force: `AES-128`, `SAMPLE-AES`…; nil when not encrypted.
    public var keyMethod: String?
    /// The key's URL, resolved (may be `skd://` for FairPlay); not fetched by the planner.
    public var keyURL: String?
    /// 1-based line of the `EXTINF` tag.
    public var line: Int
}

/// A parsed HLS playlist, master or media, with every problem found as a finding.
public struct HLSPlaylist: Sendable, Hashable {
    /// Master (lists variants), media (lists segments), or unknown (nothing usable).
    public enum Kind: String, Sendable, Hashable {
        case master, media, unknown
    }

    /// Master, media or unknown (see ``Kind``).
    public var kind: Kind
    /// The URL the playlist was fetched from (after redirects); relative URIs are resolved against it.
    public var baseURL: String
    /// `EXT-X-VERSION`, when given.
    public var version: Int?
    /// Master playlist: the variant streams (capped at ``HLSLimits/maxVariants``), in playlist order.
    public var variants: [HLSVariant]
    /// Master playlist: the `EXT-X-MEDIA` renditions (capped at ``HLSLimits/maxRenditions``).
    public var renditions: [HLSRendition]
    /// Media playlist: the segments (capped at ``HLSLimits/maxSegments``), in playlist order.
    public var segments: [HLSSegment]
    /// Media playlist: `EXT-X-TARGETDURATION` in seconds.
    public var targetDuration: Int?
    /// Media playlist: `EXT-X-MEDIA-SEQUENCE`.
    public var mediaSequence: Int?
    /// `EXT-X-PLAYLIST-TYPE` (VOD or EVENT) when given.
    public var playlistType: String?
    /// True when `EXT-X-ENDLIST` is present (no more segments will be added).
    public var hasEndList: Bool
    /// Everything worth telling, most severe first.
    public var findings: [Finding]

    /// True for a media playlist without `EXT-X-ENDLIST` (a live stream; the window moves).
    public var isLive: Bool { kind == .media && !hasEndList }
    /// Total duration of the segments in seconds.
    public var totalDuration: Double { segments.reduce(0) { $0 + $1.duration } }

    /// Parses playlist bytes (UTF-8, as RFC 8216 requires).
    ///
    /// - Parameters:
    ///   - bytes: The playlist as fetched.
    ///   - baseURL: The URL it came from, after redirects; relative URIs resolve against it.
    ///   - limits: Caps on size, lines, variants and segments.
    /// - Returns: The playlist; problems (not UTF-8, no `#EXTM3U`, malformed tags, no variants or segments,
    ///   absurd values) are findings with code `video.hls.*`. Never throws.
    public static func parse(bytes: [UInt8], baseURL: String, limits: HLSLimits = HLSLimits()) -> HLSPlaylist {
        var parser = HLSParser(baseURL: baseURL, limits: limits)
        parser.run(bytes)
        return parser.finish()
    }

    /// Parses playlist text. See ``parse(bytes:baseURL:limits:)``.
    public static func parse(text: String, baseURL: String, limits: HLSLimits = HLSLimits()) -> HLSPlaylist {
        parse(bytes: Array(text.utf8), baseURL: baseURL, limits: limits)
    }
}
