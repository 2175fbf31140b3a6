import Findings
import Foundation

extension PassVerification {
    /// The `--format text` rendering: a verdict line, the signer and pass lines, then one line per finding.
    ///
    /// ```
    /// coffee_club.pkpass: valid (2 warnings)
    ///   pass: storeCard "Coffee Club" by Kudit LLC, serial 669cdc8cd6c36
    ///   signer: pass.com.kudit.temp4 team 3QPV894C33, WWDR G4, signed 2024-07-21T10:02:05Z, expires 2024-10-19T16:52:29Z
    ///   warning pass.cert.wrongIntermediate [signature]: the signature embeds WWDR G1 but …
    /// ```
    public var text: String {
        let errors = findings.count(.error)
        let warnings = findings.count(.warning)
        var counts: [String] = []
        if errors > 0 { counts.append("\(errors) error\(errors == 1 ? "" : "s")") }
        if warnings > 0 { counts.append("\(warnings) warning\(warnings == 1 ? "" : "s")") }
        var lines = [
            "\(source): \(valid ? "valid" : "INVALID")" + (counts.isEmpty ? "" : " (\(counts.joined(separator: ", ")))")
        ]
        if let summary {
            var line = "  pass: \(summary.style ?? "unknown style")"
            if let description = summary.description { line += " \(quoted(description))" }
            if let organization = summary.organizationName { line += " by \(organization)" }
            if let serial = summary.serialNumber { line += ", serial \(serial)" }
            if let expiration = summary.expirationDate { line += ", expires \(expiration)" }
            lines.append(line)
        }
        if let signer {
            var line = "  signer: \(signer.passTypeIdentifier ?? "?") team \(signer.teamIdentifier ?? "?")"
            if let generation = signer.issuingGeneration { line += ", WWDR \(generation)" }
            if let time = signer.signingTime { line += ", signed \(formatDate(time))" }
            if let notAfter = signer.notAfter { line += ", certificate expires \(formatDate(notAfter))" }
            lines.append(line)
        }
        for finding in findings {
            let place = finding.path.map { " [\(Redaction.redactText($0))]" } ?? ""
            lines.append(
                "  \(finding.severity.rawValue) \(finding.code)\(place): \(Redaction.redactText(finding.message))")
        }
        return lines.joined(separator: "\n")
    }
}

extension PassVerifier {
    /// The `.pkpass` and `.pkpasses` files under `directory` (recursively), sorted, for `pass verify DIR`.
    /// Hidden files and folders are skipped, symbolic links are not followed (to files or folders), and paths
    /// are spelled from `directory` as given (`dir/sub/x.pkpass`, not made absolute); a path that is not a
    /// directory yields `[]`.
    ///
    /// `readdir` and its `d_type`, not `FileManager`'s enumerator: asking Foundation whether each URL is a
    /// regular file cost a `stat`, a URL parse and a string conversion per entry — 9% of `pass verify` of a
    /// directory of 1,000 passes (bench/RESULTS.md d).
    public static func passFiles(under directory: String) -> [String] {
        var paths: [String] = []
        walk(directory.hasSuffix("/") ? directory : directory + "/", into: &paths)
        return paths.sorted()
    }

    /// Whether a file name is a pass's or a bundle's: `*.pkpass` or `*.pkpasses`, any case.
    public static func isPassFileName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasSuffix(".pkpass") || lower.hasSuffix(".pkpasses")
    }

    /// Whether a file name or URL path names a bundle (`*.pkpasses`, any case).
    public static func isBundleName(_ name: String) -> Bool {
        name.lowercased().hasSuffix(".pkpasses")
    }

    /// Appends the passes under `prefix` (a directory path ending in `/`) to `paths`.
    private static func walk(_ prefix: String, into paths: inout [String]) {
        guard let stream = opendir(prefix) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            // Read in place: a record `readdir` returns is only `d_reclen` bytes long, so copying the whole
            // `struct dirent` (`entry.pointee`, 256 bytes of name) can read past the end of the buffer — a crash
            // when the buffer ends at a page boundary (seen on a tmpfs directory of 5,000 entries).
            let record = UnsafeRawPointer(entry)
            let name = String(
                cString: (record + MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(
                    to: CChar.self))
            guard !name.hasPrefix(".") else { continue }  // hidden, and `.`/`..`
            let path = prefix + name
            var type = Int(
                record.load(fromByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_type)!, as: UInt8.self))
            if type == Int(DT_UNKNOWN) {  // file systems that do not fill d_type: ask lstat (links stay links)
                var status = stat()
                guard lstat(path, &status) == 0 else { continue }
                let format = status.st_mode & S_IFMT
                type = format == S_IFDIR ? Int(DT_DIR) : format == S_IFREG ? Int(DT_REG) : 0
            }
            if type == Int(DT_DIR) {
                walk(path + "/", into: &paths)
            } else if type == Int(DT_REG), name.utf8.count > 7, Self.isPassFileName(name) {
                paths.append(path)
            }
        }
    }
}

extension PassInspection {
    /// The `pass inspect --format text` rendering: the verification, then the archive's files and the
    /// certificates embedded in the signature.
    public var text: String {
        var lines = [verification.text, "  files:"]
        let width = files.map { String($0.size).count }.max() ?? 1
        for file in files {
            let size = String(file.size)
            lines.append(
                "    \(String(repeating: " ", count: width - size.count))\(size)  \(file.sha1)  "
                    + Redaction.redactText(file.name))
        }
        lines.append("  certificates:")
        for certificate in certificates {
            var line = "    \(certificate.isSigner ? "signer" : "chain ") \(certificate.subject)"
            if let generation = certificate.wwdrGeneration { line += " (WWDR \(generation))" }
            lines.append(line)
            let validity =
                "\(certificate.notBefore.map(formatDate) ?? "?") … \(certificate.notAfter.map(formatDate) ?? "?")"
            lines.append("           issuer \(certificate.issuer); serial \(certificate.serialNumber); \(validity)")
        }
        if certificates.isEmpty { lines.append("    (none)") }
        return lines.joined(separator: "\n")
    }
}
