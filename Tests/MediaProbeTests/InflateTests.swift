import TestSupport
import Testing

@testable import MediaProbe

/// The check-only inflater against streams made by zlib itself (Python's `zlib.compress`, level 9).
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

    @Test("a dynamic-Huffman stream inflates to exactly what zlib compressed")
    func dynamicBlock() {
        #expect(zlibHeaderProblem(Self.compressed) == nil)
        let result = InflateCheck(Array(Self.compressed.dropFirst(2)), keep: 1 << 20, maxOutput: 1 << 20)
        #expect(result.outcome == .ended)
        #expect(result.produced == Self.text.utf8.count)
        #expect(result.kept == Array(Self.text.utf8))
    }

    @Test("output stops at the limit, and a cut stream runs out of input")
    func bounds() {
        let stream = Array(Self.compressed.dropFirst(2))
        let limited = InflateCheck(stream, keep: 10, maxOutput: 100)
        #expect(limited.outcome == .reachedLimit && limited.produced == 100 && limited.kept.count == 10)
        let cut = InflateCheck(Array(stream.prefix(40)), keep: 0, maxOutput: 1 << 20)
        #expect(cut.outcome == .outOfInput)
        #expect(cut.produced < Self.text.utf8.count)
    }

    @Test("zlib headers: method, window, check bits, preset dictionary")
    func headers() {
        #expect(zlibHeaderProblem([0x78, 0x9C]) == nil)
        #expect(zlibHeaderProblem([0x78, 0x01]) == nil)
        #expect(zlibHeaderProblem([0x78]) != nil)
        #expect(zlibHeaderProblem([0x79, 0x9C]) != nil)  // method 9
        #expect(zlibHeaderProblem([0x78, 0x9D]) != nil)  // check bits
        #expect(zlibHeaderProblem([0x78, 0xBB]) != nil)  // FDICT
    }

    @Test("random bytes never trap and stay within the limit")
    func noise() {
        var generator = SeededGenerator(seed: 16)  // reproducible noise
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0..<300, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let result = InflateCheck(bytes, keep: 8, maxOutput: 4096)
            #expect(result.produced <= 4096 && result.kept.count <= 8)
        }
    }
}
