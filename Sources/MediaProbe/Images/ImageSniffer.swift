public import Findings

/// Work bounds of the image parsers and the thresholds that hold wherever an image is drawn. What a platform makes
/// of the facts (formats per OS version, decode memory, animation, the cell's geometry) is MediaRules' business;
/// the iOS decode thresholds live here because MediaRules reads them from one place.
public struct ImageLimits: Sendable, Hashable {
    /// Download size above which an inbox image earns ``ImageFindingCode/tooManyBytes``. Default 5 MiB:
    /// a banner that large costs seconds on a cellular connection for a cell a few hundred points tall.
    public var maxBytes: Int
    /// iOS: decoded bytes (width × height × 4) above which ``ImageFindingCode/largeDecodedMemory`` is a warning.
    /// Default 48 MiB (≈ a 12-megapixel photo): several such cells on screen put a list under memory pressure.
    public var decodedBytesWarning: Int
    /// iOS: decoded bytes above which ``ImageFindingCode/tooManyPixels`` is an error. Default 256 MiB
    /// (≈ 8192 × 8192): beyond that, a decode in a scrolling list risks the app being killed for memory. Also the
    /// bound of an ICO entry's claimed size (``ImageFindingCode/icoEntryBomb``).
    public var decodedBytesError: Int
    /// iOS: the longest side the InboxKit SDK downsamples images to. Default 1200 px.
    public var downsamplePixelSize: Int
    /// iOS: ``ImageFindingCode/oversized`` when the longest side exceeds `downsamplePixelSize × oversizeFactor`.
    /// Default 2 (2400 px with the default downsample size).
    public var oversizeFactor: Int
    /// Frames counted in a GIF or WebP animation before counting stops. Default 10,000.
    public var maxFrames: Int
    /// Chunks (PNG), marker segments (JPEG) or boxes per level (HEIF) walked before giving up. Default 10,000.
    public var maxStructures: Int

    /// Thresholds with the documented defaults.
    public init(
        maxBytes: Int = 5 << 20, decodedBytesWarning: Int = 48 << 20, decodedBytesError: Int = 256 << 20,
        downsamplePixelSize: Int = 1200, oversizeFactor: Int = 2, maxFrames: Int = 10_000,
        maxStructures: Int = 10_000
    ) {
        self.maxBytes = maxBytes
        self.decodedBytesWarning = decodedBytesWarning
        self.decodedBytesError = decodedBytesError
        self.downsamplePixelSize = downsamplePixelSize
        self.oversizeFactor = oversizeFactor
        self.maxFrames = maxFrames
        self.maxStructures = maxStructures
    }
}

/// What the bytes of an image asset are: platform-free facts and the defects every decoder meets. Whether a
/// platform shows them (formats per OS version, CgBI, animation under a crop) is judged by MediaRules.
public struct ImageInfo: Sendable, Hashable {
    /// The format recognised from the bytes (not from the URL or the Content-Type).
    public var format: MediaFormat
    /// Width as shown: EXIF orientation 5–8 and HEIF `irot` 90°/270° swap the stored width and height, HEIF `clap`
    /// crops it; for ICO/CUR the largest entry's, from its embedded PNG/BMP header.
    public var width: Int?
    /// Height as shown (see ``width``).
    public var height: Int?
    /// True for an animated GIF, APNG, animated WebP or an image sequence (AVIF `avis`, HEIF `msf1`).
    public var animated: Bool
    /// Number of frames when the parser counted them (GIF, APNG, animated WebP); nil when not known.
    public var frameCount: Int?
    /// Size of the whole resource in bytes.
    public var byteCount: Int
    /// An Xcode-"crushed" PNG (a `CgBI` chunk before IHDR: premultiplied BGRA, raw deflate): only Apple's decoder
    /// reads it.
    public var appleCgBI = false
    /// The defects of the bytes, true for every decoder (cut off, corrupt, not an image, the Content-Type), most
    /// severe first.
    public var findings: [Finding]

    /// True when the format is a raster image and no defect is an error: a decoder that knows the format shows it
    /// (whether the platform has one is MediaRules' question).
    public var isDisplayable: Bool { format.isRasterImage && findings.maxSeverity != .error }

    /// Decoded size in bytes (width × height × 4 for RGBA), saturating; nil when the size is unknown.
    public var decodedByteCount: Int? {
        guard let width, let height else { return nil }
        return saturatingProduct(width, height, 4)
    }
}

/// Sniffs image bytes from their headers (no pixel decode): the facts, and the defects every decoder meets.
public enum ImageSniffer {
    /// Inspects an image asset.
    ///
    /// - Parameters:
    ///   - bytes: The resource, or its first bytes when `byteCount` says it is longer. A few KB are enough for the
    ///     size of every format; GIF frame counting and truncation checks need the whole file.
    ///   - contentType: The HTTP `Content-Type` it was served with, compared against the bytes. Nil means "not
    ///     known" (a local file) and skips the comparison; pass `""` when the server sent no Content-Type.
    ///   - byteCount: The resource's full size when `bytes` is only a prefix; nil means `bytes` is everything.
    ///   - limits: Work bounds and the download-size threshold.
    /// - Returns: The format, size, animation and defects. Never throws: bad input is a finding.
    public static func inspect(
        bytes: [UInt8], contentType: String? = nil, byteCount: Int? = nil, limits: ImageLimits = ImageLimits()
    ) -> ImageInfo {
        let total = Swift.max(byteCount ?? bytes.count, bytes.count)
        let format = MediaSniffer.sniff(bytes)
        var info = ImageInfo(
            format: format, width: nil, height: nil, animated: false, frameCount: nil, byteCount: total, findings: [])
        let servedAs = MediaContentType.essence(contentType)
        let served = servedAs.map { " (served as \($0))" } ?? ""

        switch format {
        case .empty:
            info.findings.append(.error(ImageFindingCode.empty, "The image is empty (zero bytes)\(served)."))
            return info
        case .svg, .pdf:
            // Neither ImageIO behind UIImage (iOS) nor Glide 4.16 without an app-side SVG module (Android,
            // android-assets.md §2) decodes a vector document into a bitmap.
            info.findings.append(
                .error(
                    ImageFindingCode.unsupportedFormat,
                    "The image is \(format.describedForHumans)\(served); inbox image views decode bitmaps only. "
                        + "Serve a PNG or JPEG instead."))
            return info
        case _ where !format.isRasterImage:
            var message = "The bytes are \(format.describedForHumans)\(served), not an image."
            if format == .html || format == .json || format == .xml || format == .text {
                message += " Often an error, login or consent page answered with status 200."
            }
            info.findings.append(.error(ImageFindingCode.notAnImage, message))
            return info
        default:
            break
        }

        var parse = HeaderParse(bytes, complete: total <= bytes.count, formatName: formatName(format))
        switch format {
        case .png: PNGHeader.parse(&parse, maxChunks: limits.maxStructures)
        case .jpeg: JPEGHeader.parse(&parse, maxSegments: limits.maxStructures)
        case .gif: GIFHeader.parse(&parse, maxFrames: limits.maxFrames)
        case .webp: WebPHeader.parse(&parse, maxFrames: limits.maxFrames)
        case .heic, .heif, .avif: HEIFHeader.parse(&parse, maxBoxes: limits.maxStructures)
        case .bmp: OtherImageHeaders.parseBMP(&parse)
        case .tiff: OtherImageHeaders.parseTIFF(&parse)
        case .ico: OtherImageHeaders.parseICO(&parse, decodedBytesError: limits.decodedBytesError)
        default: break
        }
        let header = parse.header
        info.findings += header.findings
        if let width = header.width, let height = header.height {
            info.width = header.swapsAxes ? height : width
            info.height = header.swapsAxes ? width : height
        }
        info.animated = header.animated
        info.frameCount = header.frameCount
        info.appleCgBI = header.appleCgBI

        checkContentType(format: format, servedAs: servedAs, contentType: contentType, into: &info.findings)
        if info.byteCount > limits.maxBytes {
            info.findings.append(
                .warning(
                    ImageFindingCode.tooManyBytes,
                    "The image is \(formatBytes(info.byteCount)), more than the \(formatBytes(limits.maxBytes)) "
                        + "an inbox cell should cost."))
        }
        if info.width == nil, !info.findings.contains(where: { $0.severity == .error }) {
            info.findings.append(
                .info(
                    ImageFindingCode.dimensionsUnknown,
                    "The size of this \(formatName(format)) could not be read from the first \(bytes.count) bytes."))
        }
        info.findings.sort { $0.severity > $1.severity }  // stable: same-severity findings keep their order
        return info
    }

    /// `contentType` nil means "not known" (e.g. a local file): nothing to compare. A blank header was sent empty.
    private static func checkContentType(
        format: MediaFormat, servedAs: String?, contentType: String?, into findings: inout [Finding]
    ) {
        guard contentType != nil else { return }
        guard let servedAs else {
            findings.append(
                .info(
                    ImageFindingCode.contentTypeGeneric,
                    "An empty Content-Type was sent; the bytes are \(format.describedForHumans) (\(format.mimeType))."))
            return
        }
        if format.acceptedContentTypes.contains(servedAs) { return }
        if MediaContentType.genericTypes.contains(servedAs) {
            findings.append(
                .info(
                    ImageFindingCode.contentTypeGeneric,
                    "Served as \(servedAs); the bytes are \(format.describedForHumans) (\(format.mimeType))."))
            return
        }
        findings.append(
            .warning(
                ImageFindingCode.contentTypeMismatch,
                "Served as \(servedAs) but the bytes are \(format.describedForHumans) (\(format.mimeType)); "
                    + "caches, proxies and image loaders that trust the header may refuse it."))
    }

    /// The format's name in messages ("HEIC", "WebP", "JPEG XL").
    public static func formatName(_ format: MediaFormat) -> String {
        switch format {
        case .jxl: "JPEG XL"
        case .dash: "MPEG-DASH"
        case .heic: "HEIC"
        case .heif: "HEIF"
        case .avif: "AVIF"
        case .webp: "WebP"
        case .quickTime: "QuickTime"
        case .mpegTS: "MPEG-TS"
        case .matroska: "Matroska"
        case .webm: "WebM"
        default: format.rawValue.uppercased()
        }
    }
}

/// "1.5 MiB", "812 KiB", "93 bytes" — for messages only.
func formatBytes(_ count: Int) -> String {
    if count >= 1 << 30 { return "\(roundedTenths(Double(count) / Double(1 << 30))) GiB" }
    if count >= 1 << 20 { return "\(roundedTenths(Double(count) / Double(1 << 20))) MiB" }
    if count >= 1 << 10 { return "\(roundedTenths(Double(count) / Double(1 << 10))) KiB" }
    return "\(count) bytes"
}

private func roundedTenths(_ value: Double) -> String {
    guard value < 1e15 else { return ">1e15" }
    let tenths = Int((value * 10).rounded())
    return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
}

/// Byte counts in messages, as MediaProbe's own findings print them.
public enum ByteCountText {
    /// "1.5 MiB", "812 KiB", "93 bytes".
    public static func format(_ count: Int) -> String { formatBytes(count) }
}
