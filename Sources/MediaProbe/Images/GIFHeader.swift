/// GIF: the logical screen gives the size; frames are counted by walking the block structure (image descriptors,
/// extensions, data sub-blocks) to the trailer. Every step consumes at least one byte, so the walk is linear in the
/// input and ends at `maxFrames` images even for a hostile file.
enum GIFHeader {
    static func parse(_ parse: inout HeaderParse, maxFrames: Int) {
        let bytes = parse.bytes
        guard let width = bytes.u16le(6), let height = bytes.u16le(8), let packed = bytes.u8(10),
            bytes.has(13, at: 0)
        else { return parse.ranOut("the logical screen descriptor") }
        guard width > 0, height > 0 else {
            return parse.corrupt("the logical screen is \(width)×\(height) pixels.")
        }
        parse.setSize(width: width, height: height)
        var offset = 13 + colorTableSize(packed)
        var frames = 0
        var outside = false
        while true {
            guard let introducer = bytes.u8(offset) else {
                return endedEarly(&parse, frames: frames, what: "the block list (no trailer)")
            }
            switch introducer {
            case 0x3B:  // trailer
                parse.header.frameCount = frames
                parse.header.animated = frames > 1
                if frames == 0 { parse.corrupt("the file has no image in it.") }
                return
            case 0x21:  // extension: label, then sub-blocks
                guard let next = skipSubBlocks(bytes, from: offset + 2) else {
                    return endedEarly(&parse, frames: frames, what: "an extension block")
                }
                offset = next
            case 0x2C:  // image descriptor, optional local colour table, LZW code size, sub-blocks
                guard let imagePacked = bytes.u8(offset + 9), let left = bytes.u16le(offset + 1),
                    let top = bytes.u16le(offset + 3), let frameWidth = bytes.u16le(offset + 5),
                    let frameHeight = bytes.u16le(offset + 7)
                else {
                    return endedEarly(&parse, frames: frames, what: "an image descriptor")
                }
                if !outside, left + frameWidth > width || top + frameHeight > height {
                    // Decoders disagree here: Pillow's GifImagePlugin grows the canvas to the first such frame
                    // (`self._size = max(x1, …), max(y1, …)`), browsers clip to the screen, and Apple documents
                    // nothing for ImageIO. The logical screen stays the reported size, with a warning.
                    outside = true
                    parse.header.findings.append(
                        .warning(
                            ImageFindingCode.gifFrameOutsideScreen,
                            "Frame \(frames + 1) (\(frameWidth)×\(frameHeight) at \(left),\(top)) reaches beyond the "
                                + "\(width)×\(height) logical screen; decoders clip it or grow the canvas, so the "
                                + "image may show cut off or at another size."))
                }
                let dataStart = offset + 10 + colorTableSize(imagePacked) + 1
                guard let next = skipSubBlocks(bytes, from: dataStart) else {
                    return endedEarly(&parse, frames: frames, what: "the data of frame \(frames + 1)")
                }
                frames += 1
                offset = next
                if frames >= maxFrames {
                    // Stop counting: the answer "at least maxFrames" is enough to judge it.
                    parse.header.animated = true
                    parse.header.findings.append(
                        .warning(
                            ImageFindingCode.tooManyFrames,
                            "The GIF has more than \(maxFrames) frames; counting stopped there."))
                    return
                }
            default:
                if frames > 0 {
                    // Decoders show the frames they got and stop at an unknown block.
                    parse.header.frameCount = frames
                    parse.header.animated = frames > 1
                    return parse.corrupt(
                        "unknown block 0x\(String(introducer, radix: 16)) at byte \(offset) after \(frames) frames.",
                        severity: .warning)
                }
                return parse.corrupt("unknown block 0x\(String(introducer, radix: 16)) at byte \(offset).")
            }
        }
    }

    private static func colorTableSize(_ packed: Int) -> Int {
        packed & 0x80 != 0 ? 3 << ((packed & 0x07) + 1) : 0
    }

    /// Skips data sub-blocks (`size, bytes…`) up to and including the zero-size terminator; nil when cut off.
    private static func skipSubBlocks(_ bytes: [UInt8], from start: Int) -> Int? {
        var offset = start
        while let size = bytes.u8(offset) {
            offset += 1 + size
            if size == 0 { return offset }
        }
        return nil
    }

    /// The data ended before the trailer. Frames already complete are still shown by decoders, so that is a
    /// warning; nothing complete at all is an error.
    private static func endedEarly(_ parse: inout HeaderParse, frames: Int, what: String) {
        if frames > 0 {
            parse.header.animated = frames > 1
            if !parse.complete { return parse.ranOut(what) }
            parse.header.frameCount = frames
            parse.ranOut("\(what) after \(frames) complete frame\(frames == 1 ? "" : "s")", severity: .warning)
        } else {
            parse.ranOut(what)
        }
    }
}
