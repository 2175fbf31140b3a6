/// Recognises what bytes are from their first few hundred bytes (magic numbers, ISO-BMFF brands, text shape).
///
/// Work is bounded: at most ``textWindow`` bytes are looked at, whatever the input size.
public enum MediaSniffer {
    /// How many leading bytes the text classifier (HTML, SVG, JSON, text) looks at.
    public static let textWindow = 4096

    /// The format of `bytes`, judged only from their content.
    public static func sniff(_ bytes: [UInt8]) -> MediaFormat {
        guard !bytes.isEmpty else { return .empty }
        if let binary = sniffBinary(bytes) { return binary }
        return sniffText(bytes)
    }

    // MARK: Binary signatures

    private static func sniffBinary(_ bytes: [UInt8]) -> MediaFormat? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.has(3, at: 0), bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
        if bytes.matches("GIF87a", at: 0) || bytes.matches("GIF89a", at: 0) { return .gif }
        if bytes.matches("RIFF", at: 0), bytes.matches("WEBP", at: 8) { return .webp }
        // JPEG XL (ISO/IEC 18181-2): a bare codestream starts FF 0A, the container with its `JXL ` signature box.
        if bytes.has(2, at: 0), bytes[0] == 0xFF, bytes[1] == 0x0A { return .jxl }
        if bytes.starts(with: [0, 0, 0, 0x0C]), bytes.matches("JXL ", at: 4), bytes.has(4, at: 8),
            bytes[8] == 0x0D, bytes[9] == 0x0A, bytes[10] == 0x87, bytes[11] == 0x0A
        {
            return .jxl
        }
        if bytes.matches("ftyp", at: 4) { return classifyFtyp(bytes) }
        if let box = bytes.fourCC(4), ["styp", "moof", "sidx"].contains(box), let size = bytes.u32be(0), size >= 8 {
            return .mp4  // an fMP4 media segment (HLS, DASH) starts without ftyp
        }
        if let box = bytes.fourCC(4), ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(box),
            let size = bytes.u32be(0), size == 1 || size >= 8
        {
            return .quickTime  // pre-ftyp QuickTime files start straight with a movie box
        }
        if bytes.has(4, at: 0), bytes[0] == 0x1A, bytes[1] == 0x45, bytes[2] == 0xDF, bytes[3] == 0xA3 {
            return ebmlDocType(bytes) == "webm" ? .webm : .matroska
        }
        if isTransportStream(bytes) { return .mpegTS }
        if bytes.matches("%PDF-", at: 0) { return .pdf }
        // BigTIFF (`II+\0`, `MM\0+`, version 43) is TIFF with 64-bit offsets: libtiff and ImageIO read it.
        if bytes.matches("II*\0", at: 0) || bytes.matches("MM\0*", at: 0) || bytes.matches("II+\0", at: 0)
            || bytes.matches("MM\0+", at: 0)
        {
            return .tiff
        }
        if isBMP(bytes) { return .bmp }
        // ICONDIR type 1 is an icon, type 2 a Windows cursor (.cur): ImageIO reads both (`com.microsoft.ico`,
        // `com.microsoft.cur`), so a cursor is reported as `.ico` too.
        if bytes.has(6, at: 0), bytes[0] == 0, bytes[1] == 0, bytes[2] == 1 || bytes[2] == 2, bytes[3] == 0,
            let images = bytes.u16le(4), images > 0
        {
            return .ico
        }
        return nil
    }

    /// Brands that make an `ftyp` file a still image (HEIF family) rather than a movie.
    static let avifBrands: Set<String> = ["avif", "avis"]
    static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]
    static let heifBrands: Set<String> = ["mif1", "msf1", "mif2"]

    static func classifyFtyp(_ bytes: [UInt8]) -> MediaFormat {
        let brands = ftypBrands(bytes)
        guard let major = brands.major else { return .mp4 }
        if major == "qt  " { return .quickTime }
        if avifBrands.contains(major) { return .avif }
        if heicBrands.contains(major) { return .heic }
        if heifBrands.contains(major) {
            if brands.compatible.contains(where: avifBrands.contains) { return .avif }
            if brands.compatible.contains(where: heicBrands.contains) { return .heic }
            return .heif
        }
        return .mp4
    }

    /// The `ftyp` box's major brand and compatible brands (bounded by the box size and the bytes present).
    static func ftypBrands(_ bytes: [UInt8]) -> (major: String?, compatible: [String]) {
        guard let size = bytes.u32be(0), bytes.matches("ftyp", at: 4), let major = bytes.fourCC(8) else {
            return (nil, [])
        }
        let end = Swift.min(size >= 16 ? size : 16, bytes.count, 8 + 4 * 64)
        var compatible: [String] = []
        var offset = 16
        while offset + 4 <= end, let brand = bytes.fourCC(offset) {
            compatible.append(brand)
            offset += 4
        }
        return (major, compatible)
    }

    /// The EBML header's DocType ("webm", "matroska"), searched for in the first 64 bytes.
    static func ebmlDocType(_ bytes: [UInt8]) -> String? {
        let limit = Swift.min(bytes.count, 64)
        var offset = 4
        while offset + 3 < limit {
            if bytes[offset] == 0x42, bytes[offset + 1] == 0x82, bytes[offset + 2] & 0x80 != 0 {
                let length = Int(bytes[offset + 2] & 0x7F)
                guard bytes.has(length, at: offset + 3) else { return nil }
                return String(decoding: bytes[(offset + 3)..<(offset + 3 + length)], as: UTF8.self)
            }
            offset += 1
        }
        return nil
    }

    /// MPEG-TS: the 0x47 sync byte at every 188-byte packet start that the bytes reach (up to five packets). A short
    /// prefix with a single sync byte counts only when it is not text, so a 'G' starting a sentence is not a stream.
    static func isTransportStream(_ bytes: [UInt8]) -> Bool {
        guard bytes[0] == 0x47 else { return false }
        var offset = 188
        while offset < Swift.min(bytes.count, 5 * 188) {
            if bytes[offset] != 0x47 { return false }
            offset += 188
        }
        return bytes.count > 188 || !looksLikeText(Array(bytes.prefix(188)))
    }

    /// "BM" plus a known DIB header size, so text that starts with "BM" is not taken for a bitmap.
    static func isBMP(_ bytes: [UInt8]) -> Bool {
        guard bytes.matches("BM", at: 0), let dibSize = bytes.u32le(14) else { return false }
        return [12, 40, 52, 56, 64, 108, 124].contains(dibSize)
    }

    // MARK: Text shapes

    private static func sniffText(_ bytes: [UInt8]) -> MediaFormat {
        let window = Array(bytes.prefix(textWindow))
        var start = 0
        if window.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }  // UTF-8 byte order mark
        while start < window.count, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(window[start]) { start += 1 }
        guard start < window.count else { return looksLikeText(window) ? .text : .unknown }
        if window.matches("#EXTM3U", at: start) { return .hls }
        let first = window[start]
        if first == UInt8(ascii: "<") {
            let lowered = window[start...].map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
            if containsTag("<svg", in: lowered) && !containsTag("<html", in: lowered) { return .svg }
            if startsWithHTMLTag(lowered) { return .html }
            // An MPEG-DASH manifest (ISO/IEC 23009-1) is XML whose root element is MPD.
            if containsTag("<mpd", in: lowered) { return .dash }
            if hasPrefix("<?xml", lowered) { return .xml }
            return looksLikeText(window) ? .html : .unknown
        }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return looksLikeText(window) ? .json : .unknown }
        return looksLikeText(window) ? .text : .unknown
    }

    /// The WHATWG MIME-sniffing list of tags that make a document HTML, plus a comment.
    private static let htmlPrefixes = [
        "<!doctype html", "<html", "<head", "<script", "<iframe", "<h1", "<div", "<font", "<table", "<a",
        "<style", "<title", "<b", "<body", "<br", "<p", "<!--", "<meta", "<link",
    ]

    private static func startsWithHTMLTag(_ lowered: [UInt8]) -> Bool {
        for prefix in htmlPrefixes where hasPrefix(prefix, lowered) {
            // A tag name must end here (`<a>` or `<a href`), a comment or doctype may go on.
            if prefix == "<!--" || prefix == "<!doctype html" { return true }
            guard let next = lowered.dropFirst(prefix.utf8.count).first else { return true }
            if next == UInt8(ascii: ">") || next == UInt8(ascii: " ") || next == 0x09 || next == 0x0A
                || next == 0x0D || next == UInt8(ascii: "/")
            {
                return true
            }
        }
        return false
    }

    private static func hasPrefix(_ prefix: String, _ bytes: [UInt8]) -> Bool {
        bytes.count >= prefix.utf8.count && zip(prefix.utf8, bytes).allSatisfy { $0 == $1 }
    }

    private static func containsTag(_ tag: String, in bytes: [UInt8]) -> Bool {
        let needle = Array(tag.utf8)
        guard bytes.count >= needle.count else { return false }
        var index = 0
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], Array(bytes[index..<index + needle.count]) == needle {
                let after = index + needle.count
                if after == bytes.count || !isNameByte(bytes[after]) { return true }
            }
            index += 1
        }
        return false
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ":")
    }

    /// Valid UTF-8 (a character cut at the window's end is fine) without control bytes other than whitespace.
    static func looksLikeText(_ window: [UInt8]) -> Bool {
        for byte in window where byte < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D, 0x1B].contains(byte) { return false }
        // Drop up to three trailing bytes of a multi-byte character cut by the window.
        var end = window.count
        var back = 0
        while back < 3, end > 0, window[end - 1] & 0xC0 == 0x80 {
            end -= 1
            back += 1
        }
        if end > 0, window[end - 1] >= 0xC0 { end -= 1 }
        return String(validating: window[..<end], as: UTF8.self) != nil
    }
}
