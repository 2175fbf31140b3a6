/// The stable `image.*` finding codes MediaProbe emits. People grep and suppress these; never rename one.
public enum ImageFindingCode {
    /// Zero bytes (error).
    public static let empty = "image.empty"
    /// The bytes are not an image at all: an HTML error page, JSON, text, a video, unknown binary (error).
    public static let notAnImage = "image.notAnImage"
    /// A real format that iOS image views cannot show: SVG, PDF (error).
    public static let unsupportedFormat = "image.unsupportedFormat"
    /// The format decodes only on a newer iOS than the deployment target (WebP < 14, AVIF < 16) (warning).
    public static let requiresNewerOS = "image.requiresNewerOS"
    /// The HTTP Content-Type names a different format than the bytes (warning).
    public static let contentTypeMismatch = "image.contentTypeMismatch"
    /// The Content-Type is generic (`application/octet-stream`) or missing (info).
    public static let contentTypeGeneric = "image.contentTypeGeneric"
    /// More bytes than an inbox cell's image should cost to download (warning).
    public static let tooManyBytes = "image.tooManyBytes"
    /// Decoded size (width × height × 4) beyond what a phone can reasonably decode for one cell (error).
    public static let tooManyPixels = "image.tooManyPixels"
    /// Decoded size large enough to hurt scrolling and memory in a list (warning).
    public static let largeDecodedMemory = "image.largeDecodedMemory"
    /// Much larger than the SDK's downsample target: bandwidth and decode time spent for nothing (warning).
    public static let oversized = "image.oversized"
    /// Animated: an image view shows only the first frame unless the app animates it (info).
    public static let animated = "image.animated"
    /// More frames than the counting cap (warning).
    public static let tooManyFrames = "image.tooManyFrames"
    /// The file ends early: inside the header (error) or after the first complete frame/scan (warning).
    public static let truncated = "image.truncated"
    /// The header breaks the format's rules (error), or bends them in a way decoders tolerate (warning).
    public static let corrupt = "image.corrupt"
    /// The format is recognised but its size could not be read from the bytes given (info).
    public static let dimensionsUnknown = "image.dimensionsUnknown"
    /// An Xcode-"crushed" PNG (CgBI chunk): iOS shows it, other platforms cannot (info).
    public static let appleOptimizedPNG = "image.appleOptimizedPNG"
    /// A PNG whose IHDR promises pixels but whose IDAT stream is empty, not zlib, invalid deflate, or inflates to
    /// less than the first row (or a first row with an unknown filter type): no decoder shows it (error).
    public static let pngDataIncomplete = "image.pngDataIncomplete"
    /// PNG chunks out of the order decoders need: IDAT chunks split by another chunk so the first run lacks rows
    /// (error); a stray IDAT after complete image data, or a palette image without PLTE before IDAT (warning).
    public static let pngChunkOrder = "image.pngChunkOrder"
    /// A BMP whose bit count no decoder knows or whose palette is impossible (error); a palette larger than the
    /// bit count allows, which decoders tolerate (warning).
    public static let bmpBadHeader = "image.bmpBadHeader"
    /// A TIFF whose strip or tile offsets point past the end of the file: the pixels cannot be read (error).
    public static let tiffDataOutOfBounds = "image.tiffDataOutOfBounds"
    /// An ICO/CUR entry whose embedded PNG or BMP claims a decoded size beyond the pixel limit, whatever its
    /// directory entry says (error).
    public static let icoEntryBomb = "image.icoEntryBomb"
    /// A GIF frame that reaches beyond the logical screen: the size reported is the screen's, the frame is clipped
    /// (warning).
    public static let gifFrameOutsideScreen = "image.gifFrameOutsideScreen"
    /// The image URL is plain `http://`: App Transport Security blocks it by default (warning).
    public static let appTransportSecurity = "image.ats"
}
