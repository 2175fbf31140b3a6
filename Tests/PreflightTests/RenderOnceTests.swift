import Findings
import FixtureServer
import Foundation
import HTTPFetch
import InboxCards
import TestSupport
import Testing
import WalletPass

@testable import Preflight

/// The preview as people see it (issue 30): identical bytes are one embedded image however many URLs serve them,
/// and each thing is said once — a broken card's box, not its findings list too; a root cause at the top, not on
/// every card it explains.
struct RenderOnceTests {
    // MARK: One image per content

    /// A real `width`×`height` grayscale PNG of exactly `bytes` bytes: black pixels (a zlib stream of zeros) and a
    /// `tEXt` comment, different per `seed`, padding it to that weight.
    static func png(width: Int, height: Int, bytes: Int, seed: Int = 0) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(data.count) + body + be32(Int(crc32(body)))
        }
        let header = chunk("IHDR", be32(width) + be32(height) + [8, 0, 0, 0, 0])
        let pixels = chunk("IDAT", SyntheticDeflate.zlibZeros((width + 1) * height))
        let end = chunk("IEND", [])
        let fixed = 8 + header.count + pixels.count + end.count + 12 + "Comment\0".utf8.count
        var generator = SeededGenerator(seed: UInt64(seed) + 1)
        let padding = (0..<max(0, bytes - fixed)).map { _ in UInt8.random(in: 0x41...0x5A, using: &generator) }
        let comment = chunk("tEXt", Array("Comment\0".utf8) + padding)
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + header + comment + pixels + end
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// `count` banners whose hero URLs carry a per-message tracking parameter over `bodies` images
    /// (`hero-K.png?utm_content=N`, K = N mod `bodies`), each asset hashed as the store hashes it.
    static func trackedBanners(_ count: Int, bodies: [[UInt8]], hashed: Bool = true) -> CheckReport {
        let messages = (0..<count).map { index in
            #"{"ios_title": "Sale \#(index)", "content": "Up to 30% off", "inbox_days": 1, "data": {"displayType": "#
                + #""banner"}, "inbox_image": "https://cdn.example.com/hero-\#(index % bodies.count).png?"#
                + #"utm_content=\#(index)"}"#
        }
        var report = RenderFixtures.report("[" + messages.joined(separator: ",") + "]", passes: [])
        for card in report.cards.indices {
            for asset in report.cards[card].assets.indices {
                let number = body(of: report.cards[card].assets[asset].url)
                let body = bodies[number]
                report.cards[card].assets[asset].bytes = body.count
                // A stand-in for the hash of the body's bytes: one per body.
                report.cards[card].assets[asset].sha256 = hashed ? "sha256-of-body-\(number)" : nil
                (report.cards[card].assets[asset].width, report.cards[card].assets[asset].height) = (1200, 600)
            }
        }
        return report
    }

    /// K of `hero-K.png?…`.
    static func body(of url: String) -> Int {
        Int(url.components(separatedBy: "hero-").last?.prefix { $0.isNumber } ?? "") ?? 0
    }

    /// The embedded class of every card's hero, by card id (`nil` where it is not an embedded image).
    static func heroClasses(_ html: String) -> [String: String?] {
        var classes: [String: String?] = [:]
        for article in html.components(separatedBy: "<article ").dropFirst() {
            let id = RenderHTMLTests.values(of: "data-card-id", in: " " + article).first ?? ""
            let hero = article.components(separatedBy: "class=\"img hero ").dropFirst().first
            let name = hero.map { String($0.prefix { $0 != "\"" && $0 != " " }) }
            classes[id] = name.flatMap { $0.hasPrefix("i") ? $0 : nil }
        }
        return classes
    }

    /// 6,000 tracking URLs over three images: three `data:` URIs, asked for once each, and every card shows the
    /// image its URL serves.
    @Test func thousandsOfURLsOverAFewBodiesAreAFewImages() throws {
        let bodies = (0..<3).map { Self.png(width: 1200, height: 600, bytes: 52 << 10, seed: $0) }
        let report = Self.trackedBanners(6000, bodies: bodies)
        var asked: [String] = []
        // Every card drawn (not the first 200 of the feed a report past 2,000 cards draws).
        let html = HTMLReport.render(
            report,
            image: { url in
                asked.append(url)
                return (bodies[Self.body(of: url)], "image/png")
            }, limits: HTMLReport.PreviewLimits(allCardsUpTo: 6000))
        #expect(asked.count == 3, "\(asked.count) URLs asked for")
        #expect(html.components(separatedBy: ";base64,").count - 1 == 3)
        let classes = Self.heroClasses(html)
        #expect(classes.count == 6000)
        // The class a card draws is its body's: cards 0, 1, 2 set it for bodies 0, 1, 2.
        let byBody = (0..<3).map { classes["c.json#[\($0)]"] ?? nil }
        #expect(Set(byBody.compactMap { $0 }).count == 3)
        for (id, name) in classes {
            let number = Int(id.components(separatedBy: "[").last?.prefix { $0.isNumber } ?? "") ?? -1
            #expect(name != nil && name == byBody[number % 3], "\(id) draws \(String(describing: name))")
        }
        // Three 52 KiB images and 6,000 small cards, not 6,000 copies of 70 KB of base64.
        #expect(html.utf8.count < 2_000_000, "\(html.utf8.count) bytes")
    }

    /// The page's budget counts distinct bytes: 200 URLs over two 400 KiB images are 800 KiB embedded, not 80 MB
    /// past the 48 MiB budget.
    @Test func theBudgetCountsDistinctBytes() throws {
        let bodies = (0..<2).map { Self.png(width: 1200, height: 600, bytes: 400 << 10, seed: $0) }
        #expect(200 * (400 << 10) > HTMLReport.maxTotalImageBytes)
        let report = Self.trackedBanners(200, bodies: bodies)
        let html = HTMLReport.render(report) { (bodies[Self.body(of: $0)], "image/png") }
        #expect(html.components(separatedBy: ";base64,").count - 1 == 2)
        #expect(Self.heroClasses(html).values.allSatisfy { $0 != nil }, "every card shows its image")
        #expect(!html.contains("not embedded"))
        #expect(!html.contains("img hero missing"))
    }

    /// Assets without a recorded hash are told apart by their bytes: still one image per content.
    @Test func withoutAHashIdenticalBytesAreStillOneImage() {
        let bodies = [Self.png(width: 1200, height: 600, bytes: 4096)]
        let report = Self.trackedBanners(50, bodies: bodies, hashed: false)
        var asked = 0
        let html = HTMLReport.render(report) { _ in
            asked += 1
            return (bodies[0], "image/png")
        }
        #expect(asked == 50, "no hash: each URL's bytes are read to compare them")
        #expect(html.components(separatedBy: ";base64,").count - 1 == 1)
        #expect(html.components(separatedBy: "class=\"img hero i0\"").count - 1 == 50)
    }

    /// Past the budget a content is a labelled frame for every URL of it, saying it is not embedded; a content
    /// already embedded is drawn wherever it is used.
    @Test func pastTheBudgetAContentIsALabelledFrame() throws {
        let bodies = (0..<2).map { Self.png(width: 120, height: 60, bytes: 4096, seed: $0) }
        let report = Self.trackedBanners(6, bodies: bodies)
        var asked = 0
        let images = HTMLReport.embedImages(
            report,
            image: { url in
                asked += 1
                return (bodies[Self.body(of: url)], "image/png")
            }, budget: 6000)
        #expect(asked == 2)
        #expect(images.embedded == 1 && images.embeddedBytes == 4096)
        for url in report.cards.flatMap(\.assets).map(\.url) {
            if Self.body(of: url) == 0 {
                #expect(images.classes[url] == "i0")
            } else {
                #expect(images.classes[url] == nil)
                #expect(
                    images.unavailable[url]
                        == "1200×600 image, 4 KiB: not embedded, the page already holds 4 KiB of images")
            }
        }
    }

    /// Judged per platform: the same bytes are `ok` on the iOS card and `failed` on the Android one. The iOS card
    /// shows the embedded image; the Android card is drawn failed although the bytes are on the page.
    @Test func aFailedAssetIsDrawnFailedWhereItsPlatformFails() throws {
        let campaign = """
            {"request": {"notifications": [{"ios_title": "t", "title": "t", "content": "b", "inbox_days": 1,
              "inbox_image": "https://cdn.example.com/hero.png", "data": {"displayType": "banner"}}]}}
            """
        var report = RenderFixtures.report(campaign, options: ResolveOptions(platforms: [.ios, .android]), passes: [])
        let android = try #require(report.cards.firstIndex { $0.card.platform == .android })
        let hero = try #require(report.cards[android].assets.firstIndex { $0.role == .heroImage })
        report.cards[android].assets[hero].status = .failed
        report.cards[android].assets[hero].failure = "unsupported-on-android"
        report.cards[android].assets[hero].findings = [
            Finding.error("image.android.unsupportedFormat", "Android does not decode this image").on(.android)
        ]
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        let feeds = RenderFeedTests.sections(html)
        #expect(feeds.count == 2)
        #expect(html.components(separatedBy: ";base64,").count - 1 == 1)
        #expect(feeds[0].hasPrefix("ios\"") && feeds[0].contains("class=\"img hero i0\""))
        #expect(feeds[1].hasPrefix("android\""))
        #expect(!feeds[1].contains("img hero i0"))
        #expect(feeds[1].contains("<div class=\"img hero failed\""))
        #expect(feeds[1].contains("Android does not show it (image.android.unsupportedFormat)"))
    }

    /// The campaign of issue 30, end to end: 2,000 messages whose banners are one 52 KiB image under 2,000
    /// per-message tracking URLs (`?utm_content=N`), checked by the real pipeline against the loopback fixture
    /// server, and the page rendered from the fetched bodies (`asked`: how many bodies the page asked for).
    static func trackingCampaign() async throws -> (report: CheckReport, html: String, asked: Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "render-once-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = Self.png(width: 1200, height: 600, bytes: 52 << 10)
        try Data(image).write(to: directory.appendingPathComponent("sale.png"))
        let server = try FixtureServer(root: directory.path)
        defer { server.stop() }
        let port = try #require(server.httpsPort)
        let engine = try FetchEngine(
            options: FetchOptions(
                concurrency: 32, hostConcurrency: 16, retries: 0, connectTo: ["cdn.example.com:443:127.0.0.1:\(port)"],
                caFile: server.caFilePath))
        let pipeline = CheckPipeline(
            options: CheckOptions(), retriever: AssetRetriever(fetcher: engine, store: nil),
            passVerifier: try PassVerifier())
        let messages = (0..<2000).map { index in
            #"{"ios_title": "Summer sale \#(index)", "content": "Up to 30% off everything", "inbox_days": 1, "#
                + #""inbox_image": "https://cdn.example.com/sale.png?utm_content=\#(index)", "#
                + #""data": {"displayType": "banner"}}"#
        }
        let campaign = #"{"request": {"notifications": ["# + messages.joined(separator: ",") + "]}}"
        let outcome = await pipeline.run([("campaign.json", Array(campaign.utf8))])
        await engine.shutdown()
        var asked = 0
        let html = HTMLReport.render(outcome.report) { url in
            asked += 1
            return outcome.body(for: url)
        }
        return (outcome.report, html, asked)
    }

    /// The page was 67.7 MB holding 945 copies of the image (the other 1,055 cards "too large to embed" past the
    /// budget); it holds one copy, is under 1 MB, and every card draws it. (Chromium draws it too:
    /// ``RenderChromiumTests/twoThousandTrackingURLsAllDrawTheirImage()``.)
    @Test func twoThousandTrackingURLsOfOneImageMakeAPageUnderOneMegabyte() async throws {
        let (report, html, asked) = try await Self.trackingCampaign()
        #expect(report.cards.count == 2000)
        #expect(report.summary.assets == 2000, "2,000 URLs")
        #expect(report.summary.assetsFailed == 0)
        #expect(Set(report.cards.flatMap(\.assets).compactMap(\.sha256)).count == 1, "one content")
        #expect(asked == 1)
        #expect(html.utf8.count < 1_000_000, "\(html.utf8.count) bytes")
        #expect(html.components(separatedBy: ";base64,").count - 1 == 1)
        let classes = Self.heroClasses(html)
        #expect(classes.count == 2000)
        #expect(classes.values.allSatisfy { $0 == "i0" }, "every card draws the one image")
    }

    // MARK: Each thing said once

    /// The report with each broken card's `card.broken` findings as the pipeline words them: one per needed asset
    /// that fails, naming it (`heroImage URL fails (HTTP 503): …`), which is how ``Verdict`` ties one to its asset.
    static func pipelineWorded(_ report: CheckReport) -> CheckReport {
        var report = report
        for index in report.cards.indices {
            let check = report.cards[index]
            report.cards[index].checkFindings = check.assets.filter {
                check.broken && $0.needed && $0.status == .failed
            }
            .map { asset in
                let url = Redaction.redactURL(asset.url)
                let why = asset.httpStatus.map { "HTTP \($0)" } ?? asset.failure ?? "failed"
                return .error(
                    "card.broken",
                    "\(asset.role.rawValue) \(url) fails (\(why)): the \(check.card.resolved) card renders broken")
            }
        }
        return report
    }

    /// `count` captioned cards whose heroes are on a host that answers every request with 503: one root cause.
    static func hostDown(_ count: Int) -> CheckReport {
        let messages = (0..<count).map { index in
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "#
                + #""inbox_image": "https://down.example.com/missing-\#(index).png", "data": {"displayType": "captioned"}}"#
        }
        var report = RenderFixtures.report("[" + messages.joined(separator: ",") + "]", passes: [])
        for card in report.cards.indices {
            for asset in report.cards[card].assets.indices where report.cards[card].assets[asset].status == .failed {
                report.cards[card].assets[asset].httpStatus = 503
            }
        }
        report = pipelineWorded(report)
        report.rootCauses = RootCause.find(in: report)
        return report
    }

    /// 40 cards with one cause: its sentence once at the top with the 40 cards it explains (folded), and each card's
    /// box pointing to it instead of repeating the asset's finding and the card's `card.broken`.
    @Test func aRootCauseIsStatedOnceWithTheCardsItExplains() throws {
        let report = Self.hostDown(40)
        #expect(report.rootCauses.count == 1)
        let html = HTMLReport.render(report, image: { _ in nil })
        let sentence = "down.example.com: HTTP 503 for every request (40 URLs) — breaks 40 cards"
        #expect(html.components(separatedBy: sentence).count - 1 == 1)
        let header = html.components(separatedBy: "</header>")[0]
        #expect(header.contains("id=\"rc0\" data-root-cause=\"asset.hostStatus down.example.com\""))
        #expect(header.contains("<details class=\"explains\"><summary>40 cards</summary>"))
        for index in 0..<40 { #expect(header.contains("<code>c.json#[\(index)]</code>")) }
        // Every finding line on the page is the cause's: no asset finding, no card.broken line per card.
        #expect(html.components(separatedBy: "<span class=\"sev\">").count - 1 == 1)
        #expect(html.components(separatedBy: "HTTP 404 for").count - 1 == 1, "the asset finding: the cause's detail")
        let cards = html.components(separatedBy: "<article ").dropFirst()
        #expect(cards.count == 40)
        for card in cards {
            #expect(
                card.contains(
                    "(needed) <code>https://down.example.com/missing-")
                    && card.contains(
                        ".png</code> — root cause <a href=\"#rc0\">asset.hostStatus down.example.com</a></li>")
            )
            #expect(card.components(separatedBy: "card.broken").count - 1 == 1, "stated by the box only")
        }
    }

    /// A cause explaining many cards names the first ones and counts the rest.
    @Test func aRootCauseOfManyCardsCountsTheRest() {
        let html = HTMLReport.render(Self.hostDown(60), image: { _ in nil })
        let header = html.components(separatedBy: "</header>")[0]
        #expect(header.contains("<summary>60 cards</summary>"))
        #expect(header.components(separatedBy: "<li><code>c.json#").count - 1 == HTMLReport.maxCauseCards)
        #expect(header.contains("<li>… and 10 more</li>"))
    }

    /// A suppressed `card.broken` is excused where the box states it, next to the asset it names.
    @Test func aSuppressedBrokenCardSaysSoInItsBox() throws {
        var report = Self.pipelineWorded(RenderFixtures.report())
        let rules = FindingRules(ignore: [IgnoreRule(code: "card.broken", reason: "slide re-upload")])
        Verdict(policy: .error, rules: rules).apply(to: &report)
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        let card = try #require(RenderHTMLTests.card("notifications[3]", in: html))
        #expect(
            card.contains(
                "<code>https://cdn.example.com/missing.png?sig=REDACTED</code> "
                    + "<span class=\"excused\">suppressed: slide re-upload</span> — HTTP 404, http-status"))
        #expect(card.components(separatedBy: "card.broken").count - 1 == 1)
        #expect(card.components(separatedBy: "suppressed: slide re-upload").count - 1 == 1)
    }

    /// A `card.broken` that names no asset is excused on the box's heading.
    @Test func aBrokenFindingNamingNoAssetIsExcusedOnTheHeading() throws {
        var report = RenderFixtures.report()
        let rules = FindingRules(ignore: [IgnoreRule(code: "card.broken", kind: "carousel", reason: "known")])
        Verdict(policy: .error, rules: rules).apply(to: &report)
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        let card = try #require(RenderHTMLTests.card("notifications[3]", in: html))
        #expect(
            card.contains(
                "<b>Broken: a needed asset fails</b> <code>card.broken</code> "
                    + "<span class=\"excused\">suppressed: known</span><ul class=\"assets\">"))
    }
}
