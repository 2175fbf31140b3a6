/// The stream types an MPEG transport stream's program map table (PMT) lists (ISO/IEC 13818-1 §2.4.4): enough to
/// tell the video codec of an HLS `.ts` segment from its first packets. Bounded: at most `maxPackets` packets.
enum TransportStream {
    /// H.264 (0x1B), HEVC (0x24), MPEG-2 video (0x02)…
    static let hevcStreamType: UInt8 = 0x24

    /// Stream types of the first program map table within the first `maxPackets` 188-byte packets; empty when
    /// the bytes are not packets or no PMT is found.
    static func streamTypes(_ bytes: [UInt8], maxPackets: Int = 512) -> [UInt8] {
        elementaryStreams(bytes, maxPackets: maxPackets).map(\.type)
    }

    /// The first program map table's elementary streams (stream type, PID), in order.
    static func elementaryStreams(_ bytes: [UInt8], maxPackets: Int) -> [(type: UInt8, pid: Int)] {
        var pmtPIDs: Set<Int> = []
        var offset = 0
        var packets = 0
        while offset + 188 <= bytes.count, packets < maxPackets {
            defer {
                offset += 188
                packets += 1
            }
            guard bytes[offset] == 0x47 else { return [] }
            let unitStart = bytes[offset + 1] & 0x40 != 0
            let pid = Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2])
            let adaptation = (bytes[offset + 3] >> 4) & 0x3
            guard unitStart, adaptation & 0x1 != 0 else { continue }
            var payload = offset + 4
            if adaptation & 0x2 != 0 { payload += 1 + Int(bytes[payload]) }
            guard payload < offset + 188 else { continue }
            let section = payload + 1 + Int(bytes[payload])  // pointer_field
            let end = offset + 188
            guard section + 3 <= end else { continue }
            let length = Int(bytes[section + 1] & 0x0F) << 8 | Int(bytes[section + 2])
            let sectionEnd = min(section + 3 + length - 4, end)  // the CRC_32 is not read
            if pid == 0, bytes[section] == 0x00 {
                var entry = section + 8
                while entry + 4 <= sectionEnd {
                    let program = Int(bytes[entry]) << 8 | Int(bytes[entry + 1])
                    if program != 0 { pmtPIDs.insert(Int(bytes[entry + 2] & 0x1F) << 8 | Int(bytes[entry + 3])) }
                    entry += 4
                }
            } else if pmtPIDs.contains(pid), bytes[section] == 0x02, section + 12 <= sectionEnd {
                let infoLength = Int(bytes[section + 10] & 0x0F) << 8 | Int(bytes[section + 11])
                var entry = section + 12 + infoLength
                var streams: [(UInt8, Int)] = []
                while entry + 5 <= sectionEnd {
                    streams.append((bytes[entry], Int(bytes[entry + 1] & 0x1F) << 8 | Int(bytes[entry + 2])))
                    entry += 5 + (Int(bytes[entry + 3] & 0x0F) << 8 | Int(bytes[entry + 4]))
                }
                return streams
            }
        }
        return []
    }

    /// H.264 (0x1B).
    static let h264StreamType: UInt8 = 0x1B

    /// The picture size of the first H.264 sequence parameter set in the stream's video PID (the first PMT entry
    /// of stream type 0x1B), read from the PES payloads of at most `maxPackets` packets; nil when there is none (HEVC,
    /// no SPS in the bytes, not a transport stream). A variant playlist without `RESOLUTION` is sized this way.
    static func h264PictureSize(_ bytes: [UInt8], maxPackets: Int = 512) -> (width: Int, height: Int)? {
        guard
            let pid = elementaryStreams(bytes, maxPackets: maxPackets).first(where: { $0.type == h264StreamType })?.pid
        else { return nil }
        var elementary: [UInt8] = []
        var offset = 0
        var packets = 0
        var started = false
        while offset + 188 <= bytes.count, packets < maxPackets, elementary.count < 64 << 10 {
            defer {
                offset += 188
                packets += 1
            }
            guard bytes[offset] == 0x47 else { return nil }
            let unitStart = bytes[offset + 1] & 0x40 != 0
            let packetPID = Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2])
            let adaptation = (bytes[offset + 3] >> 4) & 0x3
            guard packetPID == pid, adaptation & 0x1 != 0 else { continue }
            var payload = offset + 4
            if adaptation & 0x2 != 0 { payload += 1 + Int(bytes[payload]) }
            guard payload < offset + 188 else { continue }
            if unitStart {
                // PES header (ISO/IEC 13818-1 §2.4.3.6): 00 00 01, stream_id, length (2), flags (2), header length.
                guard payload + 9 <= offset + 188, bytes[payload] == 0, bytes[payload + 1] == 0,
                    bytes[payload + 2] == 1
                else { continue }
                payload += 9 + Int(bytes[payload + 8])
                started = true
            }
            guard started, payload < offset + 188 else { continue }
            elementary += bytes[payload..<(offset + 188)]
        }
        // Annex B: NAL units after 00 00 01 start codes.
        var index = 0
        while index + 3 < elementary.count {
            if elementary[index] == 0, elementary[index + 1] == 0, elementary[index + 2] == 1 {
                let start = index + 3
                if elementary[start] & 0x1F == 7, let size = H264SPS.pictureSize(nal: elementary[start...]) {
                    return size
                }
                index = start
            } else {
                index += 1
            }
        }
        return nil
    }
}
