import Findings
import MediaProbe
import MediaRules
import Testing

struct VideoFixture: CustomTestStringConvertible, Sendable {
    let file: String
    let format: MediaFormat
    let moovFirst: Bool?
    let codes: [String]
    var testDescription: String { file }
}

@Suite("Video: containers")
struct VideoContainerTests {
    static let fixtures = [
        VideoFixture(file: "video-faststart-64x48.mp4", format: .mp4, moovFirst: true, codes: []),
        VideoFixture(
            file: "video-moov-at-end-64x48.mp4", format: .mp4, moovFirst: false, codes: [VideoFindingCode.moovAfterMdat]
        ),
        VideoFixture(file: "video-64x48.mov", format: .quickTime, moovFirst: true, codes: []),
        VideoFixture(
            file: "video-64x48.webm", format: .webm, moovFirst: nil, codes: [VideoFindingCode.unsupportedContainer]),
        VideoFixture(
            file: "video-32x24.ts", format: .mpegTS, moovFirst: nil, codes: [VideoFindingCode.unsupportedContainer]),
        VideoFixture(file: "hls-master.m3u8", format: .hls, moovFirst: nil, codes: []),
        VideoFixture(file: "error-page.html", format: .html, moovFirst: nil, codes: [VideoFindingCode.notVideo]),
        VideoFixture(file: "image-64x48.png", format: .png, moovFirst: nil, codes: [VideoFindingCode.notVideo]),
    ]

    @Test("whole files", arguments: fixtures)
    func wholeFile(_ expected: VideoFixture) throws {
        let info = VideoSniffer.inspect(bytes: try fixture(expected.file))
        #expect(info.format == expected.format)
        #expect(info.moovBeforeMdat == expected.moovFirst)
        #expect(info.findings.codes == expected.codes)
        #expect(info.isPlayable == expected.codes.allSatisfy { $0 == VideoFindingCode.moovAfterMdat })
        if expected.codes == [VideoFindingCode.unsupportedContainer] {
            // AVPlayer's container rule is iOS's: Android's MediaPlayer plays WebM and a bare TS file.
            #expect(info.findings.allSatisfy { $0.platform == .ios }, "\(info.findings)")
            #expect(info.findings(on: .android).isEmpty)
        }
    }

    @Test("the first 64 bytes show the box order: mdat's header lets the walk jump over it", arguments: fixtures)
    func prefix(_ expected: VideoFixture) throws {
        let bytes = try fixture(expected.file)
        let info = VideoSniffer.inspect(bytes: Array(bytes.prefix(64)), byteCount: bytes.count)
        #expect(info.format == expected.format)
        #expect(info.moovBeforeMdat == expected.moovFirst)
        #expect(info.findings.codes == expected.codes)
    }

    @Test(
        "the movie header: display size, codecs, duration",
        arguments: [
            ("video-faststart-64x48.mp4", 64, 48, "avc1", [String]()),
            ("video-64x48.mov", 64, 48, "avc1", []),
            ("video-rotated-64x48.mp4", 48, 64, "avc1", []),  // a 90° matrix: shown portrait
            ("video-hevc-hvc1-64x48.mp4", 64, 48, "hvc1", []),
            ("video-hevc-hev1-64x48.mp4", 64, 48, "hev1", [VideoFindingCode.codec]),
            // H.264 profiles Apple's decoders refuse (ffprobe: "High 4:4:4 Predictive", "High 4:2:2", "High 10").
            ("video-h264-high444-64x48.mp4", 64, 48, "avc1", [VideoFindingCode.codec]),
            ("video-h264-high422-64x48.mp4", 64, 48, "avc1", [VideoFindingCode.codec]),
            ("video-h264-high10-64x48.mp4", 64, 48, "avc1", [VideoFindingCode.codec]),
            // moov at the end: read whole here, so the codec is known (the tail test reads a padded copy in two parts).
            (
                "video-hevc-hev1-moov-at-end-64x48.mp4", 64, 48, "hev1",
                [VideoFindingCode.codec, VideoFindingCode.moovAfterMdat]
            ),
        ] as [(String, Int, Int, String, [String])])
    func movieHeader(file: String, width: Int, height: Int, codec: String, codes: [String]) throws {
        let info = VideoSniffer.inspect(bytes: try fixture(file))
        #expect(info.width == width && info.height == height)
        #expect(info.videoCodec == codec)
        #expect(abs((info.durationSeconds ?? 0) - 1.0) < 0.05)
        #expect(info.findings.codes == codes)
        #expect(info.isPlayable == codes.isEmpty)
        // The codec findings are AVPlayer's (iOS); MediaRules judges the same facts for Android.
        #expect(info.findings.filter { $0.code == VideoFindingCode.codec }.allSatisfy { $0.platform == .ios })
    }

    @Test(
        "moov beyond the first 64 KiB: the tail from the box after mdat gives codec, size and duration",
        arguments: [
            // The served copy, its mdat padded past the first 64 KiB (Fixtures/media/generate.sh).
            (
                "../www/video/classes/hev1-moov-at-end.mp4", "hev1",
                [VideoFindingCode.codec, VideoFindingCode.moovAfterMdat]
            )
        ] as [(String, String, [String])])
    func movieIndexInTheTail(file: String, codec: String, codes: [String]) throws {
        let bytes = try fixture(file)
        let first = VideoSniffer.inspect(bytes: Array(bytes.prefix(64 << 10)), byteCount: bytes.count)
        #expect(first.videoCodec == nil && first.width == nil)
        #expect(first.findings.codes == [VideoFindingCode.moovAfterMdat])
        let offset = try #require(first.movieIndexOffset)
        #expect(offset > 64 << 10 && offset < bytes.count)
        let info = VideoSniffer.inspectTail(Array(bytes[offset...]), at: offset, of: first)
        #expect(info.videoCodec == codec)
        #expect(info.width == 64 && info.height == 48)
        #expect(abs((info.durationSeconds ?? 0) - 1.0) < 0.05)
        #expect(info.moovBeforeMdat == false)
        #expect(info.findings.codes == codes)
        #expect(!info.isPlayable)
        #expect(info.movieIndexOffset == nil)
    }

    @Test("a tail that reaches the end without moov: the file has no index")
    func tailWithoutMoov() throws {
        let head = box("ftyp", ascii("isom") + be32(0)) + be32(100_008) + ascii("mdat")
        let first = VideoSniffer.inspect(bytes: head, byteCount: head.count + 100_000 + 16)
        let offset = try #require(first.movieIndexOffset)
        let info = VideoSniffer.inspectTail(box("free", [UInt8](repeating: 0, count: 8)), at: offset, of: first)
        #expect(info.findings.codes == [VideoFindingCode.noMoov])
    }

    @Test("a moov longer than the tail read: its codec is not known, and the report says so")
    func moovLongerThanTheTail() throws {
        let head = box("ftyp", ascii("isom") + be32(0)) + be32(100_008) + ascii("mdat")
        let first = VideoSniffer.inspect(bytes: head, byteCount: head.count + 100_000 + 20_000_000)
        let offset = try #require(first.movieIndexOffset)
        // A 20 MB moov of which only the first bytes arrive (the check reads at most 8 MiB from the end).
        let tail = be32(20_000_000) + ascii("moov") + [UInt8](repeating: 0, count: 1024)
        let info = VideoSniffer.inspectTail(tail, at: offset, of: first)
        #expect(info.videoCodec == nil)
        #expect(info.findings.codes.contains(VideoFindingCode.moovNotRead))
        #expect(info.findings.codes.contains(VideoFindingCode.moovAfterMdat))
        #expect(!info.findings.codes.contains(VideoFindingCode.noMoov))
    }

    @Test("a fast-start moov longer than the first bytes is fetched from its start")
    func longMoov() throws {
        let bytes = try fixture("video-faststart-64x48.mp4")
        let first = VideoSniffer.inspect(bytes: Array(bytes.prefix(100)), byteCount: bytes.count)
        let offset = try #require(first.movieIndexOffset)
        let info = VideoSniffer.inspectTail(Array(bytes[offset...]), at: offset, of: first)
        #expect(info.videoCodec == "avc1" && info.width == 64)
        #expect(info.moovBeforeMdat == true)
        #expect(info.findings.isEmpty, "\(info.findings)")
    }

    @Test("an fMP4 init segment is named as such")
    func initSegment() {
        let bytes = box("ftyp", ascii("iso5") + be32(0)) + box("moov", fullBox("mvhd", []) + box("mvex", []))
        let info = VideoSniffer.inspect(bytes: bytes)
        #expect(
            info.findings.first { $0.code == VideoFindingCode.noMediaData }?.message.contains("init segment") == true)
        #expect(info.durationSeconds == nil)
    }

    @Test("an audio-only MP4 has no video track")
    func audioOnly() throws {
        let info = VideoSniffer.inspect(bytes: try fixture("audio-only.m4a"), contentType: "audio/mp4")
        #expect(info.audioCodec == "mp4a")
        #expect(info.videoCodec == nil && info.width == nil)
        #expect(info.findings.codes == [VideoFindingCode.noVideoTrack])
    }

    @Test(
        "every truncation of a moov box is handled",
        arguments: ["video-rotated-64x48.mp4", "video-hevc-hev1-64x48.mp4"])
    func truncatedMoov(file: String) throws {
        let bytes = try fixture(file)
        let whole = VideoSniffer.inspect(bytes: bytes)
        var seenSize = false
        for length in 0..<bytes.count {
            // A prefix of a longer file: no truncation error; the movie header is read once it is whole, and from
            // then on it gives the same answer as the whole file.
            let info = VideoSniffer.inspect(bytes: Array(bytes.prefix(length)), byteCount: bytes.count)
            #expect(!info.findings.codes.contains(VideoFindingCode.truncated))
            if info.width != nil {
                seenSize = true
                #expect(info.width == whole.width && info.height == whole.height && info.videoCodec == whole.videoCodec)
            } else {
                #expect(!seenSize, "the size disappeared at \(length)")
            }
        }
        #expect(seenSize)
    }

    @Test("brands")
    func brands() throws {
        let mp4 = VideoSniffer.inspect(bytes: try fixture("video-faststart-64x48.mp4"))
        #expect(mp4.majorBrand == "isom")
        #expect(mp4.compatibleBrands.contains("avc1"))
        #expect(mp4.topLevelBoxes == ["ftyp", "moov", "free", "mdat"])
        let mov = VideoSniffer.inspect(bytes: try fixture("video-64x48.mov"))
        #expect(mov.majorBrand == "qt  ")
    }

    @Test(
        "every truncation of a video file is an error finding, never a crash",
        arguments: [
            "video-faststart-64x48.mp4", "video-64x48.mov", "video-hevc-hvc1-64x48.mp4", "video-64x48.webm",
            "video-32x24.ts",
        ])
    func truncated(file: String) throws {
        let bytes = try fixture(file)
        for length in 1..<bytes.count {
            let info = VideoSniffer.inspect(bytes: Array(bytes.prefix(length)))
            #expect(info.findings.contains { $0.severity == .error }, "cut at \(length): \(info.findings)")
        }
    }

    @Test(
        "hostile box sizes",
        arguments: [
            (
                "size 0xFFFFFFFF", box("ftyp", ascii("isom") + be32(0)) + be32(0xFFFF_FFFF) + ascii("mdat"),
                VideoFindingCode.truncated
            ),
            ("size 7", box("ftyp", ascii("isom") + be32(0)) + be32(7) + ascii("moov"), VideoFindingCode.corrupt),
            (
                "size 0 for the last box, no moov",
                box("ftyp", ascii("isom") + be32(0)) + be32(0) + ascii("mdat") + [1, 2], VideoFindingCode.noMoov
            ),
            (
                "64-bit size 2⁶⁴−1",
                box("ftyp", ascii("isom") + be32(0)) + be32(1) + ascii("mdat") + [UInt8](repeating: 0xFF, count: 8),
                VideoFindingCode.corrupt
            ),
            (
                "64-bit size 8 (below its header)",
                box("ftyp", ascii("isom") + be32(0)) + be32(1) + ascii("mdat") + be32(0) + be32(8),
                VideoFindingCode.corrupt
            ),
            ("ftyp only", box("ftyp", ascii("isom") + be32(0)), VideoFindingCode.noMoov),
            ("a header cut short", box("ftyp", ascii("isom") + be32(0)) + [0, 0, 0], VideoFindingCode.truncated),
            (
                "an index without media", box("ftyp", ascii("isom") + be32(0)) + box("moov", fullBox("mvhd", [])),
                VideoFindingCode.noMediaData
            ),
            (
                "an fMP4 init segment alone",
                box("ftyp", ascii("iso5") + be32(0)) + box("moov", fullBox("mvhd", []) + box("mvex", [])),
                VideoFindingCode.noMediaData
            ),
        ] as [(String, [UInt8], String)])
    func hostile(_ name: String, bytes: [UInt8], code: String) {
        let info = VideoSniffer.inspect(bytes: bytes)
        #expect(info.findings.codes.contains(code), "\(name): \(info.findings)")
        #expect(!info.isPlayable)
    }

    @Test("100,000 empty boxes stop at the box cap")
    func boxCap() {
        let bytes =
            box("ftyp", ascii("isom") + be32(0)) + Array([[UInt8]](repeating: box("free", []), count: 100_000).joined())
        let info = VideoSniffer.inspect(bytes: bytes, limits: VideoLimits(maxBoxes: 500))
        #expect(info.topLevelBoxes.count == 500)
        #expect(info.findings.codes.contains(VideoFindingCode.corrupt))
    }

    @Test(
        "Content-Type against the bytes",
        arguments: [
            ("video/mp4", nil), ("video/quicktime", VideoFindingCode.contentType),
            ("application/octet-stream", VideoFindingCode.contentType),
            ("text/html", VideoFindingCode.contentType), (nil, nil),
        ] as [(String?, String?)])
    func contentType(_ served: String?, expected: String?) throws {
        let info = VideoSniffer.inspect(bytes: try fixture("video-faststart-64x48.mp4"), contentType: served)
        #expect(info.findings.codes == (expected.map { [$0] } ?? []))
    }

    @Test("a progressive file over the size limit")
    func tooLarge() throws {
        let bytes = try fixture("video-faststart-64x48.mp4")
        let info = VideoSniffer.inspect(bytes: Array(bytes.prefix(64)), byteCount: 300 << 20)
        #expect(info.findings.codes == [VideoFindingCode.tooLarge])
    }
}

@Suite("Video: range probe")
struct RangeProbeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let response: RangeProbeResponse
        let ranges: Bool
        let total: Int64?
        let codes: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "206 with a full Content-Range",
            response: RangeProbeResponse(
                status: 206, contentType: "video/mp4", contentLength: 2, contentRange: "bytes 0-1/3032",
                acceptRanges: "bytes"),
            ranges: true, total: 3032, codes: []),
        Case(
            name: "200: the server ignored the range",
            response: RangeProbeResponse(
                status: 200, contentType: "video/mp4", contentLength: 3032, acceptRanges: "bytes"),
            ranges: false, total: 3032, codes: [VideoFindingCode.noRangeSupport]),
        Case(
            name: "200 for an HLS playlist is fine",
            response: RangeProbeResponse(status: 200, contentType: "application/vnd.apple.mpegurl", contentLength: 300),
            ranges: false, total: 300, codes: []),
        Case(
            name: "206 without Content-Range",
            response: RangeProbeResponse(status: 206, contentType: "video/mp4", contentLength: 2),
            ranges: false, total: nil, codes: [VideoFindingCode.badContentRange]),
        Case(
            name: "206 with garbage Content-Range",
            response: RangeProbeResponse(status: 206, contentType: "video/mp4", contentRange: "bytes=0-1"),
            ranges: false, total: nil, codes: [VideoFindingCode.badContentRange]),
        Case(
            name: "206 with the wrong range",
            response: RangeProbeResponse(status: 206, contentType: "video/mp4", contentRange: "bytes 100-101/3032"),
            ranges: false, total: nil, codes: [VideoFindingCode.badContentRange]),
        Case(
            name: "206 with an unknown total",
            response: RangeProbeResponse(status: 206, contentType: "video/mp4", contentRange: "bytes 0-1/*"),
            ranges: true, total: nil, codes: [VideoFindingCode.unknownLength]),
        Case(
            name: "206 whose Content-Length disagrees",
            response: RangeProbeResponse(
                status: 206, contentType: "video/mp4", contentLength: 3032, contentRange: "bytes 0-1/3032"),
            ranges: true, total: 3032, codes: [VideoFindingCode.lengthMismatch]),
        Case(
            name: "206 served as text/html",
            response: RangeProbeResponse(status: 206, contentType: "text/html", contentRange: "bytes 0-1/3032"),
            ranges: true, total: 3032, codes: [VideoFindingCode.contentType]),
        Case(
            name: "206 served as octet-stream",
            response: RangeProbeResponse(
                status: 206, contentType: "binary/octet-stream", contentRange: "bytes 0-1/3032"),
            ranges: true, total: 3032, codes: [VideoFindingCode.contentType]),
        Case(
            name: "206 without Content-Type",
            response: RangeProbeResponse(status: 206, contentRange: "bytes 0-1/3032"),
            ranges: true, total: 3032, codes: [VideoFindingCode.contentType]),
        Case(
            name: "206 served as video/webm",
            response: RangeProbeResponse(status: 206, contentType: "video/webm", contentRange: "bytes 0-1/3032"),
            ranges: true, total: 3032, codes: [VideoFindingCode.contentType]),
        Case(
            name: "206 for a 1 GB file",
            response: RangeProbeResponse(status: 206, contentType: "video/mp4", contentRange: "bytes 0-1/1073741824"),
            ranges: true, total: 1 << 30, codes: [VideoFindingCode.tooLarge]),
        Case(
            name: "200 with zero bytes",
            response: RangeProbeResponse(status: 200, contentType: "video/mp4", contentLength: 0),
            ranges: false, total: 0, codes: [VideoFindingCode.noRangeSupport, VideoFindingCode.empty]),
        Case(
            name: "416 with Content-Range: bytes */0 is an empty file",
            response: RangeProbeResponse(status: 416, contentRange: "bytes */0"),
            ranges: false, total: 0, codes: [VideoFindingCode.empty]),
        Case(
            name: "416 for a non-empty file is a status problem",
            response: RangeProbeResponse(status: 416, contentRange: "bytes */3032"),
            ranges: false, total: nil, codes: [VideoFindingCode.httpStatus]),
        Case(
            name: "416 without Content-Range",
            response: RangeProbeResponse(status: 416), ranges: false, total: nil,
            codes: [VideoFindingCode.httpStatus]),
        Case(
            name: "404", response: RangeProbeResponse(status: 404, contentType: "text/html"), ranges: false, total: nil,
            codes: [VideoFindingCode.httpStatus]),
        Case(
            name: "a later range asked for",
            response: RangeProbeResponse(
                status: 206, contentType: "video/mp4", contentLength: 100, contentRange: "bytes 1000-1099/5000",
                requestedRange: 1000...1099),
            ranges: true, total: 5000, codes: []),
    ]

    @Test("evaluation", arguments: cases)
    func evaluate(_ example: Case) {
        let result = VideoChecks.evaluate(example.response)
        #expect(result.supportsByteRanges == example.ranges)
        #expect(result.totalBytes == example.total)
        #expect(result.findings.codes == example.codes, "\(result.findings)")
    }

    @Test(
        "Content-Range parsing",
        arguments: [
            ("bytes 0-1/100", ContentRange?.some(.init("bytes 0-1/100")!)),
            ("bytes 0-1/*", .some(.init("bytes 0-1/*")!)),
            ("bytes 5-1/100", nil), ("bytes 0-100/100", nil), ("bytes */100", nil), ("bytes -1-1/100", nil),
            ("bytes 0-1/99999999999999999999999", nil), ("items 0-1/100", nil), ("", nil), ("bytes 0-1", nil),
        ] as [(String, ContentRange?)])
    func contentRange(_ header: String, expected: ContentRange?) {
        #expect(ContentRange(header) == expected)
    }

    @Test("Content-Range values")
    func contentRangeValues() throws {
        let range = try #require(ContentRange(" bytes 10-19/1000 "))
        #expect(range.first == 10 && range.last == 19 && range.total == 1000)
        #expect(try #require(ContentRange("bytes 0-0/*")).total == nil)
    }

    @Test("App Transport Security for media URLs (iOS's transport rule)")
    func transportSecurity() throws {
        func ats(_ url: String) -> [Finding] {
            TransportRules.judge(TransferFacts(hops: [url]), use: .media, on: .ios, app: AppSettings())
        }
        let finding = try #require(ats("http://cdn.example.com/v.mp4?sig=abc").first)
        #expect(finding.code == VideoFindingCode.appTransportSecurity)
        #expect(finding.severity == .warning && finding.platform == .ios)
        #expect(!finding.message.contains("abc"))
        #expect(ats("https://cdn.example.com/v.mp4").isEmpty)
        // The same rule through the video facts.
        let facts = VideoFacts(url: "http://cdn.example.com/v.mp4?sig=abc", isHLS: false)
        #expect(VideoRules.judge(facts, on: .ios, app: AppSettings()).codes == [VideoFindingCode.appTransportSecurity])
    }
}
