import Findings

/// Rules G1–G3: icon present, images are PNGs of sensible sizes (read from the IHDR header, never
/// decoded), and the images suit the pass style.
enum ImageChecker {
    /// Width and height from a PNG's IHDR chunk, `nil` when the bytes are not a PNG.
    static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 24, bytes.starts(with: signature), bytes[12..<16].elementsEqual(Array("IHDR".utf8))
        else { return nil }
        func be32(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }

    /// Largest size in points for each image kind; `icon` is also a minimum (29×29).
    private static let maxPoints: [String: (Int, Int)] = [
        "icon": (29, 29), "logo": (160, 50), "thumbnail": (90, 90), "strip": (375, 144),
        "background": (180, 220), "footer": (286, 15),
    ]

    /// Images each style displays (G3).
    private static let imagesForStyle: [String: Set<String>] = [
        "boardingPass": ["icon", "logo", "footer"],
        "coupon": ["icon", "logo", "strip"],
        "storeCard": ["icon", "logo", "strip"],
        "eventTicket": ["icon", "logo", "strip", "background", "thumbnail"],
        "generic": ["icon", "logo", "thumbnail"],
    ]

    static func check(entries: [ArchiveEntry], style: String?, limits: PassLimits) -> [Finding] {
        var findings: [Finding] = []
        if !entries.contains(where: { $0.name == "icon.png" }) {
            findings.append(
                .error(
                    PassFindingCode.imageIconMissing, "icon.png is required; Wallet rejects a pass without it",
                    path: "icon.png"))
        }
        var kindsPresent: Set<String> = []
        for entry in entries {
            let fileName = entry.name.split(separator: "/").last.map(String.init) ?? entry.name
            guard fileName.lowercased().hasSuffix(".png") else { continue }
            var stem = String(fileName.dropLast(4))
            var scale = 1
            for (suffix, factor) in [("@2x", 2), ("@3x", 3)] where stem.hasSuffix(suffix) {
                stem = String(stem.dropLast(3))
                scale = factor
            }
            guard let size = pngSize(entry.data) else {
                findings.append(
                    .warning(PassFindingCode.imageNotPNG, "\(quoted(entry.name)) is not a PNG image", path: entry.name))
                continue
            }
            // Apple documents recommended sizes per image kind, no maximum (PassKit Package Format Reference,
            // "Pass Design and Creation": icon 29×29 pt, logo ≤ 160×50 pt, strip 375×98/123/144 pt, …), so a side
            // above 4096 px is a warning; decoding one whose RGBA bitmap is larger than everything a pass may hold
            // (the 32 MiB total, PassLimits.maxTotalBytes) is an error: the product's own limit on what Wallet must
            // allocate for one image.
            if size.width > limits.maxImageSide || size.height > limits.maxImageSide {
                let tooLarge = Double(size.width) * Double(size.height) * 4 > Double(limits.maxTotalBytes)
                findings.append(
                    Finding(
                        tooLarge ? .error : .warning, PassFindingCode.imageTooLarge,
                        "\(quoted(entry.name)) is \(size.width)×\(size.height), above \(limits.maxImageSide) px per side "
                            + (tooLarge
                                ? "and larger decoded (4 bytes a pixel) than the \(limits.maxTotalBytes >> 20) MiB a pass may hold"
                                : "(Apple recommends far smaller sizes; Wallet scales it down)"),
                        path: entry.name))
                continue
            }
            guard let (maxWidth, maxHeight) = maxPoints[stem] else { continue }
            kindsPresent.insert(stem)
            let width = maxWidth * scale
            let height = maxHeight * scale
            if size.width > width || size.height > height
                || (stem == "icon" && (size.width < width || size.height < height))
            {
                findings.append(
                    .warning(
                        PassFindingCode.imageSize,
                        "\(quoted(entry.name)) is \(size.width)×\(size.height) px; \(stem) expects "
                            + (stem == "icon" ? "" : "at most ") + "\(width)×\(height) at @\(scale)x",
                        path: entry.name))
            }
        }
        if let style, let allowed = imagesForStyle[style] {
            for kind in kindsPresent.subtracting(allowed).sorted() {
                findings.append(
                    .warning(
                        PassFindingCode.imageUnusedForStyle, "\(style) passes do not display \(kind) images",
                        path: kind + ".png"))
            }
            if style == "eventTicket", kindsPresent.contains("strip"), kindsPresent.contains("background") {
                findings.append(
                    .warning(
                        PassFindingCode.imageUnusedForStyle,
                        "an eventTicket with a strip image does not display its background"))
            }
        }
        return findings
    }
}
