/// HEIC/HEIF/AVIF: the size lives in the `ispe` property of the primary item:
/// `meta` → `pitm` (primary item id), `iprp` → `ipco` (the properties) + `ipma` (item → property indices).
/// Only those boxes are descended into, each walk is capped by `maxBoxes`.
enum HEIFHeader {
    static func parse(_ parse: inout HeaderParse, maxBoxes: Int) {
        let bytes = parse.bytes
        let brands = MediaSniffer.ftypBrands(bytes)
        let sequenceBrands: Set<String> = ["avis", "msf1", "hevc", "hevx"]
        if let major = brands.major, sequenceBrands.contains(major) { parse.header.animated = true }

        let top = walkISOBoxes(bytes, from: 0, to: parse.complete ? bytes.count : Int.max, maxBoxes: maxBoxes)
        guard let meta = top.boxes.first(where: { $0.type == "meta" }) else {
            return report(top.stop, &parse, missing: "'meta'", topLevel: true)
        }
        guard meta.end <= bytes.count else { return parse.ranOut("the 'meta' box") }
        let metaChildren = walkISOBoxes(bytes, from: meta.payload + 4, to: meta.end, maxBoxes: maxBoxes)
        if parse.complete, top.stop != .end {
            // The header is readable but the image data ('mdat' usually follows 'meta') is cut off.
            report(top.stop, &parse, missing: "the image data", topLevel: true)
        } else if parse.complete, let iloc = metaChildren.boxes.first(where: { $0.type == "iloc" }),
            let dataEnd = fileDataEnd(bytes, iloc), dataEnd > bytes.count
        {
            parse.ranOut("the image data (the item locations reach byte \(dataEnd))")
        }
        guard let iprp = metaChildren.boxes.first(where: { $0.type == "iprp" }) else {
            return report(metaChildren.stop, &parse, missing: "'iprp'", topLevel: false)
        }
        let iprpChildren = walkISOBoxes(bytes, from: iprp.payload, to: iprp.end, maxBoxes: maxBoxes)
        guard let ipco = iprpChildren.boxes.first(where: { $0.type == "ipco" }) else {
            return report(iprpChildren.stop, &parse, missing: "'ipco'", topLevel: false)
        }
        let properties = walkISOBoxes(bytes, from: ipco.payload, to: ipco.end, maxBoxes: maxBoxes).boxes

        // The primary item's own properties; without pitm/ipma fall back to the largest ispe (a grid's full size
        // is larger than its tiles' and thumbnails').
        var chosen = properties
        if let pitm = metaChildren.boxes.first(where: { $0.type == "pitm" }), let primary = itemID(bytes, pitm),
            let ipma = iprpChildren.boxes.first(where: { $0.type == "ipma" }),
            let indices = propertyIndices(bytes, ipma, item: primary)
        {
            chosen = indices.compactMap { $0 >= 1 && $0 <= properties.count ? properties[$0 - 1] : nil }
        }
        let sizes = chosen.filter { $0.type == "ispe" }.compactMap { box -> (Int, Int)? in
            guard let width = bytes.u32be(box.payload + 4), let height = bytes.u32be(box.payload + 8),
                box.payload + 12 <= box.end
            else { return nil }
            return (width, height)
        }
        guard let size = sizes.max(by: { saturatingProduct($0.0, $0.1) < saturatingProduct($1.0, $1.1) }) else {
            return parse.corrupt("the primary image has no 'ispe' (image size) property.")
        }
        guard size.0 > 0, size.1 > 0 else { return parse.corrupt("'ispe' says \(size.0)×\(size.1) pixels.") }
        parse.setSize(width: size.0, height: size.1)
        if let irot = chosen.first(where: { $0.type == "irot" }), let angle = bytes.u8(irot.payload) {
            parse.header.swapsAxes = angle & 1 == 1  // 90° or 270°
        }
    }

    /// Turns a walk that stopped before finding `box` into a finding: at the top level of a whole file a box that
    /// runs past the end means the file is cut off; inside a box it means the box structure is corrupt.
    private static func report(_ stop: ISOBoxWalkStop, _ parse: inout HeaderParse, missing box: String, topLevel: Bool)
    {
        switch stop {
        case .ranOut: parse.ranOut("the boxes before \(box)")
        case .badSize(let offset, let type, let size):
            parse.corrupt("box '\(type)' at byte \(offset) has the impossible size \(size).")
        case .overruns(let type, let offset, let size, let room):
            if topLevel {
                parse.ranOut("box '\(type)' (it claims \(size) bytes, \(room) remain)")
            } else {
                parse.corrupt("box '\(type)' at byte \(offset) claims \(size) bytes but only \(room) remain.")
            }
        case .tooManyBoxes: parse.corrupt("more boxes than the walk allows before \(box).")
        case .end: parse.corrupt("there is no \(box) box.")
        }
    }

    /// `iloc`: the end of the furthest item extent stored in the file itself (construction method 0), so a file
    /// cut exactly between boxes is still noticed. Nil when the box cannot be read; bounded by the box's end.
    private static func fileDataEnd(_ bytes: [UInt8], _ iloc: ISOBox) -> Int? {
        let end = Swift.min(iloc.end, bytes.count)
        guard let version = bytes.u8(iloc.payload), let sizes = bytes.u16be(iloc.payload + 4), version <= 2 else {
            return nil
        }
        let offsetSize = sizes >> 12
        let lengthSize = (sizes >> 8) & 0xF
        let baseOffsetSize = (sizes >> 4) & 0xF
        let indexSize = version >= 1 ? sizes & 0xF : 0
        var offset = iloc.payload + 6
        func read(_ size: Int) -> Int? {
            guard offset + size <= end else { return nil }
            defer { offset += size }
            switch size {
            case 0: return 0
            case 4: return bytes.u32be(offset)
            case 8: return bytes.u64be(offset)
            default: return nil  // only 0, 4 and 8 are allowed
            }
        }
        func read16() -> Int? {
            guard offset + 2 <= end else { return nil }
            defer { offset += 2 }
            return bytes.u16be(offset)
        }
        guard let itemCount = version < 2 ? read16() : read(4) else { return nil }
        var furthest = 0
        for _ in 0..<itemCount {
            guard (version < 2 ? read16() : read(4)) != nil else { return nil }
            var method = 0
            if version >= 1 {
                guard let field = read16() else { return nil }
                method = field & 0xF
            }
            guard read16() != nil, let base = read(baseOffsetSize), let extents = read16() else { return nil }
            for _ in 0..<extents {
                guard read(indexSize) != nil, let extentOffset = read(offsetSize), let length = read(lengthSize) else {
                    return nil
                }
                let (sum, overflow) = base.addingReportingOverflow(extentOffset)
                let (extentEnd, overflow2) = sum.addingReportingOverflow(length)
                if method == 0, !overflow, !overflow2 { furthest = Swift.max(furthest, extentEnd) }
            }
        }
        return furthest
    }

    /// `pitm`: version 0 stores a 16-bit item id, later versions a 32-bit one.
    private static func itemID(_ bytes: [UInt8], _ pitm: ISOBox) -> Int? {
        guard let version = bytes.u8(pitm.payload) else { return nil }
        return version == 0 ? bytes.u16be(pitm.payload + 4) : bytes.u32be(pitm.payload + 4)
    }

    /// `ipma`: the 1-based `ipco` indices associated with `item`. Bounded by the box's own end.
    private static func propertyIndices(_ bytes: [UInt8], _ ipma: ISOBox, item: Int) -> [Int]? {
        guard let version = bytes.u8(ipma.payload), let flags = bytes.u8(ipma.payload + 3),
            let entryCount = bytes.u32be(ipma.payload + 4)
        else { return nil }
        let end = Swift.min(ipma.end, bytes.count)
        let wideIDs = version >= 1
        let wideIndices = flags & 1 == 1
        var offset = ipma.payload + 8
        for _ in 0..<entryCount {
            guard offset < end, let id = wideIDs ? bytes.u32be(offset) : bytes.u16be(offset) else { return nil }
            offset += wideIDs ? 4 : 2
            guard let count = bytes.u8(offset) else { return nil }
            offset += 1
            var indices: [Int] = []
            for _ in 0..<count {
                if wideIndices {
                    guard let value = bytes.u16be(offset), offset + 2 <= end else { return nil }
                    indices.append(value & 0x7FFF)
                    offset += 2
                } else {
                    guard let value = bytes.u8(offset), offset < end else { return nil }
                    indices.append(value & 0x7F)
                    offset += 1
                }
            }
            if id == item { return indices }
        }
        return nil
    }
}
