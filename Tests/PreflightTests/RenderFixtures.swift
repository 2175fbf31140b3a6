import Findings
import FixtureServer
import Foundation
import HTTPFetch
import InboxCards
import MediaRules
import Preflight
import Testing
import WalletPass

/// Check reports built the way the pipeline builds them: cards from the real resolver on a small campaign,
/// assets checked by hand (the test decides which fetch failed), a pass verified by the real verifier.
enum RenderFixtures {
    /// The repository root, found from this file's path (tests read the PNG and pass fixtures).
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/PreflightTests/RenderFixtures.swift
        return parts.joined(separator: "/")
    }()

    /// A real 64×48 PNG, served for every image URL that is fine.
    static let png: [UInt8] = readFile("\(root)/Fixtures/media/image-64x48.png")

    static func readFile(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }

    /// Runs `body` with a pipeline whose fetches go to the fixture server (HTTPS, `Fixtures/www`) and the demo
    /// campaign's bytes; the server and the engine live exactly as long as `body`.
    static func withDemoPipeline<T>(
        _ options: CheckOptions, _ body: (CheckPipeline, [(name: String, bytes: [UInt8])]) async throws -> T
    ) async throws -> T {
        let server = try FixtureServer(root: "\(root)/Fixtures/www")
        defer { server.stop() }
        let port = try #require(server.httpsPort)
        let engine = try FetchEngine(
            options: FetchOptions(
                retries: 0, connectTo: ["cdn.example.com:443:127.0.0.1:\(port)"], caFile: server.caFilePath))
        let pipeline = CheckPipeline(
            options: options, retriever: AssetRetriever(fetcher: engine, store: nil), passVerifier: try PassVerifier())
        let bytes = readFile("\(root)/Fixtures/campaigns/demo.json")
        do {
            let result = try await body(pipeline, [(name: "demo.json", bytes: bytes)])
            await engine.shutdown()
            return result
        } catch {
            await engine.shutdown()
            throw error
        }
    }

    /// Every kind, a degraded carousel, a broken carousel (slide 404), a pinned card, hostile button text
    /// and a `javascript:` button, secrets in URLs, and a plain push (an input finding).
    static let campaign = """
        {"request": {"auth": "AUTH-SECRET", "notifications": [
          {"content": "hi", "inbox_days": 1, "inbox_image": "https://cdn.example.com/banner.png?token=SECRET",
           "data": {"displayType": "banner"}},
          {"ios_title": "Sale <b>& \\"more\\"", "content": "Body", "inbox_days": 1,
           "inbox_image": "https://cdn.example.com/caption.png",
           "data": {"displayType": "captioned", "buttons": [
             {"title": "Claim", "url": "https://example.com/p?token=SECRET"},
             {"title": "<script>alert(1)</script>", "url": "javascript:alert(1)"},
             {"title": "Later", "action": "dismiss"}, {"title": "Save", "action": "custom", "tag": "x"}]}},
          {"ios_title": "Hello", "content": "World https://x.example/?token=SECRET", "inbox_days": 1, "data": {"pinned": true}},
          {"ios_title": "Slides", "content": "Swipe", "inbox_days": 1, "data": {"displayType": "carousel",
           "carousel": [{"image": "https://cdn.example.com/s1.png", "title": "First"},
                        {"image": "https://cdn.example.com/missing.png?sig=SECRET"}]}},
          {"ios_title": "Watch", "content": "Play", "inbox_days": 1, "data": {"displayType": "video",
           "video": {"url": "https://cdn.example.com/v.m3u8", "poster": "https://cdn.example.com/poster.png"}}},
          {"ios_title": "Ticket", "content": "Add it", "inbox_days": 1, "data": {"displayType": "wallet",
           "wallet": {"pass": "https://cdn.example.com/good.pkpass"}, "image": "https://cdn.example.com/banner.png?token=SECRET"}},
          {"ios_title": "No body", "inbox_days": 1, "data": {"displayType": "carousel",
           "carousel": [{"image": "https://cdn.example.com/s1.png"}]}},
          {"content": "plain push"}
        ]}}
        """

    /// Needed roles break the card when they fail (as the pipeline decides).
    static func isNeeded(_ role: AssetReference.Role) -> Bool {
        switch role {
        case .heroImage, .carouselSlide, .video, .walletPass: true
        default: false
        }
    }

    /// The asset check for one reference: URLs with `missing` fail with a 404, links are skipped, the rest are
    /// the fixture PNG (or a video, or a pass).
    static func check(_ reference: AssetReference) -> AssetCheck {
        if reference.role.isLink {
            return AssetCheck(
                role: reference.role, index: reference.index, url: reference.fetchURL, status: .skipped, needed: false)
        }
        let needed = isNeeded(reference.role)
        if reference.fetchURL.contains("missing") {
            var asset = AssetCheck(
                role: reference.role, index: reference.index, url: reference.fetchURL, status: .failed, needed: needed,
                findings: [.error("asset.httpStatus", "HTTP 404 for \(reference.fetchURL)", path: reference.path)])
            asset.failure = "http-status"
            asset.httpStatus = 404
            asset.source = "network"
            return asset
        }
        var asset = AssetCheck(
            role: reference.role, index: reference.index, url: reference.fetchURL, status: .ok, needed: needed)
        asset.httpStatus = 200
        asset.source = "network"
        switch reference.role {
        case .video:
            asset.contentType = "application/vnd.apple.mpegurl"
            asset.format = "hls"
        case .walletPass:
            asset.contentType = "application/vnd.apple.pkpass"
            asset.format = "pkpass"
        default:
            asset.contentType = "image/png"
            asset.format = "png"
            asset.bytes = png.count
            asset.sha256 = String(repeating: "ab", count: 32)
            asset.width = 64
            asset.height = 48
        }
        return asset
    }

    /// The report the pipeline would produce for ``campaign`` (or another campaign) with these options.
    static func report(
        _ text: String = campaign, options: ResolveOptions = ResolveOptions(), source: String = "c.json",
        passes: [PassCheck]? = nil
    ) -> CheckReport {
        let run = ResolveJob(options: options).run([(source, Array(text.utf8))]).run
        let cards = run.cards.map { card in
            let assets = card.assets.map(check)
            let broken = !card.degraded && assets.contains { $0.needed && $0.status == .failed }
            let findings: [Finding] = broken ? [.error("card.broken", "renders broken: a needed asset fails")] : []
            return CardCheck(card: card, assets: assets, checkFindings: findings)
        }
        let checks = passes ?? [goodPass, badPass]
        var summary = CheckSummary()
        summary.messages = run.messagesRead
        summary.cards = cards.count
        summary.degraded = cards.filter(\.card.degraded).count
        summary.broken = cards.filter(\.broken).count
        var report = CheckReport(
            options: options, summary: summary, inputFindings: run.inputFindings, cards: cards, passes: checks)
        report.summary.errors = report.allFindings.count(.error)
        report.summary.warnings = report.allFindings.count(.warning)
        let urls = Set(cards.flatMap(\.assets).filter { !$0.role.isLink }.map(\.url))
        report.summary.assets = urls.count
        report.summary.assetsFailed = Set(cards.flatMap(\.assets).filter { $0.status == .failed }.map(\.url)).count
        report.summary.bytesFetched = png.count * 4
        return report
    }

    /// The report with the geometry findings the pipeline's judgement gives each image that arrived: how its card's
    /// cell on its card's platform draws it (`CheckPipeline.judge`: ``CellGeometry`` with the cell's ``ImageUse``).
    static func judgingGeometry(_ report: CheckReport) -> CheckReport {
        var report = report
        for card in report.cards.indices {
            let kind = report.cards[card].card.resolved
            let platform = report.cards[card].card.platform.rulePlatform
            for index in report.cards[card].assets.indices where report.cards[card].assets[index].status == .ok {
                let asset = report.cards[card].assets[index]
                guard let use = AssetRoles.imageUse(asset.role, kind: kind) else { continue }
                report.cards[card].assets[index].findings += CellGeometry.judge(
                    width: asset.width, height: asset.height, use: use, on: platform)
            }
        }
        return report
    }

    /// A real pass verified by the real verifier (signer and summary filled in).
    static let goodPass: PassCheck = {
        let path = "\(root)/Fixtures/passes/corpus/pkpassvalidator__good.pkpass"
        let verifier = try? PassVerifier(extraTrustCertificates: [])
        let verification =
            verifier?.verify(bytes: readFile(path), source: "https://cdn.example.com/good.pkpass?token=SECRET")
            ?? PassVerification(source: path, findings: [.error("test.noVerifier", "verifier unavailable")])
        return PassCheck(url: "https://cdn.example.com/good.pkpass?token=SECRET", verification: verification)
    }()

    /// A pass whose download failed: no summary, no signer.
    static let badPass = PassCheck(
        url: "https://cdn.example.com/bad.pkpass?token=SECRET",
        verification: PassVerification(
            source: "https://cdn.example.com/bad.pkpass?token=SECRET",
            findings: [.error("pass.archive.notZip", "not a ZIP archive")]))

    /// The image closure the pipeline backs with the store: the PNG for every image URL it has.
    static func storedImage(_ url: String) -> (bytes: [UInt8], contentType: String)? {
        url.contains("missing") ? nil : (png, "image/png")
    }
}
