import Findings
import Foundation
import InboxCards
import Testing

@testable import Preflight

/// The preview is the feed (issue 18 items 1–4): feeds per platform, profile and language in SDK order, the card
/// parts each SDK draws, every slide, placeholders, the app's identity, and images that will look wrong.
struct RenderFeedTests {
    static func sections(_ html: String) -> [String] {
        html.components(separatedBy: "<section class=\"feed ").dropFirst().map {
            $0.components(separatedBy: "</section>")[0]
        }
    }

    static func ids(_ section: String) -> [String] { RenderHTMLTests.values(of: "data-card-id", in: section) }

    /// A per-language message and a language-less one: a feed per language, the language-less card in each, in the
    /// SDK's order (pinned first on iOS).
    @Test func aFeedPerLanguageInSDKOrder() {
        let campaign = """
            {"request": {"notifications": [
              {"ios_title": {"en": "Hello", "de": "Hallo"}, "content": {"en": "b", "de": "b"}, "inbox_days": 1},
              {"ios_title": "Plain", "content": "b", "inbox_days": 1, "data": {"pinned": true}}
            ]}}
            """
        let report = RenderFixtures.report(campaign, passes: [])
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        let feeds = Self.sections(html)
        #expect(feeds.count == 2)
        #expect(feeds[0].contains("<h2>iOS — InboxKit SDK 7.2 · en</h2>"))
        #expect(feeds[1].contains("<h2>iOS — InboxKit SDK 7.2 · de</h2>"))
        for feed in feeds {
            #expect(Self.ids(feed) == ["c.json#request.notifications[1]", "c.json#request.notifications[0]"])
        }
        #expect(feeds[1].contains("<div class=\"title\">Hallo</div>"))
        #expect(html.contains("<label for=\"t0\">iOS 7.2 · en</label><label for=\"t1\">iOS 7.2 · de</label>"))
        #expect(html.contains("#t1:checked~#f1{display:block}"))
    }

    /// Both platforms side by side: an iOS and an Android column, the pinned card first only on iOS.
    @Test func androidDoesNotFloatPinnedCards() {
        let campaign = """
            {"request": {"notifications": [
              {"title": "New", "content": "b", "inbox_days": 1, "send_date": "2026-11-30 10:00"},
              {"title": "Pinned", "content": "b", "inbox_days": 1, "send_date": "2026-11-01 10:00",
               "data": {"pinned": true, "displayType": "classic"}}
            ]}}
            """
        let options = ResolveOptions(platforms: [.ios, .android], at: 1_796_126_400)
        let html = HTMLReport.render(RenderFixtures.report(campaign, options: options, passes: []), image: { _ in nil })
        let feeds = Self.sections(html)
        #expect(feeds.count == 2)
        #expect(feeds[0].hasPrefix("ios\""))
        #expect(feeds[1].hasPrefix("android\""))
        #expect(Self.ids(feeds[0]).first == "c.json#request.notifications[1]")
        #expect(Self.ids(feeds[1]).first == "c.json#request.notifications[0]")
        #expect(feeds[0].contains("<time>30 Nov 2026, 10:00</time>"))
        #expect(feeds[1].contains("<span class=\"pin\">Pinned</span>"))
    }

    /// A read feed message has no unread dot; an unread one has.
    @Test func unreadStateAsTheFeedSays() {
        func message(_ code: String, status: Int) -> String {
            #"{"inbox_id": "\#(code)", "order": 1, "rt": 4102444800, "action_type": 0, "status": \#(status), "#
                + #""title": "T", "text": "B", "send_date": 1764590400}"#
        }
        let report = RenderFixtures.report("[\(message("r", status: 2)),\(message("u", status: 1))]", passes: [])
        let html = HTMLReport.render(report, image: { _ in nil })
        #expect(report.cards.map(\.card.unread) == [false, true])
        #expect(html.components(separatedBy: "card kind-classic unread").count - 1 == 1)
        #expect(html.components(separatedBy: "<time>1 Dec 2025, 12:00</time>").count - 1 == 2)
    }

    /// Every slide is in the strip with its own id and page dot; the failing one is marked where it sits.
    @Test func everySlideAndItsDot() throws {
        let slides = (1...6).map { #"{"image": "https://cdn.example.com/s\#($0)\#($0 == 4 ? "-missing" : "").png"}"# }
        let campaign = """
            {"request": {"notifications": [{"ios_title": "t", "content": "b", "inbox_days": 1,
              "data": {"displayType": "carousel", "carousel": [\(slides.joined(separator: ","))]}}]}}
            """
        let report = RenderFixtures.report(campaign, options: ResolveOptions(profiles: [.v7_1]), passes: [])
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        let card = try #require(RenderHTMLTests.card("notifications[0]", in: html))
        #expect(card.components(separatedBy: "<figure class=\"slide").count - 1 == 6)
        for number in 0..<6 { #expect(card.contains("id=\"c0-0-\(number)\"")) }
        #expect(card.components(separatedBy: "<a href=\"#c0-0-").count - 1 == 6)
        #expect(card.contains("<figure class=\"slide failed\" id=\"c0-0-3\">"))
        #expect(card.contains("<a href=\"#c0-0-3\" class=\"failed\""))
        #expect(html.contains("scroll-snap-type:x mandatory"))
    }

    /// `{{name|default:'x'}}` shows x; `{{name}}` is marked and earns a finding.
    @Test func placeholdersRenderTheirDefault() throws {
        let campaign = """
            {"request": {"notifications": [{"ios_title": "Hi {{first_name|default:'there'}}!",
              "content": "Your {{city}} store", "inbox_days": 1}]}}
            """
        var report = RenderFixtures.report(campaign, passes: [])
        report.cards = report.cards.map(PreviewChecks.annotate)
        let html = HTMLReport.render(report, image: { _ in nil })
        let card = try #require(RenderHTMLTests.card("notifications[0]", in: html))
        #expect(card.contains("Hi <span class=\"ph\" title=\"{{first_name}}\">there</span>!"))
        #expect(card.contains("Your <mark class=\"ph missing\" title=\"no default\">{{city}}</mark> store"))
        let codes = report.cards[0].findings.map(\.code)
        #expect(codes.filter { $0 == PreviewFindingCode.placeholderNoDefault }.count == 1)
        #expect(report.cards[0].findings.contains { $0.message.contains("{{city}}") })
    }

    @Test(arguments: [
        ("{{a}}", ["a"], [String?.none]),
        ("x {{ a | default:'b c' }} y", ["a"], ["b c"]),
        (#"{{a|default:"q"}}{{b}}"#, ["a", "b"], ["q", nil]),
        ("{{}} {{ {{x}}", ["x"], [nil]),
        ("no placeholder }}", [], []),
    ])
    func placeholderSyntax(text: String, names: [String], defaults: [String?]) {
        let matches = Placeholders.matches(text)
        #expect(matches.map(\.name) == names)
        #expect(matches.map(\.defaultValue) == defaults)
    }

    /// The classic avatar is the app's icon, else its initial — not the input file's.
    @Test func appIdentityDrawsTheAvatar() throws {
        let campaign = #"{"request": {"notifications": [{"ios_title": "t", "content": "b", "inbox_days": 1}]}}"#
        let report = RenderFixtures.report(campaign, source: "zebra.json", passes: [])
        let plain = try #require(RenderHTMLTests.card("zebra", in: HTMLReport.render(report, image: { _ in nil })))
        #expect(plain.contains("style=\"background:#aeaeb2\">App</div>"), "not the file's initial")
        #expect(!plain.contains(">Z</div>"))
        let named = HTMLReport.render(report, image: { _ in nil }, app: .init(name: "Avomark"))
        #expect(try #require(RenderHTMLTests.card("zebra", in: named)).contains(">A</div>"))
        let icon = HTMLReport.render(
            report, image: { _ in nil }, app: .init(name: "Avomark", icon: (RenderFixtures.png, "image/png")))
        #expect(try #require(RenderHTMLTests.card("zebra", in: icon)).contains("<div class=\"avatar img app-icon\""))
        #expect(icon.components(separatedBy: ";base64,").count - 1 == 1)
    }

    @Test(arguments: [
        (8, 8, AssetReference.Role.heroImage, CardKind.banner, String?.some(PreviewFindingCode.imageTooSmall)),
        (1200, 600, .heroImage, .banner, nil),
        (268, 134, .heroImage, .banner, PreviewFindingCode.imageTooSmall),
        (269, 134, .heroImage, .banner, nil),
        (4000, 200, .heroImage, .captioned, PreviewFindingCode.imageCropped),
        (300, 1200, .carouselSlide, .carousel, PreviewFindingCode.imageCropped),
        (900, 675, .carouselSlide, .carousel, nil),
        (8, 8, .avatar, .classic, nil),
    ])
    func imagesThatLookWrong(width: Int, height: Int, role: AssetReference.Role, kind: CardKind, code: String?) {
        #expect(PreviewChecks.problem(width: width, height: height, role: role, kind: kind)?.code == code)
    }

    /// One banner whose hero image is `width`×`height`.
    static func banner(width: Int, height: Int) -> CheckReport {
        let campaign =
            #"{"content": "b", "inbox_days": 1, "inbox_image": "https://cdn.example.com/hero.png", "data": {"displayType": "banner"}}"#
        var report = RenderFixtures.report(campaign, passes: [])
        report.cards[0].assets[0].width = width
        report.cards[0].assets[0].height = height
        return report
    }

    /// An 8×8 hero is drawn in the banner's frame with a visible mark and a finding (iOS's geometry rule).
    @Test func tinyHeroIsMarkedOnTheCard() throws {
        var report = RenderFixtures.judgingGeometry(Self.banner(width: 8, height: 8))
        report.cards = report.cards.map(PreviewChecks.annotate)
        #expect(report.cards[0].assets[0].findings.map(\.code) == [PreviewFindingCode.imageTooSmall])
        #expect(report.cards[0].assets[0].findings.first?.platform == .ios)
        let card = try #require(
            RenderHTMLTests.card("c.json", in: HTMLReport.render(report, image: RenderFixtures.storedImage)))
        #expect(card.contains("img hero i0 looks-wrong"))
        #expect(card.contains("<span class=\"mark\">⚠ 8×8 image drawn 358 pt wide (1074 px at @3x)"))
    }

    /// An image above the embedding budget is a frame that says its pixel size and bytes.
    @Test func largeImageIsAFrameWithItsSize() throws {
        let report = Self.banner(width: 4000, height: 2000)
        let big = [UInt8](repeating: 0, count: HTMLReport.maxImageBytes + 1)
        let html = HTMLReport.render(report, image: { _ in (big, "image/png") })
        #expect(!html.contains(";base64,"))
        let card = try #require(RenderHTMLTests.card("c.json", in: html))
        #expect(card.contains("<span>4000×2000 image, 512 KiB: too large to embed</span>"))
    }
}
