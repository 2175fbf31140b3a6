import Findings
import MediaProbe
import Testing

/// A little in-memory "server" for the crawl: URL → body. Not a mock of any module: the crawl does no I/O, the
/// test just plays the pipeline's part of fetching.
struct PlaylistSite {
    var pages: [String: [UInt8]]

    func run(_ crawl: inout HLSCrawl, maxSteps: Int = 1_000) -> [HLSFetch] {
        var fetched: [HLSFetch] = []
        while let fetch = crawl.next() {
            fetched.append(fetch)
            precondition(fetched.count <= maxSteps, "the crawl did not end")
            if let body = pages[fetch.url] {
                crawl.record(fetch, body: body)
            } else {
                crawl.recordFailure(fetch, reason: "HTTP 404")
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
    @Test("master → every variant → the first segment of each")
    func fullCrawl() throws {
        let site = PlaylistSite(pages: [
            "https://cdn.example.com/v/master.m3u8": try fixture("hls-master.m3u8"),
            "https://cdn.example.com/v/low/index.m3u8": media(["a.ts", "b.ts"]),
            "https://cdn.example.com/hi/index.m3u8?token=secret": media(["hi0.ts"]),
            "https://cdn.example.com/v/audio/en.m3u8": media(["en0.ts"]),
            "https://cdn.example.com/v/low/iframe.m3u8": media(["a.ts"]),
            "https://cdn.example.com/v/low/a.ts": tsPacket,
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
                ].sorted())
        #expect(crawl.playlists.count == 5)
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

    @Test("an http:// root earns the ATS warning, with the token redacted")
    func atsRoot() {
        let crawl = HLSCrawl(url: "http://h/m.m3u8?token=abc")
        #expect(crawl.findings.codes == [VideoFindingCode.appTransportSecurity])
        #expect(!crawl.findings[0].message.contains("abc"))
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
