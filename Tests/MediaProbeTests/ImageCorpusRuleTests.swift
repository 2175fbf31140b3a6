import Findings
import MediaProbe
import Testing

/// The rules issue 30 added after the decoders' own test corpora (libpng, libtiff, libheif, the BMP suite), one
/// table per rule, each row a file built here with one defect; the decoder source each rule follows is cited in
/// MediaProbe (PNGHeader, TIFFStrips, BMPRLE, HEIFHeader). The committed fixtures for the same classes, with what
/// real decoders did with them, are in ImageDecoderClassTests.
struct CorpusCase: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    var errors: [String] = []
    var warnings: [String] = []
    /// False when a cut in the last bytes is invisible to any decoder too (data libtiff ignores or reads to the
    /// end of the file): the truncation test then skips the cuts that keep every byte it reads.
    var everyCutShows = true
    var testDescription: String { name }

    /// The image's defects (no platform rules), errors and warnings by code, in order.
    func check() {
        let info = ImageSniffer.inspect(bytes: bytes)
        #expect(info.findings.codes(.error) == errors, "\(name): \(info.findings)")
        #expect(info.findings.codes(.warning) == warnings, "\(name): \(info.findings)")
        #expect(info.isDisplayable == errors.isEmpty)
    }
}

// MARK: PNG IHDR methods (libpng png_check_IHDR)

enum PNGMethodCases {
    static func png(compression: UInt8 = 0, filter: UInt8 = 0, interlace: UInt8 = 0) -> [UInt8] {
        let ihdr = be32(4) + be32(2) + [8, 0, compression, filter, interlace]  // 4×2 grey
        // Two rows of 1 + 4 bytes, or Adam7's passes of a 4×2 image (1 + 1, 1 + 1, 1 + 2, 1 + 2 bytes): 12 zeros
        // cover either.
        return [0x89] + ascii("PNG\r\n") + [0x1A, 0x0A] + pngChunk("IHDR", ihdr) + pngChunk("IDAT", zlibZeros(12))
            + pngChunk("IEND", [])
    }

    static let cases: [CorpusCase] = [
        CorpusCase(name: "methods 0, 0, 0", bytes: png()),
        CorpusCase(name: "Adam7 interlace (1)", bytes: png(interlace: 1)),
        CorpusCase(name: "compression method 1", bytes: png(compression: 1), errors: [ImageFindingCode.corrupt]),
        CorpusCase(name: "compression method 255", bytes: png(compression: 255), errors: [ImageFindingCode.corrupt]),
        CorpusCase(name: "filter method 1", bytes: png(filter: 1), errors: [ImageFindingCode.corrupt]),
        CorpusCase(
            name: "filter method 64 (MNG only, never in a PNG file)", bytes: png(filter: 64),
            errors: [ImageFindingCode.corrupt]),
        CorpusCase(name: "interlace method 2", bytes: png(interlace: 2), errors: [ImageFindingCode.corrupt]),
    ]
}

// MARK: TIFF strips and tiles (libtiff tif_dirread.c / tif_read.c)

/// A little-endian TIFF (or BigTIFF) of 30×20 8-bit grey built tag by tag; strip data is filler (nothing decodes).
struct TIFFBuilder {
    var big = false
    var compression = 8
    var rowsPerStrip: Int? = 5
    var planar = 1
    var samples = 1
    var tile: (width: Int, length: Int)?
    /// Strip (or tile) sizes in the file; their offsets follow one another after the directory.
    var sizes = [40, 40, 40, 40]
    /// How many offsets and counts the directory lists (nil: one per strip).
    var listedOffsets: Int?
    var listedCounts: Int?
    /// Replaces the listed counts / the first offset.
    var counts: [UInt64]?
    var firstOffset: UInt64?
    var omitOffsets = false
    var omitCounts = false
    /// Bytes cut from the end of the file.
    var cut = 0

    var bytes: [UInt8] {
        let wide = big ? 8 : 4
        func le(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(value >> (8 * $0) & 0xFF) } }
        var entries: [(tag: Int, type: Int, values: [UInt64])] = [
            (256, 3, [30]), (257, 3, [20]), (258, 3, Array(repeating: 8, count: samples)),
            (259, 3, [UInt64(compression)]),
            (262, 3, [1]), (277, 3, [UInt64(samples)]), (284, 3, [UInt64(planar)]),
        ]
        if let rowsPerStrip { entries.append((278, 3, [UInt64(rowsPerStrip)])) }
        if let tile { entries += [(322, 3, [UInt64(tile.width)]), (323, 3, [UInt64(tile.length)])] }
        let headerSize = big ? 16 : 8
        let entrySize = big ? 20 : 12
        // Offsets and counts are patched in once the layout is known; reserve their entries now.
        let offsetsTag = tile == nil ? 273 : 324
        let countsTag = tile == nil ? 279 : 325
        let offsetCount = listedOffsets ?? sizes.count
        let countCount = listedCounts ?? (counts?.count ?? sizes.count)
        let longType = big ? 16 : 4
        if !omitOffsets { entries.append((offsetsTag, longType, Array(repeating: 0, count: offsetCount))) }
        if !omitCounts { entries.append((countsTag, longType, Array(repeating: 0, count: countCount))) }
        entries.sort { $0.tag < $1.tag }
        let directorySize = (big ? 8 : 2) + entries.count * entrySize + (big ? 8 : 4)
        // Out-of-line arrays after the directory, then the strip data.
        var arrayAt = headerSize + directorySize
        var arrayOffsets: [Int: Int] = [:]
        for entry in entries where entry.values.count * (entry.type == 3 ? 2 : wide) > wide {
            arrayOffsets[entry.tag] = arrayAt
            arrayAt += entry.values.count * (entry.type == 3 ? 2 : wide)
        }
        var stripOffsets: [UInt64] = []
        var position = arrayAt
        for size in sizes {
            stripOffsets.append(UInt64(position))
            position += size
        }
        if let firstOffset { stripOffsets[0] = firstOffset }
        let listedCountsValues = counts ?? sizes.map { UInt64($0) }
        for index in entries.indices {
            if entries[index].tag == offsetsTag {
                entries[index].values = (0..<offsetCount).map { $0 < stripOffsets.count ? stripOffsets[$0] : 0 }
            } else if entries[index].tag == countsTag {
                entries[index].values = (0..<countCount).map {
                    $0 < listedCountsValues.count ? listedCountsValues[$0] : 0
                }
            }
        }
        var out: [UInt8] = big ? ascii("II+\0") + le(8, 2) + le(0, 2) + le(16, 8) : ascii("II*\0") + le(8, 4)
        out += le(UInt64(entries.count), big ? 8 : 2)
        var arrays: [UInt8] = []
        for entry in entries {
            let width = entry.type == 3 ? 2 : wide
            out += le(UInt64(entry.tag), 2) + le(UInt64(entry.type), 2) + le(UInt64(entry.values.count), wide)
            let data = entry.values.flatMap { le($0, width) }
            if let at = arrayOffsets[entry.tag] {
                out += le(UInt64(at), wide)
                arrays += data
            } else {
                out += data + [UInt8](repeating: 0, count: wide - data.count)
            }
        }
        out += le(0, wide) + arrays
        for size in sizes { out += [UInt8](repeating: 0x55, count: size) }
        return Array(out.dropLast(cut))
    }
}

enum TIFFStripCases {
    static func tiff(_ change: (inout TIFFBuilder) -> Void = { _ in }) -> [UInt8] {
        var builder = TIFFBuilder()
        change(&builder)
        return builder.bytes
    }

    static let outOfBounds = [ImageFindingCode.tiffDataOutOfBounds]

    static let cases: [CorpusCase] = [
        CorpusCase(name: "4 strips of 5 rows, all listed", bytes: tiff()),
        CorpusCase(
            name: "uncompressed strips, all listed",
            bytes: tiff {
                $0.compression = 1; $0.sizes = [150, 150, 150, 150]
            }),
        CorpusCase(name: "BigTIFF, 4 strips", bytes: tiff { $0.big = true }),
        CorpusCase(
            name: "more strips listed than needed (libtiff reads only the needed ones)",
            bytes: tiff { $0.sizes = [40, 40, 40, 40, 40] }, everyCutShows: false),
        CorpusCase(
            name: "RowsPerStrip beyond the height: one strip",
            bytes: tiff {
                $0.rowsPerStrip = 100; $0.sizes = [40]
            }),
        CorpusCase(
            name: "no RowsPerStrip: one strip",
            bytes: tiff {
                $0.rowsPerStrip = nil; $0.sizes = [40]
            }),
        CorpusCase(
            name: "2 of 4 StripOffsets",
            bytes: tiff {
                $0.listedOffsets = 2; $0.listedCounts = 2
            }, errors: outOfBounds),
        CorpusCase(name: "3 of 4 StripByteCounts", bytes: tiff { $0.listedCounts = 3 }, errors: outOfBounds),
        CorpusCase(
            name: "RowsPerStrip 1 with 4 strips (20 needed)", bytes: tiff { $0.rowsPerStrip = 1 }, errors: outOfBounds),
        CorpusCase(
            name: "planar configuration 2: 3 planes need 12 strips, 4 listed",
            bytes: tiff {
                $0.planar = 2; $0.samples = 3
            }, errors: outOfBounds),
        CorpusCase(
            name: "planar configuration 2: 3 planes, 12 strips",
            bytes: tiff {
                $0.planar = 2; $0.samples = 3; $0.sizes = [Int](repeating: 20, count: 12)
            }),
        CorpusCase(
            name: "a byte count of 0 in strip 3", bytes: tiff { $0.counts = [40, 40, 0, 40] }, errors: outOfBounds),
        CorpusCase(
            name: "a single strip with a byte count of 0 (libtiff estimates it)",
            bytes: tiff {
                $0.rowsPerStrip = 20; $0.sizes = [40]; $0.counts = [0]
            }, everyCutShows: false),
        CorpusCase(
            name: "BigTIFF: a byte count beyond 2⁶³ (offset + count overflows)",
            bytes: tiff {
                $0.big = true; $0.counts = [40, 40, 40, 0xFFFF_FFFF_FFFF_FF00]
            }, errors: outOfBounds),
        CorpusCase(
            name: "BigTIFF: an offset beyond 2⁶³",
            bytes: tiff {
                $0.big = true; $0.firstOffset = 0x8000_0000_0000_0010
            }, errors: outOfBounds),
        CorpusCase(
            name: "a strip past the end of the file", bytes: tiff { $0.firstOffset = 100_000 }, errors: outOfBounds),
        CorpusCase(
            name: "compressed strips cut off", bytes: tiff { $0.cut = 10 }, errors: [ImageFindingCode.truncated]),
        CorpusCase(
            name: "uncompressed single strip with a long count, every row there",
            bytes: tiff {
                $0.compression = 1; $0.rowsPerStrip = 20; $0.sizes = [600]; $0.counts = [5000]
            },
            warnings: [ImageFindingCode.truncated]),
        CorpusCase(
            name: "no StripOffsets", bytes: tiff { $0.omitOffsets = true }, errors: [ImageFindingCode.corrupt]),
        CorpusCase(
            name: "no StripByteCounts for 4 strips", bytes: tiff { $0.omitCounts = true },
            errors: [ImageFindingCode.corrupt]),
        CorpusCase(
            name: "no StripByteCounts for one strip (libtiff estimates it)",
            bytes: tiff {
                $0.omitCounts = true; $0.rowsPerStrip = 20; $0.sizes = [40]
            }, everyCutShows: false),
        CorpusCase(name: "RowsPerStrip 0", bytes: tiff { $0.rowsPerStrip = 0 }, errors: [ImageFindingCode.corrupt]),
        CorpusCase(name: "16×16 tiles: 4 needed, 4 listed", bytes: tiff { $0.tile = (16, 16) }),
        CorpusCase(
            name: "16×16 tiles: 4 needed, 3 listed",
            bytes: tiff {
                $0.tile = (16, 16); $0.sizes = [40, 40, 40]
            },
            errors: outOfBounds),
        CorpusCase(
            name: "a tile width of 0", bytes: tiff { $0.tile = (0, 16) }, errors: [ImageFindingCode.corrupt]),
    ]
}

// MARK: BMP RLE (Chromium BMPImageReader, Skia SkBmpRLECodec, Pillow BmpRleDecoder; the BMP suite)

enum BMPRLECases {
    /// A 16×12 bitmap (4-colour palette) whose pixel data is `codes`; `claimed` overrides bfSize.
    static func bmp(_ codes: [UInt8], rle4: Bool = false, claimed: UInt32? = nil, dataOffset: UInt32? = nil)
        -> [UInt8]
    {
        let palette = [UInt8](repeating: 0x80, count: 16)
        let offset = UInt32(14 + 40 + palette.count)
        let info =
            le32(40) + le32(16) + le32(12) + le16(1) + le16(rle4 ? 4 : 8) + le32(rle4 ? 2 : 1)
            + le32(UInt32(codes.count)) + le32(2835) + le32(2835) + le32(4) + le32(0)
        let size = offset + UInt32(codes.count)
        return ascii("BM") + le32(claimed ?? size) + le32(0) + le32(dataOffset ?? offset) + info + palette + codes
    }

    static let eol: [UInt8] = [0, 0]
    static let eob: [UInt8] = [0, 1]
    /// One whole row: 4 literal pixels, then a run of 12.
    static let row8: [UInt8] = [0, 4, 1, 2, 3, 0, 12, 1]
    static let row4: [UInt8] = [0, 4, 0x12, 0x30, 12, 0x12]
    static func rows(_ count: Int, _ row: [UInt8] = row8) -> [UInt8] {
        Array([[UInt8]](repeating: row + eol, count: count).joined())
    }
    static let good = rows(11) + row8 + eob

    static let cases: [CorpusCase] = [
        CorpusCase(name: "RLE8, every row, end-of-bitmap", bytes: bmp(good)),
        CorpusCase(name: "RLE4, every row", bytes: bmp(rows(11, row4) + row4 + eob, rle4: true)),
        CorpusCase(
            name: "RLE4, an odd absolute run padded to 16 bits",
            bytes: bmp(rows(12, [0, 3, 0x12, 0x30, 13, 0x11]) + eob, rle4: true)),
        CorpusCase(name: "end-of-line after the last row, then end-of-bitmap", bytes: bmp(rows(12) + eob)),
        CorpusCase(name: "the last row complete, no end-of-bitmap", bytes: bmp(rows(11) + row8)),
        CorpusCase(
            name: "pixels skipped with end-of-line and a delta inside the image (transparency)",
            bytes: bmp(rows(2) + [6, 1] + eol + [0, 2, 4, 3] + [8, 2] + eol + rows(4) + row8 + eob)),
        CorpusCase(
            name: "an absolute run past the end of its row",
            bytes: bmp(rows(5) + [0, 20] + [UInt8](repeating: 1, count: 20) + eol + rows(6)),
            errors: [ImageFindingCode.corrupt]),
        CorpusCase(
            name: "RLE4: an absolute run past the end of its row",
            bytes: bmp(
                rows(5, row4) + [0, 20] + [UInt8](repeating: 0x11, count: 10) + eol + rows(6, row4), rle4: true),
            errors: [ImageFindingCode.corrupt]),
        CorpusCase(
            name: "a delta past the end of its row", bytes: bmp(rows(3) + [8, 1, 0, 2, 9, 0] + eol + rows(8)),
            errors: [ImageFindingCode.corrupt]),
        CorpusCase(
            name: "the data ends mid-image without an end-of-bitmap", bytes: bmp(rows(7)),
            errors: [ImageFindingCode.truncated]),
        CorpusCase(
            name: "the data ends inside an absolute run", bytes: bmp(rows(11) + [0, 16, 1, 2, 3]),
            errors: [ImageFindingCode.truncated]),
        CorpusCase(
            name: "the data ends inside a delta", bytes: bmp(rows(11) + [0, 2, 1]), errors: [ImageFindingCode.truncated]
        ),
        CorpusCase(
            name: "the pixel data starts past the end of the file", bytes: bmp(good, dataOffset: 5000),
            errors: [ImageFindingCode.truncated]),
        CorpusCase(
            name: "an end-of-bitmap after 6 rows", bytes: bmp(rows(5) + row8 + eob),
            warnings: [ImageFindingCode.corrupt]),
        CorpusCase(
            name: "an encoded run longer than its row", bytes: bmp(rows(2) + [20, 1] + eol + rows(8) + row8 + eob),
            warnings: [ImageFindingCode.corrupt]),
        CorpusCase(
            name: "a delta below the last row", bytes: bmp(rows(10) + [0, 2, 0, 5] + eob),
            warnings: [ImageFindingCode.corrupt]),
        CorpusCase(
            name: "codes after the last row", bytes: bmp(rows(12) + [4, 1] + eob), warnings: [ImageFindingCode.corrupt]),
        CorpusCase(
            name: "bfSize beyond the file, the RLE data complete", bytes: bmp(good, claimed: 4000),
            warnings: [ImageFindingCode.truncated]),
    ]
}

// MARK: HEIF items the primary image needs (libheif)

/// A HEIF whose items each have a few bytes in `mdat`, with the references, types and `auxC` given.
struct HEIFBuilder {
    struct Item {
        let id: UInt16
        var type = "hvc1"
        var contentType: String?
        var auxType: String?
        var length = 16
    }

    var items: [Item] = [Item(id: 1)]
    var references: [(type: String, from: UInt16, to: [UInt16])] = []
    /// The item whose data is cut in half (the file ends there).
    var cutItem: UInt16?
    /// When the file is cut, whether `mdat` still claims its full size (a cut file) or was rewritten to end with
    /// the file (only `iloc` points beyond it).
    var mdatClaimsFullSize = true

    var bytes: [UInt8] {
        let infes = items.map { item -> [UInt8] in
            var payload = be16(item.id) + be16(0) + ascii(item.type) + [0]  // item_name ""
            if let contentType = item.contentType { payload += ascii(contentType) + [0] }
            return fullBox("infe", version: 2, payload)
        }
        let iinf = fullBox("iinf", be16(UInt16(items.count)) + infes.flatMap { $0 })
        let iref = fullBox(
            "iref",
            references.flatMap { reference in
                box(
                    reference.type, be16(reference.from) + be16(UInt16(reference.to.count)) + reference.to.flatMap(be16)
                )
            })
        // Property 1: the primary's ispe; then one auxC per item that has one.
        var properties = [fullBox("ispe", be32(64) + be32(36))]
        var associations: [UInt8] = []
        for item in items {
            var indices: [UInt8] = item.id == 1 ? [0x81] : []
            if let auxType = item.auxType {
                properties.append(fullBox("auxC", ascii(auxType) + [0]))
                indices.append(0x80 | UInt8(properties.count))
            }
            associations += be16(item.id) + [UInt8(indices.count)] + indices
        }
        let ipma = fullBox("ipma", be32(UInt32(items.count)) + associations)
        let iprp = box("iprp", box("ipco", properties.flatMap { $0 }) + ipma)
        let ftyp = box("ftyp", ascii("heic") + be32(0) + ascii("mif1heic"))
        // iloc version 1: 4-byte offsets, lengths and base offsets; each item one extent in mdat.
        // The cut item's data goes last in mdat, so cutting it leaves every other item whole.
        let placed = items.filter { $0.id != cutItem } + items.filter { $0.id == cutItem }
        func meta(dataStart: Int) -> [UInt8] {
            var position = dataStart
            var starts: [UInt16: Int] = [:]
            for item in placed {
                starts[item.id] = position
                position += item.length
            }
            var entries: [UInt8] = []
            for item in items {
                entries +=
                    be16(item.id) + be16(0) + be16(0) + be32(UInt32(starts[item.id] ?? 0)) + be16(1) + be32(0)
                    + be32(UInt32(item.length))
            }
            let iloc = fullBox("iloc", version: 1, [0x44, 0x40] + be16(UInt16(items.count)) + entries)
            return fullBox("meta", fullBox("pitm", be16(1)) + iinf + iloc + iref + iprp)
        }
        let metaSize = meta(dataStart: 0).count
        let dataStart = ftyp.count + metaSize + 8
        let data = placed.flatMap { [UInt8](repeating: UInt8($0.id), count: $0.length) }
        var file = ftyp + meta(dataStart: dataStart) + box("mdat", data)
        guard let cut = placed.last, cut.id == cutItem else { return file }
        file = Array(file.dropLast(cut.length - cut.length / 2))
        if !mdatClaimsFullSize {
            let mdat = ftyp.count + metaSize
            file.replaceSubrange(mdat..<mdat + 4, with: be32(UInt32(file.count - mdat)))
        }
        return file
    }
}

enum HEIFItemCases {
    static let alpha = "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"
    static let depth = "urn:mpeg:hevc:2015:auxid:2"

    /// The primary (1, a grid of tile 2), a thumbnail (3), an alpha plane (4), a depth map (5), Exif (6), XMP (7).
    static func heif(cut: UInt16?, mdatClaimsFullSize: Bool = true) -> [UInt8] {
        HEIFBuilder(
            items: [
                HEIFBuilder.Item(id: 1, type: "grid"), HEIFBuilder.Item(id: 2), HEIFBuilder.Item(id: 3),
                HEIFBuilder.Item(id: 4, auxType: alpha), HEIFBuilder.Item(id: 5, auxType: depth),
                HEIFBuilder.Item(id: 6, type: "Exif"),
                HEIFBuilder.Item(id: 7, type: "mime", contentType: "application/rdf+xml"),
            ],
            references: [
                ("dimg", 1, [2]), ("thmb", 3, [1]), ("auxl", 4, [1]), ("auxl", 5, [1]), ("cdsc", 6, [1]),
                ("cdsc", 7, [1]),
            ], cutItem: cut, mdatClaimsFullSize: mdatClaimsFullSize
        ).bytes
    }

    static let truncated = [ImageFindingCode.truncated]

    static let cases: [CorpusCase] =
        [CorpusCase(name: "every item whole", bytes: heif(cut: nil))]
        + [true, false].flatMap { claims -> [CorpusCase] in
            let how = claims ? "file cut" : "iloc past the end"
            func heifCut(_ item: UInt16) -> [UInt8] { heif(cut: item, mdatClaimsFullSize: claims) }
            return [
                CorpusCase(name: "\(how): the primary grid's tile", bytes: heifCut(2), errors: truncated),
                CorpusCase(name: "\(how): the thumbnail", bytes: heifCut(3), warnings: truncated),
                CorpusCase(name: "\(how): the alpha plane", bytes: heifCut(4), errors: truncated),
                CorpusCase(name: "\(how): the depth map", bytes: heifCut(5), warnings: truncated),
                CorpusCase(name: "\(how): the Exif item", bytes: heifCut(6), errors: truncated),
                CorpusCase(name: "\(how): the XMP item", bytes: heifCut(7), errors: truncated),
            ]
        }
}

@Suite("Images: rules from the decoders' test corpora (issue 30)")
struct ImageCorpusRuleTests {
    @Test(
        "PNG: IHDR compression, filter and interlace methods (libpng png_check_IHDR)", arguments: PNGMethodCases.cases)
    func pngMethods(_ example: CorpusCase) { example.check() }

    @Test("TIFF: strips and tiles in the file and covering the image (libtiff)", arguments: TIFFStripCases.cases)
    func tiffStrips(_ example: CorpusCase) { example.check() }

    @Test("BMP: RLE8 / RLE4 codes (Chromium, Skia, Pillow; the BMP suite)", arguments: BMPRLECases.cases)
    func bmpRLE(_ example: CorpusCase) { example.check() }

    @Test("HEIF: cut items the primary image needs, or not (libheif)", arguments: HEIFItemCases.cases)
    func heifItems(_ example: CorpusCase) { example.check() }

    @Test(
        "every truncation of every rule file ends with a finding, never a crash",
        arguments: PNGMethodCases.cases + TIFFStripCases.cases + BMPRLECases.cases + HEIFItemCases.cases)
    func truncations(_ example: CorpusCase) {
        // The cases whose last 40 bytes no decoder reads (an ignored strip, a strip estimated to the end of the file)
        // are cut only before them.
        let lengths = example.everyCutShows ? example.bytes.count : example.bytes.count - 40
        for length in 0..<lengths {
            let info = ImageSniffer.inspect(bytes: Array(example.bytes.prefix(length)))
            #expect(!info.findings.isEmpty, "\(example.name): cut at \(length)")
        }
    }
}
