import Findings
import MediaProbe
import MediaRules
import Testing

@Suite("HLS: real playlists")
struct HLSFixtureTests {
    @Test("a master playlist: variants, renditions, I-frame stream, resolved URLs")
    func master() throws {
        let playlist = HLSPlaylist.parse(
            bytes: try fixture("hls-master.m3u8"), baseURL: "https://cdn.example.com/v/master.m3u8")
        #expect(playlist.kind == .master)
        #expect(playlist.version == 6)
        #expect(playlist.findings.isEmpty, "\(playlist.findings)")
        #expect(
            playlist.variants.map(\.url) == [
                "https://cdn.example.com/v/low/index.m3u8", "https://cdn.example.com/hi/index.m3u8?token=secret",
                "https://cdn.example.com/v/low/iframe.m3u8",
            ])
        let low = playlist.variants[0]
        #expect(low.bandwidth == 1_280_000)
        #expect(low.averageBandwidth == 1_000_000)
        #expect(low.width == 640 && low.height == 360)
        #expect(low.codecs == "avc1.4d401e,mp4a.40.2")  // a quoted value with a comma inside
        #expect(low.audioGroup == "aud")
        #expect(playlist.variants[1].frameRate == 29.97)
        #expect(playlist.variants.map(\.isIFrameOnly) == [false, false, true])
        #expect(playlist.renditions.map(\.type) == ["AUDIO", "CLOSED-CAPTIONS"])
        #expect(playlist.renditions[0].url == "https://cdn.example.com/v/audio/en.m3u8")
        #expect(playlist.renditions[0].language == "en")
        #expect(playlist.renditions[1].url == nil)

        let fetches = HLSPlanner.playlistsToFetch(from: playlist)
        #expect(
            fetches.map(\.purpose) == [.variantPlaylist, .variantPlaylist, .renditionPlaylist, .iFramePlaylist])
        #expect(fetches.allSatisfy { $0.referrer == "https://cdn.example.com/v/master.m3u8" })
        #expect(HLSPlanner.segmentsToFetch(from: playlist).isEmpty)
    }

    @Test("an encrypted fMP4 media playlist: keys, map, byte ranges, an http segment")
    func encryptedMedia() throws {
        let playlist = HLSPlaylist.parse(
            bytes: try fixture("hls-media-encrypted.m3u8"), baseURL: "https://cdn.example.com/v/low/index.m3u8")
        #expect(playlist.kind == .media)
        #expect(playlist.targetDuration == 6)
        #expect(playlist.mediaSequence == 100)
        #expect(playlist.playlistType == "VOD")
        #expect(playlist.hasEndList && !playlist.isLive)
        #expect(playlist.segments.count == 3)
        #expect(abs(playlist.totalDuration - 15.506) < 1e-9)
        let first = playlist.segments[0]
        #expect(first.url == "https://cdn.example.com/v/low/seg100.m4s")
        #expect(first.initSegmentURL == "https://cdn.example.com/v/low/init.mp4")
        #expect(first.keyMethod == "AES-128")
        #expect(first.keyURL == "https://keys.example.com/key?id=1")
        #expect(first.byteRange == nil)
        #expect(playlist.segments[1].url == "https://cdn.example.com/abs/seg101.m4s")
        #expect(playlist.segments[1].byteRange == HLSByteRange(offset: 2000, length: 1000))
        #expect(playlist.segments[1].title == "Second segment")
        #expect(playlist.segments[2].url == "http://cdn.example.com/seg102.m4s")
        // The plain-http segment is a fact the parser keeps; iOS's transport rule turns it into the ATS warning.
        #expect(playlist.findings.isEmpty, "\(playlist.findings)")
        let ats = VideoRules.judge(
            VideoFacts(
                url: "https://cdn.example.com/v/low/index.m3u8", isHLS: true,
                playlistURIs: playlist.segments.map(\.url)),
            on: .ios, app: AppSettings())
        #expect(ats.codes == [HLSFindingCode.appTransportSecurity])
        #expect(ats.first?.message.contains("http://cdn.example.com/seg102.m4s") == true, "\(ats)")
        #expect(ats.first?.message.contains("listed in the playlist") == true, "a listed URI, not a redirect: \(ats)")

        // First, middle and last segment; the shared init segment and AES-128 key once, before the first.
        let fetches = HLSPlanner.segmentsToFetch(from: playlist)
        #expect(fetches.map(\.purpose) == [.initSegment, .key, .segment, .segment, .segment])
        #expect(
            fetches.map(\.url) == [
                first.initSegmentURL, first.keyURL, first.url, playlist.segments[1].url, playlist.segments[2].url,
            ])
        #expect(fetches[3].byteRange == HLSByteRange(offset: 2000, length: 1000))
        #expect(HLSPlanner.segmentsToFetch(from: playlist, count: 1).map(\.purpose) == [.initSegment, .key, .segment])
    }

    @Test("a playlist written by ffmpeg")
    func ffmpegMedia() throws {
        let playlist = HLSPlaylist.parse(
            bytes: try fixture("hls-ffmpeg-media.m3u8"), baseURL: "https://cdn.example.com/out/media.m3u8")
        #expect(playlist.kind == .media)
        #expect(playlist.findings.isEmpty, "\(playlist.findings)")
        #expect(playlist.segments.map(\.url) == ["https://cdn.example.com/out/seg0.ts"])
        #expect(playlist.segments.first?.duration == 4)
    }

    @Test(
        "every truncation of a media playlist earns a finding (at least: no EXT-X-ENDLIST)",
        arguments: [
            "hls-media-encrypted.m3u8", "hls-ffmpeg-media.m3u8",
        ])
    func truncatedMedia(file: String) throws {
        let bytes = try fixture(file)
        for length in 0..<bytes.count - 1 {
            let playlist = HLSPlaylist.parse(bytes: Array(bytes.prefix(length)), baseURL: "https://h/p.m3u8")
            #expect(!playlist.findings.isEmpty, "cut at \(length)")
        }
    }

    /// A master cut after a complete variant is a valid, shorter master: nothing to report, but nothing invented.
    @Test("every truncation of a master playlist keeps a prefix of its variants")
    func truncatedMaster() throws {
        let bytes = try fixture("hls-master.m3u8")
        let full = HLSPlaylist.parse(bytes: bytes, baseURL: "https://h/p.m3u8").variants.map(\.url)
        for length in 0..<bytes.count {
            let playlist = HLSPlaylist.parse(bytes: Array(bytes.prefix(length)), baseURL: "https://h/p.m3u8")
            let urls = playlist.variants.map(\.url)
            // A cut inside a URI line shortens that URI; nothing else may change.
            #expect(urls.count <= full.count && zip(full, urls).allSatisfy { $0.hasPrefix($1) }, "cut at \(length)")
            if playlist.variants.filter({ !$0.isIFrameOnly }).isEmpty {
                #expect(!playlist.findings.isEmpty, "cut at \(length) leaves no variant and no finding")
            }
        }
    }
}

@Suite("HLS: broken playlists")
struct HLSBrokenTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let codes: [String]
        /// When given, the findings' severities in order (a false alarm is as costly as a miss).
        var severities: [Severity]? = nil
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "empty", text: "", codes: [HLSFindingCode.notPlaylist]),
        Case(name: "an HTML error page", text: "<html><body>404</body></html>", codes: [HLSFindingCode.notPlaylist]),
        Case(name: "header only", text: "#EXTM3U\n", codes: [HLSFindingCode.empty]),
        Case(
            name: "header not on the first line", text: "\n#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n",
            codes: [HLSFindingCode.notPlaylist]),
        Case(
            name: "a master with only an I-frame stream",
            text: "#EXTM3U\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI=\"i.m3u8\"\n",
            codes: [HLSFindingCode.noVariants]),
        Case(
            name: "STREAM-INF without a URI line",
            text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n",
            codes: [HLSFindingCode.malformed, HLSFindingCode.noVariants]),
        Case(
            name: "STREAM-INF followed by another STREAM-INF",
            text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-STREAM-INF:BANDWIDTH=2\nb.m3u8\n",
            codes: [HLSFindingCode.malformed]),
        Case(
            name: "variant without BANDWIDTH", text: "#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\na.m3u8\n",
            codes: [HLSFindingCode.malformed]),
        Case(
            name: "an unterminated quoted attribute",
            text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"avc1\na.m3u8\n", codes: [HLSFindingCode.malformed]),
        Case(
            name: "a bad RESOLUTION", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=big\na.m3u8\n",
            codes: [HLSFindingCode.malformed]),
        Case(
            name: "a variant referring to a missing audio group",
            text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO=\"nope\"\na.m3u8\n",
            codes: [HLSFindingCode.unknownGroup]),
        Case(
            name: "HEVC signalled as hev1 next to an hvc1 variant: skipped, a warning",
            text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"hev1.1.6.L93.B0,mp4a.40.2\"\na.m3u8\n"
                + "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"hvc1.1.6.L93.B0,mp4a.40.2\"\nb.m3u8\n",
            codes: [VideoFindingCode.codec], severities: [.warning]),
        Case(
            name: "absurd resolution", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=100000x1\na.m3u8\n",
            codes: [HLSFindingCode.absurdValue]),
        Case(
            name: "absurd bandwidth", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=99999999999\na.m3u8\n",
            codes: [HLSFindingCode.absurdValue]),
        Case(
            name: "a media playlist without segments", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.noSegments]),
        Case(
            name: "no target duration", text: "#EXTM3U\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.noTargetDuration]),
        Case(
            name: "a live playlist", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n",
            codes: [HLSFindingCode.live]),
        Case(
            name: "a negative EXTINF", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:-4,\na.ts\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.malformed, HLSFindingCode.noSegments, HLSFindingCode.malformed]),
        Case(
            name: "EXTINF nan",
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:nan,\na.ts\n#EXTINF:4,\nb.ts\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.malformed, HLSFindingCode.malformed]),
        Case(
            name: "a segment longer than the target",
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:9.5,\na.ts\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.absurdValue]),
        Case(
            name: "target duration of a day",
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:86400\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.absurdValue]),
        Case(
            name: "a target duration past Int.max",
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:99999999999999999999\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.malformed, HLSFindingCode.noTargetDuration]),
        Case(
            name: "EXTINF without a URI at the end of a VOD playlist",
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXTINF:4,\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.malformed]),
        Case(
            name: "EXTINF without a URI at the end of a live playlist (a segment being written): a warning",
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXTINF:4,\n",
            codes: [HLSFindingCode.malformed, HLSFindingCode.live], severities: [.warning, .info]),
        Case(
            name: "a lone live EXTINF without a URI", text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n",
            codes: [HLSFindingCode.noSegments, HLSFindingCode.malformed, HLSFindingCode.live]),
        Case(
            name: "a UTF-8 byte order mark (RFC 8216 §4.1)",
            text: "\u{FEFF}#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.byteOrderMark], severities: [.error]),
        Case(
            name: "the only variant is hev1: nothing plays",
            text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"hev1.1.6.L93.B0\"\na.m3u8\n",
            codes: [VideoFindingCode.codec], severities: [.error]),
        Case(
            name: "every variant H.264 High 10 or High 4:4:4",
            text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"avc1.6e001f\"\na.m3u8\n"
                + "#EXT-X-STREAM-INF:BANDWIDTH=2,CODECS=\"avc1.f4001f,mp4a.40.2\"\nb.m3u8\n",
            codes: [VideoFindingCode.codec], severities: [.error]),
        Case(
            name: "an H.264 High 4:2:2 variant next to a High one: skipped, a warning",
            text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"avc1.7a001f\"\na.m3u8\n"
                + "#EXT-X-STREAM-INF:BANDWIDTH=2,CODECS=\"avc1.64001f\"\nb.m3u8\n",
            codes: [VideoFindingCode.codec], severities: [.warning]),
        Case(
            name: "master and media tags mixed",
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8\n",
            codes: [HLSFindingCode.mixedTags, HLSFindingCode.noSegments, HLSFindingCode.live]),
        Case(
            name: "a key without URI",
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.malformed]),
        Case(
            name: "BYTERANGE without offset after a different resource",
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-BYTERANGE:100\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.malformed]),
        Case(
            name: "a file: segment URI",
            text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.badURI]),
        Case(
            name: "a stray URI line",
            text: "#EXTM3U\nstray.ts\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n",
            codes: [HLSFindingCode.malformed]),
    ]

    @Test("each broken playlist earns its findings", arguments: cases)
    func broken(_ example: Case) {
        let playlist = HLSPlaylist.parse(text: example.text, baseURL: "https://cdn.example.com/p/index.m3u8")
        #expect(playlist.findings.codes == example.codes, "\(playlist.findings.map(\.message))")
        if let severities = example.severities {
            #expect(playlist.findings.map(\.severity) == severities, "\(playlist.findings.map(\.message))")
        }
    }

    @Test("BYTERANGE without offset continues the previous range of the same resource")
    func byteRangeContinuation() {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-BYTERANGE:100@0
            #EXTINF:4,
            all.ts
            #EXT-X-BYTERANGE:50
            #EXTINF:4,
            all.ts
            #EXT-X-ENDLIST
            """
        let playlist = HLSPlaylist.parse(text: text, baseURL: "https://h/p.m3u8")
        #expect(playlist.findings.isEmpty)
        #expect(
            playlist.segments.map(\.byteRange) == [
                HLSByteRange(offset: 0, length: 100), HLSByteRange(offset: 100, length: 50),
            ])
    }

    @Test("CRLF line ends, comments and unknown tags are accepted")
    func tolerated() {
        let text =
            "#EXTM3U\r\n# a comment\r\n#EXT-X-FUTURE-TAG:1\r\n#EXT-X-TARGETDURATION:4\r\n"
            + "#EXTINF:4,\r\na.ts\r\n#EXT-X-ENDLIST\r\n"
        let playlist = HLSPlaylist.parse(text: text, baseURL: "https://h/p.m3u8")
        #expect(playlist.findings.isEmpty, "\(playlist.findings)")
        #expect(playlist.segments.map(\.url) == ["https://h/a.ts"])
    }

    @Test("a megabyte-long bad value is quoted, not copied, into the finding")
    func longValuesAreCut() {
        let huge = String(repeating: "9x", count: 500_000)
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:\(huge)\n#EXT-X-STREAM-INF:\(huge)=1\na.m3u8\n"
        let playlist = HLSPlaylist.parse(text: text, baseURL: "https://h/p.m3u8")
        #expect(!playlist.findings.isEmpty)
        #expect(playlist.findings.allSatisfy { $0.message.count < 300 }, "\(playlist.findings.map(\.message.count))")
        let info = ImageSniffer.inspect(bytes: syntheticPNG(width: 1, height: 1), contentType: "image/" + huge)
        #expect(info.findings.allSatisfy { $0.message.count < 400 })
    }

    @Test("invalid UTF-8 is refused")
    func invalidUTF8() {
        let playlist = HLSPlaylist.parse(bytes: Array("#EXTM3U\n".utf8) + [0xC3, 0x28], baseURL: "https://h/p.m3u8")
        #expect(playlist.findings.codes == [HLSFindingCode.unreadable])
        #expect(playlist.kind == .unknown)
    }

    @Test("secrets in URIs do not reach messages")
    func redaction() {
        let text =
            "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nhttp://cdn.example.com/a.ts?token=s3cr3t\n#EXT-X-ENDLIST\n"
        let playlist = HLSPlaylist.parse(text: text, baseURL: "https://h/p.m3u8?token=other")
        #expect(playlist.findings.isEmpty, "\(playlist.findings)")
        let facts = VideoFacts(
            url: "https://h/p.m3u8?token=other", isHLS: true, playlistURIs: playlist.segments.map(\.url))
        let findings = VideoRules.judge(facts, on: .ios, app: AppSettings())
        #expect(findings.codes == [HLSFindingCode.appTransportSecurity])
        #expect(findings.allSatisfy { !$0.message.contains("s3cr3t") && !$0.message.contains("other") })
    }
}

@Suite("HLS: size caps")
struct HLSCapTests {
    static func mediaPlaylist(segments: Int) -> String {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
        text.reserveCapacity(segments * 24)
        for index in 0..<segments { text += "#EXTINF:2.0,\nseg\(index).ts\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    @Test("100,000 lines parse completely")
    func hundredThousandLines() {
        let playlist = HLSPlaylist.parse(text: Self.mediaPlaylist(segments: 50_000), baseURL: "https://h/p.m3u8")
        #expect(playlist.segments.count == 50_000)
        #expect(playlist.findings.isEmpty)
        #expect(playlist.segments.last?.url == "https://h/seg49999.ts")
    }

    @Test("past the line cap the rest is ignored with a finding")
    func lineCap() {
        let limits = HLSLimits(maxLines: 1_000)
        let playlist = HLSPlaylist.parse(
            text: Self.mediaPlaylist(segments: 5_000), baseURL: "https://h/p.m3u8", limits: limits)
        #expect(playlist.segments.count < 1_000)
        #expect(playlist.findings.codes.contains(HLSFindingCode.tooLarge))
    }

    @Test("segment and variant caps keep the first ones")
    func itemCaps() {
        let media = HLSPlaylist.parse(
            text: Self.mediaPlaylist(segments: 300), baseURL: "https://h/p.m3u8", limits: HLSLimits(maxSegments: 100))
        #expect(media.segments.count == 100)
        #expect(media.hasEndList)
        #expect(media.findings.codes == [HLSFindingCode.tooLarge])

        var master = "#EXTM3U\n"
        for index in 0..<2_000 { master += "#EXT-X-STREAM-INF:BANDWIDTH=\(index + 1)\nv\(index).m3u8\n" }
        let parsed = HLSPlaylist.parse(text: master, baseURL: "https://h/m.m3u8")
        #expect(parsed.variants.count == HLSLimits().maxVariants)
        #expect(parsed.findings.codes == [HLSFindingCode.tooLarge])
    }

    @Test("100,000 malformed lines cost a bounded number of findings")
    func findingsAreCapped() {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
        for _ in 0..<100_000 { text += "#EXTINF:bad,\n" }
        let playlist = HLSPlaylist.parse(text: text, baseURL: "https://h/p.m3u8")
        #expect(playlist.findings.count < 20)
        #expect(playlist.findings.contains { $0.message.contains("99990 more") })
    }

    @Test("a playlist over the byte cap is refused before parsing")
    func byteCap() {
        let playlist = HLSPlaylist.parse(
            text: Self.mediaPlaylist(segments: 1_000), baseURL: "https://h/p.m3u8", limits: HLSLimits(maxBytes: 1_000))
        #expect(playlist.findings.codes == [HLSFindingCode.unreadable])
    }
}
