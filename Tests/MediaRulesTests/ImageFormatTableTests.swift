import Findings
import MediaProbe
import MediaRules
import Testing

/// Every row of both image-format tables, each at an OS level below the row's `since` and one at or above it
/// (assets-by-platform.md's iOS table; android-assets.md rows A1–A5). The expected verdicts are written from the
/// documents, not read back from the tables.
@Suite struct ImageFormatTableTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var platform: RulePlatform
        var format: MediaFormat
        var cgbi = false
        /// The iOS deployment target or the Android minSdk.
        var level: Int
        var expected: [Expect]
        /// What the message must name: the platform and its versions.
        var mentions: [String] = []

        var testDescription: String {
            let what = cgbi ? "CgBI PNG" : ImageSniffer.formatName(format)
            let at = platform == .ios ? "iOS \(level)" : "minSdk \(level)"
            return "\(platform.displayName): \(what) at \(at) → \(describe(expected))"
        }
    }

    static let newerOS = ImageFindingCode.requiresNewerOS
    static let newerAPI = AndroidFindingCode.imageRequiresNewerAPI

    /// iOS: ImageIO decodes these on every supported iOS; HEIC/HEIF from 11, WebP 14, AVIF 16, JPEG XL 17.
    static let iOSCases: [Case] =
        [MediaFormat.png, .jpeg, .gif, .bmp, .tiff, .ico].flatMap { format in
            [2, 18].map { Case(platform: .ios, format: format, level: $0, expected: []) }
        } + [
            Case(
                platform: .ios, format: .png, cgbi: true, level: 2,
                expected: [.info(ImageFindingCode.appleOptimizedPNG)]),
            Case(
                platform: .ios, format: .png, cgbi: true, level: 18,
                expected: [.info(ImageFindingCode.appleOptimizedPNG)],
                mentions: ["iOS shows it"]),
            Case(
                platform: .ios, format: .heic, level: 10, expected: [.warning(newerOS)],
                mentions: ["HEIC images decode only on iOS 11 and later", "the app supports iOS 10"]),
            Case(platform: .ios, format: .heic, level: 11, expected: []),
            Case(
                platform: .ios, format: .heif, level: 10, expected: [.warning(newerOS)],
                mentions: ["HEIF images decode only on iOS 11", "iOS 10"]),
            Case(platform: .ios, format: .heif, level: 11, expected: []),
            Case(
                platform: .ios, format: .webp, level: 13, expected: [.warning(newerOS)],
                mentions: ["WebP images decode only on iOS 14 and later", "the app supports iOS 13"]),
            Case(platform: .ios, format: .webp, level: 14, expected: []),
            Case(
                platform: .ios, format: .avif, level: 15, expected: [.warning(newerOS)],
                mentions: ["AVIF images decode only on iOS 16 and later", "the app supports iOS 15"]),
            Case(platform: .ios, format: .avif, level: 16, expected: []),
            Case(
                platform: .ios, format: .jxl, level: 16, expected: [.warning(newerOS)],
                mentions: ["JPEG XL images decode only on iOS 17 and later", "the app supports iOS 16"]),
            Case(platform: .ios, format: .jxl, level: 17, expected: []),
        ]

    /// Android: A1 fine everywhere (ICO by the NDK decoder list), A2 CgBI and A3 TIFF/JPEG XL errors at every level,
    /// A4 HEIF from API 27, A5 AVIF from 31 and on every device from 34.
    static let androidCases: [Case] =
        [MediaFormat.png, .jpeg, .gif, .bmp, .webp, .ico].flatMap { format in
            [23, 35].map { Case(platform: .android, format: format, level: $0, expected: []) }
        }
        + [23, 35].flatMap { level in
            [
                Case(
                    platform: .android, format: .png, cgbi: true, level: level,
                    expected: [.error(AndroidFindingCode.imageCgBI)], mentions: ["CgBI", "Android's decoder (Skia)"]),
                Case(
                    platform: .android, format: .tiff, level: level,
                    expected: [.error(AndroidFindingCode.imageUnsupportedFormat)],
                    mentions: ["TIFF images do not decode on Android"]),
                Case(
                    platform: .android, format: .jxl, level: level,
                    expected: [.error(AndroidFindingCode.imageUnsupportedFormat)],
                    mentions: ["JPEG XL images do not decode on Android"]),
            ]
        } + [
            Case(
                platform: .android, format: .heic, level: 26, expected: [.warning(newerAPI)],
                mentions: ["HEIC decodes from Android 8.1 (API 27)", "the app supports Android 8.0 (API 26)"]),
            Case(platform: .android, format: .heic, level: 27, expected: []),
            Case(
                platform: .android, format: .heif, level: 23, expected: [.warning(newerAPI)],
                mentions: ["HEIF decodes from Android 8.1 (API 27)", "the app supports Android 6.0 (API 23)"]),
            Case(platform: .android, format: .heif, level: 27, expected: []),
            Case(
                platform: .android, format: .avif, level: 26, expected: [.warning(newerAPI)],
                mentions: ["AVIF decodes from Android 12 (API 31)", "the app supports Android 8.0 (API 26)"]),
            Case(
                platform: .android, format: .avif, level: 30, expected: [.warning(newerAPI)],
                mentions: ["Android 12 (API 31)", "Android 11 (API 30)"]),
            Case(
                platform: .android, format: .avif, level: 31, expected: [.warning(newerAPI)],
                mentions: ["mandatory only from Android 14 (API 34)", "the app supports Android 12 (API 31)"]),
            Case(
                platform: .android, format: .avif, level: 32, expected: [.warning(newerAPI)],
                mentions: [
                    "AVIF decodes from Android 12 (API 31)", "mandatory only from Android 14 (API 34)",
                    "the app supports Android 12L (API 32)",
                ]),
            Case(
                platform: .android, format: .avif, level: 33, expected: [.warning(newerAPI)],
                mentions: ["Android 13 (API 33)"]),
            Case(platform: .android, format: .avif, level: 34, expected: []),
            Case(platform: .android, format: .avif, level: 35, expected: []),
        ]

    static func settings(_ testCase: Case) -> AppSettings {
        testCase.platform == .ios ? app(ios: testCase.level) : app(minSdk: testCase.level)
    }

    @Test(arguments: iOSCases + androidCases)
    func formatAtLevel(_ testCase: Case) {
        // 1000×500: no memory or geometry rule applies; still, not animated.
        let info = image(testCase.format, cgbi: testCase.cgbi)
        let findings = ImageRules.judge(info, use: .bannerHero, on: testCase.platform, app: Self.settings(testCase))
        verify(findings, are: testCase.expected, on: testCase.platform, mentioning: testCase.mentions)
    }

    /// The cases above exercise each table row, each at two or more levels: a row added to a table without a case
    /// here fails this test.
    @Test(arguments: RulePlatform.allCases)
    func everyRowHasCasesAtTwoLevels(_ platform: RulePlatform) {
        let table = platform == .ios ? ImageFormatTables.iOS : ImageFormatTables.android
        let cases = (Self.iOSCases + Self.androidCases).filter { $0.platform == platform }
        for row in table {
            let levels = Set(
                cases.filter { $0.format == row.format && $0.cgbi == (row.variant == .appleCgBI) }.map(\.level))
            #expect(levels.count >= 2, "\(platform) \(row.format) \(row.variant): cases at \(levels.sorted())")
            if let since = row.since, since != .max {
                #expect(levels.contains { $0 < since }, "\(row.format): no case below \(since)")
                #expect(levels.contains { $0 >= since }, "\(row.format): no case at or above \(since)")
            }
            if let guaranteed = row.guaranteedFrom {
                #expect(levels.contains { $0 < guaranteed && $0 >= (row.since ?? 0) }, "\(row.format): 31–33")
                #expect(levels.contains { $0 >= guaranteed }, "\(row.format): no case from \(guaranteed)")
            }
            #expect(!row.source.isEmpty, "\(row.format): a row cites its source")
        }
        // Every raster format has a row on each platform (a format without one would be judged by nothing).
        for format in MediaFormat.allCases where format.isRasterImage {
            #expect(table.contains { $0.format == format && $0.variant == .any }, "\(platform): no row for \(format)")
        }
    }

    /// The rows' own data, as the documents state it.
    @Test func rowsStateTheDocumentedLevels() {
        func row(_ table: [FormatSupport], _ format: MediaFormat, _ variant: FormatSupport.Variant = .any)
            -> FormatSupport?
        {
            table.first { $0.format == format && $0.variant == variant }
        }
        #expect(row(ImageFormatTables.android, .avif)?.since == 31)
        #expect(row(ImageFormatTables.android, .avif)?.guaranteedFrom == 34)
        #expect(row(ImageFormatTables.android, .heic)?.since == 27)
        #expect(row(ImageFormatTables.android, .tiff)?.never == true)
        #expect(row(ImageFormatTables.android, .tiff)?.below == .error)
        #expect(row(ImageFormatTables.android, .png, .appleCgBI)?.never == true)
        #expect(row(ImageFormatTables.android, .png, .appleCgBI)?.below == .error)
        #expect(row(ImageFormatTables.iOS, .tiff)?.since == nil)
        #expect(row(ImageFormatTables.iOS, .png, .appleCgBI)?.since == nil)
        #expect(row(ImageFormatTables.iOS, .webp)?.since == 14)
        #expect(row(ImageFormatTables.iOS, .avif)?.since == 16)
        // The CgBI row is picked for a CgBI PNG, the plain row otherwise.
        let cgbi = ImageFormatTables.row(in: ImageFormatTables.android, for: image(.png, cgbi: true))
        #expect(cgbi?.variant == .appleCgBI)
        #expect(ImageFormatTables.row(in: ImageFormatTables.android, for: image(.png))?.variant == .any)
        // The CgBI flag on a non-PNG picks that format's plain row (no CgBI row exists for it).
        #expect(ImageFormatTables.row(in: ImageFormatTables.android, for: image(.jpeg, cgbi: true))?.format == .jpeg)
    }

    /// What is not a raster image is no table's business: the sniffer's own findings cover it.
    @Test(arguments: [MediaFormat.svg, .pdf, .html, .mp4, .hls, .empty, .unknown])
    func nonImagesGetNoPlatformFindings(_ format: MediaFormat) {
        for platform in RulePlatform.allCases {
            #expect(ImageRules.judge(image(format), use: .bannerHero, on: platform, app: app()).isEmpty)
        }
    }

    /// iOS's decode-memory rules have no Android counterpart (android-assets.md §6: Glide decodes at view size).
    @Test func decodeMemoryIsIOSOnly() {
        let huge = image(.png, width: 10_000, height: 10_000)
        verify(
            ImageRules.judge(huge, use: .bannerHero, on: .ios, app: app()),
            are: [.error(ImageFindingCode.tooManyPixels)], on: .ios, mentioning: ["iOS"])
        verify(ImageRules.judge(huge, use: .bannerHero, on: .android, app: app()), are: [], on: .android)
        let large = image(.jpeg, width: 4000, height: 4000)
        verify(
            ImageRules.judge(large, use: .bannerHero, on: .ios, app: app()),
            are: [.warning(ImageFindingCode.largeDecodedMemory)], on: .ios)
        let wide = image(.jpeg, width: 3000, height: 1000)
        verify(
            ImageRules.judge(wide, use: .bannerHero, on: .ios, app: app()),
            are: [.warning(ImageFindingCode.oversized)], on: .ios, mentioning: ["1200-px downsample"])
        verify(ImageRules.judge(wide, use: .bannerHero, on: .android, app: app()), are: [], on: .android)
    }

    /// Sizes the sniffer could not read, or absurd ones, are no crash and no memory finding.
    @Test(
        arguments: [
            (nil, nil), (0, 0), (-1, 50), (Int.max, Int.max), (Int(UInt32.max), Int(UInt32.max)), (1, Int.max),
        ] as [(Int?, Int?)])
    func oddSizesNeverCrash(width: Int?, height: Int?) {
        for platform in RulePlatform.allCases {
            for use in ImageUse.allCases {
                let findings = ImageRules.judge(
                    image(.png, width: width, height: height), use: use, on: platform, app: app())
                #expect(findings.allSatisfy { $0.platform == platform })
                if platform == .android { #expect(findings.isEmpty) }
            }
        }
    }
}
