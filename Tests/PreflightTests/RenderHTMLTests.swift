import Findings
import Foundation
import InboxCards
import Testing

@testable import Preflight

struct RenderHTMLTests {
    static let report = RenderFixtures.report()
    static let html = HTMLReport.render(report, image: RenderFixtures.storedImage)

    /// `attribute="value"` of every element carrying `attribute`, in document order.
    static func values(of attribute: String, in html: String) -> [String] {
        html.components(separatedBy: " \(attribute)=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The HTML of the card element whose id contains `fragment`.
    static func card(_ fragment: String, in html: String = html) -> String? {
        html.components(separatedBy: "<article ").dropFirst().first { $0.contains(fragment) }
            .map { String($0.prefix { _ in true }.components(separatedBy: "</article>")[0]) }
    }

    @Test func everyCardIsDrawnAsItsResolvedKind() {
        let ids = Self.values(of: "data-card-id", in: Self.html)
        #expect(ids.count == Self.report.cards.count)
        #expect(Set(ids) == Set(Self.report.cards.map(\.card.id)))
        let kinds = Self.values(of: "data-kind", in: Self.html)
        #expect(kinds.sorted() == Self.report.cards.map(\.card.resolved.rawValue).sorted())
        #expect(Set(kinds) == Set(CardKind.requestable.map(\.rawValue)))
    }

    @Test(arguments: [
        ("notifications[0]", ["kind-banner", "img hero i"]),
        (
            "notifications[1]",
            [
                "kind-captioned", "img hero i",
                "<div class=\"title\">Sale &lt;b&gt;&amp; \"more\"</div><div class=\"body\">Body</div>",
                "class=\"buttons\"",
            ]
        ),
        (
            "notifications[2]",
            [
                "kind-classic", "avatar initial", "<span class=\"pin\"",
                "<div class=\"title\">Hello</div><div class=\"body\">World https://x.example/?token=REDACTED</div>",
            ]
        ),
        (
            "notifications[3]",
            ["kind-carousel", "class=\"slide\"", "<figcaption>First</figcaption>", "img slide-image failed"]
        ),
        ("notifications[4]", ["kind-video", "img poster i", "class=\"play\""]),
        ("notifications[5]", ["kind-wallet", "img hero i", "Add to Apple Wallet"]),
        (
            "notifications[6]",
            [
                "kind-classic degraded", "DEGRADED", "carousel → classic",
                "<div class=\"text\"><div class=\"title\">No body</div></div>",
            ]
        ),
    ])
    func cardParts(fragment: String, parts: [String]) throws {
        let card = try #require(Self.card(fragment))
        for part in parts { #expect(card.contains(part), "\(fragment) lacks \(part)") }
    }

    /// Without a displayType Android draws the legacy row: the icon row, with the `b` banner above when present.
    @Test func androidLegacyRowIsTheIconRow() throws {
        let campaign = """
            {"inbox_id": "m1", "order": 1, "rt": 4102444800, "action_type": 0, "status": 1,
             "title": "T", "text": "B", "image": "https://c.example/i.png",
             "action_params": "{\\"b\\": \\"https://c.example/b.png\\"}"}
            """
        let report = RenderFixtures.report(campaign, options: ResolveOptions(platforms: [.android]), passes: [])
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        #expect(html.contains("<h2>Android — inbox-ui SDK 6.13</h2>"))
        let card = try #require(Self.card("c.json", in: html))
        #expect(card.contains("data-kind=\"legacy\""))
        #expect(html.contains("<section class=\"feed android\" id=\"f0\" data-platform=\"android\">"))
        let roles = report.cards[0].assets.map(\.role)
        #expect(card.contains("avatar img"))
        #expect(roles == [.icon, .heroImage])
        #expect(card.contains("img hero i"))
    }

    /// A banner is its image alone; a classic card without text says so instead of drawing an empty row.
    @Test func textOnlyWhereTheKindShowsIt() throws {
        let banner = try #require(Self.card("notifications[0]"))
        #expect(!banner.contains("class=\"text\""))
        let report = RenderFixtures.report(#"{"inbox_days": 1, "data": {"k": 1}}"#, passes: [])
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        let card = try #require(Self.card("c.json", in: html))
        #expect(card.contains("<div class=\"text\"><div class=\"no-text\">no title, no body</div></div>"))
    }

    @Test func degradedCardShowsReasonAndSdkLine() throws {
        let card = try #require(Self.card("notifications[6]"))
        #expect(card.contains("<b>Renders as classic instead of carousel</b>: no title/body"))
        #expect(card.contains("<code>Inbox cell degraded — code=? displayType=carousel hasImage=false"))
    }

    @Test func brokenCardNamesTheFailingAssetAndItsFindings() throws {
        let card = try #require(Self.card("notifications[3]"))
        #expect(card.contains("card kind-carousel broken"))
        #expect(card.contains("BROKEN"))
        #expect(card.contains("<b>Broken: a needed asset fails</b>"))
        #expect(
            card.contains(
                "carouselSlide[1]</span> (needed) <code>https://cdn.example.com/missing.png?sig=REDACTED</code> — HTTP 404, http-status"
            ))
        #expect(
            card.contains("<code>asset.httpStatus</code> HTTP 404 for https://cdn.example.com/missing.png?sig=REDACTED")
        )
        #expect(card.contains("<code>card.broken</code>"))
    }

    /// The box says what `card.broken` says, so the card's findings list does not say it again, and the failing
    /// asset's finding is in the box only.
    @Test func aBrokenCardSaysItOnce() throws {
        let card = try #require(Self.card("notifications[3]"))
        #expect(card.components(separatedBy: "card.broken").count - 1 == 1, "\(card)")
        #expect(card.components(separatedBy: "HTTP 404 for").count - 1 == 1)
        let box = try #require(card.components(separatedBy: "<div class=\"reason bad\">").dropFirst().first)
        #expect(box.hasPrefix("<b>Broken: a needed asset fails</b> <code>card.broken</code><ul class=\"assets\">"))
        let list = card.components(separatedBy: "<details class=\"card-findings\"").dropFirst().first ?? ""
        #expect(!list.contains("card.broken") && !list.contains("missing.png"), "the list leaves out what the box says")
    }

    /// Nothing is dropped, nothing said twice: every finding of the report (inputs, cards, assets, passes) is on the
    /// page once — as a finding line, or (`card.broken`) as the broken card's box, which names its code.
    @Test func everyFindingIsSaidOnce() {
        let findings = Self.report.allFindings
        let broken = findings.filter { $0.code == "card.broken" }
        #expect(!broken.isEmpty)
        let lines = Self.html.components(separatedBy: "<span class=\"sev\">").count - 1
        #expect(lines == findings.count - broken.count)
        let boxes = Self.html.components(separatedBy: "</b> <code>card.broken</code>").count - 1
        #expect(boxes == Self.report.cards.filter { $0.findings.contains { $0.code == "card.broken" } }.count)
        for finding in findings { #expect(Self.html.contains("<code>\(finding.code)</code>")) }
    }

    /// A thousand cards sharing one image: every card drawn, the image embedded once.
    @Test func aThousandCardsShareOneEmbeddedImage() {
        let message = #"{"content": "hi", "inbox_days": 1, "inbox_image": "https://cdn.example.com/same.png?token=S"}"#
        let campaign = "[" + Array(repeating: message, count: 1000).joined(separator: ",") + "]"
        let report = RenderFixtures.report(campaign, passes: [])
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        #expect(Self.values(of: "data-card-id", in: html).count == 1000)
        #expect(html.components(separatedBy: ";base64,").count - 1 == 1)
        #expect(html.components(separatedBy: "class=\"img hero i0").count - 1 == 1000)
    }

    /// 10,000 cards sharing 100 images: each image is one data URI, every card refers to it, the page stays small.
    @Test func tenThousandCardsSharingAHundredImagesStayUnderThreeMegabytes() {
        let images = (0..<100).map { RenderFixtures.png + [UInt8($0)] }  // 100 distinct contents
        let messages = (0..<10_000).map { index in
            #"{"ios_title": "Sale \#(index)", "content": "Up to 30% off", "inbox_days": 1, "#
                + #""inbox_image": "https://cdn.example.com/hero-\#(index % 100).png", "data": {"displayType": "banner"}}"#
        }
        var report = RenderFixtures.report("[" + messages.joined(separator: ",") + "]", passes: [])
        for card in report.cards.indices {
            for asset in report.cards[card].assets.indices {
                (report.cards[card].assets[asset].width, report.cards[card].assets[asset].height) = (1200, 600)
                // One URL per content here: its SHA-256 stands in for the hash of that URL's bytes.
                report.cards[card].assets[asset].sha256 = report.cards[card].assets[asset].url
            }
        }
        let stored: (String) -> (bytes: [UInt8], contentType: String)? = { url in
            let number = url.split(separator: "-").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
            return (images[number], "image/png")
        }
        let html = HTMLReport.render(report, image: stored, limits: HTMLReport.PreviewLimits(allCardsUpTo: 10_000))
        #expect(Self.values(of: "data-card-id", in: html).count == 10_000)
        #expect(html.components(separatedBy: ";base64,").count - 1 == 100)
        #expect(html.utf8.count < 3_000_000, "\(html.utf8.count) bytes")
    }

    /// Past ``HTMLReport/PreviewLimits/allCardsUpTo`` cards, each feed draws every degraded (broken, failing) card
    /// and the first `othersPerFeed` others, in feed order, and says how many it left out; up to it, every card.
    @Test(arguments: [(2_000, 200), (100, 7)])
    func largeReportsDrawTheNotableCardsAndSayWhatIsLeftOut(allCardsUpTo: Int, others: Int) {
        let messages = (0..<5_000).map { index in
            // Every 25th a carousel without slides: degraded to classic.
            let kind = index % 25 == 0 ? "carousel" : "banner"
            return #"{"ios_title": "Sale \#(index)", "content": "Up to 30% off", "inbox_days": 1, "#
                + #""inbox_image": "https://cdn.example.com/hero.png", "data": {"displayType": "\#(kind)"}}"#
        }
        let report = RenderFixtures.report("[" + messages.joined(separator: ",") + "]", passes: [])
        let degraded = report.cards.filter(\.card.degraded).count
        #expect(degraded == 200)
        let limits = HTMLReport.PreviewLimits(allCardsUpTo: allCardsUpTo, othersPerFeed: others)
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage, limits: limits)
        let drawn = Self.values(of: "data-card-id", in: html)
        #expect(drawn.count == degraded + others)
        #expect(html.components(separatedBy: "class=\"card kind-classic degraded").count - 1 == degraded)
        #expect(Set(drawn).count == drawn.count, "no card drawn twice")
        let leftOut = report.cards.count - drawn.count
        #expect(
            html.contains(
                "<p class=\"left-out\">\(leftOut) of this feed's \(report.cards.count) cards are not drawn: past "
                    + "\(allCardsUpTo) cards the preview draws every broken, degraded and failing card and the first "
                    + "\(others) others of each feed"))
        // Under the limit nothing is left out.
        let all = HTMLReport.render(
            report, image: RenderFixtures.storedImage, limits: HTMLReport.PreviewLimits(allCardsUpTo: 5_000))
        #expect(Self.values(of: "data-card-id", in: all).count == report.cards.count)
        #expect(!all.contains("class=\"left-out\""))
    }

    @Test func emptyReportSaysSo() {
        let report = CheckReport(
            options: ResolveOptions(), summary: CheckSummary(), inputFindings: [], cards: [], passes: [])
        let html = HTMLReport.render(report, image: { _ in nil })
        #expect(html.contains("<b>0</b> cards"))
        #expect(html.contains("No inbox cards"))
        #expect(!html.contains("data-card-id="))
        #expect(html.hasSuffix("</body>\n</html>\n"))
    }

    @Test func summaryOnTop() {
        let summary = Self.report.summary
        let header = Self.html.components(separatedBy: "</header>")[0]
        #expect(header.contains("<b>\(summary.cards)</b> cards"))
        #expect(header.contains("class=\"count warn\" data-count=\"degraded\"><b>1</b> degraded"))
        #expect(header.contains("class=\"count bad\" data-count=\"broken\"><b>1</b> broken"))
        #expect(header.contains("<b>\(summary.errors)</b> errors"))
        #expect(header.contains("<b>\(summary.warnings)</b> warnings"))
        #expect(!Self.html.contains("data-card-id=", before: "</header>"))
    }

    @Test func pinnedCardsComeFirstInTheirFeed() {
        let ids = Self.values(of: "data-card-id", in: Self.html)
        #expect(ids.first == "c.json#request.notifications[2]")
    }

    @Test func inputsAndPassesAreListed() {
        #expect(Self.html.contains("<span class=\"source\">c.json#request.notifications[7]</span>"))
        #expect(
            Self.html.contains(
                "<div class=\"pass invalid\"><b>invalid</b> <code>https://cdn.example.com/bad.pkpass?token=REDACTED</code>"
            ))
    }

    /// The page makes no request: only data: images, no script, no external element, a CSP that forbids the rest.
    @Test func selfContained() {
        let html = Self.html
        #expect(html.contains("content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\""))
        for tag in ["<script", "<img", "<link", "<iframe", "<object", "<embed", "<video", "<source", " src="] {
            #expect(!html.contains(tag), "page has \(tag)")
        }
        let urls = html.components(separatedBy: "url(").dropFirst()
        #expect(!urls.isEmpty)
        #expect(urls.allSatisfy { $0.hasPrefix("\"data:image/png;base64,") })
        // Links are only http(s) buttons: never javascript:, and only the captioned card's "Claim"; the carousel's
        // page dots jump to its slides within the page.
        let links = Self.values(of: "href", in: html)
        #expect(links.filter { !$0.hasPrefix("#") } == ["https://example.com/p?token=REDACTED"])
        #expect(links.filter { $0.hasPrefix("#") }.count == 2)
    }

    @Test func hostileTextIsEscapedAndSecretsRedacted() {
        let html = Self.html
        #expect(!html.contains("SECRET"))
        #expect(!html.contains("AUTH-SECRET"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;</span>"))
        #expect(!html.contains("javascript:alert(1)\""))
    }

    /// One content used by several cards and URLs (banner, wallet hero, slides: the same PNG) is embedded once.
    @Test func eachImageIsEmbeddedOnce() {
        let images = Self.report.cards.flatMap(\.assets).filter { HTMLReport.isImageRole($0.role) && $0.status == .ok }
        let distinct = Set(images.compactMap(\.sha256))
        #expect(Set(images.map(\.url)).count > distinct.count)
        let embedded = Self.html.components(separatedBy: ";base64,").count - 1
        #expect(embedded == distinct.count)
        #expect(distinct.count < Self.report.cards.flatMap(\.assets).filter { HTMLReport.isImageRole($0.role) }.count)
        let png = Base64.encode(RenderFixtures.png)
        #expect(Self.html.contains("data:image/png;base64,\(png)\""))
    }

    /// What the store answers for every image (a 4 MiB + 1 buffer is built in the test, not in its arguments,
    /// which Swift Testing prints).
    enum Stored: String, CaseIterable {
        case missing = "not in the store"
        case svg = "not a web image"
        case huge = "too large to embed"

        var answer: (bytes: [UInt8], contentType: String)? {
            switch self {
            case .missing: nil
            case .svg: ([UInt8]("<svg/>".utf8), "image/svg+xml")
            case .huge: ([UInt8](repeating: 0, count: HTMLReport.maxImageBytes + 1), "image/png")
            }
        }
    }

    @Test(arguments: Stored.allCases)
    func unavailableImagesAreLabelledFrames(stored: Stored) throws {
        let answer = stored.answer
        let reason = stored.rawValue
        var report = RenderFixtures.judgingGeometry(Self.report)
        for card in report.cards.indices {
            for asset in report.cards[card].assets.indices { report.cards[card].assets[asset].format = nil }
        }
        let html = HTMLReport.render(report, image: { _ in answer })
        #expect(!html.contains(";base64,"))
        let banner = try #require(Self.card("notifications[0]", in: html))
        // 64×48 is far too small for the banner: drawn in the banner's frame, marked.
        #expect(banner.contains("<div class=\"img hero missing\"><span>"))
        #expect(banner.contains("\(reason)</span><span class=\"mark\">⚠ 64×48 image drawn 358 pt wide"))
    }

    @Test(
        arguments: [
            ("png", "application/octet-stream", "image/png"), (nil, "image/JPEG; charset=x", "image/jpeg"),
            (nil, "image/svg+xml", nil), ("svg", "image/svg+xml", nil), (nil, "text/html", nil),
            ("webp", "image/png", "image/webp"), (nil, "image/png\" onerror=\"x", nil),
        ] as [(String?, String, String?)])
    func onlyBrowserImageTypesAreEmbedded(format: String?, contentType: String, expected: String?) {
        #expect(HTMLReport.embeddableType(format: format, contentType: contentType) == expected)
    }

    @Test(
        arguments: [
            ("https://a.example/x?token=t", "https://a.example/x?token=REDACTED"),
            ("HTTP://a.example/", "HTTP://a.example/"),
            ("javascript:alert(1)", nil), (" javascript:alert(1)", nil), ("JavaScript:alert(1)", nil),
            ("data:text/html,x", nil), ("myapp://x", nil), ("file:///etc/passwd", nil),
            ("https://a.example/\u{0}x", nil),
        ] as [(String, String?)])
    func onlyWebURLsBecomeLinks(url: String, expected: String?) {
        #expect(HTMLReport.linkTarget(url) == expected)
    }

    @Test func hostileIdsAndCodesAreEscaped() throws {
        let campaign =
            #"{"inbox_id": "\"><b>x", "order": 1, "rt": 4102444800, "action_type": 0, "status": 1, "title": "T", "text": "B"}"#
        let report = RenderFixtures.report(campaign, source: "a\"<x>&'.json", passes: [])
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        let ids = Self.values(of: "data-card-id", in: html)
        #expect(ids == ["a&quot;&lt;x&gt;&amp;&#39;.json"])
        #expect(!html.contains("<x>"))
        #expect(!html.contains("<b>x"))
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 57, 1000])
    func base64MatchesFoundation(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString())
    }
}

extension String {
    /// Whether `needle` occurs before the first `marker`.
    fileprivate func contains(_ needle: String, before marker: String) -> Bool {
        components(separatedBy: marker)[0].contains(needle)
    }
}
