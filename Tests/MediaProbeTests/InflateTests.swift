import TestSupport
import Testing

@testable import MediaProbe

/// The zlib-backed bounded inflate against streams made by zlib itself (Python's `zlib.compress`, level 9).
@Suite("Images: bounded inflate")
struct InflateTests {
    /// `"".join(f"row {i % 17} pixel {i % 5}\n" for i in range(300))`: 4,320 bytes, one dynamic-Huffman block.
    static let text = (0..<300).map { "row \($0 % 17) pixel \($0 % 5)\n" }.joined()
    static let compressed = hexBytes(
        "78daedd4bb4d04411045519f2836847edd3dbf8030909016ad03e18346e39c498132cb39bae5bcd7f3fbd11e5f1f3fef9f8f"
            + "f6f6fabb725d39af7e5dfdbcc6758df39ad735cf6b41595136941de540c92dc69a98137b62502c8a494d09a8e30c9889b2a0"
            + "ac281bca8e72f8d62dc69a98137b62502c8a494d09a8e30c9889b2a0ac281bca8e72f8d62dc69a98137b62502c8a494d09a8"
            + "e30c9889b2a0ac281bca8e72f8d62dc69a98137b62502c8a494d09a8e30c9889b2a0ac281bca8e72f8d62dc69a98137b6250"
            + "2c8a4935643564356435643564356435643564356435643564ff7ac87e01b2ef1ddb")

    static func hexBytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8).map { $0 <= 57 ? $0 - 48 : $0 - 87 }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    /// The same deflate data without the 2-byte zlib header (what a CgBI PNG's IDAT holds; the Adler-32 after the
    /// final block is never read).
    static var raw: [UInt8] { Array(compressed.dropFirst(2)) }

    @Test(
        "a dynamic-Huffman stream inflates to exactly what zlib compressed, as zlib and as raw deflate",
        arguments: [InflateCheck.Format.zlib, .raw])
    func dynamicBlock(format: InflateCheck.Format) {
        let input = format == .zlib ? Self.compressed : Self.raw
        let result = InflateCheck(input, format: format, keep: 1 << 20, maxOutput: 1 << 20)
        #expect(result.outcome == .ended)
        #expect(result.produced == Self.text.utf8.count)
        #expect(result.kept == Array(Self.text.utf8))
    }

    @Test("output stops at the limit, a stream ending exactly there ended, and a cut stream runs out of input")
    func bounds() {
        let limited = InflateCheck(Self.compressed, format: .zlib, keep: 10, maxOutput: 100)
        #expect(limited.outcome == .reachedLimit && limited.produced == 100 && limited.kept.count == 10)
        let exact = InflateCheck(Self.compressed, format: .zlib, keep: 0, maxOutput: Self.text.utf8.count)
        #expect(exact.outcome == .ended && exact.produced == Self.text.utf8.count)
        let cut = InflateCheck(Array(Self.raw.prefix(40)), format: .raw, keep: 0, maxOutput: 1 << 20)
        #expect(cut.outcome == .outOfInput)
        #expect(cut.produced < Self.text.utf8.count)
        let empty = InflateCheck([], format: .zlib, keep: 1, maxOutput: 100)
        #expect(empty.outcome == .outOfInput && empty.produced == 0 && empty.kept.isEmpty)
    }

    /// zlib's own header checks (RFC 1950 §2.2), as libpng meets them.
    @Test(
        "zlib headers: method, window, check bits, preset dictionary",
        arguments: [
            ([0x78, 0x9C], InflateCheck.Outcome.outOfInput),  // a valid header, then nothing
            ([0x78, 0x01], .outOfInput),
            ([0x78], .outOfInput),  // the header is cut off
            ([0x79, 0x9C, 0, 0], .invalid("incorrect header check")),  // method 9 (and so the check bits)
            ([0x78, 0x9D, 0, 0], .invalid("incorrect header check")),  // check bits
            ([0x88, 0x1C, 0, 0], .invalid("invalid window size")),  // a 64 KiB window (CINFO 8)
            ([0x79, 0x18, 0, 0], .invalid("unknown compression method")),  // method 9, valid check bits
            ([0x78, 0xBB, 0, 0, 0, 0], .invalid("it needs a preset dictionary")),  // FDICT
        ] as [([UInt8], InflateCheck.Outcome)])
    func headers(bytes: [UInt8], outcome: InflateCheck.Outcome) {
        #expect(InflateCheck(bytes, format: .zlib, keep: 1, maxOutput: 100).outcome == outcome)
    }

    @Test(
        "invalid deflate is zlib's verdict, with zlib's message",
        arguments: [
            ([0x07, 0x00], "invalid block type"),  // reserved block type 3
            ([0x01, 0x05, 0x00, 0x00, 0x00], "invalid stored block lengths"),  // LEN 5, NLEN 0
            ([0x4B, 0x04, 0x42, 0x00], "invalid distance too far back"),  // a literal, then a match 2 bytes back
        ] as [([UInt8], String)])
    func invalidDeflate(bytes: [UInt8], message: String) {
        let result = InflateCheck(bytes, format: .raw, keep: 1, maxOutput: 100)
        #expect(result.outcome == .invalid(message), "\(result.outcome)")
    }

    @Test("zlib holds at most its budget: the inflate state and the 32 KiB window")
    func memoryBound() {
        let result = InflateCheck(zlibZeros(1 << 20), format: .zlib, keep: 1, maxOutput: 1 << 20)
        #expect(result.outcome == .ended && result.produced == 1 << 20)
        #expect(result.peakMemory >= 1 << 15, "the window is zlib's")
        #expect(result.peakMemory <= InflateCheck.memoryBudget)
    }

    @Test("random bytes never trap and stay within the limits", arguments: [InflateCheck.Format.zlib, .raw])
    func noise(format: InflateCheck.Format) {
        var generator = SeededGenerator(seed: 16)  // reproducible noise
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0..<300, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let result = InflateCheck(bytes, format: format, keep: 8, maxOutput: 4096)
            #expect(result.produced <= 4096 && result.kept.count <= 8)
            #expect(result.peakMemory <= InflateCheck.memoryBudget)
        }
    }
}
