import Testing

@testable import MediaProbe

/// The picture size of an HLS TS segment from its H.264 SPS (ITU-T H.264 §7.3.2.1.1, §7.4.2.1.1), as ffprobe
/// reports it for the same files (Fixtures/media/generate.sh writes them with ffmpeg/libx264).
struct H264PictureSizeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        var width: Int
        var height: Int
        var testDescription: String { "\(file) → \(width)×\(height)" }
    }

    @Test(arguments: [
        Case(file: "h264-baseline-320x180.ts", width: 320, height: 180),  // 12 macroblock rows, 12 rows cropped
        Case(file: "h264-high-cqm-1280x720.ts", width: 1280, height: 720),  // High with scaling matrices in the SPS
        Case(file: "h264-high422-100x60.ts", width: 100, height: 60),  // 4:2:2: crop units 2×1
        Case(file: "h264-high444-34x18.ts", width: 34, height: 18),  // 4:4:4: crop units 1×1
        Case(file: "h264-interlaced-640x360.ts", width: 640, height: 360),  // field coding: map units of 2 rows
    ])
    func sizeFromTheSPSIsFFprobes(_ example: Case) throws {
        let size = try #require(TransportStream.h264PictureSize(try fixture(example.file)))
        #expect(size.width == example.width && size.height == example.height)
    }

    /// Bytes that are no H.264 stream, or one cut before its SPS, give no size (and never trap).
    static let nonStreams: [(String, [UInt8])] = {
        let garbage: [UInt8] = (0..<(188 * 20)).map { index in
            index % 188 == 0 ? 0x47 : UInt8(truncatingIfNeeded: index &* 31 &+ 7)
        }
        return [
            ("empty", []), ("not packets", [UInt8](repeating: 0x47, count: 100)),
            ("sync bytes only", [UInt8](repeating: 0x47, count: 188 * 4)), ("garbage packets", garbage),
        ]
    }()

    @Test(arguments: nonStreams)
    func nonStreamsHaveNoSize(name: String, bytes: [UInt8]) {
        #expect(TransportStream.h264PictureSize(bytes) == nil, "\(name)")
    }

    /// Every prefix of a real segment: a size only once the SPS is whole, and then the right one.
    @Test func truncatedSegmentsNeverGiveAWrongSize() throws {
        let bytes = try fixture("h264-baseline-320x180.ts")
        for cut in stride(from: 0, through: bytes.count, by: 47) {
            if let size = TransportStream.h264PictureSize(Array(bytes.prefix(cut))) {
                #expect(size.width == 320 && size.height == 180, "cut at \(cut)")
            }
        }
    }

    /// Hostile SPS bodies: huge Exp-Golomb codes, bodies that run out, a NAL that is no SPS: nil.
    static let hostile: [(String, [UInt8])] = [
        ("all zero bits", [0x67] + [UInt8](repeating: 0, count: 40)),
        ("all one bits: profile_idc 255", [0x67] + [UInt8](repeating: 0xFF, count: 40)),
        ("a Main profile SPS whose width code runs past the bytes", [0x67, 0x4D, 0x00, 0x1E, 0xF0]),
        ("cut after the profile", [0x67, 0x64]),
        ("not an SPS", [0x65, 0x88, 0x84, 0x00]),
    ]

    @Test(arguments: hostile)
    func hostileSPSHasNoSize(name: String, nal: [UInt8]) {
        #expect(H264SPS.pictureSize(nal: nal[...]) == nil, "\(name)")
    }
}
