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
        let itemDataEnd = metaChildren.boxes.first(where: { $0.type == "iloc" }).flatMap { fileDataEnd(bytes, $0) }
        if parse.complete, top.stop != .end, case .overruns(let type, _, let size, let room) = top.stop,
            let itemDataEnd, itemDataEnd <= bytes.count
        {
            // A box ('mdat' usually) claims more bytes than the file has, but every item extent 'iloc' lists —
            // the primary image's among them — is in the file. libheif reads items through 'iloc' only (it never
            // checks that 'mdat' is whole), so the image decodes: a warning, as the truncation rule says.
            parse.ranOut(
                "box '\(type)' (it claims \(size) bytes, \(room) remain), after the data of every item",
                severity: .warning)
        } else if parse.complete, top.stop != .end {
            // The header is readable but the image data ('mdat' usually follows 'meta') is cut off.
            report(top.stop, &parse, missing: "the image data", topLevel: true)
        } else if parse.complete, let dataEnd = itemDataEnd, dataEnd > bytes.count {
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
        // Transformative properties apply in the order they are associated in 'ipma' (HEIF, ISO/IEC 23008-12:
        // "in the order of their appearance in the ItemPropertyAssociation"; MIAF fixes that order to clap, irot,
        // imir). libheif's `ImageItem::decode_image` walks the item's properties in that order: clap crops the size
        // it has at that point, irot 90°/270° swaps it, imir keeps it. The result is the size shown, so no swap is
        // left for the sniffer to do.
        var shown = size
        for property in chosen {
            switch property.type {
            case "clap":
                if let cropped = cleanAperture(bytes, property, width: shown.0, height: shown.1) {
                    shown = cropped
                } else {
                    parse.corrupt("the 'clap' (clean aperture) property is invalid; it is ignored.", severity: .warning)
                }
            case "irot":
                if let angle = bytes.u8(property.payload), angle & 1 == 1 { shown = (shown.1, shown.0) }  // 90°/270°
            default:
                break
            }
        }
        parse.setSize(width: shown.0, height: shown.1)
    }

    /// `clap` (ISO/IEC 14496-12 §12.1.4): clean aperture width, height, horizontal and vertical offset, each a
    /// fraction of two 32-bit numbers (offsets signed). The kept size is what libheif computes (box.cc,
    /// `Box_clap::left_rounded` … `bottom_rounded`, then the clamp in `ImageItem::decode_image`): the centre is
    /// `offset + (size − 1) / 2`; left = ⌊centre − (aperture − 1) / 2⌋, right = round(left + aperture − 1);
    /// top = round(centre − (aperture − 1) / 2), bottom = round(top + aperture − 1); both clamped to the image,
    /// the size is `right − left + 1`. Nil for a zero denominator or an aperture that leaves no pixel (libheif:
    /// "invalid clean aperture").
    private static func cleanAperture(_ bytes: [UInt8], _ clap: ISOBox, width: Int, height: Int) -> (Int, Int)? {
        guard clap.payload + 32 <= clap.end else { return nil }
        var values: [Int] = []
        for index in 0..<8 {
            guard let value = bytes.u32be(clap.payload + index * 4) else { return nil }
            values.append(value)
        }
        func fraction(_ index: Int, signed: Bool) -> Double? {
            guard values[index + 1] != 0 else { return nil }
            let numerator = signed ? Double(Int32(bitPattern: UInt32(values[index]))) : Double(values[index])
            return numerator / Double(values[index + 1])
        }
        guard let apertureWidth = fraction(0, signed: false), let apertureHeight = fraction(2, signed: false),
            let horizontal = fraction(4, signed: true), let vertical = fraction(6, signed: true)
        else { return nil }
        /// `Fraction::round()`: half up.
        func round(_ value: Double) -> Double { (value + 0.5).rounded(.down) }
        func kept(_ aperture: Double, _ offset: Double, _ size: Int, firstRoundsDown: Bool) -> Int? {
            let centre = offset + Double(size - 1) / 2
            let start = centre - (aperture - 1) / 2
            let first = firstRoundsDown ? start.rounded(.down) : round(start)
            let last = Swift.min(round(first + aperture - 1), Double(size - 1))
            let clampedFirst = Swift.max(first, 0)
            guard clampedFirst.isFinite, last.isFinite, last >= clampedFirst else { return nil }
            return Int(last - clampedFirst) + 1
        }
        guard let keptWidth = kept(apertureWidth, horizontal, width, firstRoundsDown: true),
            let keptHeight = kept(apertureHeight, vertical, height, firstRoundsDown: false)
        else { return nil }
        return (keptWidth, keptHeight)
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
