public import Findings
public import MediaProbe

/// One row of a platform's image-format table: from which OS level the format decodes, and what a card shows
/// below it. A row is data with its source; ``ImageRules`` applies it.
public struct FormatSupport: Sendable, Hashable {
    /// What the row is about.
    public enum Variant: String, Sendable, Hashable {
        /// Any image of the format (still or animated, the animation rules aside).
        case any
        /// An Apple CgBI ("crushed") PNG.
        case appleCgBI
    }

    public var format: MediaFormat
    public var variant: Variant
    /// The OS level it decodes from (iOS major version, Android API level); nil: every level; `Int.max`: never.
    public var since: Int?
    /// The level from which decoding is guaranteed on every device, when later than ``since`` (AVIF: API 34).
    public var guaranteedFrom: Int?
    /// How bad a card showing it is where it does not decode.
    public var below: Severity
    /// Where the rule comes from.
    public var source: String

    public init(
        _ format: MediaFormat, _ variant: Variant = .any, since: Int?, guaranteedFrom: Int? = nil,
        below: Severity = .warning, source: String
    ) {
        self.format = format
        self.variant = variant
        self.since = since
        self.guaranteedFrom = guaranteedFrom
        self.below = below
        self.source = source
    }

    /// Never decodes on the platform.
    public var never: Bool { since == .max }
}

/// The image formats each platform decodes, by OS level (assets-by-platform.md, android-assets.md §2).
public enum ImageFormatTables {
    /// iOS (InboxKit draws with UIImage/ImageIO), by iOS major version.
    public static let iOS: [FormatSupport] = [
        FormatSupport(.png, since: nil, source: "ImageIO supported types (CGImageSourceCopyTypeIdentifiers)"),
        FormatSupport(.png, .appleCgBI, since: nil, source: "ImageIO reads Xcode's CgBI PNGs (pngcrush -iphone)"),
        FormatSupport(.jpeg, since: nil, source: "ImageIO supported types"),
        FormatSupport(.gif, since: nil, source: "ImageIO supported types"),
        FormatSupport(.bmp, since: nil, source: "ImageIO supported types"),
        FormatSupport(.tiff, since: nil, source: "ImageIO supported types"),
        FormatSupport(.ico, since: nil, source: "ImageIO supported types (com.microsoft.ico, com.microsoft.cur)"),
        FormatSupport(.heic, since: 11, source: "iOS 11 release notes: HEIF/HEIC in ImageIO"),
        FormatSupport(.heif, since: 11, source: "iOS 11 release notes: HEIF/HEIC in ImageIO"),
        FormatSupport(.webp, since: 14, source: "iOS 14 release notes: WebP in ImageIO"),
        FormatSupport(.avif, since: 16, source: "iOS 16 release notes: AVIF in ImageIO"),
        FormatSupport(.jxl, since: 17, source: "iOS 17 release notes: JPEG XL in ImageIO"),
    ]

    /// Android (inbox-ui 6.11–6.15 draws with Glide 4.16 over BitmapFactory/ImageDecoder), by API level.
    public static let android: [FormatSupport] = [
        FormatSupport(.png, since: nil, source: "A1: developer.android.com supported-formats, Image support"),
        FormatSupport(
            .png, .appleCgBI, since: .max, below: .error,
            source: "A2: Skia rejects CgBI (mono/SkiaSharp#140, cocos2d/cocos2d-x#2097)"),
        FormatSupport(.jpeg, since: nil, source: "A1: supported-formats"),
        FormatSupport(.gif, since: nil, source: "A1: Glide's own GIF decoder (RegistryFactory.java @v4.16.0)"),
        FormatSupport(.bmp, since: nil, source: "A1: supported-formats"),
        FormatSupport(.webp, since: nil, source: "A1: WebP decoder from Android 4.0, lossless/alpha 4.2.1 (API 17)"),
        FormatSupport(
            .ico, since: nil, source: "NDK image decoder formats (JPEG, PNG, GIF, WebP, BMP, ICO, WBMP, HEIF)"),
        FormatSupport(
            .heic, since: 27, source: "A4: HEIF 'only supported on OMR1+' (RegistryFactory.java @v4.16.0); page: 8.0+"),
        FormatSupport(.heif, since: 27, source: "A4: RegistryFactory.java @v4.16.0 comment; supported-formats"),
        FormatSupport(
            .avif, since: 31, guaranteedFrom: 34,
            source:
                "A5: AVIF decoding in Android 12 (frameworks/av f89bf3c); mandatory from Android 14 (supported-formats)"
        ),
        FormatSupport(
            .tiff, since: .max, below: .error, source: "A3: not in supported-formats nor the NDK list; no Glide decoder"
        ),
        FormatSupport(.jxl, since: .max, below: .error, source: "A3: in no Android format list"),
    ]

    /// The row of `table` for an image, CgBI first when the PNG is one.
    public static func row(in table: [FormatSupport], for info: ImageInfo) -> FormatSupport? {
        if info.appleCgBI, let cgbi = table.first(where: { $0.format == info.format && $0.variant == .appleCgBI }) {
            return cgbi
        }
        return table.first { $0.format == info.format && $0.variant == .any }
    }
}
