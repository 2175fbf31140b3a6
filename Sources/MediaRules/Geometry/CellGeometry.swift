public import Findings
import MediaProbe

/// The size a cell draws an image at, in the platform's pixels, and how it fills it.
public struct CellFrame: Sendable, Hashable {
    /// Width and height in pixels on the reference screen.
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// How the frame is described in messages ("358 pt wide (1074 px at @3x)").
    public var described: String

    /// Width : height.
    public var aspect: Double { Double(pixelWidth) / Double(pixelHeight) }
}

/// One row of a platform's cell table.
public struct CellSize: Sendable, Hashable {
    public var use: ImageUse
    /// iOS: points; Android: dp.
    public var width: Int
    public var height: Int
    public var source: String
}

/// Where each platform draws an image and what a size or shape that does not fit looks like
/// (inboxkit-cards.md; android-assets.md §5, rows G1–G5).
public enum CellGeometry {
    /// iOS: a 390 pt wide phone, 16 pt margins, drawn at @3x (InboxKit layouts).
    public static let iOSScale = 3
    /// Android: the reference window is 412 dp wide (a typical high-end phone) at xxhdpi, 3 px per dp (G1).
    public static let androidWindowDP = 412
    public static let androidDensity = 3

    /// iOS frames in points (width, and height from the frame's aspect ratio).
    public static let iOS: [CellSize] = [
        CellSize(use: .bannerHero, width: 358, height: 179, source: "InboxKit banner cell: 358 pt, 2:1"),
        CellSize(use: .captionedHero, width: 358, height: 201, source: "InboxKit captioned cell: 358 pt, 16:9"),
        CellSize(use: .walletHero, width: 358, height: 201, source: "InboxKit wallet cell: 358 pt, 16:9"),
        CellSize(use: .legacyBanner, width: 358, height: 119, source: "no legacy row on iOS: the 3:1 banner frame"),
        CellSize(use: .carouselSlide, width: 300, height: 225, source: "InboxKit carousel page: 300 pt, 4:3"),
        CellSize(use: .videoPoster, width: 358, height: 201, source: "InboxKit video cell: 358 pt, 16:9"),
    ]

    /// Android cells in dp at W = 412 dp (`res/values/dimens.xml`, `res/layout/pw_item_inbox_*.xml` @a9a39ef).
    public static let android: [CellSize] = [
        CellSize(use: .bannerHero, width: 380, height: 200, source: "G1: (W − 2·16) × 200 dp, CenterCrop, r 16"),
        CellSize(use: .captionedHero, width: 368, height: 178, source: "G1: (W − 32 − 2·6) × 178 dp, CenterCrop"),
        CellSize(use: .carouselSlide, width: 368, height: 190, source: "G1: (W − 44) × 190 dp, centerCrop"),
        CellSize(use: .videoPoster, width: 368, height: 190, source: "G1: (W − 44) × 190 dp, centerCrop"),
        CellSize(use: .captionedIcon, width: 32, height: 32, source: "G1: 32 dp CircleCrop"),
        CellSize(use: .avatar, width: 44, height: 44, source: "G1: 44 dp CircleCrop"),
        CellSize(use: .legacyIcon, width: 56, height: 56, source: "G1: pw_image_icon 56 dp"),
        CellSize(use: .legacyBanner, width: 40, height: 40, source: "G1: pw_attachment_preview 40 dp"),
    ]

    /// The frame an image of `use` is drawn in on `platform`; nil for cells the platform does not size here.
    public static func frame(_ use: ImageUse, on platform: RulePlatform) -> CellFrame? {
        switch platform {
        case .ios:
            guard let cell = iOS.first(where: { $0.use == use }) else { return nil }
            return CellFrame(
                pixelWidth: cell.width * iOSScale, pixelHeight: cell.height * iOSScale,
                described: "\(cell.width) pt wide (\(cell.width * iOSScale) px at @3x)")
        case .android:
            guard let cell = android.first(where: { $0.use == use }) else { return nil }
            let (w, h) = (cell.width * androidDensity, cell.height * androidDensity)
            return CellFrame(
                pixelWidth: w, pixelHeight: h,
                described: "in a \(cell.width)×\(cell.height) dp cell (\(w)×\(h) px at xxhdpi 3× on a "
                    + "\(androidWindowDP) dp wide window)")
        }
    }

    /// The platform's geometry findings for an image of `width`×`height` in `use`; codes are shared (a rule both
    /// platforms have), numbers and messages are the platform's.
    public static func judge(width: Int?, height: Int?, use: ImageUse, on platform: RulePlatform) -> [Finding] {
        guard let width, let height, width > 0, height > 0, let frame = frame(use, on: platform) else { return [] }
        let findings: [Finding]
        switch platform {
        case .ios: findings = iOSRules(width: width, height: height, frame: frame)
        case .android: findings = androidRules(width: width, height: height, frame: frame, use: use)
        }
        return findings.map { $0.on(platform) }
    }

    /// iOS: more than 4× upscaled across is blurred or blocky; an aspect ratio more than 3× off the frame's is
    /// mostly cropped away (the preview's long-standing rule).
    static func iOSRules(width: Int, height: Int, frame: CellFrame) -> [Finding] {
        if width < frame.pixelWidth, width * 4 < frame.pixelWidth {  // the first test keeps the product small
            return [
                .warning(
                    GeometryFindingCode.tooSmall,
                    "\(width)×\(height) image drawn \(frame.described) on iOS: scaled up "
                        + "\(frame.pixelWidth / width)×, it looks blurred or blocky")
            ]
        }
        let aspect = Double(width) / Double(height)
        if aspect > frame.aspect * 3 || aspect * 3 < frame.aspect {
            let shown = aspect > frame.aspect ? frame.aspect / aspect : aspect / frame.aspect
            return [
                .warning(
                    GeometryFindingCode.cropped,
                    "\(width)×\(height) image in a \(ratio(frame.aspect)) iOS frame filled by cropping: "
                        + "\(Int((shown * 100).rounded()))% of it shows")
            ]
        }
        return []
    }

    /// Android (Glide, `CENTER_OUTSIDE` downsampling, CenterCrop to the view's px size): G2 more than 2× upscaled
    /// to cover the cell is a warning, G3 1–2× information; G4 more than 4× the cell on both sides is data spent for
    /// nothing (information: Glide downsamples, no crash); G5 a crop that hides more than half is information.
    static func androidRules(width: Int, height: Int, frame: CellFrame, use: ImageUse) -> [Finding] {
        var findings: [Finding] = []
        let cover = max(Double(frame.pixelWidth) / Double(width), Double(frame.pixelHeight) / Double(height))
        let scaled = "\(width)×\(height) image drawn \(frame.described) on Android: scaled up \(tenths(cover))×"
        if cover > 2 {
            findings.append(.warning(GeometryFindingCode.tooSmall, scaled + " to cover it, it looks blurred"))
        } else if cover > 1 {
            findings.append(.info(GeometryFindingCode.tooSmall, scaled + " to cover it, slightly soft"))
        } else if cover * 4 < 1 {
            findings.append(
                .info(
                    ImageFindingCode.oversized,
                    "\(width)×\(height) image for the Android \(use.described) (\(frame.pixelWidth)×"
                        + "\(frame.pixelHeight) px): Glide downsamples it, the extra bytes only cost data"))
        }
        let aspect = Double(width) / Double(height)
        let shown = aspect > frame.aspect ? frame.aspect / aspect : aspect / frame.aspect
        if shown < 0.5 {
            findings.append(
                .info(
                    GeometryFindingCode.cropped,
                    "\(width)×\(height) image in the Android \(use.described) (\(ratio(frame.aspect))): CenterCrop "
                        + "cuts \(100 - Int((shown * 100).rounded()))% of it"))
        }
        return findings
    }

    static func ratio(_ aspect: Double) -> String {
        if abs(aspect - 16.0 / 9) < 0.02 { return "16:9" }
        if abs(aspect - 4.0 / 3) < 0.02 { return "4:3" }
        if abs(aspect - aspect.rounded()) < 0.02 { return "\(Int(aspect.rounded())):1" }
        return "\(tenths(aspect)):1"
    }

    static func tenths(_ value: Double) -> String { TransportRules.tenths(value) }
}
