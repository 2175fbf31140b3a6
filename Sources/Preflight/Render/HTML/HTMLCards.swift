import Findings
import InboxCards

// Each card as its platform's SDK draws its resolved kind: the cell, its images, text, buttons and avatar.
extension HTMLReport {
    static func writeCard(
        _ check: CardCheck, report: CheckReport, feed: Int, position: Int, images: Images, app: AppIdentity,
        to out: inout String
    ) {
        let card = check.card
        var classes = "card kind-\(card.resolved.rawValue)"
        if card.degraded { classes += " degraded" }
        if check.broken { classes += " broken" }
        if check.failing { classes += " failing" }
        if card.unread { classes += " unread" }
        out += "<article class=\"\(classes)\" data-card-id=\"\(Markup.attribute(Redaction.redactURL(card.id)))\""
        out += " data-kind=\"\(card.resolved.rawValue)\">\n"

        // The id and kind are drawn from the attributes (CSS `attr()`): 10,000 cards do not carry them twice. The
        // feed's heading names the platform, profile and language.
        if card.requested != card.resolved || card.forced || card.degraded || check.broken || check.failing
            || card.language != nil
        {
            out += "<div class=\"meta\">"
            if let language = card.language { out += "<span class=\"tag\">\(Markup.text(language))</span> " }
            if card.requested != card.resolved {
                out += "<span class=\"kind\">\(card.requested) → \(card.resolved)</span>"
            }
            if card.forced { out += " <span class=\"tag\">forced</span>" }
            if card.degraded { out += " <span class=\"tag warn\">DEGRADED</span>" }
            if check.broken { out += " <span class=\"tag bad\">BROKEN</span>" }
            if check.failing { out += " <span class=\"tag bad\">FAILING</span>" }
            out += "</div>"
        }
        out += "<div class=\"cell\">"
        if card.pinned { out += "<span class=\"pin\">Pinned</span>" }
        writeCell(check, id: "c\(feed)-\(position)", images: images, app: app, to: &out)
        if let sentAt = card.sentAt { out += "<time>\(dateText(sentAt))</time>" }
        out += "</div>\n"
        writeProblems(check, report: report, to: &out)
        out += "</article>\n"
    }

    /// The card as the SDK of its platform draws its resolved kind.
    static func writeCell(
        _ check: CardCheck, id: String, images: Images, app: AppIdentity, to out: inout String
    ) {
        let card = check.card
        let kind = card.resolved
        func asset(_ role: AssetReference.Role) -> AssetCheck? { check.assets.first { $0.role == role } }
        func image(_ asset: AssetCheck?, _ role: String) {
            writeImage(asset, role: role, kind: kind, images: images, to: &out)
        }
        switch kind {
        case .banner:
            image(asset(.heroImage), "hero")
        case .captioned:
            image(asset(.heroImage), "hero")
            out += "<div class=\"captioned\">"
            writeIcon(check, images: images, app: app, size: "icon32", to: &out)
            writeText(card, to: &out)
            out += "</div>"
            writeButtons(card.buttons, to: &out)
        case .classic, .legacy:
            // The Android legacy row: the icon row, with the optional `b` banner image above it.
            if kind == .legacy, let banner = asset(.heroImage) { image(banner, "hero") }
            out += "<div class=\"classic\">"
            writeIcon(check, images: images, app: app, size: "avatar", to: &out)
            writeText(card, to: &out)
            out += "</div>"
            writeButtons(card.buttons, to: &out)
        case .carousel:
            let slides = check.assets.filter { $0.role == .carouselSlide }.sorted { ($0.index ?? 0) < ($1.index ?? 0) }
            writeText(card, to: &out)
            // Every slide in a scroll-snapping strip, as the SDK's pager; the dots jump to a slide.
            out += "<div class=\"slides\">"
            if slides.isEmpty { out += "<div class=\"slide empty\">no slides</div>" }
            for (number, slide) in slides.enumerated() {
                let failed = slide.status == .failed
                out += "<figure class=\"slide\(failed ? " failed" : "")\" id=\"\(id)-\(number)\">"
                image(slide, "slide-image")
                let label =
                    slide.index.flatMap { $0 < card.accessibilityLabels.count ? card.accessibilityLabels[$0] : nil }
                    ?? "Slide"
                out += "<figcaption>\(Markup.text(Redaction.redactText(label)))</figcaption></figure>"
            }
            out += "</div>"
            if slides.count > 1 {
                out += "<nav class=\"dots\">"
                for (number, slide) in slides.enumerated() {
                    let failed = slide.status == .failed ? " class=\"failed\"" : ""
                    out += "<a href=\"#\(id)-\(number)\"\(failed) aria-label=\"slide \(number + 1)\"></a>"
                }
                out += "</nav>"
            }
        case .video:
            out += "<div class=\"video\">"
            image(asset(.videoPoster), "poster")
            let failed = asset(.video)?.status == .failed
            out += "<span class=\"play\(failed ? " failed" : "")\" aria-label=\"Play video\">▶</span></div>"
            writeText(card, to: &out)
        case .wallet:
            if let hero = asset(.heroImage) { image(hero, "hero") }
            writeText(card, to: &out)
            let failed = asset(.walletPass)?.status == .failed
            out += "<div class=\"wallet-row\"><span class=\"wallet-button\(failed ? " failed" : "")\">"
            out += " Add to Apple Wallet</span></div>"
        }
    }

    /// The round picture of a classic card (the avatar, or Android's icon) or the 32 pt icon of a captioned one:
    /// the message's own image when it has one, else the app's icon, else the app's initial (`--app-name`; without
    /// it a grey `App`).
    static func writeIcon(
        _ check: CardCheck, images: Images, app: AppIdentity, size: String, to out: inout String
    ) {
        let picture = check.assets.first { ($0.role == .avatar || $0.role == .icon) && images.classes[$0.url] != nil }
        if let picture, let name = images.classes[picture.url] {
            out += "<div class=\"\(size) img \(name)\" role=\"img\" aria-label=\"\(picture.role.rawValue)\"></div>"
        } else if images.appIcon {
            out += "<div class=\"\(size) img app-icon\" role=\"img\" aria-label=\"app icon\"></div>"
        } else {
            let (text, background) = avatar(appName: app.name)
            out += "<div class=\"\(size) initial\" style=\"background:\(background)\">\(Markup.text(text))</div>"
        }
    }

    /// Title and body as the card shows them, redacted and escaped, placeholders with their default (one without
    /// is marked); a muted note when the message has neither.
    static func writeText(_ card: ResolvedCard, to out: inout String) {
        out += "<div class=\"text\">"
        let title = card.title ?? ""
        let body = card.body ?? ""
        if !title.isEmpty { out += "<div class=\"title\">\(placeholderMarkup(Redaction.redactText(title)))</div>" }
        if !body.isEmpty { out += "<div class=\"body\">\(placeholderMarkup(Redaction.redactText(body)))</div>" }
        if title.isEmpty && body.isEmpty { out += "<div class=\"no-text\">no title, no body</div>" }
        out += "</div>"
    }

    /// `text` escaped, each `{{name|default:'x'}}` as its default, each `{{name}}` without one marked.
    static func placeholderMarkup(_ text: String) -> String {
        guard text.contains("{{") else { return Markup.text(text) }
        var html = ""
        var cursor = text.startIndex
        for match in Placeholders.matches(text) {
            html += Markup.text(String(text[cursor..<match.range.lowerBound]))
            if let value = match.defaultValue {
                html += "<span class=\"ph\" title=\"{{\(Markup.attribute(match.name))}}\">\(Markup.text(value))</span>"
            } else {
                html += "<mark class=\"ph missing\" title=\"no default\">{{\(Markup.text(match.name))}}</mark>"
            }
            cursor = match.range.upperBound
        }
        return html + Markup.text(String(text[cursor...]))
    }

    static func writeImage(
        _ asset: AssetCheck?, role: String, kind: CardKind, images: Images, to out: inout String
    ) {
        var style = ""
        if let width = asset?.width, let height = asset?.height, width > 0, height > 0 {
            style = " style=\"aspect-ratio:\(width)/\(height)\""
        }
        guard let asset else {
            out += "<div class=\"img \(role) missing\"><span>no image</span></div>"
            return
        }
        // An image that looks wrong in its cell on the card's platform (the geometry finding the check judged) is
        // drawn in the cell's frame, as the device does, and marked.
        let geometry: Set<String> = [PreviewFindingCode.imageTooSmall, PreviewFindingCode.imageCropped]
        let problem = asset.findings.first { geometry.contains($0.code) && $0.severity >= .warning }
        if problem != nil { style = "" }
        let mark = problem.map { "<span class=\"mark\">⚠ \(Markup.text($0.message))</span>" } ?? ""
        if asset.status == .failed {
            // The platform that draws this feed cannot show it (a 404, or a TIFF on Android): drawn as it fails
            // there, even when the bytes are embedded for another platform's feed.
            out += "<div class=\"img \(role) failed\"\(style)><span>✕ \(Markup.text(failureText(asset)))</span></div>"
        } else if let name = images.classes[asset.url] {
            out += "<div class=\"img \(role) \(name)\(problem != nil ? " looks-wrong" : "")\"\(style)>\(mark)</div>"
        } else {
            let why = images.unavailable[asset.url] ?? asset.status.rawValue
            out += "<div class=\"img \(role) missing\"\(style)><span>\(Markup.text(why))</span>\(mark)</div>"
        }
    }

    static func writeButtons(_ buttons: [CardButton], to out: inout String) {
        let drawn = buttons.filter(\.rendered)
        guard !drawn.isEmpty else { return }
        out += "<div class=\"buttons\">"
        for button in drawn {
            let title = Markup.text(Redaction.redactText(button.title))
            if case .openURL(let url) = button.action, let href = linkTarget(url) {
                out += "<a class=\"button\" href=\"\(Markup.attribute(href))\" rel=\"noopener noreferrer\">\(title)</a>"
            } else {
                out += "<span class=\"button\" title=\"\(button.action.name)\">\(title)</span>"
            }
        }
        out += "</div>"
    }

    /// The redacted URL when it may become a link: `http`/`https` only, so `javascript:`, `data:`, `file:` and
    /// app schemes stay text.
    static func linkTarget(_ url: String) -> String? {
        let trimmed = url.trimmingSpaces
        let lower = trimmed.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return nil }
        guard !trimmed.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else { return nil }
        return Redaction.redactURL(trimmed)
    }

    /// A classic card's avatar without an image: the app's initial (`--app-name`) on a colour of the app's, stable
    /// across runs, as the SDK draws it; without a name, a grey `App` placeholder.
    static func avatar(appName: String?) -> (text: String, background: String) {
        guard let appName, let letter = appName.first(where: { $0.isLetter || $0.isNumber }) else {
            return ("App", "#aeaeb2")  // the tool cannot know the app: a neutral placeholder, not a made-up letter
        }
        var hash: UInt32 = 2_166_136_261  // FNV-1a: Hasher is seeded per process, colours must not change
        for byte in appName.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return (String(letter).uppercased(), "hsl(\(hash % 360),55%,45%)")
    }

    /// `1 Dec 2026, 09:30` (UTC), as the feed shows a message's date.
    static func dateText(_ seconds: Int64) -> String {
        let date = CivilDate(seconds: seconds)
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let two = { (value: Int64) in value < 10 ? "0\(value)" : "\(value)" }
        return "\(date.day) \(names[Int(date.month) - 1]) \(date.year), \(two(date.hour)):\(two(date.minute))"
    }
}
