/// WebP (RIFF): the first chunk is `VP8 ` (lossy), `VP8L` (lossless) or `VP8X` (extended: canvas size and flags,
/// animation frames in `ANMF` chunks, counted by a bounded chunk walk).
enum WebPHeader {
    static func parse(_ parse: inout HeaderParse, maxFrames: Int) {
        let bytes = parse.bytes
        guard let riffSize = bytes.u32le(4), let chunk = bytes.fourCC(12), let chunkSize = bytes.u32le(16) else {
            return parse.ranOut("the RIFF header")
        }
        guard riffSize >= 12 else { return parse.corrupt("the RIFF size is \(riffSize) bytes.") }
        if parse.complete, riffSize + 8 > bytes.count {
            parse.ranOut("the RIFF container (it claims \(riffSize + 8) bytes)")
        }
        let data = 20
        switch chunk {
        case "VP8 ":
            guard let tag = bytes.u8(data), let width = bytes.u16le(data + 6), let height = bytes.u16le(data + 8) else {
                return parse.ranOut("the VP8 frame header")
            }
            guard tag & 0x01 == 0, bytes[data + 3] == 0x9D, bytes[data + 4] == 0x01, bytes[data + 5] == 0x2A else {
                return parse.corrupt("the VP8 chunk does not start with a key frame.")
            }
            setSize(&parse, width: width & 0x3FFF, height: height & 0x3FFF)
        case "VP8L":
            guard let signature = bytes.u8(data), let bits = bytes.u32le(data + 1) else {
                return parse.ranOut("the VP8L header")
            }
            guard signature == 0x2F else { return parse.corrupt("the VP8L signature byte is not 0x2F.") }
            setSize(&parse, width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            guard let flags = bytes.u8(data), let widthMinusOne = bytes.u24le(data + 4),
                let heightMinusOne = bytes.u24le(data + 7)
            else { return parse.ranOut("the VP8X header") }
            setSize(&parse, width: widthMinusOne + 1, height: heightMinusOne + 1)
            if flags & 0x02 != 0 {
                parse.header.animated = true
                countFrames(&parse, from: data + chunkSize + (chunkSize & 1), maxFrames: maxFrames)
            }
        default:
            parse.corrupt("the first chunk is '\(chunk)', not VP8, VP8L or VP8X.")
        }
    }

    private static func setSize(_ parse: inout HeaderParse, width: Int, height: Int) {
        guard width > 0, height > 0 else { return parse.corrupt("the frame is \(width)×\(height) pixels.") }
        parse.setSize(width: width, height: height)
    }

    private static func countFrames(_ parse: inout HeaderParse, from start: Int, maxFrames: Int) {
        let bytes = parse.bytes
        var offset = start
        var frames = 0
        while offset < bytes.count {
            guard let type = bytes.fourCC(offset), let size = bytes.u32le(offset + 4) else {
                return parse.ranOut("a chunk header")
            }
            if type == "ANMF" {
                frames += 1
                if frames >= maxFrames {
                    parse.header.findings.append(
                        .warning(
                            ImageFindingCode.tooManyFrames,
                            "The WebP animation has more than \(maxFrames) frames; counting stopped there."))
                    return
                }
            }
            offset += 8 + size + (size & 1)
        }
        parse.header.frameCount = frames
        parse.header.animated = frames != 1
        if frames == 0 { parse.corrupt("the animation flag is set but no ANMF frame follows.", severity: .warning) }
    }
}
