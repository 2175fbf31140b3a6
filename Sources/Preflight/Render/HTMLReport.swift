import Findings
import InboxCards
import MediaProbe

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
/// | classic | the avatar/icon image, else the app's icon or initial (``AppIdentity``), title, body, the buttons |
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
    /// The app whose inbox the preview draws: the classic card's avatar is its icon, else its name's initial, as the
    /// SDK draws it (`--app-name`, `--app-icon`).
    public struct AppIdentity: Sendable {
        public var name: String?
        /// The icon's bytes and content type (a web image type, else it is not drawn).
        public var icon: (bytes: [UInt8], contentType: String)?

        public init(name: String? = nil, icon: (bytes: [UInt8], contentType: String)? = nil) {
            self.name = name
            self.icon = icon
        }
    }

    /// Largest image embedded; bigger ones are drawn as a labelled frame with their pixel size (there is no
    /// downscaler in pure Swift here, and a preview needs no 20 MB hero).
    public static let maxImageBytes = 512 << 10
    /// Budget of embedded image bytes for the whole page, so a campaign with thousands of distinct images still
    /// gives a page a browser opens.
    public static let maxTotalImageBytes = 48 << 20

    /// The page.
    /// - Parameters:
    ///   - report: the check report.
    ///   - image: the stored bytes and content type of an asset, by its URL **as in the input** (secrets
    ///     included, as the store keys it); `nil` when the bytes are not available. Called once per distinct URL.
    /// - Returns: the HTML document.
    ///   - app: the app's name and icon for the classic avatar.
    public static func render(
        _ report: CheckReport, image: (String) -> (bytes: [UInt8], contentType: String)?,
        app: AppIdentity = AppIdentity()
    ) -> String {
        var images = embedImages(report, image: image)
        if let icon = app.icon, let type = embeddableType(format: nil, contentType: icon.contentType),
            icon.bytes.count <= maxImageBytes
        {
            images.css += ".app-icon{background-image:url(\"data:\(type);base64,\(Base64.encode(icon.bytes))\")}\n"
            images.appIcon = true
        }
        let feeds = feeds(report.cards)
        images.css += tabRules(count: feeds.count)
        var body = ""
        body.reserveCapacity(4096 + report.cards.count * 400)
        writeSummary(report, to: &body)
        if report.cards.isEmpty { body += "<p class=\"empty\">No inbox cards: nothing reaches the inbox.</p>\n" }
        writeFeeds(feeds, images: images, app: app, to: &body)
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
        /// `--app-icon` is embedded as `.app-icon`.
        var appIcon = false
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
                // Drawn only where the asset is ok, i.e. where the card's platform shows it (a TIFF on iOS).
                let size = asset.width.flatMap { width in asset.height.map { "\(width)×\($0) " } } ?? ""
                let format = asset.format.flatMap(MediaFormat.init(rawValue:)).map(ImageSniffer.formatName)
                images.unavailable[asset.url] =
                    format.map { "\(size)\($0) image: the app shows it, a browser cannot draw \($0)" }
                    ?? "not a web image"
                continue
            }
            guard stored.bytes.count <= maxImageBytes, total + stored.bytes.count <= maxTotalImageBytes else {
                let size = asset.width.flatMap { width in asset.height.map { "\(width)×\($0) " } } ?? ""
                images.unavailable[asset.url] = "\(size)image, \(byteText(stored.bytes.count)): too large to embed"
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
        var platform: Platform
        var language: String?
        var cards: [CardCheck]
    }

    /// One feed per platform, SDK profile and device language, each in the order that SDK shows it
    /// (``ResolvedCard/feedPosition``: iOS pinned, unread, newest; Android source, send date, order). A campaign with
    /// per-language messages gets a feed per language: its language-less cards and, per message, the card of that
    /// language, else its `en` one (``ResolvedCard/otherFeedPositions``), as a device of that language shows them.
    static func feeds(_ cards: [CardCheck]) -> [Feed] {
        var groups: [(title: String, platform: Platform, cards: [CardCheck])] = []
        var index: [String: Int] = [:]
        for check in cards {
            let card = check.card
            let title =
                card.platform == .ios
                ? "iOS — InboxKit SDK \(card.profileName ?? "?")" : "Android — inbox-ui SDK \(card.profileName ?? "?")"
            if let existing = index[title] {
                groups[existing].cards.append(check)
            } else {
                index[title] = groups.count
                groups.append((title, card.platform, [check]))
            }
        }
        var feeds: [Feed] = []
        for group in groups {
            var languages: [String] = []
            var seen = Set<String>()
            for check in group.cards {
                if let language = check.card.language, seen.insert(language).inserted { languages.append(language) }
            }
            if languages.isEmpty {
                let ordered = ordering(group.cards.map { ($0, $0.card.feedPosition) })
                feeds.append(Feed(title: group.title, platform: group.platform, language: nil, cards: ordered))
                continue
            }
            for language in languages {
                let members = group.cards.compactMap { check -> (CardCheck, Int?)? in
                    if check.card.language == language { return (check, check.card.feedPosition) }
                    guard let place = check.card.otherFeedPositions.first(where: { $0.language == language }) else {
                        return nil
                    }
                    return (check, place.position)
                }
                feeds.append(
                    Feed(
                        title: group.title + " · " + language, platform: group.platform, language: language,
                        cards: ordering(members)))
            }
        }
        return feeds
    }

    /// Stable by position: cards without one go last, in report order.
    private static func ordering(_ members: [(CardCheck, Int?)]) -> [CardCheck] {
        members.enumerated().sorted { lhs, rhs in
            let left = lhs.element.1 ?? Int.max
            let right = rhs.element.1 ?? Int.max
            return left != right ? left < right : lhs.offset < rhs.offset
        }.map(\.element.0)
    }

    /// The feeds side by side on a wide screen, as tabs on a narrow one (radio buttons and CSS: the page has no
    /// script).
    private static func writeFeeds(_ feeds: [Feed], images: Images, app: AppIdentity, to out: inout String) {
        guard !feeds.isEmpty else { return }
        out += "<main class=\"feeds\">\n"
        for index in feeds.indices {
            out += "<input type=\"radio\" name=\"feed\" class=\"tab\" id=\"t\(index)\"\(index == 0 ? " checked" : "")>"
        }
        out += "\n<nav class=\"tabs\">"
        for (index, feed) in feeds.enumerated() {
            out += "<label for=\"t\(index)\">\(Markup.text(shortTitle(feed)))</label>"
        }
        out += "</nav>\n"
        for (index, feed) in feeds.enumerated() {
            let platform = feed.platform.rawValue
            out += "<section class=\"feed \(platform)\" id=\"f\(index)\" data-platform=\"\(platform)\""
            if let language = feed.language { out += " data-language=\"\(Markup.attribute(language))\"" }
            out += "><h2>\(Markup.text(feed.title))</h2>\n"
            for (position, check) in feed.cards.enumerated() {
                writeCard(check, feed: index, position: position, images: images, app: app, to: &out)
            }
            out += "</section>\n"
        }
        out += "</main>\n"
    }

    /// `iOS 7.2 · en`, for a tab.
    static func shortTitle(_ feed: Feed) -> String {
        let profile = feed.cards.first?.card.profileName ?? "?"
        let platform = feed.platform == .ios ? "iOS" : "Android"
        return [platform + " " + profile, feed.language].compactMap { $0 }.joined(separator: " · ")
    }

    /// The rules that show the chosen tab's feed on a narrow screen.
    static func tabRules(count: Int) -> String {
        var css = ""
        for index in 0..<count {
            css += "#t\(index):checked~#f\(index){display:block}"
            css += "#t\(index):checked~.tabs [for=t\(index)]{background:#007aff;color:#fff}\n"
        }
        return css
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
        writeVerdict(report, to: &out)
        var line = report.options.targetDescription
        if let forced = report.options.forceKind { line += "; forced kind \(forced.rawValue)" }
        out += "<p class=\"options\">\(Markup.text(line))</p>\n"
        if !report.rootCauses.isEmpty {
            // As in the text report: a host that fails every request is named once, not on each of its cards.
            out += "<div class=\"root-causes\"><b>Root causes</b><ul class=\"findings\">"
            for cause in report.rootCauses {
                out += "<li class=\"\(cause.finding.severity.rawValue)\""
                out += " data-root-cause=\"\(Markup.attribute(cause.id))\">"
                writeFindingBody(cause.finding, to: &out)
                out += "</li>"
            }
            out += "</ul></div>\n"
        }
        out += "</header>\n"
    }

    /// The run's verdict at `--fail-on`, as the text summary's `failing` row says it, and what is excused.
    private static func writeVerdict(_ report: CheckReport, to out: inout String) {
        guard let policy = report.failOn else { return }
        let summary = report.summary
        out += "<p class=\"verdict \(summary.failing ? "bad" : "ok")\" data-failing=\"\(summary.failing)\">"
        if summary.failing {
            out += "<b>Fails at --fail-on \(policy.rawValue)</b>: "
            out += CheckTextReport.plural(summary.failingCards, "card") + ", "
            out += CheckTextReport.plural(summary.failingFindings, "finding")
        } else {
            out += "<b>Passes at --fail-on \(policy.rawValue)</b>"
        }
        if summary.suppressed > 0 { out += " · \(summary.suppressed) suppressed" }
        if report.baselineFixed != nil { out += " · \(summary.known) known from the baseline" }
        out += "</p>\n"
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

    private static func writeCard(
        _ check: CardCheck, feed: Int, position: Int, images: Images, app: AppIdentity, to out: inout String
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
        writeProblems(check, to: &out)
        out += "</article>\n"
    }

    /// The card as the SDK of its platform draws its resolved kind.
    private static func writeCell(
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
    private static func writeIcon(
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
    private static func writeText(_ card: ResolvedCard, to out: inout String) {
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

    private static func writeImage(
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
        if let label = finding.platformLabel { out += "<span class=\"path\">\(label)</span> " }
        out += Markup.text(Redaction.redactText(finding.message))
        if let path = finding.path {
            out += " <span class=\"path\">at \(Markup.text(Redaction.redactURL(path)))</span>"
        }
        guard let verdict = finding.verdict else { return }
        if let reason = verdict.suppressed {
            out += " <span class=\"excused\">suppressed: \(Markup.text(Redaction.redactText(reason)))</span>"
        }
        if verdict.baseline == .known { out += " <span class=\"excused\">known (baseline)</span>" }
    }

    /// `HTTP 404`, `not-an-image`, … for a failed asset.
    static func failureText(_ asset: AssetCheck) -> String {
        // The card's platform does not show bytes that are fine elsewhere: say which rule, not a fetch failure.
        if asset.failure?.hasPrefix("unsupported-on-") == true || asset.failure == "cleartext-blocked",
            let rule = asset.findings.first(where: { $0.platform != nil && $0.severity == .error })
        {
            let platform = rule.platform.map(\.displayName) ?? ""
            let what = asset.failure == "cleartext-blocked" ? "blocks plain http://" : "does not show it"
            return "\(platform) \(what) (\(Redaction.redactText(rule.code)))"
        }
        var parts: [String] = []
        if let status = asset.httpStatus, !(200..<300).contains(status) { parts.append("HTTP \(status)") }
        if let failure = asset.failure { parts.append(Redaction.redactText(failure)) }
        return parts.isEmpty ? asset.status.rawValue : parts.joined(separator: ", ")
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
        .tab{position:absolute;opacity:0;pointer-events:none}
        .tabs{display:flex;gap:6px;overflow-x:auto;padding:8px 12px;position:sticky;top:0;z-index:2;background:#f2f2f7}
        .tabs label{white-space:nowrap;padding:4px 12px;border-radius:14px;background:#e5e5ea;cursor:pointer}
        .feed{display:none;box-sizing:border-box;max-width:420px;margin:0 auto;padding:0 12px}
        .inputs,.passes{max-width:420px;margin:0 auto;padding:0 12px}
        @media (min-width:900px){.tabs{display:none}
        .feeds{display:flex;gap:16px;align-items:flex-start;overflow-x:auto;padding:0 16px}
        .feed{display:block;flex:0 0 390px;margin:0;padding:0}.inputs,.passes{max-width:820px}}
        .card{background:#fff;border-radius:14px;margin:0 0 14px;padding:10px;box-shadow:0 1px 3px #0002}
        .card.degraded{outline:3px solid #f0ad00}.card.broken{outline:3px solid #d62828}
        .card::before{content:attr(data-card-id) " · " attr(data-kind);display:block;font-size:11px;color:#6c6c70;
        margin-bottom:6px;overflow-wrap:anywhere}
        .meta{font-size:11px;color:#6c6c70;margin-bottom:8px;overflow-wrap:anywhere}
        .kind{font-weight:600;color:#1c1c1e}code{font-size:12px}
        .verdict{margin:8px 0 0;font-size:14px}.verdict.bad b{color:#d62828}.verdict.ok b{color:#1a7f37}
        .root-causes{margin-top:8px;font-size:13px}.excused{color:#6c6c70;font-style:italic}
        .tag{border-radius:4px;padding:0 4px;background:#e5e5ea;font-weight:700}
        .tag.warn{background:#f0ad00;color:#fff}.tag.bad{background:#d62828;color:#fff}
        .cell{position:relative}
        .pin{display:inline-block;white-space:nowrap;font-size:11px;font-weight:600;color:#007aff;background:#e5f0ff;
        border-radius:10px;padding:1px 8px;margin-bottom:6px}
        .pin::before{content:"";display:inline-block;width:6px;height:6px;border-radius:50%;background:currentColor;
        margin-right:4px;vertical-align:1px}
        .cell>time{display:flex;gap:6px;align-items:center;justify-content:flex-end;font-size:11px;color:#8e8e93}
        .unread .cell>time::before{content:"";width:8px;height:8px;border-radius:50%;background:#007aff}
        .img{background:#e5e5ea center/cover no-repeat;border-radius:10px;display:flex;align-items:center;
        justify-content:center;color:#6c6c70;font-size:12px;overflow:hidden;position:relative;text-align:center}
        .img.hero{width:100%;aspect-ratio:16/9}.kind-banner .img.hero{aspect-ratio:2/1;border-radius:14px}
        .img.poster{width:100%;aspect-ratio:16/9}
        .img.failed{background:repeating-linear-gradient(45deg,#fde2e1,#fde2e1 8px,#fff 8px,#fff 16px);color:#a4161a;
        font-weight:600}
        .img.looks-wrong{outline:3px dashed #f0ad00;outline-offset:-3px}
        .mark{position:absolute;left:4px;right:4px;bottom:4px;background:#fff3cde6;color:#7a5200;border-radius:6px;
        font-size:11px;padding:2px 4px}
        .text{padding:8px 2px;overflow-wrap:anywhere;min-width:0}.no-text{color:#8e8e93;font-style:italic}
        .title{font-weight:600;font-size:15px;display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:2;
        overflow:hidden}
        .body{color:#3a3a3c;display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:3;overflow:hidden}
        .kind-classic .title,.kind-legacy .title{-webkit-line-clamp:1}.kind-classic .body{-webkit-line-clamp:2}
        .ph{border-bottom:1px dotted #007aff}.ph.missing{background:#fde2e1;color:#a4161a}
        .classic,.captioned{display:flex;gap:10px;align-items:center}.classic .text,.captioned .text{flex:1}
        .avatar{width:48px;height:48px;border-radius:50%;flex:none}.icon32{width:32px;height:32px;border-radius:50%;
        flex:none}
        .initial{display:flex;align-items:center;justify-content:center;color:#fff;font-size:22px;font-weight:700}
        .icon32.initial{font-size:15px}
        .buttons{display:flex;gap:8px;flex-wrap:wrap;margin-top:6px}
        .button{border:1px solid #007aff;color:#007aff;border-radius:8px;padding:3px 10px;text-decoration:none}
        .slides{display:flex;gap:8px;overflow-x:auto;scroll-snap-type:x mandatory;scrollbar-width:none}
        .slide{margin:0;flex:0 0 85%;scroll-snap-align:start}
        .slide .img{width:100%;aspect-ratio:4/3}.slide figcaption{font-size:12px;color:#3a3a3c;padding-top:3px}
        .slide.failed figcaption{color:#a4161a;font-weight:600}
        .slide.empty{flex:1;padding:20px;text-align:center;color:#a4161a;background:#fde2e1;border-radius:10px}
        .dots{display:flex;gap:6px;justify-content:center;padding:6px 0 2px}
        .dots a{width:7px;height:7px;border-radius:50%;background:#c7c7cc}.dots a:first-child{background:#1c1c1e}
        .dots a.failed{background:#d62828}
        .video{position:relative;background:#000;border-radius:10px}
        .play{position:absolute;left:50%;top:50%;transform:translate(-50%,-50%);width:48px;height:48px;
        border-radius:50%;background:#fffc;color:#000;display:flex;align-items:center;justify-content:center;
        font-size:22px}
        .play.failed{background:#d62828;color:#fff}
        .wallet-row{padding:8px 0 2px}.wallet-button{display:inline-block;background:#000;color:#fff;border-radius:8px;
        padding:7px 14px;font-weight:600}.wallet-button.failed{background:#d62828;text-decoration:line-through}
        .android{font-family:Roboto,"Noto Sans",Arial,sans-serif}
        .android .card{border-radius:12px;box-shadow:0 1px 2px #0003,0 1px 3px 1px #0001}
        .android .img{border-radius:8px}.android .kind-banner .img.hero{border-radius:12px}
        .android .pin{color:#6750a4;background:#eaddff;border-radius:8px}.android .unread .cell>time::before{background:#6750a4}
        .android .button{border-color:#6750a4;color:#6750a4;border-radius:20px}
        .android .kind-legacy{border-radius:0;box-shadow:none;border-bottom:1px solid #d1d1d6;margin:0;padding:10px 4px}
        .android .kind-legacy .avatar{width:40px;height:40px}
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
