internal import Findings

/// BMP, TIFF and ICO/CUR: formats iOS shows but banners rarely use; their size and whether their pixel data can be
/// found are read, nothing is decoded.
enum OtherImageHeaders {
    static func parseBMP(_ parse: inout HeaderParse) {
        let bytes = parse.bytes
        let claimedSize = bytes.u32le(2)
        guard let dibSize = bytes.u32le(14) else { return parse.ranOut("the bitmap header") }
        let width: Int
        let height: Int
        let bitCount: Int?
        var compression = 0
        var colorsUsed = 0
        if dibSize == 12 {
            guard let coreWidth = bytes.u16le(18), let coreHeight = bytes.u16le(20) else {
                return parse.ranOut("the bitmap header")
            }
            width = coreWidth
            height = coreHeight
            bitCount = bytes.u16le(24)
        } else {
            guard let rawWidth = bytes.u32le(18), let rawHeight = bytes.u32le(22) else {
                return parse.ranOut("the bitmap header")
            }
            // Heights are signed: a negative height means rows are stored top-down.
            width = Int(Int32(bitPattern: UInt32(rawWidth)))
            height = Int(Int32(bitPattern: UInt32(rawHeight)).magnitude)
            bitCount = bytes.u16le(28)
            compression = bytes.u32le(30) ?? 0
            colorsUsed = bytes.u32le(46) ?? 0
        }
        setSize(&parse, width: width, height: height)
        guard let bitCount else { return parse.ranOut("the bitmap header") }
        guard checkBitCount(&parse, bitCount: bitCount, compression: compression, colorsUsed: colorsUsed) else {
            return
        }
        if compression == 1 || compression == 2, parse.complete, width > 0, height > 0 {
            return checkRLE(
                &parse, pixelOffset: bytes.u32le(10) ?? 0, width: width, height: height, rle4: compression == 2,
                claimedSize: claimedSize ?? 0)
        }
        guard parse.complete, let claimedSize, claimedSize > bytes.count else { return }
        // bfSize is advisory: Pillow's BmpImagePlugin never reads it and decodes from bfOffBits for as many rows as
        // the header has. When the rows of an uncompressed (BI_RGB/BI_BITFIELDS) bitmap are all there, an
        // overstated bfSize is a warning, as the product's truncation rule says.
        if compression == 0 || compression == 3, let pixelOffset = bytes.u32le(10), width > 0, height > 0 {
            let rowBytes = (saturatingProduct(width, bitCount) &+ 31) / 32 * 4
            let pixelEnd = pixelOffset &+ saturatingProduct(rowBytes, height)
            if pixelEnd <= bytes.count {
                return parse.ranOut(
                    "its header's claim of \(claimedSize) bytes; every row of pixels is there", severity: .warning)
            }
            return parse.ranOut("the pixel data (the rows end at byte \(pixelEnd))")
        }
        parse.ranOut("the pixel data (the header claims \(claimedSize) bytes)")
    }

    /// Bit counts Pillow's BmpImagePlugin decodes (`BIT2MODE`: 1, 4, 8, 16, 24, 32; others raise "Unsupported BMP
    /// pixel depth"), plus 0 with BI_JPEG/BI_PNG (the embedded stream carries its own depth). 2 bits (Windows CE)
    /// is not in Pillow but some decoders read it: a warning. A palette of more than 65,536 entries is refused by
    /// Pillow ("Unsupported BMP Palette size"); more entries than the bit count can index is only wasteful.
    /// Returns false when the bitmap cannot be decoded at all.
    private static func checkBitCount(
        _ parse: inout HeaderParse, bitCount: Int, compression: Int, colorsUsed: Int
    ) -> Bool {
        func bad(_ message: String, _ severity: Severity) {
            parse.header.findings.append(Finding(severity, ImageFindingCode.bmpBadHeader, "Corrupt BMP: \(message)"))
        }
        if bitCount == 0, compression == 4 || compression == 5 { return true }
        if bitCount == 2 {
            bad("2 bits per pixel (a Windows CE bitmap) is not read by every decoder.", .warning)
        } else if ![1, 4, 8, 16, 24, 32].contains(bitCount) {
            bad("\(bitCount) bits per pixel; decoders know only 1, 4, 8, 16, 24 and 32.", .error)
            return false
        }
        if colorsUsed > 65_536 {
            bad("the header claims a palette of \(colorsUsed) colours (decoders accept at most 65,536).", .error)
            return false
        }
        if bitCount <= 8, colorsUsed > 1 << bitCount {
            bad("a palette of \(colorsUsed) colours for \(bitCount)-bit pixels (at most \(1 << bitCount)).", .warning)
        }
        return true
    }

    static func parseTIFF(_ parse: inout HeaderParse) {
        if let reader = TIFFReader(parse.bytes, base: 0, end: parse.bytes.count), let end = reader.endOfIFD(),
            end > parse.bytes.count
        {
            return parse.ranOut("the image file directory (it ends at byte \(end))")
        }
        guard let reader = TIFFReader(parse.bytes, base: 0, end: parse.bytes.count),
            let width = reader.value(ofTag: 256), let height = reader.value(ofTag: 257)
        else {
            return parse.complete ? parse.corrupt("no image width and length in the first IFD.") : parse.ranOut("")
        }
        setSize(&parse, width: width, height: height)
        if let orientation = reader.orientation() { parse.header.swapsAxes = (5...8).contains(orientation) }
        if parse.complete { checkTIFFData(&parse, reader, width: width, height: height) }
    }

    /// ICO and CUR. Which entry is reported: the largest (width × height, then the directory's bit count), as
    /// Pillow's IcoImagePlugin opens it (`sorted(…, key=square, reverse=True)`, then `entry[0]`), and
    /// the one that bounds what any entry costs to decode (ImageIO lists every entry as an image of the source;
    /// Apple documents no rule for which one `UIImage(data:)` draws). Its size is the one in the embedded PNG's IHDR or
    /// BMP's BITMAPINFOHEADER (half the stored height: the AND mask), which decoders use over the directory's bytes
    /// (Pillow: "Image was not the expected size", then `self.size = im.size`); a directory 0 means 256.
    /// An embedded image that decodes to more than `decodedBytesError` is a decompression bomb, whichever entry.
    static func parseICO(_ parse: inout HeaderParse, decodedBytesError: Int) {
        let bytes = parse.bytes
        guard let count = bytes.u16le(4), bytes.has(16, at: 6) else { return parse.ranOut("the icon directory") }
        var best: (width: Int, height: Int, bits: Int, offset: Int, size: Int)?
        var furthestEnd: Int?
        for index in 0..<count {
            let entry = 6 + index * 16
            guard bytes.has(16, at: entry), let directoryWidth = bytes.u8(entry),
                let directoryHeight = bytes.u8(entry + 1),
                let bits = bytes.u16le(entry + 6), let size = bytes.u32le(entry + 8),
                let offset = bytes.u32le(entry + 12)
            else {
                if best == nil || parse.complete { parse.ranOut("the icon directory (entry \(index + 1) of \(count))") }
                break
            }
            furthestEnd = Swift.max(furthestEnd ?? 0, offset &+ size)
            var width = directoryWidth == 0 ? 256 : directoryWidth
            var height = directoryHeight == 0 ? 256 : directoryHeight
            if let embedded = embeddedSize(bytes, at: offset) {
                (width, height) = embedded
                if saturatingProduct(width, height, 4) > decodedBytesError {
                    parse.header.findings.append(
                        .error(
                            ImageFindingCode.icoEntryBomb,
                            "Icon entry \(index + 1) of \(count) claims \(width)×\(height) pixels in its embedded "
                                + "image (the directory says \(directoryWidth)×\(directoryHeight)): decoding it "
                                + "takes \(formatBytes(saturatingProduct(width, height, 4)))."))
                    continue
                }
            }
            let area = saturatingProduct(width, height)
            if let current = best,
                saturatingProduct(current.width, current.height) > area
                    || (saturatingProduct(current.width, current.height) == area && current.bits >= bits)
            {
                continue
            }
            best = (width, height, bits, offset, size)
        }
        guard let best else { return }
        parse.setSize(width: best.width, height: best.height)
        guard parse.complete else { return }
        if best.offset &+ best.size > bytes.count {
            parse.ranOut("the icon's image data (it claims bytes \(best.offset)…\(best.offset &+ best.size))")
        } else if let cut = furthestEnd, cut > bytes.count {
            // Another entry is cut off: the one reported decodes, a smaller one may not.
            parse.ranOut("the data of a smaller icon entry (it reaches byte \(cut))", severity: .warning)
        }
    }

    /// The size inside an icon entry's data: a PNG's IHDR, or a BITMAPINFOHEADER (height covers XOR + AND masks).
    private static func embeddedSize(_ bytes: [UInt8], at offset: Int) -> (Int, Int)? {
        if bytes.has(24, at: offset), bytes[offset] == 0x89, bytes.matches("PNG\r\n", at: offset + 1),
            bytes.matches("IHDR", at: offset + 12), let width = bytes.u32be(offset + 16),
            let height = bytes.u32be(offset + 20), width > 0, height > 0
        {
            return (width, height)
        }
        if let header = bytes.u32le(offset), header >= 40, header <= 124, let width = bytes.u32le(offset + 4),
            let height = bytes.u32le(offset + 8)
        {
            let signedWidth = Int(Int32(bitPattern: UInt32(width)))
            let shown = Int(Int32(bitPattern: UInt32(height)).magnitude) / 2
            if signedWidth > 0, shown > 0 { return (signedWidth, shown) }
        }
        return nil
    }

    private static func setSize(_ parse: inout HeaderParse, width: Int, height: Int) {
        guard width > 0, height > 0 else { return parse.corrupt("the header says \(width)×\(height) pixels.") }
        parse.setSize(width: width, height: height)
    }
}
