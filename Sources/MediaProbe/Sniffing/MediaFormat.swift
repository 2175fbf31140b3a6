/// What a run of bytes is, judged by its content (never by URL or Content-Type).
///
/// The raw values are stable: they appear in reports.
public enum MediaFormat: String, Sendable, Hashable, CaseIterable {
    // Raster images (which platform decodes which: MediaRules).
    case png, jpeg, gif, webp, heic, heif, avif, bmp, tiff, ico, jxl
    // Documents an `UIImage(data:)` cannot show.
    case svg, pdf
    // Video containers and playlists (`dash`: an MPEG-DASH manifest).
    case mp4, quickTime, webm, matroska, mpegTS, hls, dash
    // Things that are not media at all (an error page served with status 200, an API error, plain text).
    case html, xml, json, text
    /// Zero bytes.
    case empty
    /// Binary bytes no sniffer recognised.
    case unknown

    /// True for raster image formats: some platform's image views can show them (which, and from which OS
    /// version, is MediaRules' business).
    public var isRasterImage: Bool {
        switch self {
        case .png, .jpeg, .gif, .webp, .heic, .heif, .avif, .bmp, .tiff, .ico, .jxl: true
        default: false
        }
    }

    /// True for containers and playlists a video player might be handed.
    public var isVideo: Bool {
        switch self {
        case .mp4, .quickTime, .webm, .matroska, .mpegTS, .hls, .dash: true
        default: false
        }
    }

    /// The canonical media type for these bytes, used in messages and by the content-type check.
    public var mimeType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .bmp: "image/bmp"
        case .tiff: "image/tiff"
        case .ico: "image/x-icon"
        case .jxl: "image/jxl"
        case .svg: "image/svg+xml"
        case .pdf: "application/pdf"
        case .mp4: "video/mp4"
        case .quickTime: "video/quicktime"
        case .webm: "video/webm"
        case .matroska: "video/x-matroska"
        case .mpegTS: "video/mp2t"
        case .hls: "application/vnd.apple.mpegurl"
        case .dash: "application/dash+xml"
        case .html: "text/html"
        case .xml: "application/xml"
        case .json: "application/json"
        case .text: "text/plain"
        case .empty, .unknown: "application/octet-stream"
        }
    }

    /// Every Content-Type (lowercased, without parameters) that honestly describes these bytes.
    var acceptedContentTypes: Set<String> {
        switch self {
        case .png: ["image/png", "image/apng", "image/x-png"]
        case .jpeg: ["image/jpeg", "image/jpg", "image/pjpeg"]
        case .gif: ["image/gif"]
        case .webp: ["image/webp"]
        case .heic, .heif: ["image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence"]
        case .avif: ["image/avif", "image/avif-sequence"]
        case .bmp: ["image/bmp", "image/x-bmp", "image/x-ms-bmp"]
        case .tiff: ["image/tiff", "image/tiff-fx"]
        // image/x-win-bitmap: cursors (.cur) in shared-mime-info.
        case .ico: ["image/x-icon", "image/vnd.microsoft.icon", "image/ico", "image/icon", "image/x-win-bitmap"]
        case .jxl: ["image/jxl"]
        case .svg: ["image/svg+xml"]
        case .pdf: ["application/pdf"]
        case .mp4: ["video/mp4", "video/x-m4v", "audio/mp4", "application/mp4", "video/iso.segment"]
        case .quickTime: ["video/quicktime", "video/mp4"]
        case .webm: ["video/webm", "audio/webm"]
        case .matroska: ["video/x-matroska", "video/matroska"]
        case .mpegTS: ["video/mp2t", "video/mpeg"]
        case .hls: MediaContentType.hlsTypes
        case .dash: ["application/dash+xml"]
        case .html: ["text/html", "application/xhtml+xml"]
        case .xml: ["application/xml", "text/xml"]
        case .json: ["application/json", "text/json"]
        case .text: ["text/plain"]
        case .empty, .unknown: []
        }
    }

    /// A short human name for messages ("a PNG image", "an HTML page").
    var describedForHumans: String {
        switch self {
        case .png: "a PNG image"
        case .jpeg: "a JPEG image"
        case .gif: "a GIF image"
        case .webp: "a WebP image"
        case .heic: "a HEIC image"
        case .heif: "a HEIF image"
        case .avif: "an AVIF image"
        case .bmp: "a BMP image"
        case .tiff: "a TIFF image"
        case .ico: "an ICO icon"
        case .jxl: "a JPEG XL image"
        case .svg: "an SVG document"
        case .pdf: "a PDF document"
        case .mp4: "an MP4 video"
        case .quickTime: "a QuickTime movie"
        case .webm: "a WebM video"
        case .matroska: "a Matroska video"
        case .mpegTS: "an MPEG transport stream"
        case .hls: "an HLS playlist"
        case .dash: "an MPEG-DASH manifest"
        case .html: "an HTML page"
        case .xml: "an XML document"
        case .json: "JSON text"
        case .text: "plain text"
        case .empty: "nothing (zero bytes)"
        case .unknown: "unrecognised binary data"
        }
    }
}

/// Helpers for HTTP Content-Type values.
public enum MediaContentType {
    /// Media types servers use for HLS playlists (RFC 8216 names the first; the others are common aliases).
    public static let hlsTypes: Set<String> = [
        "application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl",
    ]

    /// Types that say "some bytes" without saying which: no mismatch, but not a description either.
    public static let genericTypes: Set<String> = [
        "application/octet-stream", "binary/octet-stream", "application/binary", "application/unknown",
    ]

    /// The media type without parameters, trimmed and lowercased: `"Image/PNG; charset=x"` → `"image/png"`.
    /// Returns nil for nil or blank input.
    public static func essence(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        // Real media types are short; a hostile header must not turn into a huge message.
        let type = contentType.prefix(256).prefix { $0 != ";" }.trimmingASCIIWhitespace().lowercased()
        return type.isEmpty ? nil : excerpt(type, limit: 100)
    }
}

/// Untrusted text quoted in a message, cut to `limit` characters: a finding must not carry a megabyte-long line.
func excerpt(_ text: some StringProtocol, limit: Int = 60) -> String {
    text.count <= limit ? String(text) : String(text.prefix(limit)) + "…"
}

extension StringProtocol {
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
