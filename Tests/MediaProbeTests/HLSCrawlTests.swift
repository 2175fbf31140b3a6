import Findings
import MediaProbe
import MediaRules
import Testing

/// A little in-memory "server" for the crawl: URL → body. Not a mock of any module: the crawl does no I/O, the
/// test just plays the pipeline's part of fetching.
struct PlaylistSite {
    var pages: [String: [UInt8]]
    /// HTTP statuses of the URLs that fail (404 when not listed).
    var statuses: [String: Int] = [:]

    func run(_ crawl: inout HLSCrawl, maxSteps: Int = 1_000) -> [HLSFetch] {
        var fetched: [HLSFetch] = []
        while let fetch = crawl.next() {
            fetched.append(fetch)
            precondition(fetched.count <= maxSteps, "the crawl did not end")
            if let body = pages[fetch.url] {
                crawl.record(fetch, body: body)
            } else {
                let status = statuses[fetch.url] ?? 404
                crawl.recordFailure(fetch, reason: "HTTP \(status)", httpStatus: status)
            }
        }
        return fetched
    }
}

func media(_ segments: [String], endList: Bool = true) -> [UInt8] {
    var text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n"
    for segment in segments { text += "#EXTINF:4,\n\(segment)\n" }
    return Array((text + (endList ? "#EXT-X-ENDLIST\n" : "")).utf8)
}

let tsPacket: [UInt8] = [0x47, 0x40, 0x00, 0x10] + [UInt8](repeating: 0xFF, count: 184)

@Suite("HLS: crawl")
struct HLSCrawlTests {
    @Test("master → every variant → the first, middle and last segment of each")
    func fullCrawl() throws {
        let site = PlaylistSite(pages: [
            "https://cdn.example.com/v/master.m3u8": try fixture("hls-master.m3u8"),
            "https://cdn.example.com/v/low/index.m3u8": media(["a.ts", "b.ts"]),
            "https://cdn.example.com/hi/index.m3u8?token=secret": media(["hi0.ts"]),
            "https://cdn.example.com/v/audio/en.m3u8": media(["en0.ts"]),
            "https://cdn.example.com/v/low/iframe.m3u8": media(["a.ts"]),
            "https://cdn.example.com/v/low/a.ts": tsPacket,
            "https://cdn.example.com/v/low/b.ts": tsPacket,
            "https://cdn.example.com/hi/hi0.ts": tsPacket,
            "https://cdn.example.com/v/audio/en0.ts": tsPacket,
        ])
        var crawl = HLSCrawl(url: "https://cdn.example.com/v/master.m3u8")
        let fetched = site.run(&crawl)
        #expect(crawl.findings.isEmpty, "\(crawl.findings)")
        #expect(
            fetched.filter { $0.purpose == .segment }.map(\.url).sorted()
                == [
                    "https://cdn.example.com/hi/hi0.ts", "https://cdn.example.com/v/audio/en0.ts",
                    "https://cdn.example.com/v/low/a.ts",  // in the variant and the I-frame playlist: fetched once
                    "https://cdn.example.com/v/low/b.ts",
                ].sorted())
        #expect(crawl.playlists.count == 5)
    }

    /// One class of stream each: what a player hits, and the findings (code and severity) the crawl must give.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let pages: [String: [UInt8]]
        var statuses: [String: Int] = [:]
        var segments = 3
        /// (code, severity) of every finding at warning level or above, in order.
        let expected: [String]
        var testDescription: String { name }
    }

    static func severe(_ findings: [Finding]) -> [String] {
        findings.filter { $0.severity >= .warning }.map { "\($0.severity.rawValue) \($0.code)" }
    }

    static let key = Array("0123456789abcdef".utf8)
    static func encrypted(_ key: String) -> [UInt8] {
        Array(
            ("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"\(key)\"\n#EXTINF:4,\na.ts\n"
                + "#EXTINF:4,\nb.ts\n#EXT-X-ENDLIST\n").utf8)
    }
    static let fmp4 = Array(
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:4,\na.m4s\n#EXT-X-ENDLIST\n".utf8)

    static let cases: [Case] = [
        Case(
            name: "a 404 in the middle segment is found",
            pages: [
                "https://h/p.m3u8": media(["s0.ts", "s1.ts", "s2.ts", "s3.ts", "s4.ts"]), "https://h/s0.ts": tsPacket,
                "https://h/s1.ts": tsPacket, "https://h/s3.ts": tsPacket, "https://h/s4.ts": tsPacket,
            ],
            expected: ["error video.hls.unreachable"]),
        Case(
            name: "a 404 off the sampled segments is found with --hls-segments 5",
            pages: [
                "https://h/p.m3u8": media(["s0.ts", "s1.ts", "s2.ts", "s3.ts", "s4.ts"]), "https://h/s0.ts": tsPacket,
                "https://h/s2.ts": tsPacket, "https://h/s3.ts": tsPacket, "https://h/s4.ts": tsPacket,
            ],
            segments: 5, expected: ["error video.hls.unreachable"]),
        Case(
            name: "the same 404 is not sampled with the default three",
            pages: [
                "https://h/p.m3u8": media(["s0.ts", "s1.ts", "s2.ts", "s3.ts", "s4.ts"]), "https://h/s0.ts": tsPacket,
                "https://h/s2.ts": tsPacket, "https://h/s3.ts": tsPacket, "https://h/s4.ts": tsPacket,
            ],
            expected: []),
        Case(
            name: "an AES-128 key that answers 404 breaks the variant",
            pages: ["https://h/p.m3u8": encrypted("k.key"), "https://h/a.ts": tsPacket, "https://h/b.ts": tsPacket],
            expected: ["error video.hls.key"]),
        Case(
            name: "an AES-128 key that answers 403 may want the app's credentials: a warning",
            pages: ["https://h/p.m3u8": encrypted("k.key"), "https://h/a.ts": tsPacket, "https://h/b.ts": tsPacket],
            statuses: ["https://h/k.key": 403], expected: ["warning video.hls.key"]),
        Case(
            name: "an AES-128 key that is an HTML page",
            pages: [
                "https://h/p.m3u8": encrypted("k.key"), "https://h/k.key": Array("<!DOCTYPE html><p>login".utf8),
                "https://h/a.ts": tsPacket, "https://h/b.ts": tsPacket,
            ],
            expected: ["error video.hls.key"]),
        Case(
            name: "a 16-byte AES-128 key is fine",
            pages: [
                "https://h/p.m3u8": encrypted("k.key"), "https://h/k.key": key, "https://h/a.ts": tsPacket,
                "https://h/b.ts": tsPacket,
            ],
            expected: []),
        Case(
            name: "a FairPlay skd:// key is not fetched",
            pages: [
                "https://h/p.m3u8": Array(
                    "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://k\"\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n"
                        .utf8), "https://h/a.ts": tsPacket,
            ],
            expected: []),
        Case(
            name: "an unreachable I-frame playlist loses trick play only: a warning",
            pages: [
                "https://h/m.m3u8": Array(
                    "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI=\"i.m3u8\"\n"
                        .utf8),
                "https://h/v.m3u8": media(["a.ts"]), "https://h/a.ts": tsPacket,
            ],
            expected: ["warning video.hls.unreachable"]),
        Case(
            name: "HEVC in MPEG-TS segments",
            pages: [
                "https://h/p.m3u8": media(["a.ts"]), "https://h/a.ts": (try? fixture("video-hevc-32x24.ts")) ?? [],
            ],
            expected: ["error video.hls.hevcInTS"]),
        Case(
            name: "MPEG-2 video in MPEG-TS is not HEVC",
            pages: ["https://h/p.m3u8": media(["a.ts"]), "https://h/a.ts": (try? fixture("video-32x24.ts")) ?? []],
            expected: []),
        Case(
            name: "an hev1 fMP4 init segment without a master: nothing else plays",
            pages: [
                "https://h/p.m3u8": fmp4, "https://h/init.mp4": (try? fixture("video-hevc-hev1-init.mp4")) ?? [],
                "https://h/a.m4s": box("moof", []) + box("mdat", []),
            ],
            expected: ["error video.codec"]),
        Case(
            name: "an hev1 fMP4 init segment under a master: that variant is skipped, the other plays",
            pages: [
                "https://h/m.m3u8": Array(
                    "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\np.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\nv.m3u8\n".utf8),
                "https://h/v.m3u8": media(["v.ts"]), "https://h/v.ts": tsPacket,
                "https://h/p.m3u8": fmp4, "https://h/init.mp4": (try? fixture("video-hevc-hev1-init.mp4")) ?? [],
                "https://h/a.m4s": box("moof", []) + box("mdat", []),
            ],
            expected: ["warning video.codec"]),
        Case(
            name: "hev1 fMP4 init segments in every variant of a master: nothing plays",
            pages: [
                "https://h/m.m3u8": Array(
                    "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\np.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\nq.m3u8\n".utf8),
                "https://h/p.m3u8": fmp4,
                "https://h/q.m3u8": Array(
                    "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MAP:URI=\"i2.mp4\"\n#EXTINF:4,\nb.m4s\n#EXT-X-ENDLIST\n"
                        .utf8),
                "https://h/init.mp4": (try? fixture("video-hevc-hev1-init.mp4")) ?? [],
                "https://h/i2.mp4": (try? fixture("video-hevc-hev1-init.mp4")) ?? [],
                "https://h/a.m4s": box("moof", []) + box("mdat", []),
                "https://h/b.m4s": box("moof", []) + box("mdat", []),
            ],
            expected: ["error video.codec", "warning video.codec", "warning video.codec"]),
        Case(
            name: "an hev1 fMP4 init segment in the only variant of a master: nothing plays",
            pages: [
                "https://h/m.m3u8": Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\np.m3u8\n".utf8),
                "https://h/p.m3u8": fmp4, "https://h/init.mp4": (try? fixture("video-hevc-hev1-init.mp4")) ?? [],
                "https://h/a.m4s": box("moof", []) + box("mdat", []),
            ],
            expected: ["error video.codec", "warning video.codec"]),
    ]

    @Test("each class of stream gets the verdict a player gives", arguments: cases)
    func classes(_ example: Case) {
        let root = example.pages.keys.contains("https://h/m.m3u8") ? "https://h/m.m3u8" : "https://h/p.m3u8"
        var crawl = HLSCrawl(url: root, limits: HLSCrawlLimits(segmentsPerPlaylist: example.segments))
        _ = PlaylistSite(pages: example.pages, statuses: example.statuses).run(&crawl)
        let severe = crawl.findings.filter { $0.severity >= .warning }.sorted { $0.severity > $1.severity }
        #expect(Self.severe(severe) == example.expected, "\(crawl.findings.map(\.message))")
    }

    @Test("a master that lists itself is a loop, fetched once")
    func selfLoop() {
        let master = Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nmaster.m3u8#again\n".utf8)
        let site = PlaylistSite(pages: ["https://h/master.m3u8": master])
        var crawl = HLSCrawl(url: "https://h/master.m3u8")
        let fetched = site.run(&crawl)
        #expect(fetched.count == 1)
        #expect(crawl.findings.codes == [HLSFindingCode.loop])
    }

    @Test("a variant that is itself a master is reported, not followed (no endless nesting)")
    func nestedMaster() {
        let a = Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nb.m3u8\n".utf8)
        let b = Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8\n".utf8)
        let site = PlaylistSite(pages: ["https://h/a.m3u8": a, "https://h/b.m3u8": b])
        var crawl = HLSCrawl(url: "https://h/a.m3u8")
        let fetched = site.run(&crawl)
        #expect(fetched.map(\.url) == ["https://h/a.m3u8", "https://h/b.m3u8"])
        #expect(crawl.findings.codes == [HLSFindingCode.nestedMaster])
        #expect(crawl.findings.first?.path == "https://h/b.m3u8")
    }

    @Test("unreachable variants and segments, and a segment that is an HTML page")
    func failures() {
        let master = Array(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nok.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\ngone.m3u8\n".utf8)
        let site = PlaylistSite(pages: [
            "https://h/master.m3u8": master,
            "https://h/ok.m3u8": media(["html.ts"]),
            "https://h/html.ts": Array("<!DOCTYPE html><p>blocked</p>".utf8),
        ])
        var crawl = HLSCrawl(url: "https://h/master.m3u8")
        _ = site.run(&crawl)
        #expect(crawl.findings.codes == [HLSFindingCode.unreachable, HLSFindingCode.unreachable])
        #expect(Set(crawl.findings.compactMap(\.path)) == ["https://h/gone.m3u8", "https://h/html.ts"])
    }

    @Test("a live playlist: the newest segment is fetched")
    func live() {
        let site = PlaylistSite(pages: ["https://h/live.m3u8": media(["s1.ts", "s2.ts", "s3.ts"], endList: false)])
        var crawl = HLSCrawl(url: "https://h/live.m3u8")
        let fetched = site.run(&crawl)
        #expect(fetched.last?.url == "https://h/s3.ts")
        #expect(crawl.findings.codes.contains(HLSFindingCode.live))
    }

    @Test("the playlist cap bounds a master with thousands of variants")
    func playlistCap() {
        var text = "#EXTM3U\n"
        for index in 0..<400 { text += "#EXT-X-STREAM-INF:BANDWIDTH=\(index + 1)\nv\(index).m3u8\n" }
        var crawl = HLSCrawl(url: "https://h/m.m3u8", limits: HLSCrawlLimits(maxPlaylists: 10))
        let site = PlaylistSite(pages: ["https://h/m.m3u8": Array(text.utf8)])
        let fetched = site.run(&crawl)
        #expect(fetched.filter(\.purpose.isPlaylist).count == 10)
        #expect(crawl.findings.codes.contains(HLSFindingCode.crawlLimit))
    }

    @Test("an http:// root is a fact for the crawl; iOS's rule gives the ATS warning, with the token redacted")
    func atsRoot() throws {
        let crawl = HLSCrawl(url: "http://h/m.m3u8?token=abc")
        #expect(crawl.findings.isEmpty, "\(crawl.findings)")
        let rules = VideoRules.judge(
            VideoFacts(url: "http://h/m.m3u8?token=abc", isHLS: true), on: .ios, app: AppSettings())
        #expect(rules.codes == [VideoFindingCode.appTransportSecurity])
        let ats = try #require(rules.first)
        #expect(ats.platform == .ios && ats.severity == .warning)
        #expect(!ats.message.contains("abc"))
    }

    @Test(
        "a playlist's Content-Type matters only when its URL does not end in .m3u8",
        arguments: [
            ("https://h/p.m3u8", "text/plain", false), ("https://h/p", "application/vnd.apple.mpegurl", false),
            ("https://h/p", "application/x-mpegURL; charset=utf-8", false), ("https://h/p", "text/plain", true),
            ("https://h/p?format=m3u8", "application/octet-stream", true),
        ])
    func playlistContentType(url: String, contentType: String, warns: Bool) {
        var crawl = HLSCrawl(url: url)
        guard let root = crawl.next() else {
            Issue.record("the crawl handed out no root request")
            return
        }
        crawl.record(root, body: media(["a.ts"]), contentType: contentType)
        #expect(crawl.findings.codes.contains(VideoFindingCode.contentType) == warns)
    }

    @Test("relative URIs resolve against the final URL after a redirect")
    func redirectBase() {
        var crawl = HLSCrawl(url: "https://old.example.com/m.m3u8")
        let root = crawl.next()!
        crawl.record(root, body: media(["a.ts"]), finalURL: "https://new.example.com/x/m.m3u8")
        #expect(crawl.next()?.url == "https://new.example.com/x/a.ts")
    }
}

/// A variant without `RESOLUTION` is sized by what its media shows: its first TS segment's H.264 SPS, or its init
/// segment's video track.
@Suite("HLS: variant sizes from their media")
struct HLSProbedSizeTests {
    @Test func eachMediaPlaylistIsSizedByItsFirstTSSegmentOrInitSegment() throws {
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x180
            small/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=1200000
            big/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000
            fmp4/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=100000
            opaque/index.m3u8
            """
        let fmp4 = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:4,\ns0.m4s\n#EXT-X-ENDLIST\n"
        let site = PlaylistSite(pages: [
            "https://h/v/master.m3u8": Array(master.utf8),
            "https://h/v/small/index.m3u8": media(["s0.ts"]),
            "https://h/v/small/s0.ts": try fixture("h264-baseline-320x180.ts"),
            "https://h/v/big/index.m3u8": media(["b0.ts", "b1.ts"]),
            "https://h/v/big/b0.ts": try fixture("h264-high-cqm-1280x720.ts"),
            "https://h/v/big/b1.ts": try fixture("h264-baseline-320x180.ts"),  // the first sampled segment decides
            "https://h/v/fmp4/index.m3u8": Array(fmp4.utf8),
            "https://h/v/fmp4/init.mp4": try fixture("video-hevc-hev1-init.mp4"),  // 32×24
            "https://h/v/fmp4/s0.m4s": [0, 0, 0, 8] + Array("styp".utf8),
            "https://h/v/opaque/index.m3u8": media(["o0.ts"]),
            "https://h/v/opaque/o0.ts": tsPacket,  // no PMT, no SPS: no size
        ])
        var crawl = HLSCrawl(url: "https://h/v/master.m3u8")
        _ = site.run(&crawl)
        let sizes = crawl.probedSizes
        #expect(sizes["https://h/v/small/index.m3u8"] == HLSPictureSize(width: 320, height: 180))
        #expect(sizes["https://h/v/big/index.m3u8"] == HLSPictureSize(width: 1280, height: 720))
        #expect(sizes["https://h/v/fmp4/index.m3u8"] == HLSPictureSize(width: 32, height: 24))  // as ffprobe says
        #expect(sizes["https://h/v/opaque/index.m3u8"] == nil)
    }
}
