/// RFC 6381 codec strings (`CODECS="avc1.64001f,mp4a.40.2"`) that AVPlayer does not decode.
enum HLSCodecs {
    /// Why AVPlayer skips a variant with these codecs, or nil when nothing in them is known to fail.
    ///
    /// - `hev1.*`: AVFoundation plays HEVC only when tagged `hvc1` (parameter sets in the sample description, not
    ///   in the stream); `hev1`, ffmpeg's default tag, does not play (FFmpeg trac #6860, "hvc1 instead of hev1").
    /// - `avc1.PPCCLL` / `avc3.PPCCLL` with profile_idc 110 (High 10), 122 (High 4:2:2), 244 (High 4:4:4
    ///   Predictive) or 44 (CAVLC 4:4:4 Intra): Apple's HLS Authoring Specification for Apple Devices §1.3,
    ///   "Profile and Level for H.264 MUST be less than or equal to High Profile, Level 4.2" — these profiles are
    ///   above High; Apple's decoders take 8-bit 4:2:0 H.264 only (ffmpeg's H.264 guide: QuickTime needs
    ///   `-pix_fmt yuv420p`).
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
