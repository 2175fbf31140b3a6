import Findings
import MediaProbe
import StrictJSON
import Testing

@Suite("JSON views")
struct JSONTests {
    @Test("an image's JSON carries the size, format and findings")
    func image() throws {
        let info = ImageSniffer.inspect(bytes: try fixture("image-anim4-24x16.gif"), contentType: "image/png")
        let json = info.json
        #expect(json["format"] == "gif")
        #expect(json["mimeType"] == "image/gif")
        #expect(json["width"] == 24)
        #expect(json["height"] == 16)
        #expect(json["animated"] == true)
        #expect(json["frameCount"] == 4)
        #expect(json["decodedBytes"] == .int(24 * 16 * 4))
        #expect(json["displayable"] == true)
        let codes = json["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue }
        #expect(codes == [ImageFindingCode.contentTypeMismatch])  // the animation is a fact; its finding is iOS's
        #expect(json["findings"]?[0]?["severity"] == "warning")
        #expect(json["findings"]?[0]?["path"] == .null)
    }

    @Test("unknown values are null, not missing")
    func nulls() {
        let json = ImageSniffer.inspect(bytes: Array("<html>".utf8)).json
        #expect(json["width"] == .null)
        #expect(json["frameCount"] == .null)
        #expect(json.objectValue?.keys.count == 10)
    }

    @Test("video and range-probe JSON")
    func video() throws {
        let video = VideoSniffer.inspect(bytes: try fixture("video-moov-at-end-64x48.mp4")).json
        #expect(video["moovBeforeMdat"] == false)
        #expect(video["majorBrand"] == "isom")
        #expect(video["playable"] == true)
        let probe = VideoChecks.evaluate(RangeProbeResponse(status: 200, contentType: "video/mp4", contentLength: 9))
            .json
        #expect(probe["byteRanges"] == false)
        #expect(probe["totalBytes"] == 9)
        #expect(probe["findings"]?[0]?["code"] == .string(VideoFindingCode.noRangeSupport))
    }

    @Test("HLS JSON redacts tokens in every URL and serializes")
    func hls() throws {
        let playlist = HLSPlaylist.parse(
            bytes: try fixture("hls-master.m3u8"), baseURL: "https://cdn.example.com/v/master.m3u8?token=abc")
        let text = playlist.json.serialized()
        #expect(!text.contains("secret"))
        #expect(!text.contains("abc"))
        #expect(text.contains("token=REDACTED"))
        #expect(playlist.json["variants"]?.arrayValue?.count == 3)
        #expect(playlist.json["variants"]?[0]?["bandwidth"] == 1_280_000)
        #expect(playlist.json["renditions"]?[0]?["groupId"] == "aud")

        var crawl = HLSCrawl(url: "http://h/m.m3u8?token=abc")
        guard let root = crawl.next() else {
            Issue.record("the crawl handed out no root request")
            return
        }
        crawl.record(root, body: Array("#EXTM3U\n".utf8))
        let crawlText = crawl.json.serialized()
        #expect(!crawlText.contains("abc"))
        #expect(crawl.json["playlists"]?[0]?["kind"] == "unknown")
        // The playlist that is not one; the plain-http root is iOS's and Android's transport rule (MediaRules).
        #expect(crawl.json["findings"]?.arrayValue?.count == 1)
    }
}
