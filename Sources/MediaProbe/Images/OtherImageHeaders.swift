/// BMP, TIFF and ICO: formats iOS shows but banners rarely use; only their size is read.
enum OtherImageHeaders {
    static func parseBMP(_ parse: inout HeaderParse) {
        let bytes = parse.bytes
        if parse.complete, let fileSize = bytes.u32le(2), fileSize > bytes.count {
            parse.ranOut("the pixel data (the header claims \(fileSize) bytes)")
        }
        guard let dibSize = bytes.u32le(14) else { return parse.ranOut("the bitmap header") }
        if dibSize == 12 {
            guard let width = bytes.u16le(18), let height = bytes.u16le(20) else {
                return parse.ranOut("the bitmap header")
            }
            return setSize(&parse, width: width, height: height)
        }
        guard let width = bytes.u32le(18), let rawHeight = bytes.u32le(22) else {
            return parse.ranOut("the bitmap header")
        }
        // Heights are signed: a negative height means rows are stored top-down.
        let height = Int(Int32(bitPattern: UInt32(rawHeight))).magnitude
        setSize(&parse, width: Int(Int32(bitPattern: UInt32(width))), height: Int(height))
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
        if parse.complete, let end = reader.endOfStrips(), end > parse.bytes.count {
            parse.ranOut("the pixel data (the strips end at byte \(end))")
        }
    }

    /// ICO: the first directory entry's size; a stored 0 means 256.
    static func parseICO(_ parse: inout HeaderParse) {
        let bytes = parse.bytes
        guard let width = bytes.u8(6), let height = bytes.u8(7), let size = bytes.u32le(14),
            let offset = bytes.u32le(18)
        else { return parse.ranOut("the icon directory") }
        parse.setSize(width: width == 0 ? 256 : width, height: height == 0 ? 256 : height)
        if parse.complete, offset + size > bytes.count {
            parse.ranOut("the first icon's data (it claims bytes \(offset)…\(offset + size))")
        }
    }

    private static func setSize(_ parse: inout HeaderParse, width: Int, height: Int) {
        guard width > 0, height > 0 else { return parse.corrupt("the header says \(width)×\(height) pixels.") }
        parse.setSize(width: width, height: height)
    }
}
