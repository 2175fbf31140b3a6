internal import Findings

/// PNG: the IHDR chunk gives the size; an `acTL` chunk before the first IDAT makes it an APNG. Chunk headers are
/// walked to IEND (each step skips a whole chunk, so the work is one step per chunk) to notice cut-off files.
enum PNGHeader {
    static func parse(_ parse: inout HeaderParse, maxChunks: Int) {
        let bytes = parse.bytes
        var ihdr = 8
        // Xcode's "crushed" PNGs put a CgBI chunk first (premultiplied BGRA, raw deflate): only Apple's decoder
        // reads them. iOS shows them; Android and browsers do not.
        if bytes.matches("CgBI", at: 12), let length = bytes.u32be(8), length <= 64 {
            ihdr = 8 + 12 + length
            parse.header.appleCgBI = true  // a fact: iOS shows it, Android cannot (MediaRules)
        }
        guard let ihdrLength = bytes.u32be(ihdr), bytes.has(4, at: ihdr + 4) else {
            return parse.ranOut("the signature")
        }
        guard bytes.matches("IHDR", at: ihdr + 4) else {
            return parse.corrupt("the first chunk is '\(bytes.fourCC(ihdr + 4) ?? "?")', not IHDR.")
        }
        guard ihdrLength == 13 else { return parse.corrupt("IHDR is \(ihdrLength) bytes long instead of 13.") }
        guard let width = bytes.u32be(ihdr + 8), let height = bytes.u32be(ihdr + 12), let depth = bytes.u8(ihdr + 16),
            let colorType = bytes.u8(ihdr + 17), let storedCRC = bytes.u32be(ihdr + 21)
        else { return parse.ranOut("the IHDR chunk") }
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            return parse.corrupt("IHDR claims \(width)×\(height) pixels (each side must be 1…2³¹−1).")
        }
        parse.setSize(width: width, height: height)
        let validDepths: [Int: Set<Int>] = [
            0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
        ]
        guard let depths = validDepths[colorType], depths.contains(depth) else {
            return parse.corrupt("IHDR has colour type \(colorType) with bit depth \(depth), which no decoder accepts.")
        }
        guard CRC32.checksum(bytes[(ihdr + 4)..<(ihdr + 21)]) == UInt32(storedCRC) else {
            return parse.corrupt("the IHDR checksum does not match; decoders reject the file.")
        }
        // libpng's png_check_IHDR (png.c, called from png_handle_IHDR through png_set_IHDR) warns "Unknown
        // compression method in IHDR" for any method but 0, "Unknown filter method in IHDR" for any filter method
        // but 0 (64, MNG's intrapixel differencing, only in a datastream without a PNG signature: "Invalid filter
        // method in IHDR" otherwise) and "Unknown interlace method in IHDR" beyond 1, then fails with
        // png_error("Invalid IHDR data"). Pillow's chunk_IHDR refuses a filter method but 0 as well ("unknown
        // filter category"). No decoder gets past these.
        let methods = (compression: bytes[ihdr + 18], filter: bytes[ihdr + 19], interlace: bytes[ihdr + 20])
        guard methods.compression == 0 else {
            return parse.corrupt(
                "IHDR names compression method \(methods.compression); only 0 (deflate) exists and libpng refuses "
                    + "the file (\"Unknown compression method in IHDR\").")
        }
        guard methods.filter == 0 else {
            return parse.corrupt(
                "IHDR names filter method \(methods.filter); a PNG file has only method 0 and libpng refuses the "
                    + "file (\"\(methods.filter == 64 ? "Invalid" : "Unknown") filter method in IHDR\").")
        }
        guard methods.interlace <= 1 else {
            return parse.corrupt(
                "IHDR names interlace method \(methods.interlace); only 0 (none) and 1 (Adam7) exist and libpng "
                    + "refuses the file (\"Unknown interlace method in IHDR\").")
        }
        let interlaced = methods.interlace == 1
        let layout = PixelLayout(
            width: width, height: height, depth: depth, colorType: colorType, interlaced: interlaced)
        let chunks = walkChunks(&parse, from: ihdr + 25, maxChunks: maxChunks)
        checkChunkOrder(&parse, chunks, colorType: colorType)
        // A zlib stream (PNG spec §10.1); CgBI's is raw deflate (no zlib header or Adler-32), the way ImageIO and
        // every CgBI reader (pngcrush -revert-iphone-optimizations) inflate it. Its rows are BGRA in the layout
        // RGBA rows have, so the same first-row rule holds.
        if chunks.firstRunEnded {
            checkPixelData(&parse, chunks, layout: layout, format: ihdr == 8 ? .zlib : .raw)
        }
    }

    /// What the chunk walk saw of the image data: the first run of consecutive IDAT chunks is the zlib stream
    /// decoders read (libpng's `png_read_IDAT_data` and Pillow's `PngImageFile.load_read` both stop at the first
    /// chunk that is not IDAT).
    struct ChunkSummary {
        var firstRun: [UInt8] = []
        var sawIDAT = false
        /// True once a chunk other than IDAT followed the first IDAT run (the run is complete in the bytes).
        var firstRunEnded = false
        /// The type of the chunk that ended the first run, and where an IDAT came after it.
        var runEndedBy = ""
        var laterIDATOffset: Int?
        var sawPLTEBeforeIDAT = false
    }

    /// The raw (filtered) pixel layout IHDR promises.
    struct PixelLayout {
        let width: Int
        let height: Int
        let depth: Int
        let colorType: Int
        let interlaced: Bool

        private var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1 }

        /// One filtered row of `pixels` pixels: the filter-type byte plus the packed samples.
        func rowBytes(_ pixels: Int) -> Int {
            1 + (saturatingProduct(pixels, channels, depth) &+ 7) / 8
        }

        /// The first row decoders need: of the whole image, or of Adam7 pass 1 (every 8th pixel of row 0).
        var firstRowBytes: Int { rowBytes(interlaced ? (width + 7) / 8 : width) }

        /// The whole filtered image: one row per line, or the seven Adam7 passes (PNG spec §8.2).
        var totalBytes: Int {
            guard interlaced else { return saturatingProduct(height, rowBytes(width)) }
            let passes = [
                (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
            ]
            var total = 0
            for (x0, y0, dx, dy) in passes where width > x0 && height > y0 {
                let (sum, overflow) = total.addingReportingOverflow(
                    saturatingProduct((height - y0 + dy - 1) / dy, rowBytes((width - x0 + dx - 1) / dx)))
                total = overflow ? Int.max : sum
            }
            return total
        }
    }

    private static func walkChunks(_ parse: inout HeaderParse, from start: Int, maxChunks: Int) -> ChunkSummary {
        let bytes = parse.bytes
        var summary = ChunkSummary()
        var offset = start
        for _ in 0..<maxChunks {
            guard let length = bytes.u32be(offset), let type = bytes.fourCC(offset + 4) else {
                parse.ranOut("a chunk header before IEND")
                return summary
            }
            guard length <= Int(Int32.max) else {
                parse.corrupt("chunk '\(type)' at byte \(offset) claims \(length) bytes (more than 2³¹−1).")
                return summary
            }
            if type == "IDAT" {
                if summary.firstRunEnded {
                    if summary.laterIDATOffset == nil { summary.laterIDATOffset = offset }
                } else {
                    summary.sawIDAT = true
                    let dataEnd = Swift.min(offset + 8 + length, bytes.count)
                    if offset + 8 < dataEnd { summary.firstRun += bytes[(offset + 8)..<dataEnd] }
                }
            } else if summary.sawIDAT, !summary.firstRunEnded {
                summary.firstRunEnded = true
                summary.runEndedBy = type
            }
            switch type {
            case "acTL" where !summary.sawIDAT:
                guard let frames = bytes.u32be(offset + 8) else {
                    parse.ranOut("the acTL chunk")
                    return summary
                }
                guard frames > 0 else {
                    // APNG spec: "0 is not a valid value", and a decoder that does not accept an APNG shows the
                    // default image (the IDAT) as a still PNG — libpng, Pillow (APNG support falls back to the
                    // still image) and browsers do so. Displayed, so only a warning.
                    parse.corrupt(
                        "acTL declares zero frames; decoders show the default image as a still PNG.",
                        severity: .warning)
                    break
                }
                parse.header.frameCount = frames
                parse.header.animated = frames > 1
            case "PLTE" where !summary.sawIDAT:
                summary.sawPLTEBeforeIDAT = true
            case "IEND":
                if !summary.sawIDAT { parse.corrupt("IEND comes before any image data (IDAT).") }
                // Decoders stop at IEND, so a missing checksum after it costs nothing visible.
                if offset + 12 > bytes.count { parse.ranOut("the IEND chunk", severity: .warning) }
                return summary
            default:
                break
            }
            let next = offset + 12 + length
            guard next <= bytes.count else {
                parse.ranOut("chunk '\(type)' (it claims \(length) bytes, \(bytes.count - offset - 8) remain)")
                return summary
            }
            offset = next
        }
        return summary
    }

    /// A palette image without PLTE before its pixels: libpng stops with an error (`png_read_info`, "Missing PLTE
    /// before IDAT"; ImageMagick shows nothing), Pillow 13 shows it with a grey ramp, and Apple documents nothing
    /// for ImageIO. Decoders disagree, so a warning.
    private static func checkChunkOrder(_ parse: inout HeaderParse, _ chunks: ChunkSummary, colorType: Int) {
        if colorType == 3, chunks.sawIDAT, !chunks.sawPLTEBeforeIDAT {
            parse.header.findings.append(
                .warning(
                    ImageFindingCode.pngChunkOrder,
                    "A palette PNG (colour type 3) without a PLTE chunk before its pixel data: libpng refuses "
                        + "it (\"Missing PLTE before IDAT\"), other decoders invent a grey palette."))
        }
    }

    /// Most bytes ever inflated to judge one IDAT stream (16 MiB, well under a second). Beyond that the stream is
    /// taken as good: a first row (or an image) that large is judged by the pixel limits instead.
    static let maxInflatedBytes = 16 << 20

    /// Inflates the first IDAT run (with zlib, ``InflateCheck``) just far enough: one row normally; the whole image
    /// when an IDAT chunk comes after another chunk, since then decoders see only the first run and it must hold
    /// every row. Only the filter byte is kept, so memory stays at zlib's state and 32 KiB window (bounded by
    /// ``InflateCheck/memoryBudget``) whatever IHDR claims.
    private static func checkPixelData(
        _ parse: inout HeaderParse, _ chunks: ChunkSummary, layout: PixelLayout, format: InflateCheck.Format
    ) {
        let run = chunks.firstRun
        func missing(_ why: String) {
            parse.header.findings.append(
                .error(
                    ImageFindingCode.pngDataIncomplete,
                    "Corrupt PNG: IHDR promises \(layout.width)×\(layout.height) pixels but \(why); "
                        + "no decoder shows a single row of it."))
        }
        guard !run.isEmpty else { return missing("the IDAT chunks hold no data") }
        let firstRow = Swift.min(layout.firstRowBytes, maxInflatedBytes)
        let whole = layout.totalBytes
        let needsWhole = chunks.laterIDATOffset != nil && whole <= maxInflatedBytes
        let inflated = InflateCheck(run, format: format, keep: 1, maxOutput: needsWhole ? whole : firstRow)
        if inflated.outcome == .overBudget { return }  // zlib wanted more memory than the check allows: not judged
        if inflated.produced < firstRow {
            if case .invalid(let reason) = inflated.outcome {
                let what = format == .zlib ? "zlib" : "deflate"
                return missing("its \(what) data is invalid (\(reason)) after \(inflated.produced) bytes")
            }
            return missing(
                "the IDAT data inflates to \(inflated.produced) bytes and the first row needs \(layout.firstRowBytes)")
        }
        if let filter = inflated.kept.first, filter > 4 {
            // libpng: "bad adaptive filter value"; Pillow: "unknown filter type" — both stop decoding.
            return missing("the first row has the unknown filter type \(filter)")
        }
        guard let later = chunks.laterIDATOffset else { return }
        if needsWhole, inflated.produced < whole, inflated.outcome != .reachedLimit {
            // libpng reads the zlib stream from consecutive IDATs only ("Not enough image data" at the first other
            // chunk); Pillow's load_read stops there too and reports "image file is truncated".
            parse.header.findings.append(
                .error(
                    ImageFindingCode.pngChunkOrder,
                    "Corrupt PNG: chunk '\(excerpt(chunks.runEndedBy, limit: 4))' splits the image data and the IDAT "
                        + "chunks before it hold \(inflated.produced) of \(whole) bytes; decoders read only "
                        + "consecutive IDAT chunks."))
        } else {
            // The first run is complete: libpng only warns ("Too many IDATs found" is a benign error), Pillow ignores it.
            parse.header.findings.append(
                .warning(
                    ImageFindingCode.pngChunkOrder,
                    "An IDAT chunk at byte \(later) comes after chunk '\(excerpt(chunks.runEndedBy, limit: 4))'; "
                        + "decoders ignore it (the image data before it is complete)."))
        }
    }
}

/// CRC-32 (ISO 3309, as PNG uses it), table-driven.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
