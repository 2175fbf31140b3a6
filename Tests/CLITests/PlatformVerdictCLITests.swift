import FixtureServer
import Foundation
import StrictJSON
import TestSupport
import Testing

/// `check --platform all --android-sdk all` end to end: one campaign whose assets the two platforms' rule tables
/// judge differently (assets-by-platform.md's iOS table; android-assets.md rows A1–A11, V1–V9, G1–G5). Each card
/// carries its own platform's verdict — `broken`, each asset's `status`, the findings — and never the other's.
/// The served files are written for the test (PNGs, playlists, an fMP4 segment) or copied from Fixtures/media.
@Suite(.serialized) struct PlatformVerdictCLITests {
    /// The app's settings of one run.
    enum Level: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// No flags: iOS 13, minSdk 23, targetSdk 35, no transport exceptions.
        case defaults
        /// iOS 17, minSdk 31, an ATS exception for `*.example.com`, cleartext permitted to `cdn.example.com`.
        case newer

        var flags: [String] {
            switch self {
            case .defaults: []
            case .newer:
                [
                    "--ios-target", "17", "--android-min-sdk", "31", "--ios-ats-exceptions", "*.example.com",
                    "--android-cleartext-hosts", "cdn.example.com",
                ]
            }
        }

        var testDescription: String {
            switch self {
            case .defaults: "default flags (iOS 13, minSdk 23, targetSdk 35)"
            case .newer: "--ios-target 17 --android-min-sdk 31, ATS exception and cleartext host"
            }
        }
    }

    // MARK: The campaign

    static let cdn = "https://cdn.example.com"

    /// Feed messages (`inbox_id` becomes the card's `code`): id, `action_params`, `image`.
    static let messages: [(id: String, params: String, image: String?)] = [
        ("tiff-hero", #"{"displayType": "banner"}"#, "\(cdn)/m/hero.tiff"),
        ("cgbi-hero", #"{"displayType": "banner"}"#, "\(cdn)/m/cgbi.png"),
        ("webp-banner", #"{"displayType": "banner"}"#, "\(cdn)/m/anim.webp"),
        (
            "webp-carousel",
            #"{"displayType": "carousel", "carousel": [{"image": "\#(cdn)/m/anim.webp"}, {"image": "\#(cdn)/m/plain.png"}]}"#,
            nil
        ),
        ("avif-hero", #"{"displayType": "banner"}"#, "\(cdn)/m/hero.avif"),
        ("heic-hero", #"{"displayType": "banner"}"#, "\(cdn)/m/hero.heic"),
        ("http-hero", #"{"displayType": "banner"}"#, "http://cdn.example.com/m/plain.png"),
        ("small-hero", #"{"displayType": "banner"}"#, "\(cdn)/m/small.png"),
        // A PNG served as image/jpeg (the fixture server's /type/ route), and one of more than 5 MiB.
        ("typed-hero", #"{"displayType": "banner"}"#, "\(cdn)/type/image/jpeg/m/plain.png"),
        ("big-hero", #"{"displayType": "banner"}"#, "\(cdn)/m/big.png"),
        ("webm-video", #"{"displayType": "video", "video": {"url": "\#(cdn)/v/clip.webm"}}"#, nil),
        ("hls-fmp4", #"{"displayType": "video", "video": {"url": "\#(cdn)/v/fmp4/index.m3u8"}}"#, nil),
        ("hls-ts", #"{"displayType": "video", "video": {"url": "\#(cdn)/v/ts/index.m3u8"}}"#, nil),
        ("hls-hevc-ts", #"{"displayType": "video", "video": {"url": "\#(cdn)/v/hevc/index.m3u8"}}"#, nil),
        (
            // Served as an HLS playlist (the fixture server's /type/ route), under a URL without "m3u8".
            "hls-no-m3u8",
            #"{"displayType": "video", "video": {"url": "\#(cdn)/type/application/vnd.apple.mpegurl/v/ts/stream"}}"#,
            nil
        ),
        ("wallet", #"{"displayType": "wallet", "wallet": "\#(cdn)/passes/loyalty.pkpass"}"#, "\(cdn)/m/plain.png"),
    ]

    static var campaign: String {
        messages.enumerated().map { index, message in
            let params = message.params.replacingOccurrences(of: "\"", with: "\\\"")
            let image = message.image.map { #", "image": "\#($0)""# } ?? ""
            return #"{"inbox_id": "\#(message.id)", "order": \#(index), "rt": 4102444800, "action_type": 0, "#
                + #""status": 1, "send_date": 1764400000, "title": "T", "text": "B"\#(image), "#
                + #""action_params": "\#(params)"}"#
        }.joined(separator: "\n") + "\n"
    }

    /// The served directory: fixtures copied under short names, and the files this test makes.
    static func makeRoot() throws -> String {
        let files = FileManager.default
        let root = files.temporaryDirectory.appendingPathComponent("ia-platform-verdict-\(UUID())").path
        for directory in ["m", "v/fmp4", "v/ts", "v/hevc", "passes"] {
            try files.createDirectory(atPath: "\(root)/\(directory)", withIntermediateDirectories: true)
        }
        let copies = [
            ("media/image-30x20.tiff", "m/hero.tiff"), ("media/image-anim4-24x16.webp", "m/anim.webp"),
            ("media/image-64x36.avif", "m/hero.avif"), ("media/image-64x36.heic", "m/hero.heic"),
            ("media/video-64x48.webm", "v/clip.webm"), ("media/video-faststart-64x48.mp4", "v/fmp4/init.mp4"),
            ("media/video-32x24.ts", "v/ts/seg0.ts"), ("media/video-hevc-32x24.ts", "v/hevc/seg0.ts"),
            ("www/passes/loyalty.pkpass", "passes/loyalty.pkpass"),
        ]
        for (from, to) in copies { try files.copyItem(atPath: CLI.fixture(from), toPath: "\(root)/\(to)") }
        func write(_ path: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: "\(root)/\(path)"))
        }
        func write(_ path: String, _ text: String) throws { try write(path, Array(text.utf8)) }
        try write("m/cgbi.png", VerdictMedia.make(width: 600, height: 300, cgbi: true))
        try write("m/small.png", VerdictMedia.make(width: 64, height: 32))
        try write("m/plain.png", VerdictMedia.make(width: 1140, height: 600))
        try write("m/big.png", VerdictMedia.make(width: 1140, height: 600, padding: 5 << 20 + 1))
        try write("v/fmp4/seg0.m4s", VerdictMedia.fmp4MediaSegment)
        let header = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        let end = "#EXT-X-ENDLIST\n"
        try write(
            "v/fmp4/index.m3u8", header + "#EXT-X-VERSION:7\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:4,\nseg0.m4s\n" + end)
        try write("v/ts/index.m3u8", header + "#EXTINF:4,\nseg0.ts\n" + end)
        try write("v/hevc/index.m3u8", header + "#EXTINF:4,\nseg0.ts\n" + end)
        try write("v/ts/stream", header + "#EXTINF:4,\n\(cdn)/v/ts/seg0.ts\n" + end)
        return root
    }

    // MARK: The verdicts each platform's table gives

    /// A finding as the report shows it: severity, code and `platform` (nil: a fact true on every platform).
    struct Expect: Hashable, Comparable, CustomStringConvertible {
        var severity: String
        var code: String
        var platform: String?

        static func error(_ code: String, _ platform: String? = nil) -> Expect { Expect("error", code, platform) }
        static func warning(_ code: String, _ platform: String? = nil) -> Expect { Expect("warning", code, platform) }
        static func info(_ code: String, _ platform: String? = nil) -> Expect { Expect("info", code, platform) }

        init(_ severity: String, _ code: String, _ platform: String?) {
            self.severity = severity
            self.code = code
            self.platform = platform
        }

        var description: String { "\(severity) \(code)\(platform.map { " [\($0)]" } ?? "")" }
        static func < (lhs: Expect, rhs: Expect) -> Bool { lhs.description < rhs.description }
    }

    struct AssetVerdict {
        var role: String
        var status: String
        var failure: String? = nil
        var findings: [Expect]
        /// Text the asset's messages must hold (the platform's own numbers and versions).
        var mentions: [String] = []
    }

    struct CardVerdict {
        var id: String
        var platform: String
        var sdks: [String]
        var broken: Bool
        var assets: [AssetVerdict]
    }

    /// The rich-card profiles: 6.15 has 6.13's cards (only its tap routing differs), so the same verdicts.
    static let androidRich = ["6.12", "6.13", "6.15"]

    /// What the documents say each card is, at `level`. The changes between the levels:
    /// iOS 17 drops WebP's and AVIF's `image.requiresNewerOS`; the ATS exception turns `image.ats` into information;
    /// minSdk 31 drops HEIC's `image.android.requiresNewerAPI` (A4), keeps AVIF's with the "mandatory from 14" text
    /// (A5), turns the carousel's animated WebP from a warning into information (A7, the code's choice); the
    /// permitted cleartext host turns A8's error into a warning, so the http hero no longer breaks Android cards.
    static func verdicts(_ level: Level) -> [CardVerdict] {
        let newer = level == .newer
        let tooSmallIOS = Expect.warning("image.tooSmallForCell", "ios")
        let tooSmallAndroid = Expect.warning("image.tooSmallForCell", "android")
        let olderIOS = Expect.warning("image.requiresNewerOS", "ios")
        let olderAPI = Expect.warning("image.android.requiresNewerAPI", "android")
        var cards: [CardVerdict] = []
        func add(_ id: String, _ platform: String, _ sdks: [String], broken: Bool, _ assets: [AssetVerdict]) {
            cards.append(CardVerdict(id: id, platform: platform, sdks: sdks, broken: broken, assets: assets))
        }
        // A3: TIFF decodes on iOS, never on Android: the Android banner breaks; 6.11's legacy icon only decorates.
        add(
            "tiff-hero", "ios", ["7.2"], broken: false,
            [.init(role: "heroImage", status: "ok", findings: [tooSmallIOS])])
        add(
            "tiff-hero", "android", androidRich, broken: true,
            [
                .init(
                    role: "heroImage", status: "failed", failure: "unsupported-on-android",
                    findings: [.error("image.android.unsupportedFormat", "android")],
                    mentions: ["TIFF images do not decode on Android"])
            ])
        add(
            "tiff-hero", "android", ["6.11"], broken: false,
            [
                .init(
                    role: "icon", status: "failed", failure: "unsupported-on-android",
                    findings: [.warning("image.android.unsupportedFormat", "android")])
            ])
        // A2: CgBI is information on iOS, an error on Android.
        add(
            "cgbi-hero", "ios", ["7.2"], broken: false,
            [.init(role: "heroImage", status: "ok", findings: [.info("image.appleOptimizedPNG", "ios")])])
        add(
            "cgbi-hero", "android", androidRich, broken: true,
            [
                .init(
                    role: "heroImage", status: "failed", failure: "unsupported-on-android",
                    findings: [.error("image.android.cgbi", "android")])
            ])
        add(
            "cgbi-hero", "android", ["6.11"], broken: false,
            [
                .init(
                    role: "icon", status: "failed", failure: "unsupported-on-android",
                    findings: [.warning("image.android.cgbi", "android")])
            ])
        // A6: an animated WebP under the banner's required crop fails on Android; iOS shows the first frame.
        let webpIOS = (newer ? [] : [olderIOS]) + [.info("image.animated", "ios"), tooSmallIOS]
        add("webp-banner", "ios", ["7.2"], broken: false, [.init(role: "heroImage", status: "ok", findings: webpIOS)])
        add(
            "webp-banner", "android", androidRich, broken: true,
            [
                .init(
                    role: "heroImage", status: "failed", failure: "unsupported-on-android",
                    findings: [.error("image.android.animated", "android")], mentions: ["AnimatedImageDrawable"])
            ])
        add(
            "webp-banner", "android", ["6.11"], broken: false,
            [
                .init(
                    role: "icon", status: "failed", failure: "unsupported-on-android",
                    findings: [.warning("image.android.animated", "android")])
            ])
        // A7: the same bytes as a carousel slide (optional crop) animate from API 28.
        add(
            "webp-carousel", "ios", ["7.2"], broken: false,
            [
                .init(role: "carouselSlide", status: "ok", findings: webpIOS),
                .init(role: "carouselSlide", status: "ok", findings: []),
            ])
        add(
            "webp-carousel", "android", androidRich, broken: false,
            [
                .init(
                    role: "carouselSlide", status: "ok",
                    findings: [
                        newer
                            ? .info("image.android.animated", "android")
                            : .warning("image.android.animated", "android"),
                        tooSmallAndroid,
                    ],
                    mentions: [newer ? "animates on every supported API level" : "animates from Android 9 (API 28)"]),
                .init(role: "carouselSlide", status: "ok", findings: []),
            ])
        add("webp-carousel", "android", ["6.11"], broken: false, [])
        // A5: AVIF from iOS 16; on Android from API 31, on every device from 34.
        add(
            "avif-hero", "ios", ["7.2"], broken: false,
            [.init(role: "heroImage", status: "ok", findings: (newer ? [] : [olderIOS]) + [tooSmallIOS])])
        let avifText =
            newer
            ? "mandatory only from Android 14 (API 34); the app supports Android 12 (API 31)"
            : "AVIF decodes from Android 12 (API 31); the app supports Android 6.0 (API 23)"
        add(
            "avif-hero", "android", androidRich, broken: false,
            [.init(role: "heroImage", status: "ok", findings: [olderAPI, tooSmallAndroid], mentions: [avifText])])
        add(
            "avif-hero", "android", ["6.11"], broken: false,
            [.init(role: "icon", status: "ok", findings: [olderAPI, tooSmallAndroid], mentions: [avifText])])
        // A4: HEIC decodes on iOS 11+; on Android from API 27.
        add(
            "heic-hero", "ios", ["7.2"], broken: false,
            [.init(role: "heroImage", status: "ok", findings: [tooSmallIOS])])
        let heicAndroid = (newer ? [] : [olderAPI]) + [tooSmallAndroid]
        add(
            "heic-hero", "android", androidRich, broken: false,
            [
                .init(
                    role: "heroImage", status: "ok", findings: heicAndroid,
                    mentions: newer ? [] : ["HEIC decodes from Android 8.1 (API 27)"])
            ])
        add("heic-hero", "android", ["6.11"], broken: false, [.init(role: "icon", status: "ok", findings: heicAndroid)])
        // ATS against A8.
        add(
            "http-hero", "ios", ["7.2"], broken: false,
            [
                .init(
                    role: "heroImage", status: "ok",
                    findings: [newer ? .info("image.ats", "ios") : .warning("image.ats", "ios")],
                    mentions: [
                        newer
                            ? "(under example.com, NSIncludesSubdomains) is an ATS exception domain with NSExceptionAllowsInsecureHTTPLoads in --ios-ats-exceptions"
                            : "App Transport Security blocks it"
                    ])
            ])
        add(
            "http-hero", "android", androidRich, broken: !newer,
            [
                newer
                    ? .init(
                        role: "heroImage", status: "ok", findings: [.warning("image.android.cleartext", "android")],
                        mentions: ["cdn.example.com in --android-cleartext-hosts"])
                    : .init(
                        role: "heroImage", status: "failed", failure: "cleartext-blocked",
                        findings: [.error("image.android.cleartext", "android")], mentions: ["(this app: 35)"])
            ])
        add(
            "http-hero", "android", ["6.11"], broken: false,
            [
                .init(
                    role: "icon", status: newer ? "ok" : "failed", failure: newer ? nil : "cleartext-blocked",
                    findings: [.warning("image.android.cleartext", "android")])
            ])
        // G2 and iOS's 4× rule: the same 64×32 hero in each platform's numbers.
        add(
            "small-hero", "ios", ["7.2"], broken: false,
            [
                .init(
                    role: "heroImage", status: "ok", findings: [tooSmallIOS],
                    mentions: ["64×32 image drawn 358 pt wide (1074 px at @3x) on iOS"])
            ])
        add(
            "small-hero", "android", androidRich, broken: false,
            [
                .init(
                    role: "heroImage", status: "ok", findings: [tooSmallAndroid],
                    mentions: ["64×32 image drawn in a 380×200 dp cell (1140×600 px at xxhdpi 3×"])
            ])
        add(
            "small-hero", "android", ["6.11"], broken: false,
            [.init(role: "icon", status: "ok", findings: [tooSmallAndroid], mentions: ["56×56 dp cell (168×168 px"])])
        // A11: Glide never reads the Content-Type, so a wrong one is information on Android.
        add(
            "typed-hero", "ios", ["7.2"], broken: false,
            [.init(role: "heroImage", status: "ok", findings: [.warning("image.contentTypeMismatch")])])
        for sdks in [androidRich, ["6.11"]] {
            add(
                "typed-hero", "android", sdks, broken: false,
                [
                    .init(
                        role: sdks == ["6.11"] ? "icon" : "heroImage", status: "ok",
                        findings: [.info("image.contentTypeMismatch", "android")],
                        mentions: ["Glide on Android sniffs the bytes"])
                ])
        }
        // More than 5 MiB: a warning on iOS (a fact, no platform); G4, Glide downsamples at decode, so on Android
        // only data is lost: information, Android's rule.
        add(
            "big-hero", "ios", ["7.2"], broken: false,
            [.init(role: "heroImage", status: "ok", findings: [.warning("image.tooManyBytes")])])
        for sdks in [androidRich, ["6.11"]] {
            add(
                "big-hero", "android", sdks, broken: false,
                [
                    .init(
                        role: sdks == ["6.11"] ? "icon" : "heroImage", status: "ok",
                        findings: [.info("image.tooManyBytes", "android")],
                        mentions: ["On Android only data is lost: Glide downsamples it to the cell."])
                ])
        }
        // WebM: AVPlayer cannot play it; MediaPlayer does (V1).
        add(
            "webm-video", "ios", ["7.2"], broken: true,
            [
                .init(
                    role: "video", status: "failed", failure: "unplayable",
                    findings: [.error("video.contentType", "ios"), .error("video.unsupportedContainer", "ios")])
            ])
        add("webm-video", "android", androidRich, broken: false, [.init(role: "video", status: "ok", findings: [])])
        // V6: fMP4 segments are fine for AVPlayer, not for MediaPlayer; V8: TS plays on both.
        add("hls-fmp4", "ios", ["7.2"], broken: false, [.init(role: "video", status: "ok", findings: [])])
        add(
            "hls-fmp4", "android", androidRich, broken: true,
            [
                .init(
                    role: "video", status: "failed", failure: "unplayable",
                    findings: [.error("video.android.hlsSegments", "android")],
                    mentions: [#"the player shows "Couldn't play this video" and closes"#])
            ])
        add("hls-ts", "ios", ["7.2"], broken: false, [.init(role: "video", status: "ok", findings: [])])
        add("hls-ts", "android", androidRich, broken: false, [.init(role: "video", status: "ok", findings: [])])
        // HEVC in TS segments: Apple's authoring spec wants fMP4 for HEVC (iOS); Android's table has no such rule.
        add(
            "hls-hevc-ts", "ios", ["7.2"], broken: true,
            [
                .init(
                    role: "video", status: "failed", failure: "unplayable",
                    findings: [.error("video.hls.hevcInTS", "ios")])
            ])
        add("hls-hevc-ts", "android", androidRich, broken: false, [.init(role: "video", status: "ok", findings: [])])
        // V5: a playlist under a URL without "m3u8" is a plain file to NuPlayer; AVPlayer goes by the type.
        add("hls-no-m3u8", "ios", ["7.2"], broken: false, [.init(role: "video", status: "ok", findings: [])])
        add(
            "hls-no-m3u8", "android", androidRich, broken: true,
            [
                .init(
                    role: "video", status: "failed", failure: "unplayable",
                    findings: [.error("video.android.hlsURL", "android")], mentions: ["does not contain 'm3u8'"])
            ])
        for id in ["webm-video", "hls-fmp4", "hls-ts", "hls-hevc-ts", "hls-no-m3u8"] {
            add(id, "android", ["6.11"], broken: false, [])  // 6.11 has no video card: a legacy row, no assets
        }
        // Wallet: iOS only. The invalid pass breaks the iOS card; Android draws a classic card, no pass (G4 avatar).
        add(
            "wallet", "ios", ["7.2"], broken: true,
            [
                .init(role: "heroImage", status: "ok", findings: []),
                .init(
                    role: "walletPass", status: "failed", failure: "invalid-pass",
                    findings: [.error("asset.passInvalid")]),
            ])
        add(
            "wallet", "android", androidRich, broken: false,
            [.init(role: "avatar", status: "ok", findings: [.info("image.oversized", "android")])])
        add("wallet", "android", ["6.11"], broken: false, [.init(role: "icon", status: "ok", findings: [])])
        return cards
    }

    /// Codes only iOS's rules give, and text only iOS's messages have.
    static let iOSOnlyCodes: Set<String> = [
        "image.ats", "video.ats", "image.requiresNewerOS", "video.unsupportedContainer", "video.hls.hevcInTS",
        "image.appleOptimizedPNG", "image.animated",
    ]

    /// Timing-dependent (Glide's 2.5 s, A9): not part of the expected lists on a loaded machine.
    static let timing: Set<String> = ["image.android.slow"]

    // MARK: The run

    @Test(arguments: Level.allCases)
    func eachCardCarriesItsPlatformsVerdict(_ level: Level) async throws {
        let root = try Self.makeRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try FixtureServer(root: root)
        defer { server.stop() }
        let arguments =
            [
                "check", "-", "--platform", "all", "--android-sdk", "all", "--format", "json", "--fail-on", "never",
                "--no-store", "--quiet", "--retries", "0", "--timeout", "10",
                "--connect-to", "cdn.example.com:443:127.0.0.1:\(try #require(server.httpsPort))",
                "--connect-to", "cdn.example.com:80:127.0.0.1:\(server.httpPort)",
                "--cacert", try #require(server.caFilePath),
            ] + level.flags
        let result = try await CLI.run(arguments, stdin: Self.campaign)
        #expect(result.status == 0, "\(result.stderr)")
        let report = CheckReportJSON.flattened(try JSON.parse(result.stdout))
        let cards = try #require(report["cards"]?.arrayValue)
        // Every message on iOS 7.2 and Android 6.11, 6.12, 6.13, 6.15.
        #expect(cards.count == Self.messages.count * 5)

        let verdicts = Self.verdicts(level)
        var checked = 0
        for verdict in verdicts {
            for sdk in verdict.sdks {
                let name = "\(verdict.id) on \(verdict.platform) \(sdk)"
                let matching = cards.filter {
                    $0["code"]?.stringValue == verdict.id && $0["platform"]?.stringValue == verdict.platform
                        && $0["sdk"]?.stringValue == sdk
                }
                guard matching.count == 1, let card = matching.first else {
                    Issue.record("\(name): \(matching.count) cards")
                    continue
                }
                checked += 1
                Self.check(card, against: verdict, name: name)
            }
        }
        #expect(checked == cards.count, "every card has an expected verdict")
        let broken = verdicts.reduce(0) { $0 + ($1.broken ? $1.sdks.count : 0) }
        #expect(report["summary"]?["broken"]?.numberValue?.intValue == broken)

        // No card carries the other platform's rules.
        for card in cards {
            let platform = card["platform"]?.stringValue ?? "?"
            let name = "\(card["code"]?.stringValue ?? "?") on \(platform) \(card["sdk"]?.stringValue ?? "?")"
            var findings = card["findings"]?.arrayValue ?? []
            for asset in card["assets"]?.arrayValue ?? [] { findings += asset["findings"]?.arrayValue ?? [] }
            for finding in findings {
                let code = finding["code"]?.stringValue ?? ""
                let message = finding["message"]?.stringValue ?? ""
                if let rule = finding["platform"]?.stringValue {
                    #expect(rule == platform, "\(name): \(code) is a \(rule) rule")
                }
                if platform == "android" {
                    #expect(!Self.iOSOnlyCodes.contains(code), "\(name): \(code)")
                    #expect(
                        !message.contains("AVPlayer") && !message.contains("App Transport Security"),
                        "\(name): \(message)")
                } else {
                    #expect(!code.hasPrefix("image.android.") && !code.hasPrefix("video.android."), "\(name): \(code)")
                }
            }
        }
    }

    static func check(_ card: JSONValue, against verdict: CardVerdict, name: String) {
        #expect(card["broken"]?.boolValue == verdict.broken, "\(name): broken")
        let cardCodes = card["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(cardCodes.contains("card.broken") == verdict.broken, "\(name): \(cardCodes)")
        let assets = card["assets"]?.arrayValue ?? []
        #expect(assets.count == verdict.assets.count, "\(name): \(assets.count) assets")
        for (asset, expected) in zip(assets, verdict.assets) {
            let what = "\(name) \(expected.role)"
            #expect(asset["role"]?.stringValue == expected.role, "\(what)")
            #expect(asset["status"]?.stringValue == expected.status, "\(what): status")
            #expect(asset["failure"]?.stringValue == expected.failure, "\(what): failure")
            let findings = asset["findings"]?.arrayValue ?? []
            let actual = findings.compactMap { finding -> Expect? in
                guard let severity = finding["severity"]?.stringValue, let code = finding["code"]?.stringValue,
                    !timing.contains(code)
                else { return nil }
                return Expect(severity, code, finding["platform"]?.stringValue)
            }
            #expect(actual.sorted() == expected.findings.sorted(), "\(what)")
            let text = findings.compactMap { $0["message"]?.stringValue }.joined(separator: "\n")
            for mention in expected.mentions { #expect(text.contains(mention), "\(what): no '\(mention)' in \(text)") }
        }
    }
}

/// Small media files made for this test.
enum VerdictMedia {
    /// A `width`×`height` RGBA PNG of transparent pixels; `cgbi` puts Xcode's CgBI chunk first and stores the pixels
    /// as raw deflate (no zlib wrapper), as `pngcrush -iphone` does.
    static func make(width: Int, height: Int, cgbi: Bool = false, padding: Int = 0) -> [UInt8] {
        let ihdr = be32(UInt32(width)) + be32(UInt32(height)) + [8, 6, 0, 0, 0]
        let count = height * (1 + 4 * width)
        let deflate = SyntheticDeflate.zeros(count)
        let idat = cgbi ? deflate : [0x78, 0x01] + deflate + be32(UInt32(count % 65521) << 16 | 1)
        // A private ancillary chunk ("prVt": lowercase first letter, decoders skip it) only adds bytes.
        let extra = padding > 0 ? chunk("prVt", [UInt8](repeating: 0, count: padding)) : []
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (cgbi ? chunk("CgBI", [0x50, 0x00, 0x20, 0x06]) : [])
            + chunk("IHDR", ihdr) + chunk("IDAT", idat) + extra + chunk("IEND", [])
    }

    /// An fMP4 media segment (`styp`, `moof` with its `mfhd`, a 4-byte `mdat`), as HLS CMAF packaging writes.
    static let fmp4MediaSegment: [UInt8] =
        box("styp", Array("msdh".utf8) + be32(0) + Array("msdhmsix".utf8)) + box("moof", box("mfhd", be32(0) + be32(1)))
        + box("mdat", [0, 0, 0, 0])

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + body.count)) + Array(type.utf8) + body
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in typed { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return be32(UInt32(data.count)) + typed + be32(~crc)
    }

    /// CRC-32 (ISO 3309, as PNG uses it), a byte at a time.
    static let crcTable: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }
}
