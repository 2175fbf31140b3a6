/// One ISO base media file format box (MP4, MOV, HEIF, AVIF all use them).
struct ISOBox {
    let type: String
    /// Offset of the box header.
    let start: Int
    /// Offset of the first byte after the header (for full boxes, version and flags come first).
    let payload: Int
    /// Offset just past the box, as its size field claims; may lie beyond the bytes at hand.
    let end: Int
}

/// Why a box walk stopped.
enum ISOBoxWalkStop: Equatable {
    /// Reached the container's end exactly.
    case end
    /// The bytes ended before the container did (a prefix, or a cut-off file).
    case ranOut(offset: Int)
    /// A size field below the header size, or a 64-bit size beyond what any file can hold.
    case badSize(offset: Int, type: String, size: Int)
    /// A box claims more bytes than its container has left.
    case overruns(type: String, offset: Int, size: Int, room: Int)
    /// The walk visited `maxBoxes` boxes and gave up (a hostile file of millions of empty boxes).
    case tooManyBoxes
}

/// Walks the boxes of one container level: `start..<end`, where `end` is the container's claimed end (pass
/// `Int.max` for "until the bytes run out" when the total size is unknown). Each step moves forward by at least
/// 8 bytes, and at most `maxBoxes` steps are taken.
func walkISOBoxes(_ bytes: [UInt8], from start: Int, to end: Int, maxBoxes: Int) -> (
    boxes: [ISOBox], stop: ISOBoxWalkStop
) {
    var boxes: [ISOBox] = []
    var offset = start
    while offset < end {
        guard boxes.count < maxBoxes else { return (boxes, .tooManyBoxes) }
        guard let size32 = bytes.u32be(offset), let type = bytes.fourCC(offset + 4) else {
            return (boxes, .ranOut(offset: offset))
        }
        var headerSize = 8
        var size = size32
        if size32 == 1 {
            guard bytes.has(8, at: offset + 8) else { return (boxes, .ranOut(offset: offset)) }
            guard let large = bytes.u64be(offset + 8), large >= 16 else {
                return (boxes, .badSize(offset: offset, type: type, size: bytes.u64be(offset + 8) ?? Int.max))
            }
            headerSize = 16
            size = large
        } else if size32 == 0 {
            // "Extends to the end of the container" — only meaningful for the last box.
            size = end == Int.max ? Swift.max(bytes.count - offset, 8) : end - offset
        } else if size32 < 8 {
            return (boxes, .badSize(offset: offset, type: type, size: size32))
        }
        let room = end - offset
        guard size <= room else {
            return (boxes, .overruns(type: type, offset: offset, size: size, room: room))
        }
        boxes.append(ISOBox(type: type, start: offset, payload: offset + headerSize, end: offset + size))
        offset += size
        if offset > bytes.count || (offset == bytes.count && end == Int.max) {
            return (boxes, offset >= end ? .end : .ranOut(offset: offset))
        }
    }
    return (boxes, .end)
}
