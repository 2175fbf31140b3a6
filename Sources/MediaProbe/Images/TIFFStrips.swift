internal import Findings

/// TIFF pixel data: where IFD0's strips (or tiles) are and whether decoders can read every one, judged the way
/// libtiff 4.x reads them (`TIFFReadDirectory` and `TIFFFetchStripThing` in tif_dirread.c, `TIFFFillStrip` and
/// `TIFFReadEncodedStrip` in tif_read.c; ImageIO's TIFF reader shares libtiff's structure), and Pillow's
/// TiffImagePlugin.
extension OtherImageHeaders {
    /// The strip layout IFD0 promises: how many strips (or tiles) the image needs and where the file says they are.
    struct TIFFLayout {
        let width: Int
        let height: Int
        let tiled: Bool
        let uncompressed: Bool
        let chunky: Bool
        let samplesPerPixel: Int
        let rowsPerStrip: Int
        /// `TIFFNumberOfStrips` / `TIFFNumberOfTiles`: ⌈height ÷ RowsPerStrip⌉ strips, or ⌈width ÷ TileWidth⌉ ×
        /// ⌈height ÷ TileLength⌉ tiles, times SamplesPerPixel for PlanarConfiguration 2.
        let needed: Int

        var unit: String { tiled ? "tile" : "strip" }

        /// Rows in strip `index` (the last one may be short), for one plane.
        func rows(inStrip index: Int) -> Int {
            let perPlane = (height + rowsPerStrip - 1) / rowsPerStrip
            let inPlane = index % Swift.max(perPlane, 1)
            return Swift.max(Swift.min(rowsPerStrip, height - inPlane * rowsPerStrip), 0)
        }
    }

    /// Why IFD0 cannot describe its pixels at all, as libtiff's `TIFFReadDirectory` fails; nil when it can.
    /// `layout` is the strip layout when there is one.
    static func tiffLayout(_ reader: TIFFReader, width: Int, height: Int) -> (layout: TIFFLayout?, problem: String?) {
        let samples = Swift.max(reader.value(ofTag: 277) ?? 1, 1)
        let planes = (reader.value(ofTag: 284) ?? 1) == 2 ? samples : 1
        // FIELD_TILEDIMENSIONS: TileWidth or TileLength makes the image tiled (TileOffsets and StripOffsets are one
        // field to libtiff).
        let tiled = reader.hasTag(322) || reader.hasTag(323)
        var rowsPerStrip = height
        let needed: Int
        if tiled {
            // TIFFNumberOfTiles is 0 for a zero tile side: "Cannot handle zero number of tiles".
            guard let tileWidth = reader.value(ofTag: 322), let tileLength = reader.value(ofTag: 323), tileWidth > 0,
                tileLength > 0
            else { return (nil, "a tile width or length of 0 (libtiff: \"Cannot handle zero number of tiles\")") }
            needed = saturatingProduct(
                (width + tileWidth - 1) / tileWidth, (height + tileLength - 1) / tileLength, planes)
        } else {
            if reader.hasTag(278) {
                // _TIFFVSetField refuses 0 ("Bad value 0 for RowsPerStrip"), and TIFFReadDirectory fails with it.
                guard let value = reader.value(ofTag: 278), value > 0 else {
                    return (nil, "RowsPerStrip is 0 (libtiff: \"Bad value 0 for RowsPerStrip\")")
                }
                rowsPerStrip = Swift.min(value, height)  // more rows than the image has is one strip
            }
            needed = saturatingProduct((height + rowsPerStrip - 1) / rowsPerStrip, planes)
        }
        let layout = TIFFLayout(
            width: width, height: height, tiled: tiled, uncompressed: (reader.value(ofTag: 259) ?? 1) == 1,
            chunky: planes == 1, samplesPerPixel: samples, rowsPerStrip: rowsPerStrip, needed: needed)
        return (layout, nil)
    }

    /// IFD0's strips (or tiles) must lie in the file and cover the image. Errors (`image.tiffDataOutOfBounds`
    /// unless said otherwise), each as libtiff meets it:
    /// - fewer StripOffsets or StripByteCounts than the image needs (⌈height ÷ RowsPerStrip⌉): `TIFFFetchStripThing`
    ///   warns ("Incorrect count for field") and pads the array with zeros, then `TIFFFillStrip` fails each missing
    ///   strip ("Invalid strip byte count 0") — its rows are never shown (Pillow's raw decoder leaves them black);
    ///   more entries than needed are ignored (`TIFFReadDirEntryLong8ArrayWithLimit` reads only the needed ones);
    /// - no StripOffsets (`MissingRequired`), no StripByteCounts for more than one strip (`MissingRequired`; one
    ///   strip is estimated), RowsPerStrip 0 or a zero tile side (`image.corrupt`: the directory is refused);
    /// - a strip that starts at or past the end of the file ("Read error on strip"; Pillow "image file is
    ///   truncated"), a byte count of 0 ("Invalid strip byte count"), a byte count beyond 2⁶³ − 1 or one whose
    ///   offset + count overflows (the overflow-safe `bytecount > tif_size || offset > tif_size - bytecount`).
    /// A byte count that runs past the end is a cut-off file (`image.truncated`) — except for uncompressed chunky
    /// strips, where `TIFFReadEncodedStrip` reads only the computed strip size (rows × row bytes; a single strip's
    /// bad count is re-estimated, "Bogus StripByteCounts") and Pillow's raw decoder only the rows it needs: when
    /// those rows are all there, an overstated byte count is a warning.
    static func checkTIFFData(_ parse: inout HeaderParse, _ reader: TIFFReader, width: Int, height: Int) {
        guard width > 0, height > 0 else { return }
        let (found, problem) = tiffLayout(reader, width: width, height: height)
        if let problem { return parse.corrupt("\(problem); the directory cannot be read.") }
        guard let layout = found else { return }
        let total = parse.bytes.count
        let what = layout.unit
        func outOfBounds(_ message: String) {
            parse.header.findings.append(.error(ImageFindingCode.tiffDataOutOfBounds, "Corrupt TIFF: \(message)"))
        }
        let offsetsTag = layout.tiled ? 324 : 273
        let countsTag = layout.tiled ? 325 : 279
        let compression = reader.value(ofTag: 259) ?? 1
        let offsetsName = layout.tiled ? "TileOffsets" : "StripOffsets"
        let countsName = layout.tiled ? "TileByteCounts" : "StripByteCounts"
        guard reader.hasTag(273) || reader.hasTag(324) else {
            // Old-style JPEG (6) may keep its data in JPEGInterchangeFormat instead (libtiff's OJPEG hack).
            if compression == 6 { return }
            return parse.corrupt("no \(offsetsName); libtiff refuses the directory (\"MissingRequired\").")
        }
        // A list that runs past the end of the file is a cut-off file; one too long to read (more than 65,536
        // entries) is not judged.
        func unreadable(_ tags: [Int], _ name: String) {
            guard let end = tags.compactMap({ reader.valuesEnd(ofTag: $0) }).first, end > total else { return }
            parse.ranOut("the \(name) list (it ends at byte \(saturatedText(end)))")
        }
        guard let offsets = reader.array(ofTag: offsetsTag) ?? reader.array(ofTag: layout.tiled ? 273 : 324) else {
            return unreadable([offsetsTag, layout.tiled ? 273 : 324], offsetsName)
        }
        let shortfall = { (count: Int) -> String in
            "the image needs \(layout.needed) \(what)s (\(layout.height) rows"
                + (layout.tiled ? "" : " of \(layout.rowsPerStrip) per strip") + ") but \(count) are listed"
        }
        if offsets.count < layout.needed {
            return outOfBounds(
                "\(shortfall(offsets.count)) in \(offsetsName); libtiff pads the "
                    + "list with empty \(what)s and fails reading them (\"Invalid strip byte count 0\"), so the rest of "
                    + "the image is never shown.")
        }
        let counts: [Int]?
        if reader.hasTag(countsTag) || reader.hasTag(layout.tiled ? 279 : 325) {
            guard let listed = reader.array(ofTag: countsTag) ?? reader.array(ofTag: layout.tiled ? 279 : 325) else {
                return unreadable([countsTag, layout.tiled ? 279 : 325], countsName)
            }
            if listed.count < layout.needed {
                return outOfBounds(
                    "\(shortfall(listed.count)) in \(countsName); libtiff "
                        + "pads the list with zero byte counts and fails reading those \(what)s (\"Invalid strip "
                        + "byte count 0\"), so the rest of the image is never shown.")
            }
            counts = Array(listed.prefix(layout.needed))
        } else if layout.needed == 1 || compression == 6 {
            counts = nil  // "missing required StripByteCounts field, calculating from imagelength"
        } else {
            return parse.corrupt(
                "no StripByteCounts for \(layout.needed) \(what)s; libtiff refuses the directory (\"MissingRequired\")."
            )
        }
        let used = Array(offsets.prefix(layout.needed))
        // A single strip whose count is 0 (or, uncompressed, too small or too large) is re-estimated by libtiff
        // (`ByteCountLooksBad`, "Bogus StripByteCounts"), as uncompressed contiguous strips whose first two counts
        // differ are ("Wrong StripByteCounts"): the estimate is the rows' size, judged below.
        let estimated: Bool = {
            guard let counts else { return true }
            if !layout.tiled, layout.needed == 1, used[0] != 0 {
                return counts[0] == 0 || (layout.uncompressed && counts[0] > total - Swift.min(used[0], total))
            }
            return !layout.tiled && layout.chunky && layout.uncompressed && layout.needed > 2 && counts[0] != counts[1]
                && counts[0] != 0 && counts[1] != 0
        }()
        if let index = used.indices.first(where: { used[$0] >= total }) {
            return outOfBounds(
                "\(what) \(index + 1) of \(layout.needed) starts at byte \(saturatedText(used[index])), past the end "
                    + "of the file (\(total) bytes); decoders cannot read its pixels (libtiff: \"Read error on "
                    + "strip\").")
        }
        let rowBytes = tiffRowBytes(reader, layout)
        if estimated {
            // The strips libtiff reads are the rows themselves (uncompressed) or run to the end of the file.
            guard layout.uncompressed, let rowBytes else { return }
            if let index = used.indices.first(where: { index in
                let (end, overflow) = used[index].addingReportingOverflow(
                    saturatingProduct(layout.rows(inStrip: index), rowBytes))
                return overflow || end > total
            }) {
                return parse.ranOut("the pixel data (\(what) \(index + 1) of \(layout.needed) lacks rows)")
            }
            if let counts, let end = zip(used, counts).map({ saturatingSum($0, $1) }).max(), end > total {
                return parse.ranOut(
                    "its strip byte counts (they reach byte \(saturatedText(end))); every row of pixels is there",
                    severity: .warning)
            }
            return
        }
        guard let counts else { return }
        if let index = counts.indices.first(where: { counts[$0] == 0 }) {
            return outOfBounds(
                "\(what) \(index + 1) of \(layout.needed) has a byte count of 0; libtiff fails reading it (\"Invalid "
                    + "strip byte count 0\") and its rows are never shown.")
        }
        if let index = used.indices.first(where: { used[$0].addingReportingOverflow(counts[$0]).overflow }) {
            return outOfBounds(
                "\(what) \(index + 1) of \(layout.needed) claims \(saturatedText(counts[index])) bytes from byte "
                    + "\(saturatedText(used[index])): the end overflows 64 bits, and libtiff refuses it (\"Invalid "
                    + "strip byte count\" / \"Read error on strip\").")
        }
        guard let end = zip(used, counts).map({ $0 + $1 }).max(), end > total else { return }
        if !layout.tiled, layout.uncompressed, layout.chunky, let rowBytes {
            let complete = used.indices.allSatisfy { index in
                let (end, overflow) = used[index].addingReportingOverflow(
                    saturatingProduct(layout.rows(inStrip: index), rowBytes))
                return !overflow && end <= total
            }
            if complete {
                return parse.ranOut(
                    "its strip byte counts (they reach byte \(end)); every row of pixels is there", severity: .warning)
            }
        }
        parse.ranOut("the pixel data (the \(what)s end at byte \(end))")
    }

    /// Bytes in one row of one plane (BitsPerSample × SamplesPerPixel, rounded up to bytes); nil when unknown.
    private static func tiffRowBytes(_ reader: TIFFReader, _ layout: TIFFLayout) -> Int? {
        let bits = reader.array(ofTag: 258) ?? [1]
        guard let first = bits.first else { return nil }
        let bitsPerPixel: Int
        if layout.chunky {
            bitsPerPixel = bits.count == 1 ? saturatingProduct(first, layout.samplesPerPixel) : bits.reduce(0, &+)
        } else {
            bitsPerPixel = first
        }
        return (saturatingProduct(layout.width, bitsPerPixel) &+ 7) / 8
    }

    private static func saturatingSum(_ first: Int, _ second: Int) -> Int {
        let (sum, overflow) = first.addingReportingOverflow(second)
        return overflow ? Int.max : sum
    }

    /// A byte position for messages: "beyond 2⁶³" for the saturated ones.
    private static func saturatedText(_ value: Int) -> String { value == Int.max ? "beyond 2⁶³" : "\(value)" }
}
