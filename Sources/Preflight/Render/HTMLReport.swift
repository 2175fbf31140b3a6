import Findings
import InboxCards

/// `check --format html`: one self-contained page previewing the inbox feed as InboxKit would draw it.
///
/// The page makes no request of its own: CSS is inline, images are `data:` URIs from the `image` closure
/// (the pipeline backs it with the store), there is no script, and a Content-Security-Policy meta tag
/// (`default-src 'none'`) keeps it that way even if a browser were tempted. On top a summary; then one feed
/// per platform and SDK profile, pinned cards first, each card drawn as its **resolved** kind:
///
/// | kind | drawn as |
/// |---|---|
/// | banner | the hero image, full bleed |
/// | captioned | the hero image, then title, body and the buttons |
/// | classic | a coloured initial avatar (or the avatar/icon image), title, body, the buttons |
/// | legacy | (Android) the `b` banner, then the icon row with title and body; no buttons, no pin |
/// | carousel | title and body, then the slides in a row with their VoiceOver captions |
/// | video | the poster (or a dark frame) with a play badge, then title and body |
/// | wallet | the hero image (if any), title and body, and an "Add to Apple Wallet" button |
///
/// Title and body are the card's own (for its language, redacted); a card with neither says so. A degraded card
/// is drawn as the classic card it becomes, marked with `requested → classic`, the SDK's reason and its WARN
/// line; a broken card is outlined in red with the failing assets (role, redacted URL, HTTP status, failure)
/// and their findings; a failed image is drawn as a crossed frame. Every card element carries
/// `data-card-id` (the redacted card id) and `data-kind` (the resolved kind).
///
/// All text is escaped, every URL redacted, and only `http`/`https` button URLs become links (never
/// `javascript:` or other schemes). An image is embedded once however many cards use it (one CSS class per
/// URL) and only when it is an image type a browser shows (`png`, `jpeg`, `gif`, `webp`, `avif`, `bmp`, no SVG)
/// and within ``maxImageBytes`` (and ``maxTotalImageBytes`` for the page); otherwise a labelled frame is drawn.
public enum HTMLReport {
    /// Largest image embedded; bigger ones are drawn as a labelled frame (a preview needs no 20 MB hero).
    public static let maxImageBytes = 4 << 20
    /// Budget of embedded image bytes for the whole page, so a campaign with thousands of distinct images still
    /// gives a page a browser opens.
    public static let maxTotalImageBytes = 48 << 20

    /// The page.
    /// - Parameters:
    ///   - report: the check report.
    ///   - image: the stored bytes and content type of an asset, by its URL **as in the input** (secrets
    ///     included, as the store keys it); `nil` when the bytes are not available. Called once per distinct URL.
    /// - Returns: the HTML document.
    public static func render(
        _ report: CheckReport, image: (String) -> (bytes: [UInt8], contentType: String)?
    ) -> String {
        let images = embedImages(report, image: image)
        var body = ""
        body.reserveCapacity(4096 + report.cards.count * 1024)
        writeSummary(report, to: &body)
        if report.cards.isEmpty { body += "<p class=\"empty\">No inbox cards: nothing reaches the inbox.</p>\n" }
        for feed in feeds(report.cards) {
            body += "<section class=\"feed\"><h2>\(Markup.text(feed.title))</h2>\n"
            for check in feed.cards { writeCard(check, images: images, to: &body) }
            body += "</section>\n"
        }
        writeInputs(report.inputFindings, to: &body)
        writePasses(report.passes, to: &body)

        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        page += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
        page += "style-src 'unsafe-inline'\">\n"
        page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        page += "<title>inbox-assets check — \(report.summary.cards) cards</title>\n<style>\n\(stylesheet)"
        page += images.css
        page += "</style>\n</head>\n<body>\n"
        page += body
        page += "</body>\n</html>\n"
        return page
    }

    // MARK: Images

    /// Embedded images: one CSS class per distinct URL, and why the others are not shown.
    struct Images {
        var classes: [String: String] = [:]
        var unavailable: [String: String] = [:]
        var css = ""
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

    private static func embedImages(
        _ report: CheckReport, image: (String) -> (bytes: [UInt8], contentType: String)?
    ) -> Images {
        var images = Images()
        var total = 0
        for asset in report.cards.lazy.flatMap(\.assets) where isImageRole(asset.role) && asset.status == .ok {
            guard images.classes[asset.url] == nil, images.unavailable[asset.url] == nil else { continue }
            guard let stored = image(asset.url) else {
                images.unavailable[asset.url] = "not in the store"
                continue
            }
            guard let type = embeddableType(format: asset.format, contentType: stored.contentType) else {
                images.unavailable[asset.url] = "not a web image"
                continue
            }
            guard stored.bytes.count <= maxImageBytes, total + stored.bytes.count <= maxTotalImageBytes else {
                images.unavailable[asset.url] = "too large to embed"
                continue
            }
            total += stored.bytes.count
            let name = "i\(images.classes.count)"
            images.classes[asset.url] = name
            images.css += ".\(name){background-image:url(\"data:\(type);base64,\(Base64.encode(stored.bytes))\")}\n"
        }
        return images
    }

    // MARK: Feeds

    struct Feed {
        var title: String
        var cards: [CardCheck]
    }

    /// One feed per platform and SDK profile, each in the order that SDK shows it (``ResolvedCard/feedPosition``:
    /// iOS pinned, unread, newest; Android source, send date, order).
    static func feeds(_ cards: [CardCheck]) -> [Feed] {
        var feeds: [Feed] = []
        var index: [String: Int] = [:]
        for check in cards {
            let card = check.card
            let title =
                card.platform == .ios
                ? "iOS — InboxKit SDK \(card.profileName ?? "?")" : "Android — inbox-ui SDK \(card.profileName ?? "?")"
            if let existing = index[title] {
                feeds[existing].cards.append(check)
            } else {
                index[title] = feeds.count
                feeds.append(Feed(title: title, cards: [check]))
            }
        }
        for position in feeds.indices {
            // Stable: cards of one feed position (languages of one message) keep their report order.
            feeds[position].cards = feeds[position].cards.enumerated().sorted { lhs, rhs in
                let left = lhs.element.card.feedPosition ?? Int.max
                let right = rhs.element.card.feedPosition ?? Int.max
                return left != right ? left < right : lhs.offset < rhs.offset
            }.map(\.element)
        }
        return feeds
    }

    // MARK: Summary, inputs, passes

    private static func writeSummary(_ report: CheckReport, to out: inout String) {
        let summary = report.summary
        out += "<header class=\"summary\">\n<h1>Inbox preview</h1>\n<ul class=\"counts\">"
        let counts: [(String, Int, String)] = [
            ("cards", summary.cards, ""), ("degraded", summary.degraded, "warn"), ("broken", summary.broken, "bad"),
            ("errors", summary.errors, "bad"), ("warnings", summary.warnings, "warn"), ("assets", summary.assets, ""),
            ("assets failed", summary.assetsFailed, "bad"),
        ]
        for (label, value, tone) in counts {
            let toneClass = value > 0 && !tone.isEmpty ? " \(tone)" : ""
            out += "<li class=\"count\(toneClass)\" data-count=\"\(label)\"><b>\(value)</b> \(label)</li>"
        }
        out += "<li class=\"count\" data-count=\"bytes fetched\"><b>\(byteText(summary.bytesFetched))</b> fetched</li>"
        out += "</ul>\n"
        var line = report.options.targetDescription
        if let forced = report.options.forceKind { line += "; forced kind \(forced.rawValue)" }
        out += "<p class=\"options\">\(Markup.text(line))</p>\n</header>\n"
    }

    private static func writeInputs(_ findings: [SourcedFinding], to out: inout String) {
        guard !findings.isEmpty else { return }
        out += "<section class=\"inputs\"><h2>Inputs</h2>\n<ul class=\"findings\">\n"
        for sourced in findings {
            out += "<li class=\"\(sourced.finding.severity.rawValue)\"><span class=\"source\">"
            out += "\(Markup.text(Redaction.redactURL(sourced.source)))</span> "
            writeFindingBody(sourced.finding, to: &out)
            out += "</li>\n"
        }
        out += "</ul></section>\n"
    }

    private static func writePasses(_ passes: [PassCheck], to out: inout String) {
        guard !passes.isEmpty else { return }
        out += "<section class=\"passes\"><h2>Wallet passes</h2>\n"
        for pass in passes {
            let verification = pass.verification
            out += "<div class=\"pass \(verification.valid ? "valid" : "invalid")\">"
            out += "<b>\(verification.valid ? "valid" : "invalid")</b> "
            out += "<code>\(Markup.text(Redaction.redactURL(pass.url)))</code>"
            if let summary = verification.summary {
                let words = [summary.organizationName, summary.description, summary.style].compactMap { $0 }
                if !words.isEmpty { out += " — \(Markup.text(Redaction.redactText(words.joined(separator: ", "))))" }
            }
            writeFindings(verification.findings, to: &out)
            out += "</div>\n"
        }
        out += "</section>\n"
    }

    // MARK: Cards

    private static func writeCard(_ check: CardCheck, images: Images, to out: inout String) {
        let card = check.card
        var classes = "card kind-\(card.resolved.rawValue)"
        if card.degraded { classes += " degraded" }
        if check.broken { classes += " broken" }
        out += "<article class=\"\(classes)\" data-card-id=\"\(Markup.attribute(Redaction.redactURL(card.id)))\""
        out += " data-kind=\"\(card.resolved.rawValue)\">\n"

        let target = [card.profileName.map { "SDK \($0)" }, card.platform.rawValue, card.language].compactMap { $0 }
        out += "<div class=\"meta\"><span class=\"id\">\(Markup.text(Redaction.redactURL(card.id)))</span> "
        out += "<span class=\"target\">\(Markup.text(target.joined(separator: " · ")))</span>"
        if card.pinned { out += " <span class=\"tag pin\" title=\"pinned to the top of the feed\">📌 pinned</span>" }
        let kinds = card.requested == card.resolved ? card.resolved.rawValue : "\(card.requested) → \(card.resolved)"
        out += " <span class=\"kind\">\(kinds)</span>"
        if card.forced { out += " <span class=\"tag\">forced</span>" }
        if card.degraded { out += " <span class=\"tag warn\">DEGRADED</span>" }
        if check.broken { out += " <span class=\"tag bad\">BROKEN</span>" }
        out += "</div>\n<div class=\"cell\">"
        writeCell(check, images: images, to: &out)
        out += "</div>\n"
        writeProblems(check, to: &out)
        out += "</article>\n"
    }

    /// The card as InboxKit draws its resolved kind.
    private static func writeCell(_ check: CardCheck, images: Images, to out: inout String) {
        let card = check.card
        func asset(_ role: AssetReference.Role) -> AssetCheck? { check.assets.first { $0.role == role } }
        switch card.resolved {
        case .banner:
            writeImage(asset(.heroImage), role: "hero", images: images, to: &out)
        case .captioned:
            writeImage(asset(.heroImage), role: "hero", images: images, to: &out)
            writeText(card, to: &out)
            writeButtons(card.buttons, to: &out)
        case .classic, .legacy:
            // The Android legacy row: the icon row, with the optional `b` banner image above it.
            if card.resolved == .legacy, let banner = asset(.heroImage) {
                writeImage(banner, role: "hero", images: images, to: &out)
            }
            out += "<div class=\"classic\">"
            let picture = check.assets.first {
                ($0.role == .avatar || $0.role == .icon) && images.classes[$0.url] != nil
            }
            if let picture, let name = images.classes[picture.url] {
                out += "<div class=\"avatar img \(name)\" role=\"img\" aria-label=\"\(picture.role.rawValue)\"></div>"
            } else {
                let (initial, hue) = avatar(for: card)
                out += "<div class=\"avatar initial\" style=\"background:hsl(\(hue),55%,45%)\">"
                out += "\(Markup.text(initial))</div>"
            }
            writeText(card, to: &out)
            out += "</div>"
            writeButtons(card.buttons, to: &out)
        case .carousel:
            let slides = check.assets.filter { $0.role == .carouselSlide }.sorted { ($0.index ?? 0) < ($1.index ?? 0) }
            writeText(card, to: &out)
            out += "<div class=\"slides\">"
            if slides.isEmpty { out += "<div class=\"slide empty\">no slides</div>" }
            for slide in slides {
                out += "<figure class=\"slide\">"
                writeImage(slide, role: "slide-image", images: images, to: &out)
                let label =
                    slide.index.flatMap { $0 < card.accessibilityLabels.count ? card.accessibilityLabels[$0] : nil }
                    ?? "Slide"
                out += "<figcaption>\(Markup.text(Redaction.redactText(label)))</figcaption></figure>"
            }
            out += "</div>"
        case .video:
            out += "<div class=\"video\">"
            writeImage(asset(.videoPoster), role: "poster", images: images, to: &out)
            let failed = asset(.video)?.status == .failed
            out += "<span class=\"play\(failed ? " failed" : "")\" aria-label=\"Play video\">▶</span></div>"
            writeText(card, to: &out)
        case .wallet:
            if let hero = asset(.heroImage) { writeImage(hero, role: "hero", images: images, to: &out) }
            writeText(card, to: &out)
            let failed = asset(.walletPass)?.status == .failed
            out += "<div class=\"wallet-row\"><span class=\"wallet-button\(failed ? " failed" : "")\">"
            out += " Add to Apple Wallet</span></div>"
        }
    }

    /// Title and body as the card shows them, redacted and escaped; a muted note when the message has neither.
    private static func writeText(_ card: ResolvedCard, to out: inout String) {
        out += "<div class=\"text\">"
        let title = card.title ?? ""
        let body = card.body ?? ""
        if !title.isEmpty { out += "<div class=\"title\">\(Markup.text(Redaction.redactText(title)))</div>" }
        if !body.isEmpty { out += "<div class=\"body\">\(Markup.text(Redaction.redactText(body)))</div>" }
        if title.isEmpty && body.isEmpty { out += "<div class=\"no-text\">no title, no body</div>" }
        out += "</div>"
    }

    private static func writeImage(_ asset: AssetCheck?, role: String, images: Images, to out: inout String) {
        var style = ""
        if let width = asset?.width, let height = asset?.height, width > 0, height > 0 {
            style = " style=\"aspect-ratio:\(width)/\(height)\""
        }
        guard let asset else {
            out += "<div class=\"img \(role) missing\"><span>no image</span></div>"
            return
        }
        if let name = images.classes[asset.url] {
            out +=
                "<div class=\"img \(role) \(name)\"\(style) role=\"img\" aria-label=\"\(asset.role.rawValue)\"></div>"
        } else if asset.status == .failed {
            out += "<div class=\"img \(role) failed\"\(style)><span>✕ \(Markup.text(failureText(asset)))</span></div>"
        } else {
            let why = images.unavailable[asset.url] ?? asset.status.rawValue
            out += "<div class=\"img \(role) missing\"\(style)><span>\(Markup.text(why))</span></div>"
        }
    }

    private static func writeButtons(_ buttons: [CardButton], to out: inout String) {
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

    /// Degrade reason and SDK line, failing assets, and every finding of the card.
    private static func writeProblems(_ check: CardCheck, to out: inout String) {
        let card = check.card
        if card.degraded {
            out += "<div class=\"reason warn\"><b>Renders as \(card.resolved.rawValue) instead of "
            out += "\(card.requested.rawValue)</b>"
            if let reason = card.degradeReason { out += ": \(Markup.text(Redaction.redactText(reason)))" }
            if let log = card.sdkLog { out += "<br><code>\(Markup.text(Redaction.redactText(log)))</code>" }
            out += "</div>\n"
        }
        let failing = check.assets.filter { $0.status == .failed }
        if !failing.isEmpty {
            out += "<div class=\"reason \(check.broken ? "bad" : "warn")\"><b>"
            out += check.broken ? "Broken: a needed asset fails" : "Failing assets"
            out += "</b><ul class=\"assets\">"
            for asset in failing {
                out += "<li><span class=\"role\">\(asset.role.rawValue)\(asset.index.map { "[\($0)]" } ?? "")</span>"
                out += "\(asset.needed ? " (needed)" : "") <code>\(Markup.text(Redaction.redactURL(asset.url)))</code>"
                out += " — \(Markup.text(failureText(asset)))"
                writeFindings(asset.findings, to: &out)
                out += "</li>"
            }
            out += "</ul></div>\n"
        }
        let findings = check.findings + check.assets.filter { $0.status != .failed }.flatMap(\.findings)
        guard !findings.isEmpty else { return }
        let serious = findings.contains { $0.severity >= .warning }
        out += "<details class=\"card-findings\"\(serious ? " open" : "")><summary>\(findings.count) finding"
        out += "\(findings.count == 1 ? "" : "s")</summary>"
        writeFindings(findings, to: &out)
        out += "</details>\n"
    }

    private static func writeFindings(_ findings: [Finding], to out: inout String) {
        guard !findings.isEmpty else { return }
        out += "<ul class=\"findings\">"
        for finding in findings {
            out += "<li class=\"\(finding.severity.rawValue)\">"
            writeFindingBody(finding, to: &out)
            out += "</li>"
        }
        out += "</ul>"
    }

    private static func writeFindingBody(_ finding: Finding, to out: inout String) {
        out +=
            "<span class=\"sev\">\(finding.severity.rawValue)</span> <code>\(Markup.text(Redaction.redactText(finding.code)))</code> "
        out += Markup.text(Redaction.redactText(finding.message))
        if let path = finding.path {
            out += " <span class=\"path\">at \(Markup.text(Redaction.redactURL(path)))</span>"
        }
    }

    /// `HTTP 404`, `not-an-image`, … for a failed asset.
    static func failureText(_ asset: AssetCheck) -> String {
        var parts: [String] = []
        if let status = asset.httpStatus, !(200..<300).contains(status) { parts.append("HTTP \(status)") }
        if let failure = asset.failure { parts.append(Redaction.redactText(failure)) }
        return parts.isEmpty ? asset.status.rawValue : parts.joined(separator: ", ")
    }

    /// A classic card's initial (from the message code, else the input file) and a hue stable across runs.
    static func avatar(for card: ResolvedCard) -> (initial: String, hue: Int) {
        let basis = card.code ?? JUnitReport.inputFile(of: card.id)
        let initial = basis.first { $0.isLetter || $0.isNumber }.map { String($0).uppercased() } ?? "#"
        var hash: UInt32 = 2_166_136_261  // FNV-1a: Hasher is seeded per process, colours must not change
        for byte in card.id.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return (initial, Int(hash % 360))
    }

    static func byteText(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1 << 20 { return "\(bytes / 1024) KiB" }
        return "\(bytes / (1 << 20)) MiB"
    }

    private static let stylesheet = """
        :root{color-scheme:light;font:14px/1.4 -apple-system,"Helvetica Neue",Arial,sans-serif;color:#1c1c1e}
        body{margin:0;background:#f2f2f7}
        .summary{background:#fff;padding:16px 20px;border-bottom:1px solid #d1d1d6}
        h1{margin:0 0 8px;font-size:22px}h2{font-size:15px;color:#6c6c70;margin:20px 0 8px}
        .counts{display:flex;flex-wrap:wrap;gap:8px;list-style:none;margin:0;padding:0}
        .count{background:#f2f2f7;border-radius:8px;padding:4px 10px}
        .count.warn{background:#fff3cd;color:#7a5200}.count.bad{background:#fde2e1;color:#a4161a}
        .options{color:#6c6c70;margin:8px 0 0}.empty{text-align:center;color:#6c6c70;padding:24px}
        .feed,.inputs,.passes{max-width:420px;margin:0 auto;padding:0 12px}
        .card{background:#fff;border-radius:14px;margin:0 0 14px;padding:10px;box-shadow:0 1px 3px #0002}
        .card.degraded{outline:3px solid #f0ad00}.card.broken{outline:3px solid #d62828}
        .meta{font-size:11px;color:#6c6c70;margin-bottom:8px;overflow-wrap:anywhere}
        .kind{font-weight:600;color:#1c1c1e}.tag.pin{background:#007aff;color:#fff}code{font-size:12px}
        .tag{border-radius:4px;padding:0 4px;background:#e5e5ea;font-weight:700}
        .tag.warn{background:#f0ad00;color:#fff}.tag.bad{background:#d62828;color:#fff}
        .img{background:#e5e5ea center/cover no-repeat;border-radius:10px;display:flex;align-items:center;
        justify-content:center;color:#6c6c70;font-size:12px;overflow:hidden}
        .img.hero{width:100%;aspect-ratio:2/1}.img.poster{width:100%;aspect-ratio:16/9}
        .img.failed{background:repeating-linear-gradient(45deg,#fde2e1,#fde2e1 8px,#fff 8px,#fff 16px);color:#a4161a;
        font-weight:600}
        .kind-banner .img.hero{border-radius:14px}
        .text{padding:8px 2px;overflow-wrap:anywhere}.no-text{color:#8e8e93;font-style:italic}
        .title{font-weight:600;font-size:15px;display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:2;
        overflow:hidden}
        .body{color:#3a3a3c;display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:3;overflow:hidden}
        .classic{display:flex;gap:10px;align-items:center}.classic .text{flex:1}
        .avatar{width:48px;height:48px;border-radius:50%;flex:none}
        .avatar.initial{display:flex;align-items:center;justify-content:center;color:#fff;font-size:22px;font-weight:700}
        .buttons{display:flex;gap:8px;flex-wrap:wrap;margin-top:6px}
        .button{border:1px solid #007aff;color:#007aff;border-radius:8px;padding:3px 10px;text-decoration:none}
        .slides{display:flex;gap:8px;overflow:hidden}.slide{margin:0;flex:0 0 70%}
        .slide .img{width:100%;aspect-ratio:4/3}.slide figcaption{font-size:12px;color:#3a3a3c;padding-top:3px}
        .slide.empty{flex:1;padding:20px;text-align:center;color:#a4161a;background:#fde2e1;border-radius:10px}
        .video{position:relative;background:#000;border-radius:10px}
        .play{position:absolute;left:50%;top:50%;transform:translate(-50%,-50%);width:48px;height:48px;
        border-radius:50%;background:#fffc;color:#000;display:flex;align-items:center;justify-content:center;
        font-size:22px}
        .play.failed{background:#d62828;color:#fff}
        .wallet-row{padding:8px 0 2px}.wallet-button{display:inline-block;background:#000;color:#fff;border-radius:8px;
        padding:7px 14px;font-weight:600}.wallet-button.failed{background:#d62828;text-decoration:line-through}
        .reason{margin-top:8px;padding:6px 8px;border-radius:8px;font-size:12px}
        .reason.warn{background:#fff3cd}.reason.bad{background:#fde2e1}
        .reason code,.pass code{overflow-wrap:anywhere}
        .findings{margin:4px 0 0;padding-left:18px;font-size:12px}.findings .error .sev{color:#d62828;font-weight:700}
        .findings .warning .sev{color:#b07800;font-weight:700}.findings .info .sev{color:#6c6c70}
        .card-findings{margin-top:6px;font-size:12px}.path,.source{color:#6c6c70}
        .pass{background:#fff;border-radius:10px;padding:8px;margin-bottom:8px}
        .pass.invalid{outline:2px solid #d62828}

        """
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line breaks (no Foundation needed).
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
