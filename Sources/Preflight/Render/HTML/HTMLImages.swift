import Findings
import InboxCards
import MediaProbe

// The images: each distinct content embedded once as a `data:` URI, or why it is not drawn.
extension HTMLReport {
    /// Embedded images: one CSS class per distinct content (by SHA-256), the URLs that serve it mapped to that class,
    /// and why the others are not shown.
    struct Images {
        /// Asset URL → the class of its content: 2,000 tracking URLs of one image are one class.
        var classes: [String: String] = [:]
        /// Asset URL → why its image is not drawn.
        var unavailable: [String: String] = [:]
        var css = ""
        /// `--app-icon` is embedded as `.app-icon`.
        var appIcon = false
        /// Distinct contents embedded, and their bytes (what ``HTMLReport/maxTotalImageBytes`` counts).
        var embedded = 0
        var embeddedBytes = 0

        /// What became of one content: the class it is drawn by, or why it is not drawn.
        enum Content {
            case embedded(String)
            case unavailable(String)
        }

        mutating func record(_ content: Content, for url: String) {
            switch content {
            case .embedded(let name): classes[url] = name
            case .unavailable(let why): unavailable[url] = why
            }
        }
    }

    /// Roles whose bytes are an image the card shows (videos, passes and links are not drawn from bytes).
    static func isImageRole(_ role: AssetReference.Role) -> Bool {
        switch role {
        case .heroImage, .avatar, .icon, .carouselSlide, .videoPoster: true
        case .video, .walletPass, .buttonLink, .slideLink: false
        }
    }

    /// Image types every browser draws from a `data:` URI. SVG is left out: it is a document, not pixels.
    static let embeddableTypes: Set<String> = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp",
    ]

    /// The type to declare in the `data:` URI: the sniffed format first (servers mislabel), else the served type.
    static func embeddableType(format: String?, contentType: String) -> String? {
        let byFormat: String? =
            switch format?.lowercased() {
            case "png", "apng": "image/png"
            case "jpeg", "jpg": "image/jpeg"
            case "gif": "image/gif"
            case "webp": "image/webp"
            case "avif": "image/avif"
            case "bmp": "image/bmp"
            default: nil
            }
        if let byFormat { return byFormat }
        let served = contentType.split(separator: ";").first.map { $0.trimmingSpaces.lowercased() } ?? ""
        return embeddableTypes.contains(served) ? served : nil
    }

    /// Each distinct content once: an image served under many URLs (per-message tracking parameters, one picture
    /// reused) is one `data:` URI that every card showing it refers to, and the page's budget counts its bytes once.
    /// Contents are told apart by the SHA-256 the fetch or the store recorded (``AssetCheck/sha256``), so the bytes
    /// of a known content are not asked for again; an asset without one is compared by its bytes.
    /// - Parameter budget: the distinct bytes the page embeds at most (``maxTotalImageBytes``; tests lower it).
    static func embedImages(
        _ report: CheckReport, image: (String) -> (bytes: [UInt8], contentType: String)?,
        budget: Int = maxTotalImageBytes
    ) -> Images {
        var images = Images()
        var bySHA: [String: Images.Content] = [:]
        var byBytes: [[UInt8]: Images.Content] = [:]
        for asset in report.cards.lazy.flatMap(\.assets) where isImageRole(asset.role) && asset.status == .ok {
            guard images.classes[asset.url] == nil, images.unavailable[asset.url] == nil else { continue }
            if let sha256 = asset.sha256, let known = bySHA[sha256] {
                images.record(known, for: asset.url)
                continue
            }
            guard let stored = image(asset.url) else {
                // This URL's bytes only: another URL of the same content may still have them.
                images.unavailable[asset.url] = "not in the store"
                continue
            }
            if asset.sha256 == nil, let known = byBytes[stored.bytes] {
                images.record(known, for: asset.url)
                continue
            }
            let content = embed(stored, of: asset, budget: budget, in: &images)
            if let sha256 = asset.sha256 { bySHA[sha256] = content } else { byBytes[stored.bytes] = content }
            images.record(content, for: asset.url)
        }
        return images
    }

    /// One new content: a class with its `data:` URI, or why it is not drawn (a type browsers do not draw, too large,
    /// past the page's budget).
    private static func embed(
        _ stored: (bytes: [UInt8], contentType: String), of asset: AssetCheck, budget: Int, in images: inout Images
    ) -> Images.Content {
        let size = asset.width.flatMap { width in asset.height.map { "\(width)×\($0) " } } ?? ""
        guard let type = embeddableType(format: asset.format, contentType: stored.contentType) else {
            // Drawn only where the asset is ok, i.e. where the card's platform shows it (a TIFF on iOS).
            let format = asset.format.flatMap(MediaFormat.init(rawValue:)).map(ImageSniffer.formatName)
            return .unavailable(
                format.map { "\(size)\($0) image: the app shows it, a browser cannot draw \($0)" } ?? "not a web image")
        }
        let bytes = stored.bytes.count
        guard bytes <= maxImageBytes else {
            return .unavailable("\(size)image, \(byteText(bytes)): too large to embed")
        }
        guard images.embeddedBytes + bytes <= budget else {
            return .unavailable(
                "\(size)image, \(byteText(bytes)): not embedded, the page already holds "
                    + "\(byteText(images.embeddedBytes)) of images")
        }
        let name = "i\(images.embedded)"
        images.embedded += 1
        images.embeddedBytes += bytes
        images.css += ".\(name){background-image:url(\"data:\(type);base64,\(Base64.encode(stored.bytes))\")}\n"
        return .embedded(name)
    }
}
