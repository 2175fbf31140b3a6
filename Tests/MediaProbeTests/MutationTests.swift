import Findings
import MediaProbe
import TestSupport
import Testing

/// Flips, overwrites with 0xFF/0x00 runs, duplicates or deletes a few spots of `bytes`: the shapes hostile or damaged
/// files take (lengths turned huge, markers repeated, boxes cut).
func mutate(_ bytes: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
    var result = bytes
    for _ in 0..<Int.random(in: 1...4, using: &generator) where !result.isEmpty {
        let at = Int.random(in: 0..<result.count, using: &generator)
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: result[at] ^= UInt8.random(in: 1...255, using: &generator)
        case 1: for index in at..<min(at + 4, result.count) { result[index] = 0xFF }
        case 2: for index in at..<min(at + 4, result.count) { result[index] = 0x00 }
        case 3: result.insert(contentsOf: result[at..<min(at + 16, result.count)], at: at)
        default: result.removeSubrange(at..<min(at + Int.random(in: 1...32, using: &generator), result.count))
        }
    }
    return result
}

@Suite("Mutated real files (deterministic, seeded)")
struct MutationTests {
    static let imageFiles = [
        "image-64x48.png", "image-apng-40x30.png", "image-baseline-80x60.jpg", "image-progressive-81x61.jpg",
        "image-exif-rotated-90x50.jpg", "image-anim4-24x16.gif", "image-lossy-50x40.webp", "image-lossless-51x41.webp",
        "image-anim4-24x16.webp", "image-64x36.heic", "image-64x36.avif", "image-16x12.bmp", "image-30x20.tiff",
    ]
    static let videoFiles = [
        "video-faststart-64x48.mp4", "video-moov-at-end-64x48.mp4", "video-64x48.mov", "video-rotated-64x48.mp4",
        "video-64x48.webm", "video-32x24.ts",
    ]
    static let playlistFiles = ["hls-master.m3u8", "hls-media-encrypted.m3u8", "hls-ffmpeg-media.m3u8"]

    @Test("images: 400 mutations each keep their invariants", arguments: imageFiles)
    func images(file: String) throws {
        var generator = SeededGenerator(seed: 0x1A2B_3C4D)
        let original = try fixture(file)
        for round in 0..<400 {
            let bytes = mutate(original, using: &generator)
            let info = ImageSniffer.inspect(bytes: bytes, contentType: "image/png")
            if let width = info.width, let height = info.height {
                #expect(width > 0 && height > 0, "round \(round)")
            } else {
                #expect(!info.findings.isEmpty, "round \(round): no size and no finding")
            }
            #expect(info.findings.count < 12, "round \(round)")
            #expect(info.isDisplayable == (info.format.isRasterImage && info.findings.maxSeverity != .error))
        }
    }

    @Test("videos: 400 mutations each keep their invariants", arguments: videoFiles)
    func videos(file: String) throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let original = try fixture(file)
        for round in 0..<400 {
            let info = VideoSniffer.inspect(bytes: mutate(original, using: &generator), contentType: "video/mp4")
            #expect(info.topLevelBoxes.count <= VideoLimits().maxBoxes, "round \(round)")
            #expect(info.findings.count < 12, "round \(round)")
            if let width = info.width { #expect(width > 0) }
        }
    }

    @Test("playlists: 400 mutations each keep their invariants", arguments: playlistFiles)
    func playlists(file: String) throws {
        var generator = SeededGenerator(seed: 0xC0FFEE)
        let original = try fixture(file)
        for round in 0..<400 {
            let playlist = HLSPlaylist.parse(bytes: mutate(original, using: &generator), baseURL: "https://h/a/p.m3u8")
            #expect(playlist.findings.count < 40, "round \(round)")
            for variant in playlist.variants { #expect(!variant.url.isEmpty) }
            if playlist.kind == .unknown { #expect(!playlist.findings.isEmpty, "round \(round)") }
            var crawl = HLSCrawl(url: "https://h/a/p.m3u8")
            if let root = crawl.next() {
                crawl.record(root, body: mutate(original, using: &generator))
                var handedOut = 0
                while crawl.next() != nil { handedOut += 1 }
                #expect(handedOut <= HLSCrawlLimits().maxPlaylists + 2)
            }
        }
    }
}
