/// PNG: the IHDR chunk gives the size; an `acTL` chunk before the first IDAT makes it an APNG. Chunk headers are
/// walked to IEND (each step skips a whole chunk, so the work is one step per chunk) to notice cut-off files.
enum PNGHeader {
    static func parse(_ parse: inout HeaderParse, maxChunks: Int) {
        let bytes = parse.bytes
        guard let ihdrLength = bytes.u32be(8), bytes.has(4, at: 12) else { return parse.ranOut("the signature") }
        guard bytes.matches("IHDR", at: 12) else {
            return parse.corrupt("the first chunk is '\(bytes.fourCC(12) ?? "?")', not IHDR.")
        }
        guard ihdrLength == 13 else { return parse.corrupt("IHDR is \(ihdrLength) bytes long instead of 13.") }
        guard let width = bytes.u32be(16), let height = bytes.u32be(20), let depth = bytes.u8(24),
            let colorType = bytes.u8(25), let storedCRC = bytes.u32be(29)
        else { return parse.ranOut("the IHDR chunk") }
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            return parse.corrupt("IHDR claims \(width)×\(height) pixels (each side must be 1…2³¹−1).")
        }
        parse.setSize(width: width, height: height)
        let validDepths: [Int: Set<Int>] = [
            0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
        ]
        guard let depths = validDepths[colorType], depths.contains(depth) else {
            return parse.corrupt("IHDR has colour type \(colorType) with bit depth \(depth), which no decoder accepts.")
        }
        guard CRC32.checksum(bytes[12..<29]) == UInt32(storedCRC) else {
            return parse.corrupt("the IHDR checksum does not match; decoders reject the file.")
        }
        walkChunks(&parse, maxChunks: maxChunks)
    }

    private static func walkChunks(_ parse: inout HeaderParse, maxChunks: Int) {
        let bytes = parse.bytes
        var offset = 33
        var sawIDAT = false
        for _ in 0..<maxChunks {
            guard let length = bytes.u32be(offset), let type = bytes.fourCC(offset + 4) else {
                return parse.ranOut("a chunk header before IEND")
            }
            guard length <= Int(Int32.max) else {
                return parse.corrupt("chunk '\(type)' at byte \(offset) claims \(length) bytes (more than 2³¹−1).")
            }
            switch type {
            case "acTL" where !sawIDAT:
                guard let frames = bytes.u32be(offset + 8) else { return parse.ranOut("the acTL chunk") }
                guard frames > 0 else { return parse.corrupt("acTL declares zero frames.") }
                parse.header.frameCount = frames
                parse.header.animated = frames > 1
            case "IDAT":
                sawIDAT = true
            case "IEND":
                if !sawIDAT { parse.corrupt("IEND comes before any image data (IDAT).") }
                // Decoders stop at IEND, so a missing checksum after it costs nothing visible.
                if offset + 12 > bytes.count { parse.ranOut("the IEND chunk", severity: .warning) }
                return
            default:
                break
            }
            let next = offset + 12 + length
            guard next <= bytes.count else {
                return parse.ranOut("chunk '\(type)' (it claims \(length) bytes, \(bytes.count - offset - 8) remain)")
            }
            offset = next
        }
    }
}

/// CRC-32 (ISO 3309, as PNG uses it), table-driven.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
