// libFuzzer target: the format sniffer, the image inspector and the video inspector over the same bytes,
// as a whole file and as a prefix of a longer download (byteCount larger than the bytes, as prefetch passes), and as
// the tail of a file whose moov comes after a long mdat; then each platform's rules (MediaRules) over those facts.
import Findings
import MediaProbe
import MediaRules
import StrictJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMedia(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    _ = MediaSniffer.sniff(bytes)
    let app = AppSettings()
    for byteCount in [nil, size + 1_000] {
        let image = ImageSniffer.inspect(bytes: bytes, contentType: "image/png", byteCount: byteCount)
        _ = image.json.serialized()
        let video = VideoSniffer.inspect(bytes: bytes, contentType: "video/mp4", byteCount: byteCount)
        _ = video.json.serialized()
        // The same bytes as the tail of a moov-at-end file (what probeVideo's second range GET passes).
        let tail = VideoSniffer.inspectTail(bytes, at: 16, of: video)
        _ = tail.json.serialized()
        for platform in RulePlatform.allCases {
            for use in ImageUse.allCases {
                _ = ImageRules.judge(image, use: use, on: platform, app: app)
                _ = CellGeometry.judge(width: image.width, height: image.height, use: use, on: platform)
            }
            let facts = VideoFacts(
                url: "http://cdn.example.com/v.mp4", isHLS: false, container: tail.format, videoCodec: tail.videoCodec,
                avcProfile: tail.avcProfile)
            _ = VideoRules.judge(facts, on: platform, app: app)
        }
    }
    // Tight limits reach the caps a default run rarely hits: an icon entry's bomb check, the frame and structure
    // caps, and (in iOS's rules) the pixel thresholds.
    let tight = ImageLimits(
        decodedBytesWarning: 1 << 12, decodedBytesError: 1 << 14, maxFrames: 4, maxStructures: 8)
    let image = ImageSniffer.inspect(bytes: bytes, contentType: nil, limits: tight)
    _ = ImageRules.judge(image, use: .bannerHero, on: .ios, app: app, limits: tight)
    return 0
}
