import Findings
import Foundation
import MediaProbe
import MediaRules
import TestSupport

/// Reads a committed fixture from `Fixtures/media/` (made once by `Fixtures/media/generate.sh`).
func fixture(_ name: String) throws -> [UInt8] {
    let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let url = testsDirectory.appendingPathComponent("../../Fixtures/media/\(name)").standardizedFileURL
    return Array(try Data(contentsOf: url))
}

extension Array where Element == Finding {
    /// The codes, in order, for readable expectations.
    var codes: [String] { map(\.code) }

    func codes(_ severity: Severity) -> [String] { filter { $0.severity == severity }.map(\.code) }
}

// MARK: iOS's rules over the facts

/// An iOS app whose deployment target is new enough for every format (iOS 17: JPEG XL), so only real problems show.
let modernIOS = AppSettings(ios: IOSAppSettings(deploymentTarget: 17))

extension ImageInfo {
    /// What iOS makes of the image: the facts' defects and iOS's rules (MediaRules) for a banner hero, most severe
    /// first (stable, so the defects come before iOS's rules of the same severity).
    func onIOS(_ app: AppSettings = AppSettings(), limits: ImageLimits = ImageLimits()) -> [Finding] {
        let rules = ImageRules.judge(self, use: .bannerHero, on: .ios, app: app, limits: limits)
        return (findings + rules).sorted { $0.severity > $1.severity }
    }
}

// MARK: Byte builders for hostile inputs

func be32(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}
func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
func le32(_ value: UInt32) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
}
func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

/// CRC-32 as PNG uses it, written independently of the module's table so the test does not check itself.
func pngCRC(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    be32(UInt32(data.count)) + ascii(type) + data + be32(pngCRC(ascii(type) + data))
}

/// A structurally complete PNG header claiming `width`×`height` (the IDAT holds no real pixels; no decoder runs).
func syntheticPNG(width: UInt32, height: UInt32, extraChunks: [[UInt8]] = []) -> [UInt8] {
    let ihdr = be32(width) + be32(height) + [8, 6, 0, 0, 0]
    return [0x89] + ascii("PNG\r\n") + [0x1A, 0x0A] + pngChunk("IHDR", ihdr) + extraChunks.flatMap { $0 }
        + pngChunk("IDAT", zlibZeros(Swift.min(1 + 4 * Int(width), 16 << 20))) + pngChunk("IEND", [])
}

/// A zlib stream of `count` zero bytes in fixed-Huffman deflate (a literal 0, then distance-1 matches of 258 and
/// 10 bytes, then literals): a few KB for a megabyte, so synthetic PNGs carry a first row decoders accept.
func zlibZeros(_ count: Int) -> [UInt8] { SyntheticDeflate.zlibZeros(count) }

/// SOI, an optional list of raw segments, a baseline SOF0 with the size, then EOI.
func syntheticJPEG(width: UInt16, height: UInt16, marker: UInt8 = 0xC0, before: [UInt8] = []) -> [UInt8] {
    let sof: [UInt8] = [0xFF, marker] + be16(11) + [8] + be16(height) + be16(width) + [1, 1, 0x11, 0]
    return [0xFF, 0xD8] + before + sof + [0xFF, 0xD9]
}

/// An ISO-BMFF box.
func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(UInt32(8 + payload.count)) + ascii(type) + payload }

/// A full box (version + flags first).
func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
    box(type, [version, UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)] + payload)
}
