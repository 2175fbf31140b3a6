// libFuzzer target: the HLS playlist parser (master and media playlists, URI resolution against a base URL).
import MediaProbe
import StrictJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHLS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    let playlist = HLSPlaylist.parse(bytes: bytes, baseURL: "https://cdn.example.com/video/master.m3u8?token=s")
    // The report JSON walks every variant, rendition and finding (and redacts the URLs).
    _ = playlist.json.serialized()
    // The same bytes as what a crawl fetched for a media playlist: its init segment (an fMP4 moov), an AES-128 key
    // and a segment (the MPEG-TS program map table reader).
    var crawl = HLSCrawl(url: "https://cdn.example.com/p.m3u8")
    if let root = crawl.next() {
        let media =
            "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MAP:URI=\"i.mp4\"\n"
            + "#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:4,\ns.ts\n#EXT-X-ENDLIST\n"
        crawl.record(root, body: Array(media.utf8))
        while let fetch = crawl.next() { crawl.record(fetch, body: bytes) }
    }
    return 0
}
