public import Findings

/// Thresholds for the image policy checks. Every default is documented; tune per campaign or CI run.
public struct ImageLimits: Sendable, Hashable {
    /// Download size above which an inbox image earns ``ImageFindingCode/tooManyBytes``. Default 5 MiB:
    /// a banner that large costs seconds on a cellular connection for a cell a few hundred points tall.
    public var maxBytes: Int
    /// Decoded bytes (width × height × 4) above which ``ImageFindingCode/largeDecodedMemory`` is a warning.
    /// Default 48 MiB (≈ a 12-megapixel photo): several such cells on screen put a list under memory pressure.
    public var decodedBytesWarning: Int
    /// Decoded bytes above which ``ImageFindingCode/tooManyPixels`` is an error. Default 256 MiB (≈ 8192 × 8192):
    /// beyond that, a decode in a scrolling list risks the app being killed for memory.
    public var decodedBytesError: Int
    /// The longest side the InboxKit SDK downsamples images to. Default 1200 px.
    public var downsamplePixelSize: Int
    /// ``ImageFindingCode/oversized`` when the longest side exceeds `downsamplePixelSize × oversizeFactor`.
    /// Default 2 (2400 px with the default downsample size).
    public var oversizeFactor: Int
    /// The app's iOS deployment target (major version); formats that need a newer iOS earn
    /// ``ImageFindingCode/requiresNewerOS``. Default 13.
    public var deploymentTargetMajorVersion: Int
    /// Frames counted in a GIF or WebP animation before counting stops. Default 10,000.
    public var maxFrames: Int
    /// Chunks (PNG), marker segments (JPEG) or boxes per level (HEIF) walked before giving up. Default 10,000.
    public var maxStructures: Int

    /// Thresholds with the documented defaults.
    public init(
        maxBytes: Int = 5 << 20, decodedBytesWarning: Int = 48 << 20, decodedBytesError: Int = 256 << 20,
        downsamplePixelSize: Int = 1200, oversizeFactor: Int = 2, deploymentTargetMajorVersion: Int = 13,
        maxFrames: Int = 10_000, maxStructures: Int = 10_000
    ) {
        self.maxBytes = maxBytes
        self.decodedBytesWarning = decodedBytesWarning
        self.decodedBytesError = decodedBytesError
        self.downsamplePixelSize = downsamplePixelSize
        self.oversizeFactor = oversizeFactor
        self.deploymentTargetMajorVersion = deploymentTargetMajorVersion
        self.maxFrames = maxFrames
        self.maxStructures = maxStructures
    }
}

/// What the bytes of an image asset are and whether iOS will show them in an inbox cell.
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
    /// Everything worth telling, most severe first.
    public var findings: [Finding]

    /// True when the format is a raster image and no finding is an error: iOS will show it.
    public var isDisplayable: Bool { format.isRasterImage && findings.maxSeverity != .error }

    /// Decoded size in bytes (width × height × 4 for RGBA), saturating; nil when the size is unknown.
    public var decodedByteCount: Int? {
        guard let width, let height else { return nil }
        return saturatingProduct(width, height, 4)
    }
}

/// Sniffs image bytes from their headers (no pixel decode) and applies the inbox-cell policy.
public enum ImageSniffer {
    /// Inspects an image asset.
    ///
    /// - Parameters:
    ///   - bytes: The resource, or its first bytes when `byteCount` says it is longer. A few KB are enough for the
    ///     size of every format; GIF frame counting and truncation checks need the whole file.
    ///   - contentType: The HTTP `Content-Type` it was served with, compared against the bytes. Nil means "not
    ///     known" (a local file) and skips the comparison; pass `""` when the server sent no Content-Type.
    ///   - byteCount: The resource's full size when `bytes` is only a prefix; nil means `bytes` is everything.
    ///   - limits: Policy thresholds.
    /// - Returns: The format, size, animation and findings. Never throws: bad input is a finding.
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
            info.findings.append(
                .error(
                    ImageFindingCode.unsupportedFormat,
                    "The image is \(format.describedForHumans)\(served); iOS image views cannot show it. "
                        + "Serve a PNG, JPEG or HEIC instead."))
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

        checkContentType(format: format, servedAs: servedAs, contentType: contentType, into: &info.findings)
        checkPolicy(&info, limits: limits)
        if info.width == nil, !info.findings.contains(where: { $0.severity == .error }) {
            info.findings.append(
                .info(
                    ImageFindingCode.dimensionsUnknown,
                    "The size of this \(formatName(format)) could not be read from the first \(bytes.count) bytes."))
        }
        info.findings.sort { $0.severity > $1.severity }  // stable: same-severity findings keep their order
        return info
    }

    /// The App Transport Security check for an image URL: plain `http://` is blocked by default on iOS.
    public static func transportSecurity(url: String) -> Finding? {
        AppTransportSecurity.finding(url: url, code: ImageFindingCode.appTransportSecurity, what: "image")
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

    private static func checkPolicy(_ info: inout ImageInfo, limits: ImageLimits) {
        let format = info.format
        if let needed = format.minimumIOSMajorVersion, needed > limits.deploymentTargetMajorVersion {
            info.findings.append(
                .warning(
                    ImageFindingCode.requiresNewerOS,
                    "\(formatName(format)) images decode only on iOS \(needed) and later; the app supports iOS "
                        + "\(limits.deploymentTargetMajorVersion), where the cell shows no image."))
        }
        if info.byteCount > limits.maxBytes {
            info.findings.append(
                .warning(
                    ImageFindingCode.tooManyBytes,
                    "The image is \(formatBytes(info.byteCount)), more than the \(formatBytes(limits.maxBytes)) "
                        + "an inbox cell should cost."))
        }
        guard let width = info.width, let height = info.height, let decoded = info.decodedByteCount else { return }
        let size = "\(width)×\(height)"
        if decoded > limits.decodedBytesError {
            info.findings.append(
                .error(
                    ImageFindingCode.tooManyPixels,
                    "\(size) pixels decode to \(formatBytes(decoded)) (over \(formatBytes(limits.decodedBytesError))); "
                        + "iOS may fail to decode it or kill the app for memory."))
        } else if decoded > limits.decodedBytesWarning {
            info.findings.append(
                .warning(
                    ImageFindingCode.largeDecodedMemory,
                    "\(size) pixels decode to \(formatBytes(decoded)) "
                        + "(over \(formatBytes(limits.decodedBytesWarning))) for one inbox cell."))
        }
        let threshold = saturatingProduct(limits.downsamplePixelSize, limits.oversizeFactor)
        if Swift.max(width, height) > threshold, decoded <= limits.decodedBytesWarning {
            info.findings.append(
                .warning(
                    ImageFindingCode.oversized,
                    "\(size) is far larger than the SDK's \(limits.downsamplePixelSize)-px downsample; "
                        + "serve at most \(threshold) px on the longest side."))
        }
        if info.animated {
            let frames = info.frameCount.map { " with \($0) frames" } ?? ""
            info.findings.append(
                .info(
                    ImageFindingCode.animated,
                    "Animated \(formatName(format))\(frames); an image view shows only the first frame "
                        + "unless the app animates it."))
        }
    }

    static func formatName(_ format: MediaFormat) -> String {
        switch format {
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
