import Findings
import MediaProbe
import Testing

/// One file per class where the sniffer once disagreed with real decoders (issue 16), made by the `image-classes`
/// section of Fixtures/media/generate.sh. `pillow` records what Pillow 13 (with pillow-heif/libheif) did with the
/// same file — the evidence for the verdict; libpng/libtiff (through ImageMagick 6) are quoted in the sources.
/// The issue 30 classes (the `image-classes-30` section) record Debian 12's decoders: Pillow 9.4, libpng 1.6.39
/// (`pngfix`), libtiff 4.5 (`tiff2rgba`), libheif 1.15.1 (`heif-convert`), ImageMagick 6.9 (its own BMP reader).
struct DecoderClass: CustomTestStringConvertible, Sendable {
    let file: String
    let format: MediaFormat
    let width: Int?
    let height: Int?
    var errors: [String] = []
    var warnings: [String] = []
    let pillow: String
    var testDescription: String { file }
}

@Suite("Images: verdicts that match real decoders")
struct ImageDecoderClassTests {
    static let classes: [DecoderClass] = [
        // 1. False alarms removed: these display.
        DecoderClass(
            file: "image-cursor-32x32.cur", format: .ico, width: 32, height: 32, pillow: "CUR 32×32"),
        DecoderClass(
            file: "image-bigtiff-30x20.tiff", format: .tiff, width: 30, height: 20, pillow: "TIFF 30×20"),
        DecoderClass(
            file: "image-bmp-filesize-long-16x12.bmp", format: .bmp, width: 16, height: 12,
            warnings: [ImageFindingCode.truncated], pillow: "BMP 16×12"),
        DecoderClass(
            file: "image-tiff-bytecount-long-30x20.tiff", format: .tiff, width: 30, height: 20,
            warnings: [ImageFindingCode.truncated], pillow: "TIFF 30×20 (libtiff: \"Bogus StripByteCounts\")"),
        DecoderClass(
            file: "image-heic-mdat-short-64x36.heic", format: .heic, width: 64, height: 36,
            warnings: [ImageFindingCode.truncated], pillow: "HEIF 64×36"),
        DecoderClass(
            file: "image-apng-zero-frames-20x10.png", format: .png, width: 20, height: 10,
            warnings: [ImageFindingCode.corrupt], pillow: "PNG 20×10, \"Invalid APNG, will use default PNG image\""),
        // 2. Sizes as decoders report them.
        DecoderClass(
            file: "image-icon-multi-48x48.ico", format: .ico, width: 48, height: 48,
            pillow: "ICO 48×48, \"Image was not the expected size\""),
        DecoderClass(
            file: "image-heic-clap-irot-30x50.heic", format: .heic, width: 30, height: 50,
            pillow: "HEIF 30×50 (libheif 1.23.6; heif-info 1.15: 30x50)"),
        DecoderClass(
            file: "image-heic-irot-clap-20x40.heic", format: .heic, width: 20, height: 40,
            pillow: "HEIF 20×40 (libheif 1.23.6; heif-info 1.15: 20x40)"),
        DecoderClass(
            file: "image-gif-frame-outside-20x10.gif", format: .gif, width: 20, height: 10,
            warnings: [ImageFindingCode.gifFrameOutsideScreen], pillow: "GIF 30×10 (ImageMagick 20×10)"),
        // 3. Silent passes caught: no decoder shows these.
        DecoderClass(
            file: "image-png-empty-idat-20x10.png", format: .png, width: 20, height: 10,
            errors: [ImageFindingCode.pngDataIncomplete], pillow: "image file is truncated"),
        DecoderClass(
            file: "image-png-short-idat-20x10.png", format: .png, width: 20, height: 10,
            errors: [ImageFindingCode.pngDataIncomplete], pillow: "image file is truncated"),
        DecoderClass(
            file: "image-png-split-idat-20x10.png", format: .png, width: 20, height: 10,
            errors: [ImageFindingCode.pngChunkOrder], pillow: "image file is truncated"),
        DecoderClass(
            file: "image-png-extra-idat-20x10.png", format: .png, width: 20, height: 10,
            warnings: [ImageFindingCode.pngChunkOrder], pillow: "PNG 20×10 (libpng: \"Too many IDATs found\")"),
        DecoderClass(
            file: "image-png-palette-no-plte-20x10.png", format: .png, width: 20, height: 10,
            warnings: [ImageFindingCode.pngChunkOrder], pillow: "PNG 20×10 (libpng: refused)"),
        DecoderClass(
            file: "image-bmp-bitcount-7-16x12.bmp", format: .bmp, width: 16, height: 12,
            errors: [ImageFindingCode.bmpBadHeader], pillow: "Unsupported BMP pixel depth (7)"),
        DecoderClass(
            file: "image-bmp-palette-huge-16x12.bmp", format: .bmp, width: 16, height: 12,
            errors: [ImageFindingCode.bmpBadHeader], pillow: "Unsupported BMP Palette size (100000)"),
        DecoderClass(
            file: "image-tiff-strip-outside-30x20.tiff", format: .tiff, width: 30, height: 20,
            errors: [ImageFindingCode.tiffDataOutOfBounds], pillow: "image file is truncated"),
        DecoderClass(
            file: "image-icon-bomb.ico", format: .ico, width: 16, height: 16,
            errors: [ImageFindingCode.icoEntryBomb], pillow: "ICO 16×16 (ImageMagick: no image)"),
        // 4. Issue 30, from the decoders' own corpora. A false alarm removed: a cut secondary item.
        DecoderClass(
            file: "image-heic-thumbnail-cut-64x36.heic", format: .heic, width: 64, height: 36,
            warnings: [ImageFindingCode.truncated],
            pillow: "libheif 1.15.1: \"Extent in iloc box references data outside of file bounds\" (it read every "
                + "item while opening); libheif ≥ 1.18 reads only the items it needs and shows the primary"),
        DecoderClass(
            file: "image-heic-alpha-cut-64x36.heic", format: .heic, width: 64, height: 36,
            errors: [ImageFindingCode.truncated],
            pillow: "libheif 1.15.1: \"Extent in iloc box references data outside of file bounds\"; ≥ 1.18: the "
                + "primary's alpha fails its decode"),
        // Misses a user sees broken, and what decoders tolerate.
        DecoderClass(
            file: "image-png-compression-1-20x10.png", format: .png, width: 20, height: 10,
            errors: [ImageFindingCode.corrupt],
            pillow: "PNG 20×10 (Pillow ignores the method; pngfix: \"IHDR:_compression_method\", ImageMagick: "
                + "no image)"),
        DecoderClass(
            file: "image-png-filter-64-20x10.png", format: .png, width: 20, height: 10,
            errors: [ImageFindingCode.corrupt],
            pillow: "cannot identify image file (\"unknown filter category\"; pngfix: \"IHDR:_filter_method\")"),
        DecoderClass(
            file: "image-png-interlace-2-20x10.png", format: .png, width: 20, height: 10,
            errors: [ImageFindingCode.corrupt],
            pillow: "unrecognized data stream contents (pngfix: \"IHDR:_interlace_method\")"),
        DecoderClass(
            file: "image-tiff-deflate-strips-30x20.tiff", format: .tiff, width: 30, height: 20,
            pillow: "TIFF 30×20"),
        DecoderClass(
            file: "image-tiff-strips-short-30x20.tiff", format: .tiff, width: 30, height: 20,
            errors: [ImageFindingCode.tiffDataOutOfBounds],
            pillow: "decoder error -2 (libtiff: \"Incorrect count for StripOffsets\", \"Invalid strip byte count "
                + "0, strip 2\")"),
        DecoderClass(
            file: "image-tiff-bytecount-overflow-30x20.tiff", format: .tiff, width: 30, height: 20,
            errors: [ImageFindingCode.tiffDataOutOfBounds],
            pillow: "decoder error -2 (libtiff: \"Invalid strip byte count 18446744073709551360, strip 0\")"),
        DecoderClass(
            file: "image-bmp-rle8-16x12.bmp", format: .bmp, width: 16, height: 12, pillow: "BMP 16×12"),
        DecoderClass(
            file: "image-bmp-rle4-16x12.bmp", format: .bmp, width: 16, height: 12, pillow: "BMP 16×12"),
        DecoderClass(
            file: "image-bmp-rle8-row-overrun-16x12.bmp", format: .bmp, width: 16, height: 12,
            errors: [ImageFindingCode.corrupt],
            pillow: "BMP 16×12, the run wrapped into the next row (Chromium fails, Skia stops at the run)"),
        DecoderClass(
            file: "image-bmp-rle4-row-overrun-16x12.bmp", format: .bmp, width: 16, height: 12,
            errors: [ImageFindingCode.corrupt],
            pillow: "BMP 16×12, the run wrapped into the next row (Chromium fails, Skia stops at the run)"),
        DecoderClass(
            file: "image-bmp-rle8-delta-outside-16x12.bmp", format: .bmp, width: 16, height: 12,
            errors: [ImageFindingCode.corrupt], pillow: "not enough image data"),
        DecoderClass(
            file: "image-bmp-rle8-cut-16x12.bmp", format: .bmp, width: 16, height: 12,
            errors: [ImageFindingCode.truncated],
            pillow: "not enough image data (ImageMagick: \"unexpected end-of-file\")"),
        DecoderClass(
            file: "image-bmp-rle8-early-end-16x12.bmp", format: .bmp, width: 16, height: 12,
            warnings: [ImageFindingCode.corrupt],
            pillow: "not enough image data (Chromium and Skia: the rest transparent; the BMP suite: questionable)"),
        DecoderClass(
            file: "image-bmp-rle8-run-clipped-16x12.bmp", format: .bmp, width: 16, height: 12,
            warnings: [ImageFindingCode.corrupt], pillow: "BMP 16×12, the run clipped"),
    ]

    @Test("each class gets the verdict real decoders give it", arguments: classes)
    func verdict(_ expected: DecoderClass) throws {
        let info = ImageSniffer.inspect(bytes: try fixture(expected.file), contentType: nil)
        #expect(info.format == expected.format)
        #expect(info.width == expected.width && info.height == expected.height, "\(info)")
        // The verdict on iOS with a deployment target new enough for every format: the bytes' defects only.
        let onIOS = info.onIOS(modernIOS)
        #expect(onIOS.codes(.error) == expected.errors, "\(onIOS)")
        #expect(onIOS.codes(.warning) == expected.warnings, "\(onIOS)")
        #expect(info.isDisplayable == expected.errors.isEmpty)
    }

    @Test("every truncation of a class file ends with a finding, never a crash", arguments: classes)
    func truncated(_ expected: DecoderClass) throws {
        let bytes = try fixture(expected.file)
        for length in 0..<bytes.count {
            let info = ImageSniffer.inspect(bytes: Array(bytes.prefix(length)))
            #expect(!info.findings.isEmpty, "cut at \(length)")
        }
    }

    @Test("a cursor served as image/x-icon or image/x-win-bitmap is no mismatch")
    func cursorContentType() throws {
        for served in ["image/x-icon", "image/vnd.microsoft.icon", "image/x-win-bitmap"] {
            let info = ImageSniffer.inspect(bytes: try fixture("image-cursor-32x32.cur"), contentType: served)
            #expect(info.findings.codes.isEmpty, "\(served): \(info.findings)")
        }
    }

    @Test("big-endian BigTIFF is TIFF too")
    func bigEndianBigTIFF() {
        // MM, 43, bytesize 8, 0, IFD at 16: 2 entries (width 7 LONG8, length 5 SHORT), next IFD 0.
        func entry(_ tag: UInt16, _ type: UInt16, _ value: UInt64) -> [UInt8] {
            be16(tag) + be16(type) + be32(0) + be32(1)
                + (type == 3
                    ? be16(UInt16(value)) + [0, 0] + be32(0)
                    : be32(UInt32(value >> 32)) + be32(UInt32(value & 0xFFFF_FFFF)))
        }
        let tiff =
            ascii("MM") + be16(43) + be16(8) + be16(0) + be32(0) + be32(16) + be32(0) + be32(2)
            + entry(256, 16, 7) + entry(257, 3, 5) + [UInt8](repeating: 0, count: 8)
        #expect(MediaSniffer.sniff(tiff) == .tiff)
        let info = ImageSniffer.inspect(bytes: tiff)
        #expect(info.width == 7 && info.height == 5, "\(info.findings)")
    }

    /// A HEIF header whose primary item has ispe 400×300 and the given transformative properties, in that order.
    static func transformedHEIF(_ transforms: [[UInt8]]) -> [UInt8] {
        let properties = [fullBox("ispe", be32(400) + be32(300))] + transforms
        let indices = (1...properties.count).map { UInt8(0x80 | $0) }
        let ipma = fullBox("ipma", be32(1) + be16(1) + [UInt8(indices.count)] + indices)
        return box("ftyp", ascii("mif1") + be32(0) + ascii("heic"))
            + fullBox("meta", fullBox("pitm", be16(1)) + box("iprp", box("ipco", properties.flatMap { $0 }) + ipma))
    }

    /// `clap`: width, height, horizontal and vertical offset as numerator/denominator pairs.
    static func clap(_ width: UInt32, _ height: UInt32, dx: Int32 = 0, dy: Int32 = 0, denominator: UInt32 = 1)
        -> [UInt8]
    {
        box(
            "clap",
            be32(width) + be32(denominator) + be32(height) + be32(denominator) + be32(UInt32(bitPattern: dx)) + be32(1)
                + be32(UInt32(bitPattern: dy)) + be32(1))
    }

    @Test(
        "clap, irot and imir apply in ipma order (ISO/IEC 23008-12 §6.5.1; libheif)",
        arguments: [
            ("clap only", [clap(200, 100)], 200, 100),
            ("clap then irot 90°", [clap(200, 100), box("irot", [1])], 100, 200),
            ("irot 90° then clap (the crop is in rotated axes)", [box("irot", [1]), clap(200, 100)], 200, 100),
            ("clap, irot 270°, imir", [clap(200, 100), box("irot", [3]), box("imir", [0])], 100, 200),
            ("clap larger than the image is clamped", [clap(1000, 1000)], 400, 300),
            ("clap off-centre is clipped at the edge", [clap(200, 100, dx: 150)], 150, 100),
            ("half-pixel fractions round as libheif", [clap(301, 201, denominator: 2)], 151, 101),
            ("irot 180° keeps the axes", [box("irot", [2])], 400, 300),
        ] as [(String, [[UInt8]], Int, Int)])
    func heifTransforms(name: String, transforms: [[UInt8]], width: Int, height: Int) {
        let info = ImageSniffer.inspect(bytes: Self.transformedHEIF(transforms))
        #expect(info.width == width && info.height == height, "\(name): \(info.width ?? -1)×\(info.height ?? -1)")
        #expect(info.findings.codes(.warning).isEmpty, "\(info.findings)")
    }

    @Test("a clap with a zero denominator is ignored with a warning")
    func heifBadClap() {
        let info = ImageSniffer.inspect(bytes: Self.transformedHEIF([Self.clap(10, 10, denominator: 0)]))
        #expect(info.width == 400 && info.height == 300)
        #expect(info.findings.codes(.warning) == [ImageFindingCode.corrupt])
    }

    @Test("an IDAT that is not zlib, or has an unknown first-row filter, is caught")
    func pngBadStreams() {
        let ihdr = be32(4) + be32(2) + [8, 0, 0, 0, 0]  // 4×2 grey: rows of 1 + 4 bytes
        func png(_ idat: [UInt8]) -> [UInt8] {
            [0x89] + ascii("PNG\r\n") + [0x1A, 0x0A] + pngChunk("IHDR", ihdr) + pngChunk("IDAT", idat)
                + pngChunk("IEND", [])
        }
        let notZlib = ImageSniffer.inspect(bytes: png([0x12, 0x34, 0x56]))
        #expect(notZlib.findings.codes(.error) == [ImageFindingCode.pngDataIncomplete])
        // A stored block holding one row whose filter byte is 9.
        let badFilter = ImageSniffer.inspect(bytes: png([0x78, 0x01, 0x01, 5, 0, 0xFA, 0xFF, 9, 0, 0, 0, 0]))
        #expect(badFilter.findings.codes(.error) == [ImageFindingCode.pngDataIncomplete])
        // Reserved block type 3.
        let reserved = ImageSniffer.inspect(bytes: png([0x78, 0x01, 0x07, 0, 0]))
        #expect(reserved.findings.codes(.error) == [ImageFindingCode.pngDataIncomplete])
        // The same stored row with filter 0 is fine.
        let good = ImageSniffer.inspect(bytes: png([0x78, 0x01, 0x01, 5, 0, 0xFA, 0xFF, 0, 0, 0, 0, 0]))
        #expect(good.findings.codes.isEmpty, "\(good.findings)")
    }

    @Test("a PNG claiming 2³¹−1 pixels a row inflates at most the cap, in bounded time")
    func pngHugeRowIsBounded() {
        let info = ImageSniffer.inspect(bytes: syntheticPNG(width: 0x7FFF_FFFF, height: 1))
        #expect(!info.findings.codes.contains(ImageFindingCode.pngDataIncomplete))
        #expect(info.onIOS().codes.contains(ImageFindingCode.tooManyPixels))
    }

    @Test("a prefix that ends inside IDAT is no data finding (only the whole file is judged)")
    func pngPrefix() throws {
        let bytes = try fixture("image-png-short-idat-20x10.png")
        let info = ImageSniffer.inspect(bytes: Array(bytes.prefix(40)), byteCount: bytes.count)
        #expect(info.findings.codes(.error).isEmpty, "\(info.findings)")
    }
}
