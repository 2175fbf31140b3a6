import Findings
import StrictJSON

/// Rules B1–B3: manifest.json maps every file but itself and `signature` to its lower-case hex SHA-1.
enum ManifestChecker {
    static func check(
        manifest: [UInt8], entries: [ArchiveEntry], digester: Digester, limits: PassLimits
    ) -> [Finding] {
        var findings: [Finding] = []
        let parsed: (value: JSONValue, warnings: [JSONWarning])
        do {
            parsed = try JSON.parseDocument(manifest, options: JSONParseOptions(maxDepth: limits.maxJSONDepth))
        } catch {
            return [
                .error(
                    PassFindingCode.manifestInvalidJSON, "manifest.json is not valid JSON: \(error)",
                    path: "manifest.json")
            ]
        }
        for warning in parsed.warnings {
            findings.append(
                .warning(PassFindingCode.manifestJSONWarning, "manifest.json: \(warning)", path: "manifest.json"))
        }
        guard let object = parsed.value.objectValue else {
            return findings + [
                .error(
                    PassFindingCode.manifestNotObject,
                    "manifest.json is a JSON \(parsed.value.typeName), not an object",
                    path: "manifest.json")
            ]
        }
        var files: [String: ArchiveEntry] = [:]
        for entry in entries where entry.name != "manifest.json" && entry.name != "signature" {
            files[entry.name] = entry
        }
        var listed: Set<String> = []
        for (name, value) in object {
            listed.insert(name)
            if name == "signature" || name == "manifest.json" {
                findings.append(
                    .error(
                        PassFindingCode.manifestListsExcluded, "manifest.json must not list \(quoted(name))", path: name
                    ))
                continue
            }
            guard let text = value.stringValue else {
                findings.append(
                    .error(
                        PassFindingCode.manifestInvalidHash,
                        "the hash of \(quoted(name)) is a \(value.typeName), not a string",
                        path: name))
                continue
            }
            guard let expected = Hex.decode(text), expected.count == 20 else {
                let why =
                    Hex.decode(text)?.count == 32
                    ? "is a SHA-256 (Wallet Orders use SHA-256; passes need SHA-1)" : "is not 40 hex digits"
                findings.append(
                    .error(PassFindingCode.manifestInvalidHash, "the hash of \(quoted(name)) \(why)", path: name))
                continue
            }
            if text.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }) {
                findings.append(
                    .warning(
                        PassFindingCode.manifestUppercaseHash, "the hash of \(quoted(name)) is upper-case hex",
                        path: name))
            }
            guard let entry = files[name] else {
                findings.append(
                    .error(
                        PassFindingCode.manifestMissingFile,
                        "manifest.json lists \(quoted(name)) but the archive lacks it",
                        path: name))
                continue
            }
            if !constantTimeEqual(digester.sha1(entry.data), expected) {
                findings.append(
                    .error(
                        PassFindingCode.manifestHashMismatch,
                        "the SHA-1 of \(quoted(name)) differs from manifest.json (changed after signing)", path: name))
            }
        }
        for entry in entries where files[entry.name] != nil && !listed.contains(entry.name) {
            findings.append(
                .error(
                    PassFindingCode.manifestUnlistedFile, "\(quoted(entry.name)) is not listed in manifest.json",
                    path: entry.name))
        }
        return findings
    }
}
