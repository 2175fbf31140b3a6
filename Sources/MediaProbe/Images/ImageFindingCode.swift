/// The stable `image.*` finding codes MediaProbe emits. People grep and suppress these; never rename one.
public enum ImageFindingCode {
    /// Zero bytes (error).
    public static let empty = "image.empty"
    /// The bytes are not an image at all: an HTML error page, JSON, text, a video, unknown binary (error).
    public static let notAnImage = "image.notAnImage"
    /// A vector document no inbox image view decodes, on either platform: SVG, PDF (error).
    public static let unsupportedFormat = "image.unsupportedFormat"
    /// iOS: the format decodes only on a newer iOS than the deployment target (HEIC < 11, WebP < 14, AVIF < 16,
    /// JPEG XL < 17) (warning). Android's counterpart is `image.android.requiresNewerAPI`.
    public static let requiresNewerOS = "image.requiresNewerOS"
    /// The HTTP Content-Type names a different format than the bytes (warning).
    public static let contentTypeMismatch = "image.contentTypeMismatch"
    /// The Content-Type is generic (`application/octet-stream`) or missing (info).
    public static let contentTypeGeneric = "image.contentTypeGeneric"
    /// More bytes than an inbox cell's image should cost to download (warning).
    public static let tooManyBytes = "image.tooManyBytes"
    /// iOS: decoded size (width × height × 4) beyond what a phone can reasonably decode for one cell (error). Android
    /// decodes at the view's size (Glide downsamples), so it has no such rule.
    public static let tooManyPixels = "image.tooManyPixels"
    /// iOS: decoded size large enough to hurt scrolling and memory in a list (warning).
    public static let largeDecodedMemory = "image.largeDecodedMemory"
    /// Much larger than needed: iOS beyond twice the SDK's 1200-px downsample (warning); Android more than 4× its cell
    /// at 3× on both sides (info: Glide downsamples, the bytes only cost data).
    public static let oversized = "image.oversized"
    /// iOS: animated, and an image view shows only the first frame unless the app animates it (info). Android:
    /// `image.android.animated`.
    public static let animated = "image.animated"
    /// More frames than the counting cap (warning).
    public static let tooManyFrames = "image.tooManyFrames"
    /// The file ends early: inside the header (error) or after the first complete frame/scan (warning).
    public static let truncated = "image.truncated"
    /// The header breaks the format's rules (error), or bends them in a way decoders tolerate (warning).
    public static let corrupt = "image.corrupt"
    /// The format is recognised but its size could not be read from the bytes given (info).
    public static let dimensionsUnknown = "image.dimensionsUnknown"
    /// iOS: an Xcode-"crushed" PNG (CgBI chunk), which iOS shows (info). On Android it is `image.android.cgbi`.
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
    /// A TIFF whose strips or tiles cannot all be read: one starting past the end of the file, a byte count of 0 or
    /// one whose end overflows, or fewer strips (tiles) listed than the image needs (error).
    public static let tiffDataOutOfBounds = "image.tiffDataOutOfBounds"
    /// An ICO/CUR entry whose embedded PNG or BMP claims a decoded size beyond the pixel limit, whatever its
    /// directory entry says (error).
    public static let icoEntryBomb = "image.icoEntryBomb"
    /// A GIF frame that reaches beyond the logical screen: the size reported is the screen's, the frame is clipped
    /// (warning).
    public static let gifFrameOutsideScreen = "image.gifFrameOutsideScreen"
    /// iOS: the image URL (or a redirect hop) is plain `http://`: App Transport Security blocks it by default
    /// (warning); info for a host the app excepts (`--ios-ats-exceptions`). Android: `image.android.cleartext`.
    public static let appTransportSecurity = "image.ats"
}
