/// Deflate streams built by hand for image fixtures made in the tests (no zlib on the test side, so a test of the
/// product's inflate never checks itself).
public enum SyntheticDeflate {
    /// `count` zero bytes as one fixed-Huffman deflate block: a literal 0, then distance-1 copies of 258 and 10
    /// bytes, then literals (RFC 1951 §3.2.6).
    public static func zeros(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = 0
        var filled = 0
        func bits(_ value: Int, _ width: Int) {  // extra bits and headers: least significant first
            buffer |= value << filled
            filled += width
            while filled >= 8 {
                out.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                filled -= 8
            }
        }
        func huffman(_ code: Int, _ width: Int) {  // Huffman codes: most significant first
            for shift in stride(from: width - 1, through: 0, by: -1) { bits(code >> shift & 1, 1) }
        }
        bits(1, 1)  // BFINAL
        bits(1, 2)  // BTYPE 01: fixed Huffman
        var left = count
        if left > 0 {
            huffman(0x30, 8)  // literal 0
            left -= 1
        }
        while left >= 258 {
            huffman(0xC5, 8)  // length 258 (symbol 285)
            huffman(0, 5)  // distance 1
            left -= 258
        }
        while left >= 10 {
            huffman(0x08, 7)  // length 10 (symbol 264)
            huffman(0, 5)
            left -= 10
        }
        for _ in 0..<left { huffman(0x30, 8) }
        huffman(0, 7)  // end of block (256)
        if filled > 0 { bits(0, 8 - filled) }
        return out
    }

    /// ``zeros(_:)`` in a zlib wrapper (RFC 1950: CMF/FLG `78 01`, the Adler-32 of `count` zeros).
    public static func zlibZeros(_ count: Int) -> [UInt8] {
        let adler = UInt32(count % 65521) << 16 | 1
        return [0x78, 0x01] + zeros(count) + [
            UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF),
        ]
    }
}
