internal import CZip

/// A minimal ZIP writer for tests: it writes exactly what it is told, including what a real writer never
/// would (lying sizes, `..` names, duplicates, symlinks, the encryption flag), so hostile archives can be
/// built in code.
struct ZipWriter {
    struct Entry {
        var name: String
        var data: [UInt8]
        /// Raw deflate bytes; `nil` stores `data` uncompressed.
        var deflated: [UInt8]?
        /// Overrides the uncompressed size written in both headers.
        var declaredSize: Int?
        /// Compression method number to write (defaults to 0 stored / 8 deflated).
        var method: UInt16?
        var symlink = false
        var encrypted = false

        init(_ name: String, _ data: [UInt8], deflated: [UInt8]? = nil) {
            self.name = name
            self.data = data
            self.deflated = deflated
        }
    }

    static func archive(_ entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let offset = out.count
            let payload = entry.deflated ?? entry.data
            let method = entry.method ?? (entry.deflated == nil ? 0 : 8)
            let crc = CRC32.checksum(entry.data)
            let size = UInt32(truncatingIfNeeded: entry.declaredSize ?? entry.data.count)
            let name = Array(entry.name.utf8)
            let flags: UInt16 = entry.encrypted ? 1 : 0
            out += le32(0x0403_4B50) + le16(20) + le16(flags) + le16(method) + le32(0) + le32(crc)
            out += le32(UInt32(payload.count)) + le32(size) + le16(UInt16(name.count)) + le16(0) + name + payload
            let madeBy: UInt16 = entry.symlink ? 3 << 8 | 20 : 20
            let external: UInt32 = entry.symlink ? UInt32(0o120777) << 16 : 0
            central += le32(0x0201_4B50) + le16(madeBy) + le16(20) + le16(flags) + le16(method) + le32(0) + le32(crc)
            central += le32(UInt32(payload.count)) + le32(size) + le16(UInt16(name.count)) + le16(0) + le16(0)
            central += le16(0) + le16(0) + le32(external) + le32(UInt32(offset)) + name
        }
        let centralOffset = out.count
        out += central
        let count = entries.count
        if count > 0xFFFF {
            let zip64Offset = out.count
            out += le32(0x0606_4B50) + le64(44) + le16(45) + le16(45) + le32(0) + le32(0)
            out += le64(UInt64(count)) + le64(UInt64(count)) + le64(UInt64(central.count)) + le64(UInt64(centralOffset))
            out += le32(0x0706_4B50) + le32(0) + le64(UInt64(zip64Offset)) + le32(1)
        }
        let shortCount = UInt16(min(count, 0xFFFF))
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(shortCount) + le16(shortCount)
        out += le32(UInt32(central.count)) + le32(UInt32(centralOffset)) + le16(0)
        return out
    }

    /// Raw deflate of `data`, produced by libzip (write an archive in memory, then cut the entry's data out).
    static func deflate(_ data: [UInt8]) -> [UInt8] {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        let target = zip_source_buffer_create(nil, 0, 0, &error)!
        zip_source_keep(target)
        defer { zip_source_free(target) }
        let archive = zip_open_from_source(target, ZIP_TRUNCATE, &error)!
        data.withUnsafeBytes { raw in
            let source = zip_source_buffer_create(raw.baseAddress, zip_uint64_t(raw.count), 0, &error)!
            precondition(zip_file_add(archive, "x", source, 0) == 0)
            precondition(zip_set_file_compression(archive, 0, ZIP_CM_DEFLATE, 9) == 0)
            precondition(zip_close(archive) == 0)  // writes while `raw` is still alive
        }
        precondition(zip_source_open(target) == 0)
        defer { zip_source_close(target) }
        var written: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let count = zip_source_read(target, &chunk, zip_uint64_t(chunk.count)), count > 0 {
            written += chunk[0..<Int(count)]
        }
        let compressedSize = Int(written[18]) | Int(written[19]) << 8 | Int(written[20]) << 16 | Int(written[21]) << 24
        let nameLength = Int(written[26]) | Int(written[27]) << 8
        let extraLength = Int(written[28]) | Int(written[29]) << 8
        let start = 30 + nameLength + extraLength
        return Array(written[start..<(start + compressedSize)])
    }

    private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func le32(_ value: UInt32) -> [UInt8] { le16(UInt16(value & 0xFFFF)) + le16(UInt16(value >> 16)) }
    private static func le64(_ value: UInt64) -> [UInt8] {
        le32(UInt32(value & 0xFFFF_FFFF)) + le32(UInt32(value >> 32))
    }
}

/// CRC-32 (ISO-HDLC), as ZIP and PNG use it.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
