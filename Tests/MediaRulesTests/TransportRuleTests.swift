import Findings
import MediaProbe
import MediaRules
import Testing

/// iOS App Transport Security against Android's cleartext policy (A8) and Glide's limits (A9, A10): one transfer,
/// judged by each platform's rule.
@Suite struct TransportRuleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// The URL and its redirect targets.
        var hops: [String]
        /// HLS: the URIs the playlists list (not redirects).
        var listed: [String] = []
        var use: TransferUse = .image
        var redirectCount: Int? = nil
        var firstByte: Double? = nil
        var app: AppSettings = MediaRulesTests.app()
        var ios: [Expect]
        var android: [Expect]
        var iosMentions: [String] = []
        var androidMentions: [String] = []
        /// Text neither platform's messages may hold.
        var absent: [String] = []

        var testDescription: String { "\(name): iOS \(describe(ios)), Android \(describe(android))" }
    }

    static let ats = ImageFindingCode.appTransportSecurity
    static let videoATS = VideoFindingCode.appTransportSecurity
    static let cleartext = AndroidFindingCode.imageCleartext
    static let videoCleartext = AndroidFindingCode.videoCleartext

    static let cdnPlain = "http://cdn.example.com/inbox/hero.png"
    static let cdnSecure = "https://cdn.example.com/inbox/hero.png"
    static let hls = "https://cdn.example.com/v/index.m3u8"

    static let cases: [Case] = [
        Case(name: "https", hops: [cdnSecure], ios: [], android: []),
        Case(
            name: "http", hops: [cdnPlain], ios: [.warning(ats)], android: [.error(cleartext)],
            iosMentions: ["App Transport Security blocks it on iOS", cdnPlain],
            androidMentions: [
                "Android blocks cleartext for apps targeting API 28+", "(this app: 35)", "the image never loads",
            ]),
        Case(
            name: "HTTP in capitals", hops: ["HTTP://CDN.EXAMPLE.COM/a.png"], ios: [.warning(ats)],
            android: [.error(cleartext)]),
        Case(
            name: "https redirecting to http",
            hops: [cdnSecure, "https://cdn.example.com/moved", "http://origin.example.net/hero.png"],
            ios: [.warning(ats)], android: [.error(cleartext)],
            iosMentions: ["http://origin.example.net/hero.png (redirect 2)"],
            androidMentions: ["http://origin.example.net/hero.png (redirect 2)"]),
        Case(
            name: "http video", hops: ["http://cdn.example.com/v.mp4"], use: .media, ios: [.warning(videoATS)],
            android: [.error(videoCleartext)], iosMentions: ["The media URL"],
            androidMentions: [#"the player shows "Couldn't play this video" and closes"#]),
        // A playlist's URIs are no redirects: a plain-http one is named as listed, with how many there are.
        Case(
            name: "https playlist listing an http segment", hops: [hls],
            listed: ["https://cdn.example.com/v/low.m3u8", "http://cdn.example.com/v/seg0.ts"], use: .media,
            ios: [.warning(videoATS)], android: [.error(videoCleartext)],
            iosMentions: ["http://cdn.example.com/v/seg0.ts (listed in the playlist, 1 plain-http URI) uses plain"],
            androidMentions: ["http://cdn.example.com/v/seg0.ts (listed in the playlist, 1 plain-http URI) uses plain"],
            absent: ["(redirect"]),
        Case(
            name: "https playlist listing three http URIs",
            hops: [hls],
            listed: [
                "https://cdn.example.com/v/low.m3u8", "http://seg.example.net/a.ts", "http://seg.example.net/b.ts",
                "HTTP://KEYS.EXAMPLE.NET/k",
            ],
            use: .media, ios: [.warning(videoATS)], android: [.error(videoCleartext)],
            iosMentions: ["http://seg.example.net/a.ts (listed in the playlist, 3 plain-http URIs)"],
            androidMentions: ["http://seg.example.net/a.ts (listed in the playlist, 3 plain-http URIs)"],
            absent: ["(redirect", "b.ts"]),
        Case(
            name: "https playlist listing only https", hops: [hls],
            listed: ["https://cdn.example.com/v/low.m3u8", "https://cdn.example.com/v/seg0.ts"], use: .media, ios: [],
            android: []),
        // The URL or a real redirect is named before any listed URI, as itself or "(redirect N)".
        Case(
            name: "http playlist listing an http segment", hops: ["http://cdn.example.com/v/index.m3u8"],
            listed: ["http://other.example.net/seg0.ts"], use: .media, ios: [.warning(videoATS)],
            android: [.error(videoCleartext)],
            iosMentions: ["The media URL http://cdn.example.com/v/index.m3u8 uses plain http://"],
            androidMentions: ["The media URL http://cdn.example.com/v/index.m3u8 uses plain http://"],
            absent: ["listed in the playlist", "other.example.net"]),
        Case(
            name: "playlist redirecting to http and listing http",
            hops: [hls, "http://origin.example.net/index.m3u8"], listed: ["http://other.example.net/seg0.ts"],
            use: .media, ios: [.warning(videoATS)], android: [.error(videoCleartext)],
            iosMentions: ["http://origin.example.net/index.m3u8 (redirect 1)"],
            androidMentions: ["http://origin.example.net/index.m3u8 (redirect 1)"],
            absent: ["listed in the playlist"]),
        // The listed URI's host decides the exceptions, as a hop's does.
        Case(
            name: "listed http URI, its host excepted", hops: [hls], listed: ["http://seg.example.net/a.ts"],
            use: .media, app: app(ats: hosts(["seg.example.net"]), cleartext: hosts(["*.example.net"])),
            ios: [.info(videoATS)], android: [.warning(videoCleartext)],
            iosMentions: ["seg.example.net is an ATS exception", "(listed in the playlist, 1 plain-http URI)"],
            androidMentions: [
                "allows cleartext to seg.example.net (the domain-config for seg.example.net (under example.net, includeSubdomains) in test permits cleartext)"
            ]),
        Case(
            name: "listed http URI, another host excepted", hops: [hls], listed: ["http://seg.example.net/a.ts"],
            use: .media, app: app(ats: hosts(["cdn.example.com"]), cleartext: hosts(["cdn.example.com"])),
            ios: [.warning(videoATS)], android: [.error(videoCleartext)]),
        // Listed URIs are not counted as redirects (A10).
        Case(
            name: "seven listed URIs", hops: [cdnSecure], listed: (0...6).map { "https://cdn.example.com/s\($0).ts" },
            ios: [], android: []),
        // A8: cleartext is still permitted for apps targeting 27 or lower.
        Case(
            name: "http at targetSdk 27", hops: [cdnPlain], app: app(minSdk: 23, targetSdk: 27),
            ios: [.warning(ats)], android: [.warning(cleartext)],
            androidMentions: [
                "the app targets API 27, below 28", "Google Play requires targetSdk 35",
                "Android 8.1 (API 27) is the app's",
            ]),
        Case(
            name: "http at targetSdk 28", hops: [cdnPlain], app: app(minSdk: 23, targetSdk: 28),
            ios: [.warning(ats)], android: [.error(cleartext)], androidMentions: ["(this app: 28)"]),
        // Exceptions: an ATS exception is information on iOS only; a permitted cleartext host a warning on Android only.
        Case(
            name: "ATS exception cdn.example.com", hops: [cdnPlain], app: app(ats: hosts(["cdn.example.com"])),
            ios: [.info(ats)], android: [.error(cleartext)],
            iosMentions: ["App Transport Security lets it load on iOS", "cdn.example.com is an ATS exception"]),
        Case(
            name: "ATS exception for another host", hops: ["http://img.example.com/a.png"],
            app: app(ats: hosts(["cdn.example.com"])), ios: [.warning(ats)], android: [.error(cleartext)]),
        Case(
            name: "ATS exception *.example.com, host example.com", hops: ["http://example.com/a.png"],
            app: app(ats: hosts(["*.example.com"])), ios: [.info(ats)], android: [.error(cleartext)],
            iosMentions: ["example.com is an ATS exception domain with NSExceptionAllowsInsecureHTTPLoads in test"]),
        Case(
            name: "ATS exception *.example.com, host a.b.example.com", hops: ["http://a.b.example.com/a.png"],
            app: app(ats: hosts(["*.example.com"])), ios: [.info(ats)], android: [.error(cleartext)]),
        Case(
            name: "ATS exception *.example.com, host badexample.com", hops: ["http://badexample.com/a.png"],
            app: app(ats: hosts(["*.example.com"])), ios: [.warning(ats)], android: [.error(cleartext)]),
        Case(
            name: "ATS exception *", hops: ["http://anything.test/a.png"], app: app(ats: hosts(["*"])),
            ios: [.info(ats)], android: [.error(cleartext)]),
        Case(
            name: "cleartext host cdn.example.com", hops: [cdnPlain], app: app(cleartext: hosts(["cdn.example.com"])),
            ios: [.warning(ats)], android: [.warning(cleartext)],
            androidMentions: ["Android permits it because the app allows cleartext to cdn.example.com", "unencrypted"]),
        Case(
            name: "cleartext host *.example.com, host a.b.example.com", hops: ["http://a.b.example.com/x.png"],
            app: app(cleartext: hosts(["*.example.com"])), ios: [.warning(ats)], android: [.warning(cleartext)]),
        Case(
            name: "cleartext host *.example.com, host example.com", hops: ["http://example.com/x.png"],
            app: app(cleartext: hosts(["*.example.com"])), ios: [.warning(ats)], android: [.warning(cleartext)]),
        Case(
            name: "cleartext host *.example.com, host badexample.com", hops: ["http://badexample.com/x.png"],
            app: app(cleartext: hosts(["*.example.com"])), ios: [.warning(ats)], android: [.error(cleartext)]),
        Case(
            name: "cleartext host *", hops: ["http://anything.test/x.png"], app: app(cleartext: hosts(["*"])),
            ios: [.warning(ats)], android: [.warning(cleartext)]),
        Case(
            name: "cleartext host for the redirect target only",
            hops: ["http://short.example.org/r", "https://cdn.example.com/a.png"],
            app: app(cleartext: hosts(["cdn.example.com"])), ios: [.warning(ats)], android: [.error(cleartext)]),
        Case(
            name: "both exceptions", hops: [cdnPlain],
            app: app(ats: hosts(["cdn.example.com"]), cleartext: hosts(["cdn.example.com"])), ios: [.info(ats)],
            android: [.warning(cleartext)]),
        Case(
            name: "host with userinfo and port", hops: ["http://user:SECRET@cdn.example.com:8080/a.png"],
            app: app(ats: hosts(["cdn.example.com"]), cleartext: hosts(["cdn.example.com"])), ios: [.info(ats)],
            android: [.warning(cleartext)]),
        // A10: Glide follows at most 5 redirects; iOS's URLSession has no such rule here.
        Case(
            name: "5 redirects", hops: (0...5).map { "https://cdn.example.com/r\($0)" }, ios: [], android: []),
        Case(
            name: "6 redirects", hops: (0...6).map { "https://cdn.example.com/r\($0)" }, ios: [],
            android: [.error(AndroidFindingCode.imageTooManyRedirects)],
            androidMentions: ["6 redirects: Glide on Android gives up after 5"]),
        Case(
            name: "redirect count given", hops: [cdnSecure], redirectCount: 9, ios: [],
            android: [.error(AndroidFindingCode.imageTooManyRedirects)]),
        Case(
            name: "6 redirects of a video", hops: (0...6).map { "https://cdn.example.com/r\($0)" }, use: .media,
            ios: [], android: []),
        // A9: Glide's 2.5 s connect/read timeout.
        Case(name: "first byte 2.5 s", hops: [cdnSecure], firstByte: 2.5, ios: [], android: []),
        Case(
            name: "first byte 3.2 s", hops: [cdnSecure], firstByte: 3.2, ios: [],
            android: [.warning(AndroidFindingCode.imageSlow)],
            androidMentions: ["took 3.2 s to the first byte", "Glide on Android times out after 2.5 s"]),
        Case(
            name: "first byte 3.2 s for a video", hops: [cdnSecure], use: .media, firstByte: 3.2, ios: [], android: []),
        Case(
            name: "http, 7 redirects and slow",
            hops: [cdnPlain] + (1...7).map { "https://cdn.example.com/r\($0)" }, firstByte: 9, ios: [.warning(ats)],
            android: [
                .error(cleartext), .error(AndroidFindingCode.imageTooManyRedirects),
                .warning(AndroidFindingCode.imageSlow),
            ]),
        // Odd input: never a crash.
        Case(name: "no hops", hops: [], ios: [], android: []),
        Case(name: "empty URL", hops: [""], ios: [], android: []),
        Case(
            name: "not a URL", hops: ["cdn.example.com/a.png", "http:", "http:/x", "ftp://x/y"], ios: [], android: []),
        Case(
            name: "http:// without a host", hops: ["http://"], ios: [.warning(ats)], android: [.error(cleartext)]),
        Case(
            name: "http IPv6 literal", hops: ["http://[::1]:8080/a.png"], ios: [.warning(ats)],
            android: [.error(cleartext)]),
        // An IPv6 exception, written either way, is stored bare and so admits the host host(of:) gives.
        Case(
            name: "http IPv6 literal excepted", hops: ["http://[::1]:8080/a.png"],
            app: app(ats: hosts(["[::1]"]), cleartext: hosts(["::1"])), ios: [.info(ats)],
            android: [.warning(cleartext)],
            iosMentions: ["::1 is an ATS exception domain with NSExceptionAllowsInsecureHTTPLoads in test"],
            androidMentions: ["allows cleartext to ::1 (the domain-config for ::1 in test permits cleartext)"]),
        Case(name: "first byte NaN", hops: [cdnSecure], firstByte: .nan, ios: [], android: []),
        Case(name: "first byte negative", hops: [cdnSecure], firstByte: -4, ios: [], android: []),
        Case(
            name: "first byte infinite", hops: [cdnSecure], firstByte: .infinity, ios: [],
            android: [.warning(AndroidFindingCode.imageSlow)], androidMentions: ["took >1e9 s"]),
        Case(name: "negative redirect count", hops: [cdnSecure], redirectCount: -3, ios: [], android: []),
    ]

    @Test(arguments: cases)
    func transfer(_ testCase: Case) {
        let facts = TransferFacts(
            hops: testCase.hops, redirectCount: testCase.redirectCount, firstByteSeconds: testCase.firstByte,
            listedURIs: testCase.listed)
        let ios = TransportRules.judge(facts, use: testCase.use, on: .ios, app: testCase.app)
        verify(ios, are: testCase.ios, on: .ios, mentioning: testCase.iosMentions)
        let android = TransportRules.judge(facts, use: testCase.use, on: .android, app: testCase.app)
        verify(android, are: testCase.android, on: .android, mentioning: testCase.androidMentions)
        for finding in ios + android {
            // A message never carries a URL's credentials.
            #expect(!finding.message.contains("SECRET"), "\(finding.message)")
            for text in testCase.absent { #expect(!finding.message.contains(text), "\(finding.message)") }
        }
    }

    @Test func redirectCountDefaultsToTheHops() {
        #expect(TransferFacts(hops: []).redirectCount == 0)
        #expect(TransferFacts(hops: ["a"]).redirectCount == 0)
        #expect(TransferFacts(hops: ["a", "b", "c"]).redirectCount == 2)
        #expect(TransferFacts(hops: ["a"], redirectCount: 4).redirectCount == 4)
        // The playlist's URIs are kept apart from the hops and are no redirects.
        #expect(TransferFacts(hops: ["a"]).listedURIs.isEmpty)
        let listed = TransferFacts(hops: ["a"], listedURIs: ["b", "c"])
        #expect(listed.hops == ["a"] && listed.listedURIs == ["b", "c"] && listed.redirectCount == 0)
        #expect(TransportRules.glideMaxRedirects == 5)
        #expect(TransportRules.glideTimeoutSeconds == 2.5)
    }

    struct HostCase: CustomTestStringConvertible, Sendable {
        var url: String
        var host: String
        var testDescription: String { "\(url.isEmpty ? "(empty)" : url) → \(host.isEmpty ? "(none)" : host)" }
    }

    @Test(arguments: [
        HostCase(url: "https://cdn.example.com/a.png", host: "cdn.example.com"),
        HostCase(url: "HTTP://CDN.Example.COM", host: "cdn.example.com"),
        HostCase(url: "https://user:pw@cdn.example.com:8443/a?b#c", host: "cdn.example.com"),
        HostCase(url: "https://a@b@cdn.example.com/", host: "cdn.example.com"),
        HostCase(url: "http://cdn.example.com?next=http://other.test/", host: "cdn.example.com"),
        HostCase(url: "http://cdn.example.com#http://other.test/", host: "cdn.example.com"),
        HostCase(url: "http://[2001:DB8::1]:8080/a", host: "2001:db8::1"),
        HostCase(url: "http://[::1", host: "::1"),
        HostCase(url: "http://", host: ""),
        HostCase(url: "", host: ""),
        HostCase(url: "cdn.example.com/a.png", host: ""),
        HostCase(url: "mailto:a@b.c", host: ""),
    ])
    func hostOfURL(_ testCase: HostCase) {
        #expect(TransportRules.host(of: testCase.url) == testCase.host)
    }
}
