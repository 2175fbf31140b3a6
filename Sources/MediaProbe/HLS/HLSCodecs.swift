/// RFC 6381 codec strings (`CODECS="avc1.64001f,mp4a.40.2"`) that AVPlayer does not decode.
enum HLSCodecs {
    /// Why AVPlayer skips a variant with these codecs, or nil when nothing in them is known to fail.
    ///
    /// - `hev1.*`: Apple's HLS Authoring Specification for Apple Devices requires HEVC to be signalled as `hvc1`
    ///   (parameter sets in the sample description); AVPlayer does not play `hev1` streams.
    /// - `avc1.PPCCLL` / `avc3.PPCCLL` with profile_idc 110 (High 10), 122 (High 4:2:2) or 244 (High 4:4:4
    ///   Predictive): the authoring spec allows H.264 up to High profile only, and Apple's decoders (VideoToolbox)
    ///   decode 8-bit 4:2:0 H.264 only; ffmpeg's H.264 guide says the same of QuickTime ("use -pix_fmt yuv420p").
    static func unplayableReason(_ codecs: String) -> String? {
        for codec in codecs.split(separator: ",").map({ $0.trimmingASCIIWhitespace().lowercased() }) {
            if codec.hasPrefix("hev1.") || codec == "hev1" {
                return "CODECS lists HEVC as 'hev1'; AVPlayer plays HEVC only as 'hvc1'"
            }
            if codec.hasPrefix("avc1.") || codec.hasPrefix("avc3.") {
                let hex = codec.dropFirst(5)
                guard hex.count == 6, let profile = UInt8(hex.prefix(2), radix: 16),
                    let name = H264Profile.unsupportedName(profile)
                else { continue }
                return "CODECS lists H.264 \(name) ('\(codec)'), which AVPlayer does not decode"
            }
        }
        return nil
    }
}

/// H.264 profiles outside what Apple devices decode (8-bit 4:2:0, up to High profile).
enum H264Profile {
    /// The profile's name when AVPlayer does not decode it; nil for Baseline, Main, Extended, High.
    static func unsupportedName(_ profileIDC: UInt8) -> String? {
        switch profileIDC {
        case 110: "High 10 (10-bit) profile"
        case 122: "High 4:2:2 profile"
        case 244: "High 4:4:4 Predictive profile"
        case 44: "CAVLC 4:4:4 Intra profile"
        default: nil
        }
    }
}
