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
    /// The image URL is plain `http://`: App Transport Security blocks it by default (warning).
    public static let appTransportSecurity = "image.ats"
}
