import Findings
import MediaProbe
import MediaRules
import Testing

/// A6/A7 (android-assets.md §1, §2): an animated WebP/AVIF fails in a cell whose crop or rounding is required
/// (banner/captioned hero, captioned icon, classic avatar, legacy icon). Where the crop is optional (carousel slide,
/// video poster, legacy `b`, wallet hero) an animated WebP animates only from API 28; an animated AVIF animates
/// wherever AVIF decodes at all (API 31, A5's own rule), so its animation is information at every minSdk. GIF is
/// safe everywhere.
@Suite struct AnimationRuleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var format: MediaFormat
        var use: ImageUse
        var minSdk: Int
        var expected: [Expect]
        var mentions: [String]

        var testDescription: String {
            "animated \(ImageSniffer.formatName(format)) as \(use.described) at minSdk \(minSdk) → \(describe(expected))"
        }
    }

    static let animated = AndroidFindingCode.imageAnimated
    static let newerAPI = AndroidFindingCode.imageRequiresNewerAPI

    /// The cells whose transformation is required (A6), as android-assets.md §1's table lists them.
    static let requiredCrop: Set<ImageUse> = [.bannerHero, .captionedHero, .captionedIcon, .avatar, .legacyIcon]

    static let cases: [Case] = ImageUse.allCases.flatMap { use -> [Case] in
        let required = requiredCrop.contains(use)
        let cell = "the Android \(use.described)"
        var cases: [Case] = []
        for minSdk in [23, 28] {
            if required {
                cases.append(
                    Case(
                        format: .webp, use: use, minSdk: minSdk, expected: [.error(animated)],
                        mentions: [cell, "from Android 9 (API 28)", "AnimatedImageDrawable", "stays empty"]))
            } else if minSdk < 28 {
                cases.append(
                    Case(
                        format: .webp, use: use, minSdk: minSdk, expected: [.warning(animated)],
                        mentions: [cell, "animates from Android 9 (API 28)", "Android 6.0 (API 23)", "still image"]))
            } else {
                // The lead's rule: info once every supported level animates it (the doc's A7 says warning).
                cases.append(
                    Case(
                        format: .webp, use: use, minSdk: minSdk, expected: [.info(animated)],
                        mentions: [cell, "animates on every supported API level"]))
            }
        }
        // AVIF also meets A5: below 31 it does not decode at all, 31–33 not on every device. In an optional-crop
        // cell the animation is information at every level (28 included, where WebP's rule turns): where AVIF
        // decodes, it animates; where it does not, A5's warning says so.
        for minSdk in [23, 28, 31] {
            let decoding =
                minSdk < 31 ? "the app supports \(AndroidVersion.name(api: minSdk))" : "mandatory only from Android 14"
            if required {
                cases.append(
                    Case(
                        format: .avif, use: use, minSdk: minSdk, expected: [.error(animated), .warning(newerAPI)],
                        mentions: [cell, "from Android 12 (API 31)", "AnimatedImageDrawable", decoding]))
            } else {
                cases.append(
                    Case(
                        format: .avif, use: use, minSdk: minSdk, expected: [.info(animated), .warning(newerAPI)],
                        mentions: [
                            "Animated AVIF in \(cell): it animates wherever AVIF decodes (from Android 12 (API 31))",
                            decoding,
                        ]))
            }
        }
        // GIF: Glide's own decoder, transformations applied per frame (§1): nothing on any level, in any cell.
        for minSdk in [23, 28] {
            cases.append(Case(format: .gif, use: use, minSdk: minSdk, expected: [], mentions: []))
        }
        return cases
    }

    @Test(arguments: cases)
    func animatedImageInCell(_ testCase: Case) {
        let info = image(testCase.format, width: 1200, height: 600, animated: true, frameCount: 4)
        let findings = ImageRules.judge(info, use: testCase.use, on: .android, app: app(minSdk: testCase.minSdk))
        verify(findings, are: testCase.expected, on: .android, mentioning: testCase.mentions)
    }

    /// At minSdk 34 the AVIF decoder is everywhere: only the animation rule is left.
    @Test(arguments: ImageUse.allCases)
    func animatedAVIFAtAPI34(_ use: ImageUse) {
        let info = image(.avif, animated: true)
        let required = Self.requiredCrop.contains(use)
        let expected: [Expect] = required ? [.error(Self.animated)] : [.info(Self.animated)]
        verify(
            ImageRules.judge(info, use: use, on: .android, app: app(minSdk: 34)), are: expected, on: .android,
            mentioning: [required ? "AnimatedImageDrawable" : "it animates wherever AVIF decodes"])
    }

    /// Still WebP and AVIF are no animation finding, whatever the cell.
    @Test(arguments: ImageUse.allCases)
    func stillImagesAreNotAnimated(_ use: ImageUse) {
        verify(ImageRules.judge(image(.webp), use: use, on: .android, app: app()), are: [], on: .android)
        verify(ImageRules.judge(image(.avif), use: use, on: .android, app: app(minSdk: 34)), are: [], on: .android)
    }

    /// iOS has no cell-dependent animation rule: an image view shows the first frame (info), in every cell.
    @Test(arguments: [MediaFormat.webp, .avif, .gif, .png, .heic])
    func iOSShowsTheFirstFrame(_ format: MediaFormat) {
        for use in ImageUse.allCases {
            let findings = ImageRules.judge(image(format, animated: true), use: use, on: .ios, app: app(ios: 17))
            verify(findings, are: [.info(ImageFindingCode.animated)], on: .ios, mentioning: ["iOS image view"])
        }
    }

    /// The cells the rule treats as required-crop are those the document lists: a changed `ImageUse` shows here.
    @Test(arguments: ImageUse.allCases)
    func requiredCropMatchesTheDocument(_ use: ImageUse) {
        #expect(use.androidTransformRequired == Self.requiredCrop.contains(use))
    }

    /// Facts from real bytes reach the rule: the committed 4-frame WebP and GIF fixtures.
    @Test func fixtureBytesReachTheRule() throws {
        let webp = ImageSniffer.inspect(bytes: try mediaFixture("image-anim4-24x16.webp"))
        #expect(webp.format == .webp && webp.animated)
        verify(
            ImageRules.judge(webp, use: .bannerHero, on: .android, app: app()), are: [.error(Self.animated)],
            on: .android)
        verify(
            ImageRules.judge(webp, use: .carouselSlide, on: .android, app: app()), are: [.warning(Self.animated)],
            on: .android)
        let gif = ImageSniffer.inspect(bytes: try mediaFixture("image-anim4-24x16.gif"))
        #expect(gif.format == .gif && gif.animated)
        verify(ImageRules.judge(gif, use: .bannerHero, on: .android, app: app()), are: [], on: .android)
        let avif = ImageSniffer.inspect(bytes: try mediaFixture("image-64x36.avif"))
        #expect(avif.format == .avif && !avif.animated)
        verify(
            ImageRules.judge(avif, use: .bannerHero, on: .android, app: app()), are: [.warning(Self.newerAPI)],
            on: .android)
    }
}
