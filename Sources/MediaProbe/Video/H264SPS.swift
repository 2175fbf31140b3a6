/// The picture size an H.264 sequence parameter set (SPS, NAL unit type 7) declares: ITU-T H.264 §7.3.2.1.1
/// (`seq_parameter_set_data`) and §7.4.2.1.1 (the frame cropping rectangle), as ffprobe reports it. Bounded: an RBSP
/// of at most a few hundred bytes is read, every read checked, so hostile bytes end the parse with nil.
enum H264SPS {
    /// Width and height after cropping, or nil when the bytes are not a readable SPS.
    /// - Parameter nal: the NAL unit without its start code, starting with the NAL header byte.
    static func pictureSize(nal: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        guard let header = nal.first, header & 0x1F == 7 else { return nil }
        var reader = BitReader(rbsp: unescape(nal.dropFirst().prefix(512)))
        // profile_idc of Annex A (and G/H): anything else is not an SPS a decoder reads.
        guard let profile = reader.bits(8),
            [66, 77, 88, 100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]
                .contains(profile), reader.bits(16) != nil, reader.ue() != nil
        else { return nil }
        var chromaFormat = 1
        var separateColourPlanes = false
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let format = reader.ue(), format <= 3 else { return nil }
            chromaFormat = format
            if format == 3 { separateColourPlanes = reader.bits(1) == 1 }
            guard reader.ue() != nil, reader.ue() != nil, reader.bits(1) != nil, let scaling = reader.bits(1) else {
                return nil
            }
            if scaling == 1 {
                for index in 0..<(chromaFormat == 3 ? 12 : 8) {
                    guard let present = reader.bits(1) else { return nil }
                    if present == 1, !reader.skipScalingList(size: index < 6 ? 16 : 64) { return nil }
                }
            }
        }
        guard reader.ue() != nil, let pocType = reader.ue() else { return nil }  // log2_max_frame_num_minus4
        if pocType == 0 {
            guard reader.ue() != nil else { return nil }
        } else if pocType == 1 {
            guard reader.bits(1) != nil, reader.se() != nil, reader.se() != nil, let cycle = reader.ue(), cycle <= 255
            else { return nil }
            for _ in 0..<cycle { guard reader.se() != nil else { return nil } }
        } else if pocType != 2 {
            return nil
        }
        guard reader.ue() != nil, reader.bits(1) != nil, let widthMBs = reader.ue(), let heightUnits = reader.ue(),
            let frameMBsOnly = reader.bits(1), widthMBs < 1 << 16, heightUnits < 1 << 16
        else { return nil }
        if frameMBsOnly == 0 { guard reader.bits(1) != nil else { return nil } }  // mb_adaptive_frame_field_flag
        guard reader.bits(1) != nil, let cropping = reader.bits(1) else { return nil }  // direct_8x8_inference_flag
        var width = (widthMBs + 1) * 16
        var height = (2 - frameMBsOnly) * (heightUnits + 1) * 16
        if cropping == 1 {
            guard let left = reader.ue(), let right = reader.ue(), let top = reader.ue(), let bottom = reader.ue()
            else { return nil }
            // §7.4.2.1.1: CropUnitX/Y from the chroma subsampling (SubWidthC, SubHeightC); monochrome or separate
            // planes crop in luma samples.
            let (subWidth, subHeight) =
                chromaFormat == 0 || separateColourPlanes
                ? (1, 1)
                : chromaFormat == 1
                    ? (2, 2)
                    : chromaFormat == 2
                        ? (2, 1) : (1, 1)
            width -= subWidth * (left + right)
            height -= subHeight * (2 - frameMBsOnly) * (top + bottom)
        }
        return width > 0 && height > 0 ? (width, height) : nil
    }

    /// The RBSP: `00 00 03` emulation-prevention bytes removed (§7.4.1).
    static func unescape(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Exp-Golomb and fixed-width reads over an RBSP, most significant bit first.
    struct BitReader {
        let rbsp: [UInt8]
        var bit = 0

        init(rbsp: [UInt8]) { self.rbsp = rbsp }

        mutating func bits(_ count: Int) -> Int? {
            guard count <= 32, bit + count <= rbsp.count * 8 else { return nil }
            var value = 0
            for _ in 0..<count {
                value = value << 1 | Int(rbsp[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
                bit += 1
            }
            return value
        }

        /// ue(v): unsigned Exp-Golomb (§9.1); at most 31 leading zeros.
        mutating func ue() -> Int? {
            var zeros = 0
            while true {
                guard let next = bits(1) else { return nil }
                if next == 1 { break }
                zeros += 1
                if zeros > 31 { return nil }
            }
            guard let rest = bits(zeros) else { return nil }
            return (1 << zeros) - 1 + rest
        }

        /// se(v): signed Exp-Golomb (§9.1.1).
        mutating func se() -> Int? {
            guard let code = ue() else { return nil }
            return code % 2 == 1 ? (code + 1) / 2 : -(code / 2)
        }

        /// `scaling_list()` (§7.3.2.1.1.1): read and dropped.
        mutating func skipScalingList(size: Int) -> Bool {
            var last = 8
            var next = 8
            for _ in 0..<size where next != 0 {
                guard let delta = se(), (-128...127).contains(delta) else { return false }
                next = (last + delta + 256) % 256
                last = next == 0 ? last : next
            }
            return true
        }
    }
}
