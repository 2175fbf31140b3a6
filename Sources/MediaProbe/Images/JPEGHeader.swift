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

/// Reads IFD0 of a TIFF structure (a TIFF file, or the EXIF block inside a JPEG APP1), bounded by `end`. Classic
/// TIFF (`II*\0`, `MM\0*`: 32-bit offsets, 12-byte entries) and BigTIFF (`II+\0`, `MM\0+`: 64-bit offsets,
/// 20-byte entries, LONG8 values; libtiff and ImageIO read both) share the code.
struct TIFFReader {
    let bytes: [UInt8]
    let base: Int
    let end: Int
    let bigEndian: Bool
    let big: Bool

    init?(_ bytes: [UInt8], base: Int, end: Int) {
        guard bytes.has(8, at: base) else { return nil }
        if bytes.matches("MM\0*", at: base) || bytes.matches("II*\0", at: base) {
            big = false
        } else if bytes.matches("MM\0+", at: base) || bytes.matches("II+\0", at: base) {
            big = true
        } else {
            return nil
        }
        bigEndian = bytes[base] == UInt8(ascii: "M")
        self.bytes = bytes
        self.base = base
        self.end = Swift.min(end, bytes.count)
        // BigTIFF: bytesize 8 and a zero word follow the version (the BigTIFF design, as libtiff checks it).
        if big, u16(base + 4) != 8 || u16(base + 6) != 0 { return nil }
    }

    private func u16(_ offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= end else { return nil }
        return bigEndian ? bytes.u16be(offset) : bytes.u16le(offset)
    }

    private func u32(_ offset: Int) -> Int? {
        guard offset >= 0, offset + 4 <= end else { return nil }
        return bigEndian ? bytes.u32be(offset) : bytes.u32le(offset)
    }

    private func u64(_ offset: Int) -> Int? {
        guard offset >= 0, offset + 8 <= end, let high = u32(offset + (bigEndian ? 0 : 4)),
            let low = u32(offset + (bigEndian ? 4 : 0)), high < 1 << 31
        else { return nil }
        return high << 32 | low
    }

    /// Offset of IFD0 (relative to `base`).
    private var ifdOffset: Int? { big ? u64(base + 8) : u32(base + 4) }
    private var entrySize: Int { big ? 20 : 12 }

    /// IFD0's entry count and the offset of its first entry.
    private func directory() -> (count: Int, entries: Int)? {
        guard let ifdOffset else { return nil }
        let start = base + ifdOffset
        guard let count = big ? u64(start) : u16(start) else { return nil }
        return (count, start + (big ? 8 : 2))
    }

    /// The entry of `wanted` in IFD0 (at most 1,024 entries are looked at): its type, count and value field.
    private func entry(ofTag wanted: Int) -> (type: Int, count: Int, field: Int)? {
        guard let (count, entries) = directory() else { return nil }
        for index in 0..<Swift.min(count, 1024) {
            let entry = entries + index * entrySize
            guard let tag = u16(entry), let type = u16(entry + 2),
                let valueCount = big ? u64(entry + 4) : u32(entry + 4)
            else { return nil }
            if tag == wanted { return (type, valueCount, entry + (big ? 12 : 8)) }
        }
        return nil
    }

    private func read(type: Int, at offset: Int) -> Int? {
        switch type {
        case 3: u16(offset)
        case 4: u32(offset)
        case 16 where big: u64(offset)  // LONG8
        default: nil
        }
    }

    /// A LONG8 of 2⁶³ or more (beyond any file) as `Int.max`, so a strip offset or byte count that large is still
    /// seen, as one past the end of the file.
    private func readSaturating(type: Int, at offset: Int) -> Int? {
        guard type == 16, big, offset >= 0, offset + 8 <= end else { return read(type: type, at: offset) }
        guard let high = u32(offset + (bigEndian ? 0 : 4)), let low = u32(offset + (bigEndian ? 4 : 0)) else {
            return nil
        }
        return high >= 1 << 31 ? Int.max : high << 32 | low
    }

    /// Whether IFD0 has an entry for `tag` (readable or not).
    func hasTag(_ tag: Int) -> Bool { entry(ofTag: tag) != nil }

    /// Where `tag`'s values end (in the entry's value field, or out of line), saturating; nil when the entry is
    /// absent, its type unknown, or the offset of its values unreadable.
    func valuesEnd(ofTag wanted: Int) -> Int? {
        guard let entry = entry(ofTag: wanted) else { return nil }
        let width = Self.width(of: entry.type)
        guard width > 0 else { return nil }
        let (size, overflow) = entry.count.multipliedReportingOverflow(by: width)
        guard !overflow else { return Int.max }
        if size <= (big ? 8 : 4) { return entry.field + size }
        guard let offset = big ? u64(entry.field) : u32(entry.field) else { return nil }
        let (start, overflow2) = base.addingReportingOverflow(offset)
        let (end, overflow3) = start.addingReportingOverflow(size)
        return overflow2 || overflow3 ? Int.max : end
    }

    private static func width(of type: Int) -> Int {
        switch type {
        case 3: 2
        case 4: 4
        case 16: 8
        default: 0
        }
    }

    /// The value of a SHORT, LONG (or BigTIFF LONG8) tag in IFD0, or nil when absent or out of bounds.
    func value(ofTag wanted: Int) -> Int? {
        guard let entry = entry(ofTag: wanted) else { return nil }
        return read(type: entry.type, at: entry.field)
    }

    func orientation() -> Int? { value(ofTag: 0x0112) }

    /// Where IFD0 ends (count, entries, next-IFD offset); nil when its offset cannot be read.
    func endOfIFD() -> Int? {
        guard let ifdOffset else { return nil }
        let start = base + ifdOffset
        guard let (count, entries) = directory() else { return start + (big ? 8 : 2) }
        let (size, overflow) = count.multipliedReportingOverflow(by: entrySize)
        return overflow ? Int.max : entries + size + (big ? 8 : 4)
    }

    /// A SHORT, LONG or LONG8 tag's values (inline when they fit in the value field); at most 65,536 of them. A
    /// LONG8 of 2⁶³ or more reads as `Int.max`.
    func array(ofTag wanted: Int) -> [Int]? {
        guard let entry = entry(ofTag: wanted) else { return nil }
        let width = Self.width(of: entry.type)
        guard width > 0, entry.count > 0, entry.count <= 65_536, entry.type != 16 || big else { return nil }
        let inline = entry.count * width <= (big ? 8 : 4)
        let start = inline ? entry.field : (big ? u64(entry.field) : u32(entry.field)).map { base + $0 }
        guard let start else { return nil }
        var values: [Int] = []
        for item in 0..<entry.count {
            guard let value = readSaturating(type: entry.type, at: start + item * width) else { return nil }
            values.append(value)
        }
        return values
    }
}
