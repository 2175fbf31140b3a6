import Findings
import MediaProbe
import MediaRules
import Testing

/// Android's MediaPlayer table (android-assets.md §4, rows V3, V5, V6, V8, V9) and the transport rule both platforms
/// apply to a video; iOS's AVPlayer rules live in MediaProbe, so iOS gets only App Transport Security from here.
@Suite struct VideoRuleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var facts: VideoFacts
        var app: AppSettings = MediaRulesTests.app()
        var ios: [Expect] = []
        var android: [Expect]
        var iosMentions: [String] = []
        var androidMentions: [String] = []
        /// Text neither platform's messages may hold.
        var absent: [String] = []

        var testDescription: String { "\(name): iOS \(describe(ios)), Android \(describe(android))" }
    }

    static let failure = #"the player shows "Couldn't play this video" and closes"#
    static let hls = "https://cdn.example.com/video/master.m3u8"
    static let mp4 = "https://cdn.example.com/video/clip.mp4"

    static func progressive(
        _ container: MediaFormat = .mp4, codec: String? = "avc1", profile: UInt8? = 77, ranges: Bool? = true,
        url: String = mp4
    ) -> VideoFacts {
        VideoFacts(
            url: url, isHLS: false, container: container, videoCodec: codec, avcProfile: profile,
            supportsByteRanges: ranges)
    }

    static let cases: [Case] = [
        // V1, V8: what plays.
        Case(name: "MP4 H.264 Main", facts: progressive(), android: []),
        Case(name: "MP4 H.264 Baseline", facts: progressive(profile: 66), android: []),
        Case(name: "MP4 H.264 High", facts: progressive(profile: 100), android: []),
        Case(name: "WebM", facts: progressive(.webm, codec: nil, profile: nil), android: []),
        Case(name: "Matroska", facts: progressive(.matroska, codec: nil, profile: nil), android: []),
        Case(name: "HLS over TS", facts: VideoFacts(url: hls, isHLS: true), android: []),
        Case(
            name: "HLS over TS with an AES-128 key",
            facts: VideoFacts(
                url: hls, isHLS: true,
                playlistURIs: ["https://cdn.example.com/video/seg0.ts", "https://keys.example.com/key?id=1"]),
            android: []),
        // V5: HLS only under a URL containing "m3u8".
        Case(
            name: "HLS URL without m3u8",
            facts: VideoFacts(url: "https://cdn.example.com/live/stream", isHLS: true),
            android: [.error(AndroidFindingCode.videoHLSURL)],
            androidMentions: ["does not contain 'm3u8'", "opens it as a plain file", failure]),
        Case(
            name: "HLS URL with ?format=m3u8",
            facts: VideoFacts(url: "https://cdn.example.com/live/stream?format=m3u8", isHLS: true), android: []),
        Case(
            name: "HLS URL ending .M3U8",
            facts: VideoFacts(url: "https://cdn.example.com/live/INDEX.M3U8", isHLS: true), android: []),
        // V6: fMP4/CMAF segments.
        Case(
            name: "HLS over fMP4", facts: VideoFacts(url: hls, isHLS: true, hlsFragmentedMP4: true),
            android: [.error(AndroidFindingCode.videoHLSSegments)],
            androidMentions: ["fMP4/CMAF segments (EXT-X-MAP)", "MPEG-TS segments only", failure]),
        Case(
            name: "HLS over fMP4 without m3u8",
            facts: VideoFacts(url: "https://cdn.example.com/live", isHLS: true, hlsFragmentedMP4: true),
            android: [.error(AndroidFindingCode.videoHLSURL), .error(AndroidFindingCode.videoHLSSegments)]),
        // V3: AV1 decodes from API 29, on every device from 34.
        Case(
            name: "AV1 at minSdk 23", facts: progressive(codec: "av01", profile: nil),
            android: [.warning(AndroidFindingCode.videoCodec)],
            androidMentions: [
                "AV1 video decodes from Android 10 (API 29)", "only from Android 14 (API 34)",
                "the app supports Android 6.0 (API 23)", failure,
            ]),
        Case(
            name: "AV1 at minSdk 33", facts: progressive(codec: "av01", profile: nil), app: app(minSdk: 33),
            android: [.warning(AndroidFindingCode.videoCodec)], androidMentions: ["Android 13 (API 33)"]),
        Case(
            name: "AV1 at minSdk 34", facts: progressive(codec: "av01", profile: nil), app: app(minSdk: 34),
            android: []),
        // H.264 beyond High: 10-bit, 4:2:2, 4:4:4.
        Case(
            name: "H.264 High 10", facts: progressive(profile: 110), android: [.warning(AndroidFindingCode.videoCodec)],
            androidMentions: ["profile_idc 110", "Baseline, Main"]),
        Case(
            name: "H.264 High 4:2:2", facts: progressive(profile: 122),
            android: [.warning(AndroidFindingCode.videoCodec)]),
        Case(
            name: "H.264 High 4:4:4 Predictive", facts: progressive(profile: 244),
            android: [.warning(AndroidFindingCode.videoCodec)]),
        Case(
            name: "H.264 CAVLC 4:4:4", facts: progressive(profile: 44),
            android: [.warning(AndroidFindingCode.videoCodec)]),
        Case(name: "HEVC hvc1", facts: progressive(codec: "hvc1", profile: nil), android: []),
        Case(name: "HEVC hev1", facts: progressive(codec: "hev1", profile: nil), android: []),
        // Progressive MPEG-TS and byte ranges: plays, cannot seek.
        Case(
            name: "progressive MPEG-TS", facts: progressive(.mpegTS, codec: nil, profile: nil),
            android: [.warning(AndroidFindingCode.videoContainer)], androidMentions: ["cannot seek"]),
        Case(
            name: "no range support", facts: progressive(ranges: false),
            android: [.warning(AndroidFindingCode.videoNoRangeSupport)],
            androidMentions: ["ignores byte ranges", "cannot seek"]),
        Case(name: "range support unknown", facts: progressive(ranges: nil), android: []),
        Case(
            name: "progressive TS without ranges, AV1", facts: progressive(.mpegTS, codec: "av01", ranges: false),
            android: [
                .warning(AndroidFindingCode.videoContainer), .warning(AndroidFindingCode.videoNoRangeSupport),
                .warning(AndroidFindingCode.videoCodec),
            ]),
        // A8 and ATS: the video URL, a redirect, a playlist URI (listed, not a redirect).
        Case(
            name: "http video", facts: progressive(url: "http://cdn.example.com/v.mp4"),
            ios: [.warning(VideoFindingCode.appTransportSecurity)],
            android: [.error(AndroidFindingCode.videoCleartext)], androidMentions: [failure]),
        Case(
            name: "https video redirecting to http",
            facts: VideoFacts(
                url: mp4, isHLS: false, container: .mp4, redirectTargets: ["http://origin.example.net/v.mp4"]),
            ios: [.warning(VideoFindingCode.appTransportSecurity)],
            android: [.error(AndroidFindingCode.videoCleartext)],
            iosMentions: ["http://origin.example.net/v.mp4 (redirect 1)"],
            androidMentions: ["http://origin.example.net/v.mp4 (redirect 1)"], absent: ["listed in the playlist"]),
        Case(
            name: "HLS with an http segment",
            facts: VideoFacts(
                url: hls, isHLS: true,
                playlistURIs: ["https://cdn.example.com/video/low.m3u8", "http://cdn.example.com/video/seg0.ts"]),
            ios: [.warning(VideoFindingCode.appTransportSecurity)],
            android: [.error(AndroidFindingCode.videoCleartext)],
            iosMentions: ["http://cdn.example.com/video/seg0.ts (listed in the playlist, 1 plain-http URI)"],
            androidMentions: ["http://cdn.example.com/video/seg0.ts (listed in the playlist, 1 plain-http URI)"],
            absent: ["(redirect"]),
        Case(
            name: "HLS with two http segments",
            facts: VideoFacts(
                url: hls, isHLS: true,
                playlistURIs: [
                    "http://cdn.example.com/video/seg0.ts", "https://cdn.example.com/video/seg1.ts",
                    "http://cdn.example.com/video/seg2.ts",
                ]),
            ios: [.warning(VideoFindingCode.appTransportSecurity)],
            android: [.error(AndroidFindingCode.videoCleartext)],
            androidMentions: ["http://cdn.example.com/video/seg0.ts (listed in the playlist, 2 plain-http URIs)"],
            absent: ["(redirect"]),
        Case(
            name: "HLS redirecting to http, with an http segment",
            facts: VideoFacts(
                url: hls, isHLS: true, playlistURIs: ["http://cdn.example.com/video/seg0.ts"],
                redirectTargets: ["https://cdn.example.com/moved.m3u8", "http://origin.example.net/master.m3u8"]),
            ios: [.warning(VideoFindingCode.appTransportSecurity)],
            android: [.error(AndroidFindingCode.videoCleartext)],
            iosMentions: ["http://origin.example.net/master.m3u8 (redirect 2)"],
            androidMentions: ["http://origin.example.net/master.m3u8 (redirect 2)"], absent: ["listed in the playlist"]),
        Case(
            name: "http video, cleartext permitted", facts: progressive(url: "http://cdn.example.com/v.mp4"),
            app: app(ats: hosts(["*.example.com"]), cleartext: hosts(["cdn.example.com"])),
            ios: [.info(VideoFindingCode.appTransportSecurity)],
            android: [.warning(AndroidFindingCode.videoCleartext)]),
        Case(
            name: "http video at targetSdk 27", facts: progressive(url: "http://cdn.example.com/v.mp4"),
            app: app(targetSdk: 27), ios: [.warning(VideoFindingCode.appTransportSecurity)],
            android: [.warning(AndroidFindingCode.videoCleartext)]),
        // Odd input: never a crash.
        Case(name: "empty URL", facts: VideoFacts(url: "", isHLS: false), android: []),
        Case(
            name: "empty HLS URL", facts: VideoFacts(url: "", isHLS: true),
            android: [.error(AndroidFindingCode.videoHLSURL)]),
        Case(
            name: "unknown codec and profile 0", facts: progressive(codec: "", profile: 0, url: "not a url"),
            android: []),
    ]

    @Test(arguments: cases)
    func video(_ testCase: Case) {
        let ios = VideoRules.judge(testCase.facts, on: .ios, app: testCase.app)
        verify(ios, are: testCase.ios, on: .ios, mentioning: testCase.iosMentions)
        let android = VideoRules.judge(testCase.facts, on: .android, app: testCase.app)
        verify(android, are: testCase.android, on: .android, mentioning: testCase.androidMentions)
        #expect(android.map(\.severity) == android.map(\.severity).sorted(by: >), "most severe first")
        for finding in ios + android {
            for text in testCase.absent { #expect(!finding.message.contains(text), "\(finding.message)") }
        }
    }

    /// A stream with every Android problem at once is fine on iOS as far as VideoRules goes (AVPlayer's own rules
    /// are MediaProbe's): no finding, and never an Android code.
    @Test func iOSGetsOnlyTransportFromVideoRules() {
        let everything = VideoFacts(
            url: "https://cdn.example.com/live", isHLS: true, container: .mpegTS, videoCodec: "av01", avcProfile: 110,
            supportsByteRanges: false, hlsFragmentedMP4: true, playlistURIs: ["https://cdn.example.com/a.ts"])
        verify(VideoRules.judge(everything, on: .ios, app: app()), are: [], on: .ios)
        let progressive = VideoFacts(
            url: Self.mp4, isHLS: false, container: .mpegTS, videoCodec: "av01", avcProfile: 122,
            supportsByteRanges: false)
        verify(VideoRules.judge(progressive, on: .ios, app: app()), are: [], on: .ios)
    }
}
