internal import Findings

/// PNG: the IHDR chunk gives the size; an `acTL` chunk before the first IDAT makes it an APNG. Chunk headers are
/// walked to IEND (each step skips a whole chunk, so the work is one step per chunk) to notice cut-off files.
enum PNGHeader {
    static func parse(_ parse: inout HeaderParse, maxChunks: Int) {
        let bytes = parse.bytes
        var ihdr = 8
        // Xcode's "crushed" PNGs put a CgBI chunk first (premultiplied BGRA, raw deflate): only Apple's decoder
        // reads them. iOS shows them; Android and browsers do not.
        if bytes.matches("CgBI", at: 12), let length = bytes.u32be(8), length <= 64 {
            ihdr = 8 + 12 + length
            parse.header.findings.append(
                .info(
                    ImageFindingCode.appleOptimizedPNG,
                    "An Apple-optimised PNG (CgBI): iOS shows it, Android and browsers cannot decode it."))
        }
        guard let ihdrLength = bytes.u32be(ihdr), bytes.has(4, at: ihdr + 4) else {
            return parse.ranOut("the signature")
        }
        guard bytes.matches("IHDR", at: ihdr + 4) else {
            return parse.corrupt("the first chunk is '\(bytes.fourCC(ihdr + 4) ?? "?")', not IHDR.")
        }
        guard ihdrLength == 13 else { return parse.corrupt("IHDR is \(ihdrLength) bytes long instead of 13.") }
        guard let width = bytes.u32be(ihdr + 8), let height = bytes.u32be(ihdr + 12), let depth = bytes.u8(ihdr + 16),
            let colorType = bytes.u8(ihdr + 17), let storedCRC = bytes.u32be(ihdr + 21)
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
        guard CRC32.checksum(bytes[(ihdr + 4)..<(ihdr + 21)]) == UInt32(storedCRC) else {
            return parse.corrupt("the IHDR checksum does not match; decoders reject the file.")
        }
        walkChunks(&parse, from: ihdr + 25, maxChunks: maxChunks)
    }

    private static func walkChunks(_ parse: inout HeaderParse, from start: Int, maxChunks: Int) {
        let bytes = parse.bytes
        var offset = start
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
