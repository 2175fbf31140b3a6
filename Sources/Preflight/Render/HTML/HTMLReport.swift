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
/// `javascript:` or other schemes). An image is embedded once however many cards and URLs show it (one CSS class
/// per distinct content, by SHA-256: 2,000 tracking URLs of one picture are one `data:` URI) and only when it is an
/// image type a browser shows (`png`, `jpeg`, `gif`, `webp`, `avif`, `bmp`, no SVG) and within ``maxImageBytes``
/// (and ``maxTotalImageBytes`` of distinct bytes for the page); otherwise a labelled frame is drawn.
///
/// Each thing is said once, where a reader looks for it: a broken card's box names the failing asset and its
/// findings (the card's findings list leaves out its `card.broken`), and a root cause is stated once at the top with
/// the cards it explains, its cards' assets pointing to it.
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
    /// Budget of embedded image bytes for the whole page, counted once per distinct content, so a campaign with
    /// thousands of distinct images still gives a page a browser opens.
    public static let maxTotalImageBytes = 48 << 20

    /// How much of a large report the preview draws, so that a check of a whole feed export still gives a page a
    /// browser opens: up to ``allCardsUpTo`` cards in the report, every card; past it, in each feed, every card that
    /// is broken, degraded or failing, and the first ``othersPerFeed`` of the rest in feed order; each feed then
    /// says how many it left out (the JSON and NDJSON reports hold them all).
    public struct PreviewLimits: Sendable, Hashable {
        public var allCardsUpTo: Int
        public var othersPerFeed: Int

        public init(allCardsUpTo: Int = 2_000, othersPerFeed: Int = 200) {
            self.allCardsUpTo = allCardsUpTo
            self.othersPerFeed = othersPerFeed
        }

        /// The feed as drawn: its cards within the limits, and how many were left out.
        func drawn(of feed: Feed, reportCards: Int) -> Feed {
            guard reportCards > allCardsUpTo else { return feed }
            var drawn = feed
            drawn.cards = []
            drawn.positions = []
            var others = 0
            for (position, check) in feed.cards.enumerated() {
                let notable = check.broken || check.card.degraded || check.failing
                if !notable {
                    guard others < othersPerFeed else { continue }
                    others += 1
                }
                drawn.cards.append(check)
                drawn.positions.append(feed.positions[position])
            }
            drawn.leftOut = feed.cards.count - drawn.cards.count
            return drawn
        }
    }

    /// The page.
    /// - Parameters:
    ///   - report: the check report.
    ///   - image: the stored bytes and content type of an asset, by its URL **as in the input** (secrets
    ///     included, as the store keys it); `nil` when the bytes are not available. Called once per distinct content
    ///     (the assets' ``AssetCheck/sha256``): with its first URL, and with another of its URLs only when an earlier
    ///     one gave `nil`.
    ///   - app: the app's name and icon for the classic avatar.
    ///   - limits: how many cards a large report draws (``PreviewLimits``).
    /// - Returns: the HTML document.
    public static func render(
        _ report: CheckReport, image: (String) -> (bytes: [UInt8], contentType: String)?,
        app: AppIdentity = AppIdentity(), limits: PreviewLimits = PreviewLimits()
    ) -> String {
        var images = embedImages(report, image: image)
        if let icon = app.icon, let type = embeddableType(format: nil, contentType: icon.contentType),
            icon.bytes.count <= maxImageBytes
        {
            images.css += ".app-icon{background-image:url(\"data:\(type);base64,\(Base64.encode(icon.bytes))\")}\n"
            images.appIcon = true
        }
        let feeds = feeds(report.cards).map { limits.drawn(of: $0, reportCards: report.cards.count) }
        images.css += tabRules(count: feeds.count)
        var body = ""
        body.reserveCapacity(4096 + report.cards.count * 400)
        writeSummary(report, to: &body)
        if report.cards.isEmpty { body += "<p class=\"empty\">No inbox cards: nothing reaches the inbox.</p>\n" }
        writeFeeds(feeds, report: report, images: images, app: app, limits: limits, to: &body)
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

    // MARK: Summary, inputs, passes

    static func writeSummary(_ report: CheckReport, to out: inout String) {
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
        writeRootCauses(report, to: &out)
        out += "</header>\n"
    }

    /// The run's verdict at `--fail-on`, as the text summary's `failing` row says it, and what is excused.
    static func writeVerdict(_ report: CheckReport, to out: inout String) {
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

    static func writeInputs(_ findings: [SourcedFinding], to out: inout String) {
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

    static func writePasses(_ passes: [PassCheck], to out: inout String) {
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

    static func byteText(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1 << 20 { return "\(bytes / 1024) KiB" }
        return "\(bytes / (1 << 20)) MiB"
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line breaks (no Foundation needed).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
