/// What the `moov` box says about a movie: duration, and per track its kind, codec and display size.
/// Only the boxes on the path moov → trak → (tkhd, mdia → (hdlr, minf → stbl → stsd)) are read, each level capped.
struct MovieHeader {
    struct Track {
        /// `vide`, `soun`, `text`…
        var handler: String?
        /// The first sample entry's four-character code: `avc1`, `hvc1`, `hev1`, `av01`, `mp4a`…
        var codec: String?
        /// H.264 only: `AVCProfileIndication` from the sample entry's `avcC` (66 Baseline, 77 Main, 100 High…).
        var avcProfile: UInt8?
        /// Display size from `tkhd`, with a 90°/270° rotation matrix already applied.
        var width: Int?
        var height: Int?
    }

    var durationSeconds: Double?
    var tracks: [Track] = []
    /// True when `moov` holds `mvex`: the media comes in later `moof`/`mdat` fragments (fMP4, HLS, DASH).
    var isFragmented = false

    /// Parses a `moov` box that lies entirely within `bytes`.
    init(_ bytes: [UInt8], moov: ISOBox, maxBoxes: Int) {
        let children = walkISOBoxes(bytes, from: moov.payload, to: moov.end, maxBoxes: maxBoxes).boxes
        if let mvhd = children.first(where: { $0.type == "mvhd" }) { durationSeconds = Self.duration(bytes, mvhd) }
        isFragmented = children.contains { $0.type == "mvex" }
        for trak in children where trak.type == "trak" {
            tracks.append(Self.track(bytes, trak, maxBoxes: maxBoxes))
        }
    }

    var videoTrack: Track? { tracks.first { $0.handler == "vide" } }

    private static func duration(_ bytes: [UInt8], _ mvhd: ISOBox) -> Double? {
        guard let version = bytes.u8(mvhd.payload) else { return nil }
        let (timescale, duration) =
            version == 1
            ? (bytes.u32be(mvhd.payload + 20), bytes.u64be(mvhd.payload + 24))
            : (bytes.u32be(mvhd.payload + 12), bytes.u32be(mvhd.payload + 16))
        // Zero (fragmented files) and all-ones both mean "not known here".
        guard let timescale, let duration, timescale > 0, duration > 0, duration != 0xFFFF_FFFF else { return nil }
        return Double(duration) / Double(timescale)
    }

    private static func track(_ bytes: [UInt8], _ trak: ISOBox, maxBoxes: Int) -> Track {
        var track = Track()
        let children = walkISOBoxes(bytes, from: trak.payload, to: trak.end, maxBoxes: maxBoxes).boxes
        if let tkhd = children.first(where: { $0.type == "tkhd" }) { readSize(bytes, tkhd, into: &track) }
        guard let mdia = children.first(where: { $0.type == "mdia" }) else { return track }
        let media = walkISOBoxes(bytes, from: mdia.payload, to: mdia.end, maxBoxes: maxBoxes).boxes
        if let hdlr = media.first(where: { $0.type == "hdlr" }) { track.handler = bytes.fourCC(hdlr.payload + 8) }
        guard let minf = media.first(where: { $0.type == "minf" }) else { return track }
        let info = walkISOBoxes(bytes, from: minf.payload, to: minf.end, maxBoxes: maxBoxes).boxes
        guard let stbl = info.first(where: { $0.type == "stbl" }) else { return track }
        let table = walkISOBoxes(bytes, from: stbl.payload, to: stbl.end, maxBoxes: maxBoxes).boxes
        if let stsd = table.first(where: { $0.type == "stsd" }), stsd.payload + 16 <= stsd.end {
            track.codec = bytes.fourCC(stsd.payload + 12)  // version/flags, entry count, then the entry's size
            if track.codec == "avc1" || track.codec == "avc3", let size = bytes.u32be(stsd.payload + 8) {
                // A visual sample entry has 78 bytes of fields after its 8-byte header, then boxes (avcC).
                let entry = stsd.payload + 8
                let entryEnd = min(entry + Int(size), stsd.end)
                let boxes = walkISOBoxes(bytes, from: entry + 86, to: entryEnd, maxBoxes: 16).boxes
                if let avcC = boxes.first(where: { $0.type == "avcC" }), avcC.payload + 2 <= avcC.end {
                    track.avcProfile = bytes.u8(avcC.payload + 1).map { UInt8(truncatingIfNeeded: $0) }
                }
            }
        }
        return track
    }

    /// `tkhd` ends with a 3×3 matrix and the width and height in 16.16 fixed point.
    private static func readSize(_ bytes: [UInt8], _ tkhd: ISOBox, into track: inout Track) {
        guard let version = bytes.u8(tkhd.payload) else { return }
        let matrix = tkhd.payload + (version == 1 ? 52 : 40)
        guard let width = bytes.u32be(matrix + 36), let height = bytes.u32be(matrix + 40), matrix + 44 <= tkhd.end,
            let a = bytes.u32be(matrix), let d = bytes.u32be(matrix + 16)
        else { return }
        let shownWidth = width >> 16
        let shownHeight = height >> 16
        guard shownWidth > 0, shownHeight > 0 else { return }
        // A rotation by 90° or 270° zeroes the matrix diagonal (portrait phone videos).
        let rotated = a == 0 && d == 0
        track.width = rotated ? shownHeight : shownWidth
        track.height = rotated ? shownWidth : shownHeight
    }
}
