import Findings
import MediaProbe
import MediaRules
import Testing

/// Where each platform draws an image (G1: Android dp × 3 at W = 412 dp; iOS points × 3) and the G2–G5 rules against
/// iOS's long-standing 4×/3× rule.
@Suite struct CellGeometryTests {
    struct FrameCase: CustomTestStringConvertible, Sendable {
        var use: ImageUse
        var platform: RulePlatform
        /// Pixel width × height, nil where the platform draws no such cell.
        var pixels: (Int, Int)?
        var testDescription: String {
            "\(platform.displayName) \(use.described): " + (pixels.map { "\($0.0)×\($0.1) px" } ?? "no cell")
        }
    }

    /// android-assets.md §5 at W = 412 dp, 3×: banner 1140×600, captioned 1104×534, carousel/poster 1104×570,
    /// icons 96 (captioned), 132 (avatar), 168 (legacy icon), 120 (legacy `b`); Android has no wallet card.
    /// iOS (inboxkit-cards.md, README): 358 pt heroes at 2:1 (banner), 16:9 (captioned, wallet, poster), 3:1 (legacy),
    /// 300 pt 4:3 slides; no avatar or icon cell is sized on iOS.
    @Test(arguments: [
        FrameCase(use: .bannerHero, platform: .android, pixels: (1140, 600)),
        FrameCase(use: .captionedHero, platform: .android, pixels: (1104, 534)),
        FrameCase(use: .carouselSlide, platform: .android, pixels: (1104, 570)),
        FrameCase(use: .videoPoster, platform: .android, pixels: (1104, 570)),
        FrameCase(use: .captionedIcon, platform: .android, pixels: (96, 96)),
        FrameCase(use: .avatar, platform: .android, pixels: (132, 132)),
        FrameCase(use: .legacyIcon, platform: .android, pixels: (168, 168)),
        FrameCase(use: .legacyBanner, platform: .android, pixels: (120, 120)),
        FrameCase(use: .walletHero, platform: .android, pixels: nil),
        FrameCase(use: .bannerHero, platform: .ios, pixels: (1074, 537)),
        FrameCase(use: .captionedHero, platform: .ios, pixels: (1074, 603)),
        FrameCase(use: .walletHero, platform: .ios, pixels: (1074, 603)),
        FrameCase(use: .videoPoster, platform: .ios, pixels: (1074, 603)),
        FrameCase(use: .legacyBanner, platform: .ios, pixels: (1074, 357)),
        FrameCase(use: .carouselSlide, platform: .ios, pixels: (900, 675)),
        FrameCase(use: .avatar, platform: .ios, pixels: nil),
        FrameCase(use: .captionedIcon, platform: .ios, pixels: nil),
        FrameCase(use: .legacyIcon, platform: .ios, pixels: nil),
    ])
    func cellFrame(_ testCase: FrameCase) {
        let frame = CellGeometry.frame(testCase.use, on: testCase.platform)
        #expect(frame.map { [$0.pixelWidth, $0.pixelHeight] } == testCase.pixels.map { [$0.0, $0.1] })
        if let frame {
            let unit = testCase.platform == .ios ? "pt wide" : "dp cell"
            #expect(frame.described.contains(unit), "\(frame.described)")
        } else {
            #expect(CellGeometry.judge(width: 1, height: 1, use: testCase.use, on: testCase.platform).isEmpty)
        }
    }

    @Test func framesAreDescribedInThePlatformsUnits() throws {
        let android = try #require(CellGeometry.frame(.bannerHero, on: .android))
        #expect(android.described == "in a 380×200 dp cell (1140×600 px at xxhdpi 3× on a 412 dp wide window)")
        let ios = try #require(CellGeometry.frame(.bannerHero, on: .ios))
        #expect(ios.described == "358 pt wide (1074 px at @3x)")
        #expect(CellGeometry.androidWindowDP == 412 && CellGeometry.androidDensity == 3 && CellGeometry.iOSScale == 3)
        // Every Android row cites the layout it comes from.
        #expect(CellGeometry.android.allSatisfy { !$0.source.isEmpty })
        #expect(CellGeometry.iOS.allSatisfy { !$0.source.isEmpty })
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var width: Int?
        var height: Int?
        var use: ImageUse = .bannerHero
        var platform: RulePlatform
        var expected: [Expect]
        var mentions: [String] = []
        var testDescription: String {
            let size = "\(width.map(String.init) ?? "nil")×\(height.map(String.init) ?? "nil")"
            return "\(platform.displayName) \(use.described) \(size) (\(name)) → \(describe(expected))"
        }
    }

    static let tooSmall = GeometryFindingCode.tooSmall
    static let cropped = GeometryFindingCode.cropped
    static let oversized = ImageFindingCode.oversized

    static let androidCases: [Case] = [
        Case(name: "exact fit", width: 1140, height: 600, platform: .android, expected: []),
        // G2: more than 2× upscaled to cover the cell.
        Case(
            name: "G2 far too small", width: 64, height: 32, platform: .android, expected: [.warning(tooSmall)],
            mentions: [
                "64×32 image drawn in a 380×200 dp cell (1140×600 px at xxhdpi 3× on a 412 dp wide window) on "
                    + "Android: scaled up 18.8× to cover it, it looks blurred"
            ]),
        Case(
            name: "G2 2.4×", width: 500, height: 250, platform: .android, expected: [.warning(tooSmall)],
            mentions: ["scaled up 2.4×"]),
        Case(name: "G2 just over 2×", width: 569, height: 299, platform: .android, expected: [.warning(tooSmall)]),
        // G3: 1–2× upscaled.
        Case(
            name: "G3 exactly 2×", width: 570, height: 300, platform: .android, expected: [.info(tooSmall)],
            mentions: ["scaled up 2.0×", "slightly soft"]),
        Case(
            name: "G3 1.2×", width: 1000, height: 500, platform: .android, expected: [.info(tooSmall)],
            mentions: ["scaled up 1.2×"]),
        Case(name: "G3 square", width: 1000, height: 1000, platform: .android, expected: [.info(tooSmall)]),
        // G4: more than 4× the cell on both sides.
        Case(name: "G4 exactly 4×", width: 4560, height: 2400, platform: .android, expected: []),
        Case(
            name: "G4 over 4×", width: 4600, height: 2421, platform: .android, expected: [.info(oversized)],
            mentions: ["for the Android banner hero (1140×600 px): Glide downsamples it"]),
        // G5: the crop hides more than half.
        Case(name: "G5 square keeps half", width: 1200, height: 1200, platform: .android, expected: []),
        Case(
            name: "G5 6:1 strip", width: 6000, height: 1000, platform: .android, expected: [.info(cropped)],
            mentions: ["in the Android banner hero (1.9:1): CenterCrop cuts 68% of it"]),
        Case(
            name: "G5 portrait", width: 600, height: 1800, platform: .android,
            expected: [.info(tooSmall), .info(cropped)], mentions: ["cuts 82%"]),
        Case(
            name: "G2 and G5", width: 100, height: 400, platform: .android,
            expected: [.warning(tooSmall), .info(cropped)]),
        // The other cells.
        Case(name: "captioned exact", width: 1104, height: 534, use: .captionedHero, platform: .android, expected: []),
        Case(name: "carousel exact", width: 1104, height: 570, use: .carouselSlide, platform: .android, expected: []),
        Case(
            name: "poster 16:9 HD", width: 1280, height: 720, use: .videoPoster, platform: .android, expected: []),
        Case(name: "icon exact", width: 96, height: 96, use: .captionedIcon, platform: .android, expected: []),
        Case(
            name: "icon 2×", width: 48, height: 48, use: .captionedIcon, platform: .android,
            expected: [.info(tooSmall)], mentions: ["32×32 dp cell (96×96 px"]),
        Case(
            name: "icon 2.4×", width: 40, height: 40, use: .captionedIcon, platform: .android,
            expected: [.warning(tooSmall)]),
        Case(
            name: "icon over 4×", width: 400, height: 400, use: .captionedIcon, platform: .android,
            expected: [.info(oversized)], mentions: ["captioned icon (96×96 px)"]),
        Case(
            name: "icon 3:1", width: 300, height: 100, use: .captionedIcon, platform: .android,
            expected: [.info(cropped)], mentions: ["cuts 67%"]),
        Case(
            name: "avatar just over 2×", width: 64, height: 64, use: .avatar, platform: .android,
            expected: [.warning(tooSmall)], mentions: ["44×44 dp cell (132×132 px"]),
        Case(name: "legacy icon exact", width: 168, height: 168, use: .legacyIcon, platform: .android, expected: []),
        Case(
            name: "a banner as the legacy thumbnail", width: 1140, height: 600, use: .legacyBanner,
            platform: .android, expected: [.info(oversized)]),
        Case(name: "no wallet cell", width: 8, height: 8, use: .walletHero, platform: .android, expected: []),
    ]

    static let iOSCases: [Case] = [
        Case(name: "exact fit", width: 1074, height: 537, platform: .ios, expected: []),
        // The 64×32 hero: the same image, each platform's numbers.
        Case(
            name: "far too small", width: 64, height: 32, platform: .ios, expected: [.warning(tooSmall)],
            mentions: ["64×32 image drawn 358 pt wide (1074 px at @3x) on iOS: scaled up 16×"]),
        Case(name: "just under a quarter", width: 268, height: 134, platform: .ios, expected: [.warning(tooSmall)]),
        Case(name: "a quarter across is fine on iOS", width: 269, height: 134, platform: .ios, expected: []),
        // 300×150: fine on iOS (over a quarter of 1074 px), upscaled 4× on Android.
        Case(name: "300×150 on iOS", width: 300, height: 150, platform: .ios, expected: []),
        Case(
            name: "300×150 on Android", width: 300, height: 150, platform: .android, expected: [.warning(tooSmall)],
            mentions: ["scaled up 4.0×"]),
        Case(
            name: "12:1 strip", width: 1200, height: 100, platform: .ios, expected: [.warning(cropped)],
            mentions: ["in a 2:1 iOS frame filled by cropping: 17% of it shows"]),
        Case(name: "2.5:1 is within 3×", width: 1000, height: 400, platform: .ios, expected: []),
        Case(
            name: "portrait in a 16:9 frame", width: 400, height: 1200, use: .captionedHero, platform: .ios,
            expected: [.warning(cropped)], mentions: ["16:9 iOS frame"]),
        Case(
            name: "square slide in 4:3", width: 900, height: 900, use: .carouselSlide, platform: .ios, expected: []),
        Case(name: "large is not geometry's business on iOS", width: 6000, height: 3000, platform: .ios, expected: []),
        Case(name: "no avatar cell", width: 8, height: 8, use: .avatar, platform: .ios, expected: []),
    ]

    /// Sizes a sniffer could not read or that make no sense: no finding, and no crash.
    static let oddCases: [Case] =
        RulePlatform.allCases.flatMap { platform in
            [
                Case(name: "unknown", width: nil, height: nil, platform: platform, expected: []),
                Case(name: "width unknown", width: nil, height: 600, platform: platform, expected: []),
                Case(name: "zero", width: 0, height: 0, platform: platform, expected: []),
                Case(name: "zero height", width: 1140, height: 0, platform: platform, expected: []),
                Case(name: "negative", width: -1140, height: -600, platform: platform, expected: []),
                Case(name: "negative width", width: -5, height: 600, platform: platform, expected: []),
                Case(name: "Int.min", width: Int.min, height: Int.min, platform: platform, expected: []),
            ]
        } + [
            Case(
                name: "UInt32.max wide", width: Int(UInt32.max), height: 1, platform: .android,
                expected: [.warning(tooSmall), .info(cropped)]),
            Case(
                name: "UInt32.max wide", width: Int(UInt32.max), height: 1, platform: .ios,
                expected: [.warning(cropped)]),
            Case(
                name: "UInt32.max square", width: Int(UInt32.max), height: Int(UInt32.max), platform: .android,
                expected: [.info(oversized)]),
            Case(
                name: "Int.max tall", width: 1, height: Int.max, platform: .android,
                expected: [.warning(tooSmall), .info(cropped)]),
            Case(name: "Int.max tall", width: 1, height: Int.max, platform: .ios, expected: [.warning(tooSmall)]),
        ]

    @Test(arguments: androidCases + iOSCases + oddCases)
    func geometry(_ testCase: Case) {
        let findings = CellGeometry.judge(
            width: testCase.width, height: testCase.height, use: testCase.use, on: testCase.platform)
        verify(findings, are: testCase.expected, on: testCase.platform, mentioning: testCase.mentions)
    }

    /// Widths no header can hold (beyond 2³² px). The iOS 4× test once multiplied the width and trapped on
    /// `Int.max`; `judge` is public and takes any `Int`, so these must return, with the findings a strip that wide
    /// (cropped to nothing) and a square that large give.
    static let absurdCases: [Case] = [
        Case(
            name: "Int.max wide", width: Int.max, height: 1, platform: .ios, expected: [.warning(cropped)],
            mentions: ["\(Int.max)×1 image in a 2:1 iOS frame filled by cropping: 0% of it shows"]),
        Case(
            name: "Int.max wide", width: Int.max, height: 1, platform: .android,
            expected: [.warning(tooSmall), .info(cropped)], mentions: ["scaled up 600.0×", "cuts 100% of it"]),
        Case(
            name: "Int.max square", width: Int.max, height: Int.max, use: .carouselSlide, platform: .ios,
            expected: []),
        Case(
            name: "Int.max square", width: Int.max, height: Int.max, use: .carouselSlide, platform: .android,
            expected: [.info(oversized)]),
    ]

    /// First in a child process, so a trap fails this row instead of killing the run; once that returned, the
    /// findings, here.
    @Test(arguments: absurdCases)
    func absurdSizeDoesNotTrap(_ testCase: Case) async {
        let (width, height, use, platform) = (testCase.width, testCase.height, testCase.use.rawValue, testCase.platform)
        let exit = await #expect(processExitsWith: .success) {
            [width = width as Int?, height = height as Int?, use = use as String, platform = platform as RulePlatform]
            in
            _ = CellGeometry.judge(width: width, height: height, use: ImageUse(rawValue: use)!, on: platform)
        }
        guard exit != nil else { return }
        let findings = CellGeometry.judge(
            width: testCase.width, height: testCase.height, use: testCase.use, on: testCase.platform)
        verify(findings, are: testCase.expected, on: testCase.platform, mentioning: testCase.mentions)
    }
}
