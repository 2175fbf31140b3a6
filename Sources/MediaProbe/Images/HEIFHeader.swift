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
        checkItemData(&parse, top.stop, metaChildren.boxes, maxBoxes: maxBoxes)
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

    /// Whether the items decoders need are in the file. libheif reads an item's data through `iloc` only when it
    /// needs that item (`Box_iloc::read_data`: "Extent in iloc box references data outside of file bounds"), and
    /// never checks that `mdat` is whole. Decoding the primary image needs the primary item, the items it is
    /// derived from through `dimg` (grid tiles, `iden`, `iovl` inputs) and its alpha plane (an `auxl` item whose
    /// `auxC` is one of the alpha URNs: `ImageItem::decode_image` fails when the alpha image does); opening the
    /// file needs the Exif and XMP (`mime`) items (`HeifContext::interpret_heif_file`: "these item types should
    /// have data"). Any of those cut off is an error. A thumbnail (`thmb`), another auxiliary image (a depth map)
    /// or any other item cut off leaves the primary image whole: the user sees it, so a warning. (libheif before
    /// 1.18 read every item while opening and refused such a file; 1.18, commit 923411cc, stopped failing on items
    /// it does not need.) A top-level box (`mdat` usually) that claims more bytes than the file has is judged the
    /// same way: the needed items decide.
    private static func checkItemData(
        _ parse: inout HeaderParse, _ stop: ISOBoxWalkStop, _ metaChildren: [ISOBox], maxBoxes: Int
    ) {
        guard parse.complete else { return }
        let bytes = parse.bytes
        let ends = metaChildren.first(where: { $0.type == "iloc" }).flatMap { itemDataEnds(bytes, $0) }
        let items = HEIFItems(bytes, metaChildren, maxBoxes: maxBoxes)
        // Without a primary item (or its references) every item counts as needed.
        let needed = ends.map { ends in ends.filter { items?.needed.contains($0.key) ?? true } }
        let neededEnd = needed.map { $0.values.max() ?? 0 }
        let secondary = ends.flatMap { ends in
            ends.filter { $0.value > bytes.count && !(items?.needed.contains($0.key) ?? true) }.min { $0.key < $1.key }
        }
        func secondaryCut(_ item: (key: Int, value: Int)) -> String {
            let role = items?.role(of: item.key) ?? "an item the primary image does not need"
            let reach = item.value == Int.max ? "beyond 2⁶³" : "\(item.value)"
            return "the data of item \(item.key) (\(role); it reaches byte \(reach)); the primary image, its alpha "
                + "and metadata are whole, so decoders show it"
        }
        if stop != .end, case .overruns(let type, _, let size, let room) = stop, let neededEnd,
            neededEnd <= bytes.count
        {
            // A box ('mdat' usually) claims more bytes than the file has, but every extent the primary image
            // needs is in the file.
            if let secondary {
                return parse.ranOut(secondaryCut(secondary), severity: .warning)
            }
            return parse.ranOut(
                "box '\(type)' (it claims \(size) bytes, \(room) remain), after the data of every item",
                severity: .warning)
        }
        if stop != .end {
            // The header is readable but the image data ('mdat' usually follows 'meta') is cut off.
            return report(stop, &parse, missing: "the image data", topLevel: true)
        }
        if let neededEnd, neededEnd > bytes.count {
            let reach = neededEnd == Int.max ? "beyond 2⁶³" : "\(neededEnd)"
            return parse.ranOut("the image data (the item locations reach byte \(reach))")
        }
        if let secondary { parse.ranOut(secondaryCut(secondary), severity: .warning) }
    }

    /// The items of a HEIF file that decoding its primary image needs (see ``checkItemData``), from `pitm`, `iref`,
    /// `iinf` and the `auxC` properties. Nil without a primary item.
    struct HEIFItems {
        /// The primary item, its `dimg` inputs and alpha planes (transitively), and the Exif / XMP items.
        private(set) var needed: Set<Int> = []
        private var references: [(type: String, from: Int, to: [Int])] = []
        private var types: [Int: String] = [:]

        /// The alpha URNs libheif's `HeifContext::interpret_heif_file` recognises in `auxC`.
        static let alphaTypes: Set<String> = [
            "urn:mpeg:avc:2015:auxid:1", "urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha",
        ]

        init?(_ bytes: [UInt8], _ metaChildren: [ISOBox], maxBoxes: Int) {
            guard let pitm = metaChildren.first(where: { $0.type == "pitm" }),
                let primary = HEIFHeader.itemID(bytes, pitm)
            else {
                return nil
            }
            if let iref = metaChildren.first(where: { $0.type == "iref" }) {
                references = Self.references(bytes, iref, maxBoxes: maxBoxes)
            }
            var contentTypes: [Int: String] = [:]
            if let iinf = metaChildren.first(where: { $0.type == "iinf" }) {
                (types, contentTypes) = Self.itemTypes(bytes, iinf, maxBoxes: maxBoxes)
            }
            let auxTypes = Self.auxiliaryTypes(bytes, metaChildren, maxBoxes: maxBoxes)
            needed = [primary]
            // Each round adds at least one item, so at most as many rounds as there are references.
            for _ in 0...references.count {
                var grew = false
                for reference in references {
                    if reference.type == "dimg", needed.contains(reference.from) {
                        for input in reference.to where needed.insert(input).inserted { grew = true }
                    } else if reference.type == "auxl", !needed.contains(reference.from),
                        reference.to.contains(where: { needed.contains($0) }),
                        auxTypes[reference.from].map({ Self.alphaTypes.contains($0) }) ?? false
                    {
                        needed.insert(reference.from)
                        grew = true
                    }
                }
                if !grew { break }
            }
            for (item, type) in types
            where type == "Exif" || (type == "mime" && contentTypes[item]?.hasPrefix("image/") != true) {
                needed.insert(item)
            }
        }

        /// What an item the primary image does not need is, for messages.
        func role(of item: Int) -> String {
            let type = types[item].map { "'\($0)', " } ?? ""
            if references.contains(where: { $0.type == "thmb" && $0.from == item }) { return "\(type)a thumbnail" }
            if let owner = references.first(where: { $0.type == "dimg" && $0.to.contains(item) })?.from,
                references.contains(where: { $0.type == "thmb" && $0.from == owner })
            {
                return "\(type)part of a thumbnail"
            }
            if references.contains(where: { $0.type == "auxl" && $0.from == item }) {
                return "\(type)an auxiliary image such as a depth map"
            }
            return "\(type)an item the primary image does not need"
        }

        /// `iref`: version 0 stores 16-bit item ids, version 1 32-bit ones; each child box is one reference type.
        private static func references(_ bytes: [UInt8], _ iref: ISOBox, maxBoxes: Int) -> [(
            type: String, from: Int, to: [Int]
        )] {
            guard let version = bytes.u8(iref.payload) else { return [] }
            let width = version == 0 ? 2 : 4
            let end = Swift.min(iref.end, bytes.count)
            func id(_ offset: Int) -> Int? {
                guard offset + width <= end else { return nil }
                return width == 2 ? bytes.u16be(offset) : bytes.u32be(offset)
            }
            var found: [(type: String, from: Int, to: [Int])] = []
            for box in walkISOBoxes(bytes, from: iref.payload + 4, to: iref.end, maxBoxes: maxBoxes).boxes {
                guard let from = id(box.payload), let count = bytes.u16be(box.payload + width),
                    box.payload + width + 2 <= end
                else { continue }
                var to: [Int] = []
                for index in 0..<count {
                    guard let target = id(box.payload + width + 2 + index * width) else { break }
                    to.append(target)
                }
                found.append((box.type, from, to))
            }
            return found
        }

        /// `iinf` → `infe` (versions 2 and 3): item id, type, and a `mime` item's content type.
        private static func itemTypes(_ bytes: [UInt8], _ iinf: ISOBox, maxBoxes: Int) -> ([Int: String], [Int: String])
        {
            guard let version = bytes.u8(iinf.payload) else { return ([:], [:]) }
            var types: [Int: String] = [:]
            var contentTypes: [Int: String] = [:]
            let first = iinf.payload + 4 + (version == 0 ? 2 : 4)
            for infe in walkISOBoxes(bytes, from: first, to: iinf.end, maxBoxes: maxBoxes).boxes
            where infe.type == "infe" {
                let end = Swift.min(infe.end, bytes.count)
                guard let infeVersion = bytes.u8(infe.payload), infeVersion >= 2 else { continue }
                let idWidth = infeVersion == 2 ? 2 : 4
                let idOffset = infe.payload + 4
                guard idOffset + idWidth + 6 <= end,
                    let item = idWidth == 2 ? bytes.u16be(idOffset) : bytes.u32be(idOffset),
                    let type = bytes.fourCC(idOffset + idWidth + 2)
                else { continue }
                types[item] = type
                if type == "mime" {
                    // item_name, then content_type: NUL-terminated strings.
                    var offset = idOffset + idWidth + 6
                    while offset < end, bytes[offset] != 0 { offset += 1 }
                    let start = offset + 1
                    var stop = start
                    while stop < end, bytes[stop] != 0 { stop += 1 }
                    if start <= stop { contentTypes[item] = String(decoding: bytes[start..<stop], as: UTF8.self) }
                }
            }
            return (types, contentTypes)
        }

        /// Every item's `auxC` type (the NUL-terminated URN after the full-box header), through `ipma`.
        private static func auxiliaryTypes(_ bytes: [UInt8], _ metaChildren: [ISOBox], maxBoxes: Int) -> [Int: String] {
            guard let iprp = metaChildren.first(where: { $0.type == "iprp" }) else { return [:] }
            let children = walkISOBoxes(bytes, from: iprp.payload, to: iprp.end, maxBoxes: maxBoxes).boxes
            guard let ipco = children.first(where: { $0.type == "ipco" }),
                let ipma = children.first(where: { $0.type == "ipma" })
            else { return [:] }
            let properties = walkISOBoxes(bytes, from: ipco.payload, to: ipco.end, maxBoxes: maxBoxes).boxes
            var types: [Int: String] = [:]
            for (item, indices) in HEIFHeader.associations(bytes, ipma) {
                for index in indices where index >= 1 && index <= properties.count {
                    let property = properties[index - 1]
                    guard property.type == "auxC" else { continue }
                    let start = property.payload + 4
                    let end = Swift.min(property.end, bytes.count)
                    guard start <= end else { continue }
                    var stop = start
                    while stop < end, bytes[stop] != 0 { stop += 1 }
                    types[item] = String(decoding: bytes[start..<stop], as: UTF8.self)
                }
            }
            return types
        }
    }

    /// `iloc`: per item, the end of its furthest extent stored in the file itself (construction method 0), so a
    /// file cut exactly between boxes is still noticed. Nil when the box cannot be read; bounded by the box's end.
    private static func itemDataEnds(_ bytes: [UInt8], _ iloc: ISOBox) -> [Int: Int]? {
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
        var ends: [Int: Int] = [:]
        for _ in 0..<itemCount {
            guard let item = version < 2 ? read16() : read(4) else { return nil }
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
                if method == 0 { ends[item] = Swift.max(ends[item] ?? 0, overflow || overflow2 ? Int.max : extentEnd) }
            }
        }
        return ends
    }

    /// `pitm`: version 0 stores a 16-bit item id, later versions a 32-bit one.
    private static func itemID(_ bytes: [UInt8], _ pitm: ISOBox) -> Int? {
        guard let version = bytes.u8(pitm.payload) else { return nil }
        return version == 0 ? bytes.u16be(pitm.payload + 4) : bytes.u32be(pitm.payload + 4)
    }

    /// `ipma`: the 1-based `ipco` indices associated with `item`. Bounded by the box's own end.
    private static func propertyIndices(_ bytes: [UInt8], _ ipma: ISOBox, item: Int) -> [Int]? {
        associations(bytes, ipma).first { $0.item == item }?.indices
    }

    /// `ipma`: every item's 1-based `ipco` indices, in order, up to the first entry that does not fit the box.
    private static func associations(_ bytes: [UInt8], _ ipma: ISOBox) -> [(item: Int, indices: [Int])] {
        guard let version = bytes.u8(ipma.payload), let flags = bytes.u8(ipma.payload + 3),
            let entryCount = bytes.u32be(ipma.payload + 4)
        else { return [] }
        let end = Swift.min(ipma.end, bytes.count)
        let wideIDs = version >= 1
        let wideIndices = flags & 1 == 1
        var offset = ipma.payload + 8
        var entries: [(item: Int, indices: [Int])] = []
        for _ in 0..<entryCount {
            guard offset < end, let id = wideIDs ? bytes.u32be(offset) : bytes.u16be(offset) else { return entries }
            offset += wideIDs ? 4 : 2
            guard let count = bytes.u8(offset) else { return entries }
            offset += 1
            var indices: [Int] = []
            for _ in 0..<count {
                if wideIndices {
                    guard let value = bytes.u16be(offset), offset + 2 <= end else { return entries }
                    indices.append(value & 0x7FFF)
                    offset += 2
                } else {
                    guard let value = bytes.u8(offset), offset < end else { return entries }
                    indices.append(value & 0x7F)
                    offset += 1
                }
            }
            entries.append((id, indices))
        }
        return entries
    }
}
