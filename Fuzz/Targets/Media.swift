// libFuzzer target: the format sniffer, the image inspector and the video inspector over the same bytes,
// as a whole file and as a prefix of a longer download (byteCount larger than the bytes, as prefetch passes), and as
// the tail of a file whose moov comes after a long mdat.
import MediaProbe
import StrictJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMedia(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    _ = MediaSniffer.sniff(bytes)
    for byteCount in [nil, size + 1_000] {
        _ = ImageSniffer.inspect(bytes: bytes, contentType: "image/png", byteCount: byteCount).json.serialized()
        let video = VideoSniffer.inspect(bytes: bytes, contentType: "video/mp4", byteCount: byteCount)
        _ = video.json.serialized()
        // The same bytes as the tail of a moov-at-end file (what probeVideo's second range GET passes).
        _ = VideoSniffer.inspectTail(bytes, at: 16, of: video).json.serialized()
    }
    // Tight limits reach the caps a default run rarely hits: an icon entry's bomb check, the frame and structure
    // caps, the pixel thresholds.
    let tight = ImageLimits(
        decodedBytesWarning: 1 << 12, decodedBytesError: 1 << 14, maxFrames: 4, maxStructures: 8)
    _ = ImageSniffer.inspect(bytes: bytes, contentType: nil, limits: tight)
    return 0
}
