/// JPEG: walks marker segments from SOI, skipping each by its length, until a frame header (SOF0…SOF15 except
/// DHT, JPG and DAC) gives the size. Fill bytes (`FF FF …`), RST and other standalone markers are stepped over;
/// an EXIF APP1 seen on the way supplies the orientation.
enum JPEGHeader {
    static func parse(_ parse: inout HeaderParse, maxSegments: Int) {
        let bytes = parse.bytes
        var offset = 2
        var strayBytes = 0
        for _ in 0..<maxSegments {
            guard offset < bytes.count else { return parse.ranOut("the markers before the frame header") }
            // libjpeg skips "extraneous bytes" before a marker with a warning; do the same (one pass over them).
            while offset < bytes.count, bytes[offset] != 0xFF {
                strayBytes += 1
                offset += 1
            }
            guard offset < bytes.count else { return parse.ranOut("the markers before the frame header") }
            var markerOffset = offset + 1
            while markerOffset < bytes.count, bytes[markerOffset] == 0xFF { markerOffset += 1 }  // fill bytes
            guard let marker = bytes.u8(markerOffset) else { return parse.ranOut("a marker") }
            switch marker {
            case 0x00, 0x01, 0xD0...0xD8:
                // Stuffed zero, TEM, RSTn, a repeated SOI: no length field follows.
                offset = markerOffset + 1
                continue
            case 0xD9:
                return parse.corrupt("the image ends (EOI) before any frame header gives its size.")
            case 0xDA:
                return parse.corrupt("image data (SOS) starts before any frame header gives its size.")
            default:
                break
            }
            guard let length = bytes.u16be(markerOffset + 1) else {
                return parse.ranOut("the length of marker FF\(hex(marker))")
            }
            guard length >= 2 else {
                return parse.corrupt(
                    "marker FF\(hex(marker)) at byte \(markerOffset - 1) has segment length \(length).")
            }
            let payload = markerOffset + 3
            if isStartOfFrame(marker) {
                guard let height = bytes.u16be(payload + 1), let width = bytes.u16be(payload + 3) else {
                    return parse.ranOut("the frame header")
                }
                guard width > 0 else { return parse.corrupt("the frame header says the width is 0.") }
                guard height > 0 else {
                    // Height 0 defers the size to a DNL marker after the first scan; iOS rarely copes.
                    parse.header.width = width
                    return parse.corrupt("the frame header defers the height to a DNL marker.", severity: .warning)
                }
                parse.setSize(width: width, height: height)
                if strayBytes > 0 {
                    parse.corrupt("\(strayBytes) stray bytes between markers.", severity: .warning)
                }
                checkEndOfImage(&parse)
                return
            }
            if marker == 0xE1, bytes.matches("Exif\0\0", at: payload),
                let orientation = TIFFReader(bytes, base: payload + 6, end: payload + length - 2)?.orientation()
            {
                parse.header.swapsAxes = (5...8).contains(orientation)
            }
            offset = payload + length - 2
        }
        parse.corrupt("no frame header within the first \(maxSegments) markers.")
    }

    /// SOF0…SOF15 except DHT (C4), JPG (C8) and DAC (CC), which share the range.
    static func isStartOfFrame(_ marker: Int) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// A whole file should end with EOI (`FF D9`), maybe followed by padding; without it the image is usually cut
    /// off and iOS draws the missing rows grey. Only the last 4 KB are searched, so the cost does not grow.
    private static func checkEndOfImage(_ parse: inout HeaderParse) {
        guard parse.complete else { return }
        let bytes = parse.bytes
        let start = Swift.max(bytes.count - 4096, 1)
        var index = bytes.count - 1
        while index >= start {
            if bytes[index] == 0xD9, bytes[index - 1] == 0xFF { return }
            index -= 1
        }
        parse.ranOut("the image data (no end-of-image marker)", severity: .warning)
    }

    private static func hex(_ value: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[(value >> 4) & 0xF], digits[value & 0xF]])
    }
}

/// Reads IFD0 of a TIFF structure (a TIFF file, or the EXIF block inside a JPEG APP1), bounded by `end`.
struct TIFFReader {
    let bytes: [UInt8]
    let base: Int
    let end: Int
    let bigEndian: Bool

    init?(_ bytes: [UInt8], base: Int, end: Int) {
        guard bytes.has(8, at: base) else { return nil }
        if bytes.matches("MM\0*", at: base) {
            bigEndian = true
        } else if bytes.matches("II*\0", at: base) {
            bigEndian = false
        } else {
            return nil
        }
        self.bytes = bytes
        self.base = base
        self.end = Swift.min(end, bytes.count)
    }

    private func u16(_ offset: Int) -> Int? {
        guard offset + 2 <= end else { return nil }
        return bigEndian ? bytes.u16be(offset) : bytes.u16le(offset)
    }

    private func u32(_ offset: Int) -> Int? {
        guard offset + 4 <= end else { return nil }
        return bigEndian ? bytes.u32be(offset) : bytes.u32le(offset)
    }

    /// The value of a SHORT or LONG tag in IFD0, or nil when absent or out of bounds.
    func value(ofTag wanted: Int) -> Int? {
        guard let ifdOffset = u32(base + 4), let count = u16(base + ifdOffset) else { return nil }
        let entries = base + ifdOffset + 2
        for index in 0..<Swift.min(count, 1024) {
            let entry = entries + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2) else { return nil }
            guard tag == wanted else { continue }
            switch type {
            case 3: return u16(entry + 8)
            case 4: return u32(entry + 8)
            default: return nil
            }
        }
        return nil
    }

    func orientation() -> Int? { value(ofTag: 0x0112) }

    /// Where IFD0 ends (count, 12-byte entries, next-IFD offset); nil when its offset cannot be read.
    func endOfIFD() -> Int? {
        guard let ifdOffset = u32(base + 4) else { return nil }
        guard let count = u16(base + ifdOffset) else { return base + ifdOffset + 2 }
        return base + ifdOffset + 2 + count * 12 + 4
    }

    /// The end of the last pixel strip (StripOffsets + StripByteCounts), for single-strip and multi-strip files.
    /// Nil when the tags are missing or out of bounds.
    func endOfStrips() -> Int? {
        guard let offsets = array(ofTag: 273), let counts = array(ofTag: 279), offsets.count == counts.count else {
            return nil
        }
        return zip(offsets, counts).map { $0 + $1 }.max()
    }

    /// A SHORT or LONG tag's values (inline when they fit in four bytes); at most 65,536 of them.
    private func array(ofTag wanted: Int) -> [Int]? {
        guard let ifdOffset = u32(base + 4), let count = u16(base + ifdOffset) else { return nil }
        for index in 0..<Swift.min(count, 1024) {
            let entry = base + ifdOffset + 2 + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let valueCount = u32(entry + 4) else { return nil }
            guard tag == wanted else { continue }
            let width = type == 3 ? 2 : type == 4 ? 4 : 0
            guard width > 0, valueCount > 0, valueCount <= 65_536 else { return nil }
            let start = valueCount * width <= 4 ? entry + 8 : u32(entry + 8).map { base + $0 }
            guard let start else { return nil }
            var values: [Int] = []
            for item in 0..<valueCount {
                guard let value = width == 2 ? u16(start + item * 2) : u32(start + item * 4) else { return nil }
                values.append(value)
            }
            return values
        }
        return nil
    }
}
