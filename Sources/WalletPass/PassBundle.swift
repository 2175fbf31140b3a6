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

    /// Verifies a `.pkpasses` bundle held in memory: the outer ZIP gets the bundle limits (``PassLimits/maxBundleBytes``
    /// in all, each entry up to ``PassLimits/maxArchiveBytes``), then each `.pkpass` inside is verified like a
    /// standalone pass with every rule. A bundle inside the bundle is an error and is not opened.
    public func verifyBundle(bytes: [UInt8], source: String) -> PassBundleVerification {
        let source = Redaction.redactURL(source)
        guard bytes.count <= limits.maxBundleBytes else {
            let finding = Finding.error(
                PassFindingCode.bundleTooLarge,
                "the bundle is larger than \(limits.maxBundleBytes >> 20) MiB (\(bytes.count) bytes read)")
            return PassBundleVerification(source: source, findings: [finding], passes: [])
        }
        let outer = bundleLimits
        let archive = PassArchiveReader.read(bytes, limits: outer)
        // The layout rules of a single pass (pass.json at the root, junk files) do not apply to a bundle.
        var findings = archive.findings.filter { $0.code != PassFindingCode.archiveNotAtRoot }
        guard archive.readable else { return PassBundleVerification(source: source, findings: findings, passes: []) }
        var passEntries: [ArchiveEntry] = []
        for entry in archive.entries {
            let name = entry.name.lowercased()
            if name.hasSuffix(".pkpass") {
                passEntries.append(entry)
            } else if name.hasSuffix(".pkpasses") {
                findings.append(nested(entry.name))
            } else {
                findings.append(
                    .warning(
                        PassFindingCode.bundleExtraFile, "\(quoted(entry.name)) in the bundle is not a .pkpass",
                        path: entry.name))
            }
        }
        if passEntries.isEmpty {
            if !findings.contains(where: { $0.code == PassFindingCode.bundleNested }) {
                findings.append(.error(PassFindingCode.bundleEmpty, "the bundle holds no .pkpass file"))
            }
        } else if passEntries.count > PassBundleVerification.maxPasses {
            findings.append(
                .error(
                    PassFindingCode.bundleTooManyPasses,
                    "the bundle holds \(passEntries.count) passes; Wallet adds at most \(PassBundleVerification.maxPasses)"
                ))
        }
        var passes: [PassVerification] = []
        for entry in passEntries {
            let pass = verify(bytes: entry.data, source: source + "#" + entry.name)
            if Self.isBundleShaped(pass), bundleEntryCount(entry.data) > 0 {
                findings.append(nested(entry.name))
            }
            passes.append(pass)
        }
        return PassBundleVerification(source: source, findings: findings, passes: passes)
    }

    /// Verifies a pass or a bundle: a bundle when `bundle` says so (a `.pkpasses` name, an
    /// `application/vnd.apple.pkpasses` download), else a pass — unless the archive has none of pass.json,
    /// manifest.json and signature at its root but holds `.pkpass` files, which is a bundle whatever its name.
    public func verifyPassOrBundle(bytes: [UInt8], source: String, bundle: Bool) -> PassResult {
        if bundle { return .bundle(verifyBundle(bytes: bytes, source: source)) }
        let pass = verify(bytes: bytes, source: source)
        if Self.isBundleShaped(pass), bundleEntryCount(bytes) > 0 {
            return .bundle(verifyBundle(bytes: bytes, source: source))
        }
        return .pass(pass)
    }

    /// Whether a verification failed for want of all three files a pass needs (what a bundle looks like).
    static func isBundleShaped(_ pass: PassVerification) -> Bool {
        let codes = Set(pass.findings.map(\.code))
        return codes.isSuperset(of: [
            PassFindingCode.jsonMissing, PassFindingCode.manifestMissing, PassFindingCode.signatureMissing,
        ])
    }

    /// How many `.pkpass`/`.pkpasses` entries the archive in `bytes` holds (0 when it is no readable ZIP).
    private func bundleEntryCount(_ bytes: [UInt8]) -> Int {
        let outer = bundleLimits
        let archive = PassArchiveReader.read(bytes, limits: outer)
        return archive.entries.filter {
            let name = $0.name.lowercased()
            return name.hasSuffix(".pkpass") || name.hasSuffix(".pkpasses")
        }.count
    }

    /// The limits of a bundle's outer ZIP: the bundle limit in all, each entry a pass up to the archive limit.
    private var bundleLimits: PassLimits {
        var outer = limits
        outer.maxArchiveBytes = limits.maxBundleBytes
        outer.maxEntryBytes = limits.maxArchiveBytes
        outer.maxTotalBytes = limits.maxBundleBytes
        return outer
    }

    private func nested(_ name: String) -> Finding {
        .error(
            PassFindingCode.bundleNested,
            "\(quoted(name)) is a bundle inside the bundle; Wallet adds passes from a bundle, not bundles",
            path: name)
    }
}

/// The verdict on one input of `pass verify`/`pass audit`: a pass or a bundle of passes.
public enum PassResult: Sendable, Hashable {
    case pass(PassVerification)
    case bundle(PassBundleVerification)

    /// The path or redacted URL.
    public var source: String {
        switch self {
        case .pass(let pass): pass.source
        case .bundle(let bundle): bundle.source
        }
    }

    /// The pass's verdict, or the bundle's (no bundle error and every pass in it valid).
    public var valid: Bool {
        switch self {
        case .pass(let pass): pass.valid
        case .bundle(let bundle): bundle.valid
        }
    }

    /// Whether the input was a bundle.
    public var isBundle: Bool {
        if case .bundle = self { return true }
        return false
    }

    /// Every pass verified: the pass itself, or each pass in the bundle.
    public var passes: [PassVerification] {
        switch self {
        case .pass(let pass): [pass]
        case .bundle(let bundle): bundle.passes
        }
    }

    /// The findings about the input itself (a bundle's own; a pass's all).
    public var findings: [Finding] {
        switch self {
        case .pass(let pass): pass.findings
        case .bundle(let bundle): bundle.findings
        }
    }

    /// One verification for reports that hold one per URL (`check`): a pass as it is; a bundle as its own findings
    /// followed by each pass's, their paths prefixed with the pass's entry (`two.pkpass/signature`), the summary
    /// and signer of its first pass.
    public var flattened: PassVerification {
        switch self {
        case .pass(let pass): return pass
        case .bundle(let bundle):
            var findings = bundle.findings
            for pass in bundle.passes {
                let entry = String(pass.source.split(separator: "#").last ?? "")
                findings += pass.findings.map { finding in
                    var prefixed = finding
                    prefixed.path = finding.path.map { entry + "/" + $0 } ?? entry
                    return prefixed
                }
            }
            return PassVerification(
                source: bundle.source, findings: findings, signer: bundle.passes.first?.signer,
                summary: bundle.passes.first?.summary)
        }
    }

    /// A pass's object, or a bundle's with `"bundle": true`.
    public var json: JSONValue {
        switch self {
        case .pass(let pass): return pass.json
        case .bundle(let bundle):
            var object = bundle.json.objectValue ?? JSONObject()
            var ordered = JSONObject()
            for (key, value) in object where key != "findings" && key != "passes" { ordered[key] = value }
            ordered["bundle"] = true
            ordered["findings"] = object["findings"] ?? .array([])
            ordered["passes"] = object["passes"] ?? .array([])
            object = ordered
            return .object(object)
        }
    }

    /// The `--format text` rendering (a bundle: its line and findings, then each pass indented).
    public var text: String {
        switch self {
        case .pass(let pass): return pass.text
        case .bundle(let bundle):
            let count = bundle.passes.count
            var lines = [
                "\(bundle.source): \(bundle.valid ? "valid" : "INVALID") bundle of \(count) pass\(count == 1 ? "" : "es")"
            ]
            for finding in bundle.findings {
                let place = finding.path.map { " [\(Redaction.redactText($0))]" } ?? ""
                lines.append(
                    "  \(finding.severity.rawValue) \(finding.code)\(place): \(Redaction.redactText(finding.message))")
            }
            for pass in bundle.passes {
                lines += pass.text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
            }
            return lines.joined(separator: "\n")
        }
    }
}

/// What the web-service check needs from a pass: where its service is and the token Wallet sends there.
/// The token is a secret: it goes into the `Authorization` header and nowhere else.
public struct PassWebServiceCredentials: Sendable {
    public var webServiceURL: String
    public var passTypeIdentifier: String
    public var serialNumber: String
    public var authenticationToken: String
}

extension PassVerifier {
    /// The credentials of each `.pkpass` in a bundle, by entry name (`nil` for a pass without them), in archive order.
    public func bundleWebServiceCredentials(bytes: [UInt8]) -> [String: PassWebServiceCredentials] {
        let outer = bundleLimits
        var credentials: [String: PassWebServiceCredentials] = [:]
        for entry in PassArchiveReader.read(bytes, limits: outer).entries
        where entry.name.lowercased().hasSuffix(".pkpass") {
            credentials[entry.name] = webServiceCredentials(bytes: entry.data)
        }
        return credentials
    }

    /// The pass's web service credentials from its pass.json; `nil` when it has no `webServiceURL`,
    /// `authenticationToken`, `passTypeIdentifier` or `serialNumber` (or is not a readable pass).
    public func webServiceCredentials(bytes: [UInt8]) -> PassWebServiceCredentials? {
        let archive = PassArchiveReader.read(bytes, limits: limits)
        guard archive.readable, let json = archive.entries.first(where: { $0.name == "pass.json" })?.data,
            let object = try? JSON.parse(
                json, options: JSONParseOptions(maxDepth: limits.maxJSONDepth, allowTrailingCommas: true)),
            let url = object["webServiceURL"]?.stringValue, let token = object["authenticationToken"]?.stringValue,
            let type = object["passTypeIdentifier"]?.stringValue, let serial = object["serialNumber"]?.stringValue
        else { return nil }
        return PassWebServiceCredentials(
            webServiceURL: url, passTypeIdentifier: type, serialNumber: serial, authenticationToken: token)
    }
}
