/// The stable `video.hls.*` finding codes. People grep and suppress these; never rename one.
public enum HLSFindingCode {
    /// The text does not start with `#EXTM3U`: AVPlayer rejects it (error).
    public static let notPlaylist = "video.hls.notPlaylist"
    /// The playlist starts with a UTF-8 byte order mark, which RFC 8216 §4.1 forbids (error).
    public static let byteOrderMark = "video.hls.byteOrderMark"
    /// An AES-128 key that cannot be fetched (error; 401/403 a warning) or is not 16 bytes (error).
    public static let key = "video.hls.key"
    /// iOS: HEVC video in MPEG-TS segments: Apple's HLS authoring spec requires HEVC in fMP4 (error).
    public static let hevcInTS = "video.hls.hevcInTS"
    /// Not valid UTF-8, or over the size cap (error).
    public static let unreadable = "video.hls.unreadable"
    /// A tag or URI line breaks RFC 8216 (error when it loses a variant or segment, warning otherwise).
    public static let malformed = "video.hls.malformed"
    /// Master and media tags in one playlist (error).
    public static let mixedTags = "video.hls.mixedTags"
    /// A master playlist with no variant streams (error).
    public static let noVariants = "video.hls.noVariants"
    /// A media playlist with no segments (error).
    public static let noSegments = "video.hls.noSegments"
    /// A header but neither variants nor segments (error).
    public static let empty = "video.hls.empty"
    /// A media playlist without `EXT-X-TARGETDURATION` (error).
    public static let noTargetDuration = "video.hls.noTargetDuration"
    /// Values outside sane bounds: target duration, segment longer than the target, huge bandwidth (warning).
    public static let absurdValue = "video.hls.absurdValue"
    /// A variant refers to a rendition group that no `EXT-X-MEDIA` defines (warning).
    public static let unknownGroup = "video.hls.unknownGroup"
    /// Line, variant, rendition or segment caps reached; the rest was ignored (warning).
    public static let tooLarge = "video.hls.tooLarge"
    /// A media playlist without `EXT-X-ENDLIST`: a live stream (info).
    public static let live = "video.hls.live"
    /// iOS: URIs in the playlist use plain http:// (warning; App Transport Security), judged with the stream's URL.
    public static let appTransportSecurity = VideoFindingCode.appTransportSecurity
    /// A playlist URL that was already visited: the playlists reference each other in a loop (error).
    public static let loop = "video.hls.loop"
    /// A variant playlist that is itself a master playlist (error; players do not nest masters).
    public static let nestedMaster = "video.hls.nestedMaster"
    /// A playlist, init segment or sampled segment (first, middle, last) the crawl could not fetch (error; an
    /// I-frame playlist, trick play only, a warning).
    public static let unreachable = "video.hls.unreachable"
    /// A variant playlist URL that is not http(s) or cannot be resolved (error).
    public static let badURI = "video.hls.badURI"
    /// The crawl reached its playlist cap (warning).
    public static let crawlLimit = "video.hls.crawlLimit"
}
