internal import CZip
import Findings

/// One file of a pass archive, inflated.
struct ArchiveEntry {
    var name: String
    var compressedSize: Int
    var data: [UInt8]
}

/// Reads a `.pkpass` ZIP with libzip from memory (rules A1–A5, A7).
///
/// Order matters for safety: the archive size and the end-of-central-directory entry count are checked on
/// the raw bytes before libzip parses anything, and every entry's declared sizes, name, encryption and
/// type are checked before the first byte is inflated. Inflating then reads at most the declared size
/// plus one byte per entry, so lying headers cannot make memory grow.
enum PassArchiveReader {
    struct Result {
        /// The files, in archive order; empty when the archive could not be read safely.
        var entries: [ArchiveEntry] = []
        var findings: [Finding] = []
        /// False when an archive-level error stopped reading (nothing after this stage is meaningful).
        var readable: Bool { !findings.contains { $0.severity == .error } }
    }

    static func read(_ bytes: [UInt8], limits: PassLimits) -> Result {
        var result = Result()
        guard bytes.count <= limits.maxArchiveBytes else {
            result.findings.append(
                .error(
                    PassFindingCode.archiveTooLarge,
                    "the archive is \(bytes.count) bytes; the limit is \(limits.maxArchiveBytes) bytes"))
            return result
        }
        let startsLikeZip = bytes.starts(with: [0x50, 0x4B, 0x03, 0x04])
        guard let declaredEntries = CentralDirectory.declaredEntryCount(bytes) else {
            if startsLikeZip || bytes.starts(with: [0x50, 0x4B]) {
                result.findings.append(
                    .error(
                        PassFindingCode.archiveTruncated,
                        "the archive starts like a ZIP but has no end-of-central-directory record (truncated?)"))
            } else {
                result.findings.append(
                    .error(PassFindingCode.archiveNotZip, "not a ZIP archive (\(describeMagic(bytes)))"))
            }
            return result
        }
        guard declaredEntries <= limits.maxEntries else {
            result.findings.append(
                .error(
                    PassFindingCode.archiveTooManyEntries,
                    "the archive declares \(declaredEntries) entries; the limit is \(limits.maxEntries)"))
            return result
        }
        var openFindings: [Finding] = []
        bytes.withUnsafeBytes { raw in
            withArchive(raw, looksLikeZip: startsLikeZip, findings: &openFindings) { archive in
                readEntries(archive, limits: limits, into: &result)
            }
        }
        result.findings = openFindings + result.findings
        if result.readable && !startsLikeZip && !result.entries.isEmpty {
            result.findings.append(
                .warning(PassFindingCode.archivePrefixed, "the archive has bytes before its first ZIP entry"))
        }
        return result
    }

    private static func describeMagic(_ bytes: [UInt8]) -> String {
        if bytes.isEmpty { return "empty input" }
        return "starts with "
            + bytes.prefix(4).map { byte in
                let hex = Hex.encode([byte])
                return (0x20..<0x7F).contains(byte) ? "'\(Character(UnicodeScalar(byte)))'" : "0x\(hex)"
            }.joined(separator: " ")
    }

    /// Opens a read-only libzip archive over `raw` (no copy) for the duration of `body`.
    private static func withArchive(
        _ raw: UnsafeRawBufferPointer, looksLikeZip: Bool, findings: inout [Finding], _ body: (OpaquePointer) -> Void
    ) {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(raw.baseAddress, zip_uint64_t(raw.count), 0, &error) else {
            findings.append(.error(PassFindingCode.archiveUnreadable, "libzip: \(zipErrorText(&error))"))
            return
        }
        guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
            zip_source_free(source)  // on failure the source still belongs to us
            let code = zip_error_code_zip(&error)
            let text = zipErrorText(&error)
            switch code {
            case ZIP_ER_NOZIP where looksLikeZip:
                findings.append(
                    .error(
                        PassFindingCode.archiveCorrupt,
                        "the archive starts like a ZIP but its central directory is unreadable")
                )
            case ZIP_ER_NOZIP:
                findings.append(.error(PassFindingCode.archiveNotZip, "not a ZIP archive (libzip: \(text))"))
            case ZIP_ER_INCONS:
                findings.append(
                    .error(PassFindingCode.archiveCorrupt, "the ZIP headers contradict each other: \(text)"))
            default:
                findings.append(.error(PassFindingCode.archiveUnreadable, "libzip cannot open the archive: \(text)"))
            }
            return
        }
        defer { zip_discard(archive) }  // frees the source too; read-only, nothing to write back
        body(archive)
    }

    private struct PlannedEntry {
        var index: zip_uint64_t
        var name: String
        var size: Int
        var compressedSize: Int
    }

    private static func readEntries(_ archive: OpaquePointer, limits: PassLimits, into result: inout Result) {
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0, count <= Int64(limits.maxEntries) else {
            result.findings.append(
                .error(
                    PassFindingCode.archiveTooManyEntries,
                    "the archive has \(count) entries; the limit is \(limits.maxEntries)"))
            return
        }
        var planned: [PlannedEntry] = []
        var seen: Set<String> = []
        var seenLowercased: [String: String] = [:]
        var total = 0
        for index in 0..<zip_uint64_t(count) {
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(archive, index, 0, &stat) == 0, let rawName = stat.name else {
                result.findings.append(
                    .error(PassFindingCode.archiveUnreadable, "cannot read the header of entry \(index)"))
                continue
            }
            let name = String(cString: rawName)
            if let problem = unsafePathProblem(name) {
                result.findings.append(
                    .error(PassFindingCode.archiveUnsafePath, "entry name \(quoted(name)) \(problem)", path: name))
                continue
            }
            if !seen.insert(name).inserted {
                result.findings.append(
                    .error(
                        PassFindingCode.archiveDuplicateName, "the archive holds \(quoted(name)) more than once",
                        path: name))
                continue
            }
            // Names equal but for case clash on case-insensitive file systems (a Mac unpacking the pass).
            if let other = seenLowercased.updateValue(name, forKey: name.lowercased()) {
                result.findings.append(
                    .warning(
                        PassFindingCode.archiveCaseDuplicate,
                        "\(quoted(name)) and \(quoted(other)) differ only in case",
                        path: name))
            }
            if ia_zip_entry_is_symlink(archive, index) == 1 {
                result.findings.append(
                    .error(PassFindingCode.archiveSymlink, "entry \(quoted(name)) is a symbolic link", path: name))
                continue
            }
            if stat.valid & zip_uint64_t(ZIP_STAT_ENCRYPTION_METHOD) != 0 && stat.encryption_method != ZIP_EM_NONE {
                result.findings.append(
                    .error(PassFindingCode.archiveEncrypted, "entry \(quoted(name)) is encrypted", path: name))
                continue
            }
            if name.hasSuffix("/") { continue }  // a directory entry carries no data
            if stat.comp_method != ZIP_CM_STORE && stat.comp_method != ZIP_CM_DEFLATE {
                result.findings.append(
                    .error(
                        PassFindingCode.archiveUnsupportedCompression,
                        "entry \(quoted(name)) uses compression method \(stat.comp_method); only stored and deflated are read",
                        path: name))
                continue
            }
            let size = Int(clamping: stat.size)
            let compressedSize = Int(clamping: stat.comp_size)
            if size > limits.maxEntryBytes {
                result.findings.append(
                    .error(
                        PassFindingCode.archiveEntryTooLarge,
                        "entry \(quoted(name)) inflates to \(size) bytes; the limit is \(limits.maxEntryBytes)",
                        path: name))
                continue
            }
            // Division, not multiplication: a ZIP64 compressed size near Int.max must not overflow.
            if size > limits.ratioFloorBytes && size / max(compressedSize, 1) > limits.maxCompressionRatio {
                result.findings.append(
                    .error(
                        PassFindingCode.archiveCompressionRatio,
                        "entry \(quoted(name)) inflates \(compressedSize) bytes to \(size) bytes (zip bomb?)",
                        path: name))
                continue
            }
            total += size
            planned.append(PlannedEntry(index: index, name: name, size: size, compressedSize: compressedSize))
        }
        if total > limits.maxTotalBytes {
            result.findings.append(
                .error(
                    PassFindingCode.archiveTotalTooLarge,
                    "the entries inflate to \(total) bytes in all; the limit is \(limits.maxTotalBytes)"))
        }
        guard result.readable else { return }
        for entry in planned {
            guard let data = inflate(archive, entry, findings: &result.findings) else { continue }
            result.entries.append(ArchiveEntry(name: entry.name, compressedSize: entry.compressedSize, data: data))
        }
        reportLayout(result.entries, findings: &result.findings)
    }

    /// Reads one entry, never more than its declared size plus one byte.
    private static func inflate(_ archive: OpaquePointer, _ entry: PlannedEntry, findings: inout [Finding]) -> [UInt8]?
    {
        guard let file = zip_fopen_index(archive, entry.index, 0) else {
            let text = zipErrorText(zip_get_error(archive))
            findings.append(
                .error(
                    PassFindingCode.archiveUnreadable, "cannot open entry \(quoted(entry.name)): \(text)",
                    path: entry.name))
            return nil
        }
        defer { zip_fclose(file) }
        var data = [UInt8](repeating: 0, count: entry.size + 1)
        var filled = 0
        while filled < data.count {
            let read = data.withUnsafeMutableBytes { buffer in
                zip_fread(file, buffer.baseAddress! + filled, zip_uint64_t(buffer.count - filled))
            }
            if read < 0 {
                let text = zipErrorText(zip_file_get_error(file))
                findings.append(
                    .error(
                        PassFindingCode.archiveCorruptEntry, "entry \(quoted(entry.name)) cannot be inflated: \(text)",
                        path: entry.name))
                return nil
            }
            if read == 0 { break }
            filled += Int(read)
        }
        guard filled == entry.size else {
            findings.append(
                .error(
                    PassFindingCode.archiveSizeMismatch,
                    "entry \(quoted(entry.name)) declares \(entry.size) bytes but inflates to \(filled > entry.size ? "more" : "\(filled)")",
                    path: entry.name))
            return nil
        }
        data.removeLast()
        return data
    }

    /// A2 (the three required files at the root) and A7 (junk files).
    private static func reportLayout(_ entries: [ArchiveEntry], findings: inout [Finding]) {
        let rootNames = Set(entries.map(\.name))
        for required in ["pass.json", "manifest.json", "signature"] where !rootNames.contains(required) {
            if let nested = entries.first(where: { $0.name.hasSuffix("/" + required) }) {
                findings.append(
                    .error(
                        PassFindingCode.archiveNotAtRoot,
                        "\(required) must sit at the archive root, found \(quoted(nested.name))", path: nested.name))
            }
        }
        for entry in entries {
            let base = entry.name.split(separator: "/").last.map(String.init) ?? entry.name
            if entry.name.hasPrefix("__MACOSX/") || base.hasPrefix("._") || base == ".DS_Store" || base == "Thumbs.db" {
                findings.append(
                    .warning(
                        PassFindingCode.archiveJunk, "\(quoted(entry.name)) is operating-system clutter",
                        path: entry.name)
                )
            }
        }
    }

    private static func unsafePathProblem(_ name: String) -> String? {
        let bytes = name.utf8
        if bytes.isEmpty { return "is empty" }
        if bytes.contains(UInt8(ascii: "\\")) { return "contains a backslash" }
        if bytes.first == UInt8(ascii: "/") { return "is an absolute path" }
        if bytes.count >= 2, bytes.dropFirst().first == UInt8(ascii: ":") { return "starts with a drive letter" }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "contains control characters" }
        if bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains(where: {
            $0.elementsEqual("..".utf8)
        }) {
            return "contains '..' (zip slip)"
        }
        return nil
    }
}

func quoted(_ name: String) -> String { "\"\(name)\"" }

/// libzip's text for an error: the one place its `zip_error_t` is turned into words.
private func zipErrorText(_ error: UnsafeMutablePointer<zip_error_t>?) -> String {
    guard let error, let text = zip_error_strerror(error) else { return "unknown libzip error" }
    return String(cString: text)
}

/// Reads the end-of-central-directory record straight from the bytes, so the entry count is known before
/// libzip allocates anything for the central directory.
enum CentralDirectory {
    /// The entry count the archive declares (ZIP64 aware), `nil` when there is no EOCD record.
    static func declaredEntryCount(_ bytes: [UInt8]) -> Int? {
        let minimum = 22
        guard bytes.count >= minimum else { return nil }
        let lowest = max(0, bytes.count - minimum - 0xFFFF)
        var offset = bytes.count - minimum
        while offset >= lowest {
            if bytes[offset] == 0x50, bytes[offset + 1] == 0x4B, bytes[offset + 2] == 0x05, bytes[offset + 3] == 0x06 {
                let total = Int(le16(bytes, offset + 10))
                if total == 0xFFFF, offset >= 20, le32(bytes, offset - 20) == 0x0706_4B50 {
                    let zip64Offset = Int(clamping: le64(bytes, offset - 12))
                    if zip64Offset >= 0, zip64Offset + 56 <= bytes.count, le32(bytes, zip64Offset) == 0x0606_4B50 {
                        return Int(clamping: le64(bytes, zip64Offset + 32))
                    }
                    return nil
                }
                return total
            }
            offset -= 1
        }
        return nil
    }

    private static func le16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    private static func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(le16(bytes, at)) | UInt32(le16(bytes, at + 2)) << 16
    }
    private static func le64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        UInt64(le32(bytes, at)) | UInt64(le32(bytes, at + 4)) << 32
    }
}
