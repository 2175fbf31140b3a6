import Findings
import StrictJSON

/// The verdict on a `.pkpasses` bundle (rule A6): a ZIP of up to ten `.pkpass` files, each verified on its own.
public struct PassBundleVerification: Sendable, Hashable {
    /// Most passes Wallet adds from one bundle.
    public static let maxPasses = 10

    /// Where the bundle came from (path or redacted URL).
    public var source: String
    /// Findings about the bundle itself (`pass.archive.*`, `pass.bundle.*`).
    public var findings: [Finding]
    /// One verification per `.pkpass` inside, in archive order; each `source` is `bundle#entry`.
    public var passes: [PassVerification]

    /// True when the bundle has no error and every pass in it is valid.
    public var valid: Bool { !findings.contains { $0.severity == .error } && passes.allSatisfy(\.valid) }

    /// `{"path" or "url", "valid", "findings":[…], "passes":[…]}`.
    public var json: JSONValue {
        let isURL = source.hasPrefix("http://") || source.hasPrefix("https://")
        return .object(
            JSONObject([
                (isURL ? "url" : "path", .string(source)), ("valid", .bool(valid)),
                ("findings", .array(findings.map(\.json))), ("passes", .array(passes.map(\.json))),
            ]))
    }
}

extension PassVerifier {
    /// ``verifyBundle(bytes:source:)`` for a `.pkpasses` file; an unreadable file is a finding.
    public func verifyBundle(fileAt path: String) -> PassBundleVerification {
        guard let bytes = readFile(path) else {
            return PassBundleVerification(
                source: path, findings: [.error(PassFindingCode.fileUnreadable, "cannot read \(path)")], passes: [])
        }
        return verifyBundle(bytes: bytes, source: path)
    }

    /// Verifies a `.pkpasses` bundle held in memory: the outer ZIP gets the same limits as a pass, then each
    /// `.pkpass` inside is verified like a standalone pass.
    public func verifyBundle(bytes: [UInt8], source: String) -> PassBundleVerification {
        let source = Redaction.redactURL(source)
        let archive = PassArchiveReader.read(bytes, limits: limits)
        // The layout rules of a single pass (pass.json at the root, junk files) do not apply to a bundle.
        var findings = archive.findings.filter { $0.code != PassFindingCode.archiveNotAtRoot }
        guard archive.readable else { return PassBundleVerification(source: source, findings: findings, passes: []) }
        let passEntries = archive.entries.filter { $0.name.lowercased().hasSuffix(".pkpass") }
        for entry in archive.entries where !entry.name.lowercased().hasSuffix(".pkpass") {
            findings.append(
                .warning(
                    PassFindingCode.bundleExtraFile, "\(quoted(entry.name)) in the bundle is not a .pkpass",
                    path: entry.name))
        }
        if passEntries.isEmpty {
            findings.append(.error(PassFindingCode.bundleEmpty, "the bundle holds no .pkpass file"))
        } else if passEntries.count > PassBundleVerification.maxPasses {
            findings.append(
                .error(
                    PassFindingCode.bundleTooManyPasses,
                    "the bundle holds \(passEntries.count) passes; Wallet adds at most \(PassBundleVerification.maxPasses)"
                ))
        }
        let passes = passEntries.map { verify(bytes: $0.data, source: source + "#" + $0.name) }
        return PassBundleVerification(source: source, findings: findings, passes: passes)
    }
}
