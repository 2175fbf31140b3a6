// libFuzzer target: the HLS playlist parser (master and media playlists, URI resolution against a base URL).
import MediaProbe
import StrictJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHLS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    let playlist = HLSPlaylist.parse(bytes: bytes, baseURL: "https://cdn.example.com/video/master.m3u8?token=s")
    // The report JSON walks every variant, rendition and finding (and redacts the URLs).
    _ = playlist.json.serialized()
    return 0
}
