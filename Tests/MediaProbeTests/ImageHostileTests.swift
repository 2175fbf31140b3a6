import Findings
import MediaProbe
import MediaRules
import TestSupport
import Testing

/// A hostile or broken image built in code, and the finding it must produce.
struct HostileImage: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    let code: String
    var severity: Severity = .error
    var testDescription: String { name }
}

@Suite("Images: hostile headers")
struct ImageHostileTests {
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static let cases: [HostileImage] = [
        HostileImage(
            name: "PNG claiming 100000×100000 (40 GB decoded)", bytes: syntheticPNG(width: 100_000, height: 100_000),
            code: ImageFindingCode.tooManyPixels),
        HostileImage(
            name: "PNG claiming 2³¹−1 × 2³¹−1", bytes: syntheticPNG(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF),
            code: ImageFindingCode.tooManyPixels),
        HostileImage(
            name: "PNG with width 0", bytes: syntheticPNG(width: 0, height: 10), code: ImageFindingCode.corrupt),
        HostileImage(
            name: "PNG with width 0xFFFFFFFF", bytes: syntheticPNG(width: 0xFFFF_FFFF, height: 1),
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "PNG IHDR with a wrong checksum",
            bytes: {
                var png = syntheticPNG(width: 10, height: 10); png[29] ^= 0xFF; return png
            }(),
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "PNG whose first chunk is not IHDR",
            bytes: pngSignature + pngChunk("tEXt", ascii("a\0b")) + pngChunk("IEND", []),
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "PNG with a chunk length of 0xFFFFFFFF",
            bytes: Array(syntheticPNG(width: 10, height: 10).prefix(33)) + be32(0xFFFF_FFFF) + ascii("IDAT"),
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "PNG chunk claiming 2 GB in a small file",
            bytes: Array(syntheticPNG(width: 10, height: 10).prefix(33)) + be32(0x7FFF_FFFF) + ascii("IDAT") + [1, 2],
            code: ImageFindingCode.truncated),
        HostileImage(
            name: "PNG with bit depth 3", bytes: pngSignature + pngChunk("IHDR", be32(4) + be32(4) + [3, 2, 0, 0, 0]),
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "PNG without IEND",
            bytes: Array(syntheticPNG(width: 10, height: 10).dropLast(12)), code: ImageFindingCode.truncated),
        HostileImage(
            name: "JPEG claiming 65535×65535", bytes: syntheticJPEG(width: 65535, height: 65535),
            code: ImageFindingCode.tooManyPixels),
        HostileImage(
            name: "JPEG segment length 0",
            bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00] + syntheticJPEG(width: 1, height: 1),
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "JPEG segment length 1", bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0x00],
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "JPEG segment length past the end", bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF, 0x00],
            code: ImageFindingCode.truncated),
        HostileImage(
            name: "JPEG scan before the frame header", bytes: [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9],
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "JPEG ending before any frame header", bytes: [0xFF, 0xD8, 0xFF, 0xD9], code: ImageFindingCode.corrupt
        ),
        HostileImage(
            name: "JPEG with a megabyte of fill bytes", bytes: [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 1 << 20),
            code: ImageFindingCode.truncated),
        HostileImage(
            name: "JPEG with a megabyte of stray bytes",
            bytes: [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0x00, count: 1 << 20),
            code: ImageFindingCode.truncated),
        HostileImage(
            name: "JPEG with width 0", bytes: syntheticJPEG(width: 0, height: 10), code: ImageFindingCode.corrupt),
        HostileImage(
            name: "JPEG deferring its height to DNL", bytes: syntheticJPEG(width: 10, height: 0),
            code: ImageFindingCode.corrupt, severity: .warning),
        HostileImage(
            name: "JPEG without EOI", bytes: Array(syntheticJPEG(width: 8, height: 8).dropLast(2)),
            code: ImageFindingCode.truncated, severity: .warning),
        HostileImage(
            name: "GIF with endless unterminated sub-blocks",
            bytes: ascii("GIF89a") + le16(10) + le16(10) + [0, 0, 0] + [0x2C] + [UInt8](repeating: 0, count: 8) + [
                0, 2,
            ]
                + [UInt8](repeating: 0xFE, count: 1 << 20),
            code: ImageFindingCode.truncated),
        HostileImage(
            name: "GIF with an unknown block", bytes: ascii("GIF89a") + le16(10) + le16(10) + [0, 0, 0, 0x99],
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "GIF with a 0×0 screen", bytes: ascii("GIF89a") + le16(0) + le16(0) + [0, 0, 0, 0x3B],
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "GIF without any frame", bytes: ascii("GIF89a") + le16(4) + le16(4) + [0, 0, 0, 0x3B],
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "WebP VP8X claiming 16M×16M",
            bytes: ascii("RIFF") + le32(22) + ascii("WEBPVP8X") + le32(10) + [0, 0, 0, 0] + [0xFF, 0xFF, 0xFF]
                + [0xFF, 0xFF, 0xFF],
            code: ImageFindingCode.tooManyPixels),
        HostileImage(
            name: "WebP RIFF size beyond the file",
            bytes: ascii("RIFF") + le32(0xFFFF_FFF0) + ascii("WEBPVP8L") + le32(5) + [0x2F, 0, 0, 0, 0],
            code: ImageFindingCode.truncated),
        HostileImage(
            name: "WebP with an unknown first chunk",
            bytes: ascii("RIFF") + le32(16) + ascii("WEBPJUNK") + le32(4) + [0, 0, 0, 0], code: ImageFindingCode.corrupt
        ),
        HostileImage(
            name: "WebP VP8 without a key frame",
            bytes: ascii("RIFF") + le32(22) + ascii("WEBPVP8 ") + le32(10) + [1, 0, 0, 0x9D, 0x01, 0x2A, 1, 0, 1, 0],
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "HEIF box size 0xFFFFFFFF",
            bytes: box("ftyp", ascii("heic") + be32(0) + ascii("mif1heic")) + be32(0xFFFF_FFFF) + ascii("meta"),
            code: ImageFindingCode.truncated),
        HostileImage(
            name: "HEIF box size 3", bytes: box("ftyp", ascii("heic") + be32(0)) + be32(3) + ascii("meta"),
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "HEIF 64-bit size of 2⁶⁴−1",
            bytes: box("ftyp", ascii("avif") + be32(0)) + be32(1) + ascii("meta") + [UInt8](repeating: 0xFF, count: 8),
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "HEIF without meta", bytes: box("ftyp", ascii("heic") + be32(0)) + box("mdat", [1, 2, 3]),
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "HEIF claiming 1 G × 1 G pixels",
            bytes: box("ftyp", ascii("heic") + be32(0))
                + fullBox("meta", box("iprp", box("ipco", fullBox("ispe", be32(1 << 30) + be32(1 << 30))))),
            code: ImageFindingCode.tooManyPixels),
        HostileImage(
            name: "HEIF with an empty property list",
            bytes: box("ftyp", ascii("heic") + be32(0)) + fullBox("meta", box("iprp", box("ipco", []))),
            code: ImageFindingCode.corrupt),
        HostileImage(
            name: "BMP claiming a 4 GB file",
            bytes: ascii("BM") + le32(0xFFFF_FFFF) + le32(0) + le32(54) + le32(40)
                + le32(10) + le32(10), code: ImageFindingCode.truncated),
    ]

    @Test("each hostile header earns its finding", arguments: cases)
    func hostile(_ example: HostileImage) {
        let info = ImageSniffer.inspect(bytes: example.bytes)
        let findings = info.onIOS()
        let match = findings.first { $0.code == example.code }
        #expect(match?.severity == example.severity, "\(findings)")
        if example.code == ImageFindingCode.tooManyPixels {
            // The decode budget is iOS's rule (Android's Glide decodes at the view's size), not a defect of the bytes.
            #expect(match?.platform == .ios)
            #expect(!info.findings.codes.contains(example.code), "\(info.findings)")
        } else if example.severity == .error {
            #expect(match?.platform == nil)
            #expect(!info.isDisplayable)
        }
    }

    @Test("every truncation of every hostile header is handled", arguments: cases.filter { $0.bytes.count < 4096 })
    func hostileTruncated(_ example: HostileImage) {
        for length in 0..<example.bytes.count {
            let info = ImageSniffer.inspect(bytes: Array(example.bytes.prefix(length)))
            #expect(!info.findings.isEmpty, "cut at \(length)")
        }
    }

    @Test("an ipma box claiming 4 G entries ends at its own end; the largest ispe is used instead")
    func heifHugeIpma() {
        let heic =
            box("ftyp", ascii("heic") + be32(0))
            + fullBox(
                "meta",
                fullBox("pitm", be16(1))
                    + box(
                        "iprp",
                        box("ipco", fullBox("ispe", be32(10) + be32(12)) + fullBox("ispe", be32(20) + be32(24)))
                            + fullBox("ipma", be32(0xFFFF_FFFF) + be16(2) + [1, 0x81])))
        let info = ImageSniffer.inspect(bytes: heic)
        #expect(info.width == 20 && info.height == 24)
    }

    @Test("the primary item's ispe wins over a larger thumbnail's, and irot 90° swaps the sides")
    func heifPrimaryItem() {
        let properties =
            fullBox("ispe", be32(300) + be32(200)) + fullBox("ispe", be32(4000) + be32(3000)) + box("irot", [1])
        // Item 2 is primary and has properties 1 (300×200) and 3 (irot 90°); item 1 has property 2.
        let ipma = fullBox("ipma", be32(2) + be16(1) + [1, 0x82] + be16(2) + [2, 0x81, 0x03])
        let heic =
            box("ftyp", ascii("mif1") + be32(0) + ascii("heic"))
            + fullBox("meta", fullBox("pitm", be16(2)) + box("iprp", box("ipco", properties) + ipma))
        let info = ImageSniffer.inspect(bytes: heic)
        #expect(info.format == .heic)
        #expect(info.width == 200 && info.height == 300)
    }

    @Test("a GIF with 100,000 frames stops counting at the cap")
    func gifFrameCap() {
        let frame: [UInt8] = [0x2C] + [UInt8](repeating: 0, count: 4) + le16(1) + le16(1) + [0, 2, 1, 0, 0]
        let gif =
            ascii("GIF89a") + le16(1) + le16(1) + [0, 0, 0]
            + Array([[UInt8]](repeating: frame, count: 100_000).joined())
            + [0x3B]
        let info = ImageSniffer.inspect(bytes: gif, limits: ImageLimits(maxFrames: 1000))
        #expect(info.animated)
        #expect(info.findings.codes.contains(ImageFindingCode.tooManyFrames))
        let uncapped = ImageSniffer.inspect(bytes: gif, limits: ImageLimits(maxBytes: .max, maxFrames: .max))
        #expect(uncapped.frameCount == 100_000)
    }

    /// An Xcode-crushed PNG: a CgBI chunk before IHDR, and IDAT data that is raw deflate (no zlib header).
    static func crushedPNG(width: UInt32, height: UInt32, idat: [UInt8]) -> [UInt8] {
        pngSignature + pngChunk("CgBI", [0x50, 0x00, 0x20, 0x06])
            + pngChunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0]) + pngChunk("IDAT", idat)
            + pngChunk("IEND", [])
    }

    @Test("an Xcode-crushed PNG (CgBI before IHDR) is read: a fact, and an iOS info finding")
    func crushedPNG() {
        let png = syntheticPNG(width: 30, height: 20)
        let crushed = Self.crushedPNG(width: 30, height: 20, idat: SyntheticDeflate.zeros(20 * (1 + 4 * 30)))
        let info = ImageSniffer.inspect(bytes: crushed)
        #expect(info.width == 30 && info.height == 20)
        #expect(info.appleCgBI)
        #expect(info.findings.isEmpty, "\(info.findings)")
        #expect(info.isDisplayable)
        let rules = ImageRules.judge(info, use: .bannerHero, on: .ios, app: AppSettings())
        #expect(rules.codes == [ImageFindingCode.appleOptimizedPNG])
        #expect(rules.first?.severity == .info && rules.first?.platform == .ios)
        #expect(!ImageSniffer.inspect(bytes: png).appleCgBI)
    }

    /// CgBI image data is raw deflate, as ImageIO inflates it: the first-row rule holds for it as for any PNG.
    @Test(
        "a CgBI PNG's raw deflate is checked like any IDAT stream",
        arguments: [
            ("a whole first row", SyntheticDeflate.zeros(20 * (1 + 4 * 30)), [String]()),
            ("no data", [], [ImageFindingCode.pngDataIncomplete]),
            ("half a row", SyntheticDeflate.zeros(60), [ImageFindingCode.pngDataIncomplete]),
            (
                "a zlib header, which raw deflate reads as a bad stored block", zlibZeros(20 * (1 + 4 * 30)),
                [ImageFindingCode.pngDataIncomplete]
            ),
        ] as [(String, [UInt8], [String])])
    func crushedPNGData(name: String, idat: [UInt8], errors: [String]) {
        let info = ImageSniffer.inspect(bytes: Self.crushedPNG(width: 30, height: 20, idat: idat))
        #expect(info.appleCgBI)
        #expect(info.findings.codes(.error) == errors, "\(name): \(info.findings)")
    }

    @Test("an animated WebP: frames counted, capped, or missing")
    func webpFrames() {
        func animated(frames: Int) -> [UInt8] {
            let vp8x = ascii("VP8X") + le32(10) + [0x02, 0, 0, 0] + [9, 0, 0] + [9, 0, 0]
            let body =
                ascii("WEBP") + vp8x + Array([[UInt8]](repeating: ascii("ANMF") + le32(0), count: frames).joined())
            return ascii("RIFF") + le32(UInt32(body.count)) + body
        }
        let three = ImageSniffer.inspect(bytes: animated(frames: 3))
        #expect(three.width == 10 && three.frameCount == 3 && three.animated)
        let many = ImageSniffer.inspect(bytes: animated(frames: 5_000), limits: ImageLimits(maxFrames: 100))
        #expect(many.findings.codes.contains(ImageFindingCode.tooManyFrames))
        let none = ImageSniffer.inspect(bytes: animated(frames: 0))
        #expect(none.findings.codes.contains(ImageFindingCode.corrupt))
    }

    @Test("a JPEG with 100,000 APP segments stops at the structure cap")
    func jpegSegmentCap() {
        let segment: [UInt8] = [0xFF, 0xE2] + be16(2)
        let jpeg = [0xFF, 0xD8] + Array([[UInt8]](repeating: segment, count: 100_000).joined())
        let info = ImageSniffer.inspect(bytes: jpeg, limits: ImageLimits(maxStructures: 1000))
        #expect(info.findings.codes == [ImageFindingCode.corrupt])
    }

    @Test("JPEG fill bytes, RST markers and stray bytes before the frame header are stepped over")
    func jpegTolerance() {
        let before: [UInt8] = [0xFF, 0xFF, 0xFF, 0xE0] + be16(4) + [0, 0] + [0xFF, 0xD0] + [0x00, 0x13]
        let info = ImageSniffer.inspect(bytes: syntheticJPEG(width: 300, height: 200, before: before))
        #expect(info.width == 300 && info.height == 200)
        #expect(info.findings.codes == [ImageFindingCode.corrupt])  // the two stray bytes, as a warning
        #expect(info.findings.first?.severity == .warning)
    }

    @Test(
        "every SOF marker gives the size; DHT, JPG and DAC do not",
        arguments: Array(UInt8(0xC0)...UInt8(0xCF)))
    func startOfFrameMarkers(marker: UInt8) {
        let info = ImageSniffer.inspect(bytes: syntheticJPEG(width: 120, height: 90, marker: marker))
        let isFrame = ![0xC4, 0xC8, 0xCC].contains(marker)
        #expect((info.width == 120) == isFrame)
    }
}

@Suite("Images: inbox-cell policy")
struct ImagePolicyTests {
    @Test(
        "size thresholds (defaults: 1200-px downsample ×2, 48 MiB warning, 256 MiB error)",
        arguments: [
            (1200, 800, [String]()),
            (2400, 2400, []),
            (2401, 600, [ImageFindingCode.oversized]),
            (4000, 3000, [ImageFindingCode.oversized]),  // 45.8 MiB decoded: under the memory warning
            (4000, 4000, [ImageFindingCode.largeDecodedMemory]),  // 61 MiB: the memory finding replaces "oversized"
            (4096, 4096, [ImageFindingCode.largeDecodedMemory]),
            (8192, 8193, [ImageFindingCode.tooManyPixels]),
            (20_000, 20_000, [ImageFindingCode.tooManyPixels]),
        ] as [(UInt32, UInt32, [String])])
    func dimensions(width: UInt32, height: UInt32, expected: [String]) {
        let info = ImageSniffer.inspect(bytes: syntheticPNG(width: width, height: height), contentType: "image/png")
        #expect(info.width == Int(width))
        #expect(info.findings.isEmpty, "the size rules are iOS's, not defects: \(info.findings)")
        let rules = ImageRules.judge(info, use: .bannerHero, on: .ios, app: AppSettings())
        #expect(rules.codes == expected)
        #expect(rules.allSatisfy { $0.platform == .ios })
    }

    @Test("a custom downsample size and memory budget")
    func customLimits() {
        let limits = ImageLimits(decodedBytesWarning: 1 << 20, decodedBytesError: 4 << 20, downsamplePixelSize: 300)
        let small = ImageSniffer.inspect(bytes: syntheticPNG(width: 601, height: 100), limits: limits)
        #expect(small.onIOS(limits: limits).codes == [ImageFindingCode.oversized])
        #expect(small.onIOS().isEmpty, "the default limits: \(small.onIOS())")
        let medium = ImageSniffer.inspect(bytes: syntheticPNG(width: 600, height: 600), limits: limits)
        #expect(medium.onIOS(limits: limits).codes == [ImageFindingCode.largeDecodedMemory])
        let large = ImageSniffer.inspect(bytes: syntheticPNG(width: 1100, height: 1000), limits: limits)
        #expect(large.onIOS(limits: limits).codes == [ImageFindingCode.tooManyPixels])
    }

    @Test("too many bytes: a 6 MiB file, and a prefix of a file declared 6 MiB")
    func tooManyBytes() {
        let png = syntheticPNG(width: 100, height: 100)
        let padded = png + [UInt8](repeating: 0, count: 6 << 20)
        #expect(ImageSniffer.inspect(bytes: padded).findings.codes.contains(ImageFindingCode.tooManyBytes))
        let prefix = ImageSniffer.inspect(bytes: png, byteCount: 6 << 20)
        #expect(prefix.findings.codes == [ImageFindingCode.tooManyBytes])
        #expect(prefix.byteCount == 6 << 20)
        #expect(
            ImageSniffer.inspect(bytes: png, limits: ImageLimits(maxBytes: 10)).findings.codes == [
                ImageFindingCode.tooManyBytes
            ])
    }

    @Test(
        "App Transport Security",
        arguments: [
            ("http://cdn.example.com/a.png", true), ("HTTP://cdn.example.com/a.png", true),
            ("https://cdn.example.com/a.png", false), ("httpx://a", false), ("http:/", false), ("", false),
        ])
    func transportSecurity(url: String, warns: Bool) {
        let findings = TransportRules.judge(TransferFacts(hops: [url]), use: .image, on: .ios, app: AppSettings())
        #expect(findings.isEmpty != warns, "\(findings)")
        for finding in findings {
            #expect(finding.code == ImageFindingCode.appTransportSecurity)
            #expect(finding.severity == .warning)
            #expect(finding.platform == .ios)
        }
    }

    @Test("secrets in an http URL do not reach the message")
    func atsRedacts() throws {
        let findings = TransportRules.judge(
            TransferFacts(hops: ["http://cdn.example.com/a.png?token=s3cr3t"]), use: .image, on: .ios,
            app: AppSettings())
        let finding = try #require(findings.first)
        #expect(!finding.message.contains("s3cr3t"))
        #expect(finding.message.contains("token=REDACTED"))
    }
}
