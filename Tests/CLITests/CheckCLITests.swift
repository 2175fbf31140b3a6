import FixtureServer
import Foundation
import StrictJSON
import TestSupport
import Testing

/// `inbox-assets check` end to end: the built binary against the loopback fixture server serving Fixtures/www,
/// with campaign URLs on https://cdn.example.com mapped onto it (as `make demo` does).
@Suite(.serialized) struct CheckCLITests {
    final class Environment {
        let server: FixtureServer
        let store: String
        let network: [String]

        init() throws {
            server = try FixtureServer(root: CLI.fixture("www"))
            store = FileManager.default.temporaryDirectory.appendingPathComponent("ia-check-\(UUID())").path
            network = [
                "--connect-to", "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!,
                "--retries", "0", "--timeout", "5", "--quiet",
            ]
        }

        deinit {
            server.stop()
            try? FileManager.default.removeItem(atPath: store)
        }

        func check(_ campaign: String, _ extra: [String] = [], store useStore: Bool = true) async throws -> CLIResult {
            try await CLI.run(
                ["check", "-"] + network + (useStore ? ["--store", store] : ["--no-store"]) + extra, stdin: campaign)
        }

        func json(_ campaign: String, _ extra: [String] = []) async throws -> (CLIResult, JSONValue) {
            let result = try await check(campaign, ["--format", "json", "--fail-on", "never"] + extra)
            return (result, CheckReportJSON.flattened(try JSON.parse(result.stdout)))
        }
    }

    /// A createMessage request with these notifications.
    static func campaign(_ notifications: String) -> String {
        #"{"request": {"application": "A-1", "auth": "AUTHSECRET", "notifications": ["# + notifications + "]}}"
    }

    static let cdn = "https://cdn.example.com"

    @Test func everyCardKindFine() async throws {
        let env = try Environment()
        let notifications = [
            #"{"content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/inbox/summer-sale.png", "data": {"displayType": "banner"}}"#,
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/inbox/loyalty.png"}"#,
            #"{"ios_title": "t", "content": "b", "inbox_days": 1}"#,
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "carousel", "carousel": [{"image": "\#(Self.cdn)/inbox/gifts-1.jpg"}, {"image": "\#(Self.cdn)/inbox/gifts-2.jpg"}]}}"#,
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "video", "video": {"url": "\#(Self.cdn)/video/reveal/master.m3u8", "poster": "\#(Self.cdn)/inbox/reveal-poster.jpg"}}}"#,
        ].joined(separator: ",")
        let (result, report) = try await env.json(Self.campaign(notifications))
        #expect(result.status == 0, "\(result.stderr)")
        let cards = try #require(report["cards"]?.arrayValue)
        #expect(
            cards.map { $0["resolved"]?.stringValue ?? "" } == ["banner", "captioned", "classic", "carousel", "video"])
        for card in cards {
            #expect(card["broken"] == false, "\(card["id"] ?? nil)")
            #expect(card["degraded"] == false)
        }
        #expect(report["summary"]?["broken"] == 0)
        let banner = try #require(cards[0]["assets"]?[0])
        #expect(banner["status"] == "ok")
        #expect(banner["width"] == 800 && banner["height"] == 400)
        #expect(banner["format"] == "png")
        #expect(banner["sha256"]?.stringValue?.count == 64)
    }

    @Test func brokenAssetClassesCarryTheirCodes() async throws {
        let env = try Environment()
        // The fixture server's routes make each fault; the path after the host is the route.
        let cases: [(route: String, code: String)] = [
            ("/inbox/gifts-4.jpg", "asset.httpStatus"),
            ("/status/500", "asset.httpStatus"),
            ("/inbox/new-season-banner.jpg", "image.notAnImage"),
            ("/redirect-loop", "asset.tooManyRedirects"),
            ("/redirect-to?url=file:///etc/passwd", "asset.scheme"),
            ("/inbox/logo.svg", "image.unsupportedFormat"),
        ]
        let notifications = cases.map {
            #"{"content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)\#($0.route)", "data": {"displayType": "banner"}}"#
        }.joined(separator: ",")
        let (result, report) = try await env.json(Self.campaign(notifications))
        #expect(result.status == 0)
        let cards = try #require(report["cards"]?.arrayValue)
        #expect(cards.count == cases.count)
        for (card, testCase) in zip(cards, cases) {
            #expect(card["broken"] == true, "\(testCase.route)")
            let asset = try #require(card["assets"]?[0])
            #expect(asset["status"] == "failed")
            let codes = asset["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
            #expect(codes.contains(testCase.code), "\(testCase.route): \(codes)")
            let cardCodes = card["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
            #expect(cardCodes.contains("card.broken"))
        }
        #expect(report["summary"]?["broken"] == .int(cases.count))
        let strict = try await env.check(Self.campaign(notifications))
        #expect(strict.status == 1, "broken cards are errors: --fail-on error fails")
    }

    @Test func unplayableVideosBreakTheVideoCard() async throws {
        let env = try Environment()
        let cases: [(route: String, code: String)] = [
            ("/video/missing.mp4", "video.httpStatus"),
            ("/video/hls/loop.m3u8", "video.hls.loop"),
            ("/head-status/405/inbox/summer-sale.png", "video.notVideo"),
        ]
        let notifications = cases.map {
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "video", "video": {"url": "\#(Self.cdn)\#($0.route)"}}}"#
        }.joined(separator: ",")
        let (_, report) = try await env.json(Self.campaign(notifications))
        let cards = try #require(report["cards"]?.arrayValue)
        for (card, testCase) in zip(cards, cases) {
            let video = try #require(card["assets"]?[0])
            let codes = video["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
            #expect(codes.contains(testCase.code), "\(testCase.route): \(codes)")
            #expect(card["broken"] == .bool(video["status"] == "failed"), "\(testCase.route)")
        }
        #expect(cards[0]["broken"] == true)
        #expect(cards[2]["broken"] == true, "an image is not a video")
        let fine =
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "video", "video": {"url": "\#(Self.cdn)/video/clip.mp4"}}}"#
        let (_, ok) = try await env.json(Self.campaign(fine))
        #expect(ok["cards"]?[0]?["broken"] == false)
        #expect(ok["cards"]?[0]?["assets"]?[0]?["format"] == "mp4")
    }

    @Test func invalidPassBreaksTheWalletCardAndIsListedOnce() async throws {
        let env = try Environment()
        let wallet =
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "wallet", "wallet": "\#(Self.cdn)/passes/loyalty-abc123.pkpass?token=PASSSECRET"}}"#
        let (_, report) = try await env.json(Self.campaign([wallet, wallet].joined(separator: ",")))
        #expect(report["cards"]?[0]?["broken"] == true)
        #expect(report["passes"]?.arrayValue?.count == 1)
        #expect(report["passes"]?[0]?["valid"] == false)
        #expect(report["passes"]?[0]?["url"] == "https://cdn.example.com/passes/loyalty-abc123.pkpass?token=REDACTED")
    }

    @Test func degradedCardsAreNotBroken() async throws {
        let env = try Environment()
        let degraded = #"{"content": "b", "inbox_days": 1, "data": {"displayType": "banner"}}"#
        let (_, report) = try await env.json(Self.campaign(degraded))
        #expect(report["cards"]?[0]?["degraded"] == true)
        #expect(report["cards"]?[0]?["broken"] == false)
        await #expect(try env.check(Self.campaign(degraded), ["--fail-on", "degrade"]).status == 1)
        await #expect(try env.check(Self.campaign(degraded)).status == 0)
    }

    @Test func everyDegradeReasonWithTheSDKLogLine() async throws {
        let env = try Environment()
        let cases: [(notification: String, requested: String, reason: String)] = [
            (#"{"content": "b", "inbox_days": 1, "data": {"displayType": "banner"}}"#, "banner", "no imageUrl"),
            (
                #"{"ios_title": "t", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/inbox/loyalty.png", "data": {"displayType": "captioned"}}"#,
                "captioned", "no title/body"
            ),
            (
                #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "carousel", "carousel": []}}"#,
                "carousel", "no slides"
            ),
            (
                #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "video", "video": {"url": "ftp://x/v.mp4"}}}"#,
                "video", "no video descriptor"
            ),
            (
                #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "wallet", "wallet": {"pass": ""}}}"#,
                "wallet", "no pass URL"
            ),
        ]
        let (_, report) = try await env.json(Self.campaign(cases.map(\.notification).joined(separator: ",")))
        let cards = try #require(report["cards"]?.arrayValue)
        #expect(cards.count == cases.count)
        for (card, testCase) in zip(cards, cases) {
            #expect(card["requested"] == .string(testCase.requested))
            #expect(card["resolved"] == "classic")
            #expect(card["degraded"] == true)
            #expect(card["degradeReason"] == .string(testCase.reason))
            let log = card["sdkLog"]?.stringValue ?? ""
            #expect(log.hasPrefix("Inbox cell degraded — code=? displayType=\(testCase.requested) hasImage="))
            #expect(log.hasSuffix("\(testCase.requested)→classic (\(testCase.reason))"))
        }
        let text = try await env.check(Self.campaign(cases.map(\.notification).joined(separator: ",")))
        #expect(
            text.stdout.contains(
                "SDK log: Inbox cell degraded — code=? displayType=banner hasImage=false banner→classic (no imageUrl)"))
    }

    @Test func oneURLInAThousandMessagesIsFetchedOnceAndRevalidatedLater() async throws {
        let env = try Environment()
        let message =
            #"{"content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/inbox/studio.jpg", "data": {"displayType": "banner"}}"#
        let campaign = Self.campaign(Array(repeating: message, count: 1000).joined(separator: ","))
        let (first, report) = try await env.json(campaign)
        #expect(first.status == 0)
        #expect(report["summary"]?["cards"] == 1000)
        #expect(report["summary"]?["assets"] == 1)
        #expect(env.server.requests(for: "/inbox/studio.jpg") == 1)
        let bodyBytes = env.server.stats.bodyBytesSent
        let (_, second) = try await env.json(campaign)
        #expect(second["summary"]?["bytesFetched"] == 0)
        #expect(env.server.requests(for: "/inbox/studio.jpg") == 2, "the stored entry is revalidated")
        #expect(env.server.stats.bodyBytesSent == bodyBytes, "a 304: no body the second time")
        #expect(second["cards"]?[0]?["assets"]?[0]?["source"] == "revalidated")
        #expect(second["cards"]?[0]?["assets"]?[0]?["httpStatus"] == 200)
    }

    @Test func offlineWorksFromTheStoreAlone() async throws {
        let env = try Environment()
        let stored =
            #"{"content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/inbox/lookbook-1.jpg", "data": {"displayType": "banner"}}"#
        let never =
            #"{"content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/inbox/lookbook-2.jpg", "data": {"displayType": "banner"}}"#
        _ = try await env.json(Self.campaign(stored))
        let before = env.server.stats.totalRequests
        let (_, report) = try await env.json(Self.campaign([stored, never].joined(separator: ",")), ["--offline"])
        #expect(env.server.stats.totalRequests == before, "offline makes no request")
        #expect(report["cards"]?[0]?["assets"]?[0]?["status"] == "ok")
        #expect(report["cards"]?[1]?["assets"]?[0]?["status"] == "failed")
        #expect(report["cards"]?[1]?["broken"] == true)
    }

    @Test func secretsNeverReachAnyFormat() async throws {
        let env = try Environment()
        let notifications = [
            #"{"content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/inbox/summer-sale.png?token=IMGSECRET", "data": {"displayType": "banner"}}"#,
            #"{"content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/status/404?sig=SIGSECRET", "data": {"displayType": "banner", "buttons": [{"title": "x", "url": "https://e.example/?api_key=KEYSECRET"}]}}"#,
        ].joined(separator: ",")
        for format in ["text", "json", "junit", "html"] {
            let result = try await env.check(Self.campaign(notifications), ["--format", format, "--fail-on", "never"])
            #expect(result.status == 0, "\(format): \(result.stderr)")
            #expect(!result.stdout.isEmpty)
            for secret in ["AUTHSECRET", "IMGSECRET", "SIGSECRET", "KEYSECRET"] {
                #expect(!result.stdout.contains(secret), "\(secret) in \(format)")
                #expect(!result.stderr.contains(secret), "\(secret) in \(format) stderr")
            }
        }
    }

    @Test func outputFileAndUsageErrors() async throws {
        let env = try Environment()
        let path = env.store + "-report.xml"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let campaign = Self.campaign(#"{"content": "b", "inbox_days": 1}"#)
        let written = try await env.check(campaign, ["--format", "junit", "--output", path])
        #expect(written.status == 0)
        #expect(written.stdout.isEmpty)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("<?xml"))
        let both = try await CLI.run(["check", "-", "--store", env.store, "--no-store"], stdin: campaign)
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("Error: --store and --no-store cannot be used together"))
        let offline = try await CLI.run(["check", "-", "--no-store", "--offline"], stdin: campaign)
        #expect(offline.status == 64)
        let noSegments = try await CLI.run(["check", "-", "--no-store", "--hls-segments", "0"], stdin: campaign)
        #expect(noSegments.status == 64, "\(noSegments.stderr)")
    }

    /// `--hls-segments N`: the middle segment of classes/middle-404.m3u8 (seg, seg, missing, seg, seg) is found
    /// with the default sample (first, middle, last) and breaks the card; with one sample it is missed.
    @Test func hlsSegmentsSetsTheSample() async throws {
        let env = try Environment()
        let campaign = Self.campaign(
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "video", "video": {"url": "\#(Self.cdn)/video/classes/middle-404.m3u8"}}}"#
        )
        func codes(_ report: JSONValue) -> [String] {
            (report["cards"]?[0]?["assets"]?[0]?["findings"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
        }
        func run(_ extra: [String]) async throws -> JSONValue {
            let result = try await env.check(
                campaign, ["--format", "json", "--fail-on", "never"] + extra, store: false)
            #expect(result.status == 0, "\(result.stderr)")
            return CheckReportJSON.flattened(try JSON.parse(result.stdout))
        }
        let report = try await run([])
        #expect(codes(report).contains("video.hls.unreachable"))
        #expect(report["cards"]?[0]?["broken"] == true)
        let first = try await run(["--hls-segments", "1"])
        #expect(!codes(first).contains("video.hls.unreachable"), "\(codes(first))")
        #expect(first["cards"]?[0]?["broken"] == false)
    }
}
