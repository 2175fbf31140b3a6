import Findings
import MediaProbe
import MediaRules
import TestSupport
import Testing

/// Real files made by ImageMagick, libwebp, libheif and ffmpeg (see Fixtures/media/generate.sh). The expected sizes
/// are the ones passed to those tools.
struct ImageFixture: CustomTestStringConvertible, Sendable {
    let file: String
    let format: MediaFormat
    let width: Int
    let height: Int
    var animated = false
    var frames: Int? = nil
    var testDescription: String { file }
}

@Suite("Images: real files")
struct ImageFixtureTests {
    static let fixtures: [ImageFixture] = [
        ImageFixture(file: "image-64x48.png", format: .png, width: 64, height: 48),
        ImageFixture(file: "image-alpha-33x17.png", format: .png, width: 33, height: 17),
        ImageFixture(file: "image-apng-40x30.png", format: .png, width: 40, height: 30, animated: true, frames: 3),
        ImageFixture(file: "image-baseline-80x60.jpg", format: .jpeg, width: 80, height: 60),
        ImageFixture(file: "image-progressive-81x61.jpg", format: .jpeg, width: 81, height: 61),
        // EXIF orientation 6: stored 90×50, shown 50×90.
        ImageFixture(file: "image-exif-rotated-90x50.jpg", format: .jpeg, width: 50, height: 90),
        ImageFixture(file: "image-20x10.gif", format: .gif, width: 20, height: 10, frames: 1),
        ImageFixture(file: "image-anim4-24x16.gif", format: .gif, width: 24, height: 16, animated: true, frames: 4),
        ImageFixture(file: "image-lossy-50x40.webp", format: .webp, width: 50, height: 40),
        ImageFixture(file: "image-lossless-51x41.webp", format: .webp, width: 51, height: 41),
        ImageFixture(file: "image-alpha-33x17.webp", format: .webp, width: 33, height: 17),
        ImageFixture(file: "image-anim4-24x16.webp", format: .webp, width: 24, height: 16, animated: true, frames: 4),
        ImageFixture(file: "image-64x36.heic", format: .heic, width: 64, height: 36),
        ImageFixture(file: "image-64x36.avif", format: .avif, width: 64, height: 36),
        ImageFixture(file: "image-16x12.bmp", format: .bmp, width: 16, height: 12),
        ImageFixture(file: "image-30x20.tiff", format: .tiff, width: 30, height: 20),
    ]

    @Test("size, format and animation are read from the header", arguments: fixtures)
    func readsHeader(_ expected: ImageFixture) throws {
        let info = ImageSniffer.inspect(bytes: try fixture(expected.file), contentType: expected.format.mimeType)
        #expect(info.format == expected.format)
        #expect(info.width == expected.width)
        #expect(info.height == expected.height)
        #expect(info.animated == expected.animated)
        #expect(info.frameCount == expected.frames)
        #expect(info.isDisplayable)
        // On an iOS deployment target new enough for every format, no iOS rule fires either (bar the animation info).
        let onIOS = info.onIOS(modernIOS)
        #expect(onIOS.codes(.error).isEmpty && onIOS.codes(.warning).isEmpty, "\(onIOS)")
    }

    /// TIFF is left out: ImageMagick writes its directory after the pixels (see `tiffDirectoryAtTheEnd`).
    @Test(
        "the first 512 bytes of a larger file are enough for the size",
        arguments: fixtures.filter { $0.format != .tiff })
    func prefixIsEnough(_ expected: ImageFixture) throws {
        let bytes = try fixture(expected.file)
        let info = ImageSniffer.inspect(
            bytes: Array(bytes.prefix(512)), contentType: expected.format.mimeType, byteCount: bytes.count)
        #expect(info.width == expected.width)
        #expect(info.height == expected.height)
        #expect(info.byteCount == bytes.count)
        #expect(!info.findings.codes.contains(ImageFindingCode.truncated))
        #expect(info.onIOS(modernIOS).maxSeverity != .error, "\(info.onIOS(modernIOS))")
    }

    @Test("a TIFF whose directory lies beyond the prefix has an unknown size, not an error")
    func tiffDirectoryAtTheEnd() throws {
        let bytes = try fixture("image-30x20.tiff")
        let info = ImageSniffer.inspect(
            bytes: Array(bytes.prefix(512)), contentType: "image/tiff", byteCount: bytes.count)
        #expect(info.format == .tiff)
        #expect(info.width == nil)
        #expect(info.findings.codes == [ImageFindingCode.dimensionsUnknown])
    }

    @Test("every truncation of a real file ends with a finding, never a crash", arguments: fixtures)
    func truncatedAtEveryOffset(_ expected: ImageFixture) throws {
        let bytes = try fixture(expected.file)
        for length in 0..<bytes.count {
            let info = ImageSniffer.inspect(
                bytes: Array(bytes.prefix(length)), contentType: expected.format.mimeType)
            let problems = info.findings.filter { $0.severity >= .warning }
            #expect(!problems.isEmpty, "cut at \(length) of \(bytes.count): \(info.findings)")
        }
    }

    @Test(
        "formats newer than the iOS deployment target earn a warning",
        arguments: [
            ("image-lossy-50x40.webp", 13, true), ("image-lossy-50x40.webp", 14, false),
            ("image-64x36.avif", 15, true), ("image-64x36.avif", 16, false), ("image-64x36.heic", 11, false),
            ("image-64x36.heic", 10, true), ("image-64x48.png", 9, false),
        ])
    func deploymentTarget(file: String, target: Int, warns: Bool) throws {
        let info = ImageSniffer.inspect(bytes: try fixture(file), contentType: nil)
        #expect(!info.findings.codes.contains(ImageFindingCode.requiresNewerOS), "a rule, not a fact")
        let app = AppSettings(ios: IOSAppSettings(deploymentTarget: target))
        let rules = ImageRules.judge(info, use: .bannerHero, on: .ios, app: app)
        let newer = rules.filter { $0.code == ImageFindingCode.requiresNewerOS }
        #expect(!newer.isEmpty == warns, "\(rules)")
        #expect(newer.allSatisfy { $0.severity == .warning && $0.platform == .ios })
    }

    @Test("animated images earn an iOS info finding with the frame count")
    func animatedInfo() throws {
        let info = ImageSniffer.inspect(bytes: try fixture("image-anim4-24x16.gif"), contentType: "image/gif")
        #expect(info.findings.isEmpty, "animation is a fact: \(info.findings)")
        let rules = ImageRules.judge(info, use: .bannerHero, on: .ios, app: AppSettings())
        let animated = try #require(rules.first { $0.code == ImageFindingCode.animated })
        #expect(animated.severity == .info)
        #expect(animated.platform == .ios)
        #expect(animated.message.contains("4 frames"))
    }
}

@Suite("Images: not images")
struct NotImageTests {
    @Test(
        "documents and pages are refused with a specific code",
        arguments: [
            ("image.svg", MediaFormat.svg, ImageFindingCode.unsupportedFormat),
            ("document.pdf", .pdf, ImageFindingCode.unsupportedFormat),
            ("error-page.html", .html, ImageFindingCode.notAnImage),
            ("error.json", .json, ImageFindingCode.notAnImage),
            ("error.txt", .text, ImageFindingCode.notAnImage),
            ("video-faststart-64x48.mp4", .mp4, ImageFindingCode.notAnImage),
            ("video-64x48.webm", .webm, ImageFindingCode.notAnImage),
            ("hls-master.m3u8", .hls, ImageFindingCode.notAnImage),
        ])
    func refused(file: String, format: MediaFormat, code: String) throws {
        let info = ImageSniffer.inspect(bytes: try fixture(file), contentType: "image/png")
        #expect(info.format == format)
        #expect(info.findings.codes == [code])
        #expect(info.findings.first?.severity == .error)
        #expect(info.findings.first?.message.contains("image/png") == true)
        #expect(!info.isDisplayable)
        #expect(info.width == nil)
    }

    @Test("zero bytes")
    func empty() {
        let info = ImageSniffer.inspect(bytes: [], contentType: "image/jpeg")
        #expect(info.format == .empty)
        #expect(info.findings.codes == [ImageFindingCode.empty])
    }

    @Test("random binary is unknown, not an image")
    func binary() {
        var generator = SeededGenerator(seed: 42)  // reproducible noise
        let bytes = (0..<300).map { index in index == 0 ? UInt8(0x01) : UInt8.random(in: 0...255, using: &generator) }
        let info = ImageSniffer.inspect(bytes: bytes)
        #expect(info.format == .unknown)
        #expect(info.findings.codes == [ImageFindingCode.notAnImage])
    }
}

@Suite("Images: Content-Type")
struct ContentTypeTests {
    @Test(
        "served type against sniffed bytes",
        arguments: [
            ("image-64x48.png", "image/png", nil),
            ("image-64x48.png", "IMAGE/PNG; charset=binary", nil),
            ("image-apng-40x30.png", "image/apng", nil),
            ("image-baseline-80x60.jpg", "image/jpg", nil),
            ("image-baseline-80x60.jpg", "image/png", ImageFindingCode.contentTypeMismatch),
            ("image-64x48.png", "text/html; charset=utf-8", ImageFindingCode.contentTypeMismatch),
            ("image-lossy-50x40.webp", "image/jpeg", ImageFindingCode.contentTypeMismatch),
            ("image-64x36.heic", "image/heif", nil),
            ("image-64x48.png", "application/octet-stream", ImageFindingCode.contentTypeGeneric),
            ("image-64x48.png", nil, nil),  // not known (a local file): nothing to compare
            ("image-64x48.png", "  ", ImageFindingCode.contentTypeGeneric),
        ] as [(String, String?, String?)])
    func contentType(file: String, served: String?, expected: String?) throws {
        let info = ImageSniffer.inspect(bytes: try fixture(file), contentType: served)
        let typeCodes = info.findings.codes.filter { $0.hasPrefix("image.contentType") }
        #expect(typeCodes == (expected.map { [$0] } ?? []))
    }
}
