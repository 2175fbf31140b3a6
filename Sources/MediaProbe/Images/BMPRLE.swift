internal import Findings

/// BMP RLE8 / RLE4 pixel data (BI_RLE8 = 1, BI_RLE4 = 2): the codes are walked, nothing is decoded. Each step
/// consumes at least two bytes and keeps only the cursor, so the work is linear in the file and the memory fixed.
///
/// The codes (Microsoft's "Bitmap Compression"): a count n > 0 then a colour draws n pixels (encoded mode);
/// 0 0 ends a line, 0 1 ends the bitmap, 0 2 dx dy moves the cursor (delta), 0 n (n ≥ 3) is followed by n literal
/// pixels padded to 16 bits (absolute mode). What Chromium (`BMPImageReader::ProcessRLEData`), Skia
/// (`SkBmpRLECodec::decodeRLE`, Android's decoder) and Pillow (`BmpRleDecoder`) make of broken codes, and the
/// verdict each case gets:
/// - an absolute run or a delta past the end of its row: Chromium fails the image ("Fail if we're being asked to
///   decode more pixels than remain in the row", "Fail if this takes us past the end of the desired row"), Skia
///   stops there ("invalid RLE input": the rows after stay transparent), Pillow wraps the pixels into the next
///   row. Error (`image.corrupt`).
/// - the data ends before the image is complete and without an end-of-bitmap: Chromium fails once every byte is
///   in (`kInsufficientData`), Skia shows the rows it has (`kIncompleteInput`), Pillow raises "not enough image
///   data" (its test_rle8_eof). Error (`image.truncated`).
/// - an encoded run longer than its row: all three clip it (Chromium "ignore pixels past the end of the row",
///   Skia `min(x + numPixels, width)`, Pillow "Too much data for row"). Warning (`image.corrupt`).
/// - an end-of-bitmap before every pixel is drawn: Chromium and Skia leave the rest transparent, Pillow refuses it
///   ("not enough image data", its test_rle8: "Signal end of bitmap before the image is finished"). Warning.
/// - a delta below the last row, or codes after it: Chromium fails ("For every entry except EOF, we'd better not
///   have reached the end of the image"), Skia stops at the last row (success), Pillow at the image size.
///   Warning.
///
/// The BMP suite (entropymine.com/jason/bmpsuite) files these the same way: b/badrle, b/badrlebis, b/badrleter and
/// their RLE4 versions (deltas and runs past the row or the image) are "bad"; q/pal8rlecut and q/pal4rlecut (an
/// early end-of-line and end-of-bitmap leave pixels undefined) are "questionable" — "It's okay if the viewer's
/// image doesn't exactly match any of the reference images". Skipping pixels with end-of-line or a delta inside
/// the image (q/pal8rletrns) is how RLE bitmaps leave pixels transparent: no finding.
extension OtherImageHeaders {
    /// Why an RLE walk stopped early.
    enum RLEBreak: Equatable {
        /// An absolute run (`literal`) or a delta moves past the end of its row.
        case pastRowEnd(row: Int, x: Int, count: Int, literal: Bool)
        /// The bytes end before the image is complete and no end-of-bitmap came.
        case dataEnds(row: Int)
    }

    /// What a walk of RLE codes saw: the first error, and the tolerated oddities (first occurrence each).
    struct RLEWalk {
        var broken: RLEBreak?
        var clippedRun: (row: Int, x: Int, count: Int)?
        var earlyEnd: (row: Int, x: Int)?
        var pastLastRow: (offset: Int, delta: Bool)?
        /// Where the walk stopped (the byte after the last code read).
        var end = 0
    }

    /// Walks the RLE codes from `start` to the end of `bytes` for a `width`×`height` bitmap. Rows count in
    /// storage order (bottom-up bitmaps store the bottom row first; the count is the same).
    static func walkRLE(_ bytes: [UInt8], from start: Int, width: Int, height: Int, rle4: Bool) -> RLEWalk {
        var walk = RLEWalk()
        var position = start
        var row = 0
        var x = 0
        /// True once every pixel has been drawn or skipped past.
        var complete: Bool { row >= height || (row == height - 1 && x >= width) }
        while position + 2 <= bytes.count {
            let count = Int(bytes[position])
            let code = Int(bytes[position + 1])
            if row >= height {
                // Past the last row only an end-of-bitmap belongs.
                if count != 0 || code != 1, walk.pastLastRow == nil { walk.pastLastRow = (position, false) }
                walk.end = position + 2
                return walk
            }
            if count > 0 {
                if x + count > width, walk.clippedRun == nil { walk.clippedRun = (row, x, count) }
                x = Swift.min(x + count, width)
                position += 2
                continue
            }
            switch code {
            case 0:  // end of line
                x = 0
                row += 1
                position += 2
            case 1:  // end of bitmap
                if !complete { walk.earlyEnd = (row, x) }
                walk.end = position + 2
                return walk
            case 2:  // delta
                guard position + 4 <= bytes.count else {
                    walk.broken = .dataEnds(row: row)
                    walk.end = bytes.count
                    return walk
                }
                let dx = Int(bytes[position + 2])
                let dy = Int(bytes[position + 3])
                if x + dx > width {
                    walk.broken = .pastRowEnd(row: row, x: x, count: dx, literal: false)
                    walk.end = position + 4
                    return walk
                }
                if row + dy >= height {
                    walk.pastLastRow = (position, true)
                    walk.end = position + 4
                    return walk
                }
                x += dx
                row += dy
                position += 4
            default:  // absolute run of `code` pixels, padded to 16 bits
                if x + code > width {
                    walk.broken = .pastRowEnd(row: row, x: x, count: code, literal: true)
                    walk.end = position + 2
                    return walk
                }
                let dataBytes = rle4 ? (code + 1) / 2 : code
                let padded = (dataBytes + 1) & ~1
                guard position + 2 + padded <= bytes.count else {
                    walk.broken = .dataEnds(row: row)
                    walk.end = bytes.count
                    return walk
                }
                x += code
                position += 2 + padded
            }
        }
        if !complete { walk.broken = .dataEnds(row: row) }
        walk.end = bytes.count
        return walk
    }

    /// The findings of an RLE bitmap's pixel data (see the table above); `claimedSize` is bfSize, advisory as for
    /// uncompressed bitmaps: beyond the file with the RLE data complete, it is a warning.
    static func checkRLE(
        _ parse: inout HeaderParse, pixelOffset: Int, width: Int, height: Int, rle4: Bool, claimedSize: Int
    ) {
        let bytes = parse.bytes
        let kind = rle4 ? "RLE4" : "RLE8"
        guard pixelOffset < bytes.count else {
            return parse.ranOut("the pixel data (it starts at byte \(pixelOffset))")
        }
        let walk = walkRLE(bytes, from: pixelOffset, width: width, height: height, rle4: rle4)
        switch walk.broken {
        case .pastRowEnd(let row, let x, let count, let literal)?:
            return parse.corrupt(
                "\(literal ? "an absolute run of \(count) pixels" : "a delta of \(count) pixels") at pixel \(x) of "
                    + "stored row \(row + 1) runs past the end of the \(width)-pixel row; Chromium refuses the image "
                    + "and Android's decoder (Skia) draws nothing after it.")
        case .dataEnds(let row)?:
            return parse.ranOut(
                "the \(kind) data (at stored row \(row + 1) of \(height), before an end-of-bitmap marker)")
        case nil:
            break
        }
        if let clipped = walk.clippedRun {
            parse.corrupt(
                "a run of \(clipped.count) pixels at pixel \(clipped.x) of stored row \(clipped.row + 1) is longer "
                    + "than the \(width)-pixel row; decoders clip it.", severity: .warning)
        }
        if let early = walk.earlyEnd {
            parse.corrupt(
                "the \(kind) data ends (end-of-bitmap) at pixel \(early.x) of stored row \(early.row + 1) of "
                    + "\(height); Chromium and Android leave the rest transparent, Pillow refuses it (\"not enough "
                    + "image data\").", severity: .warning)
        }
        if let past = walk.pastLastRow {
            parse.corrupt(
                "\(past.delta ? "a delta moves below the last row" : "codes follow the last row") (byte "
                    + "\(past.offset)); Android's decoder and Pillow stop at the last row, Chromium refuses the "
                    + "image.", severity: .warning)
        }
        if claimedSize > bytes.count {
            parse.ranOut(
                "its header's claim of \(claimedSize) bytes; the \(kind) data is complete", severity: .warning)
        }
    }
}
