import Findings
import Foundation
import StrictJSON

/// Why a verifier cannot be built (the tool cannot go on). Invalid passes are never errors.
public enum PassVerifierError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A `--trust` file cannot be read or holds no certificate.
    case trustFile(path: String, reason: String)
    /// The bundled Apple certificates are missing or damaged (a packaging bug).
    case resourceMissing(String)
    /// OpenSSL could not allocate its structures.
    case openSSL(String)

    /// A one-line reason for the CLI's `Error:` line.
    public var description: String {
        switch self {
        case .trustFile(let path, let reason): "trust file \(path): \(reason)"
        case .resourceMissing(let reason): reason
        case .openSSL(let reason): "OpenSSL: \(reason)"
        }
    }
}

/// What pass.json says, for reports.
public struct PassSummary: Sendable, Hashable {
    /// The style key: `boardingPass`, `coupon`, `eventTicket`, `generic` or `storeCard` (`nil` when not exactly one).
    public var style: String?
    /// `organizationName`: who issued the pass.
    public var organizationName: String?
    /// `description`: the pass's accessibility description.
    public var description: String?
    /// `serialNumber`: unique per pass within its Pass Type ID.
    public var serialNumber: String?
    /// `passTypeIdentifier`, which the signer certificate must match.
    public var passTypeIdentifier: String?
    /// `teamIdentifier`, which the signer certificate's OU must match.
    public var teamIdentifier: String?
    /// `expirationDate` as written in pass.json.
    public var expirationDate: String?
    /// Whether pass.json carries an `nfc` dictionary.
    public var hasNFC: Bool

    init(
        style: String?, organizationName: String?, description: String?, serialNumber: String?,
        passTypeIdentifier: String?, teamIdentifier: String?, expirationDate: String?, hasNFC: Bool
    ) {
        self.style = style
        self.organizationName = organizationName
        self.description = description
        self.serialNumber = serialNumber
        self.passTypeIdentifier = passTypeIdentifier
        self.teamIdentifier = teamIdentifier
        self.expirationDate = expirationDate
        self.hasNFC = hasNFC
    }

    init(object: JSONObject, style: String?) {
        self.style = style
        organizationName = object["organizationName"]?.stringValue
        description = object["description"]?.stringValue
        serialNumber = object["serialNumber"]?.stringValue
        passTypeIdentifier = object["passTypeIdentifier"]?.stringValue
        teamIdentifier = object["teamIdentifier"]?.stringValue
        expirationDate = object["expirationDate"]?.stringValue
        hasNFC = object["nfc"] != nil
    }

    /// `{"style","organizationName","description","serialNumber","passTypeIdentifier","teamIdentifier","expirationDate","nfc"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("style", .optional(style)), ("organizationName", .optional(organizationName)),
                ("description", .optional(description)), ("serialNumber", .optional(serialNumber)),
                ("passTypeIdentifier", .optional(passTypeIdentifier)), ("teamIdentifier", .optional(teamIdentifier)),
                ("expirationDate", .optional(expirationDate)), ("nfc", .bool(hasNFC)),
            ]))
    }
}

/// What a fleet audit compares across passes, read from pass.json and the bytes. Secrets stay out: the
/// authentication token and barcode messages are kept only as SHA-256 digests.
public struct PassFacts: Sendable, Hashable {
    /// Lower-case hex SHA-256 of the whole `.pkpass` (two passes with one serial and different digests differ).
    public var sha256: String
    /// `voided: true`.
    public var voided: Bool
    /// `webServiceURL` as written (the caller redacts it for output).
    public var webServiceURL: String?
    /// SHA-256 hex of `authenticationToken`; `nil` when there is none.
    public var authenticationTokenDigest: String?
    /// SHA-256 hex of each distinct barcode message (`barcodes[].message` and the legacy `barcode.message`).
    public var barcodeDigests: [String]
}

/// Who signed the pass, read from the signer certificate and the CMS signature.
public struct PassSigner: Sendable, Hashable {
    /// The certificate's UID (the Pass Type ID it was issued for).
    public var passTypeIdentifier: String?
    /// The certificate's OU (the Apple team).
    public var teamIdentifier: String?
    /// The certificate's O (the developer's legal name).
    public var organization: String?
    /// The full subject, `UID=…, CN=…, OU=…, O=…, C=…`.
    public var subject: String
    /// The full issuer name.
    public var issuer: String
    /// Upper-case hex serial number.
    public var serialNumber: String
    /// The WWDR intermediate generation that issued the certificate ("G1"…"G8"), `nil` when not Apple's.
    public var issuingGeneration: String?
    /// From the CMS `signingTime` signed attribute.
    public var signingTime: Date?
    /// Start of the certificate's validity.
    public var notBefore: Date?
    /// End of the certificate's validity (after it, updates to the pass need a new certificate).
    public var notAfter: Date?
    /// "sha1" or "sha256".
    public var digestAlgorithm: String?
    /// "issuerAndSerialNumber" or "subjectKeyIdentifier".
    public var signerIdentifier: String?
    /// Whether the certificate is NFC-enabled (CN "Pass Type ID with NFC", extension …6.1.26).
    public var nfcEnabled: Bool

    /// `{"passTypeIdentifier","teamIdentifier","organization","subject","issuer","serialNumber",
    /// "issuingGeneration","signingTime","notBefore","notAfter","digestAlgorithm","signerIdentifier","nfcEnabled"}`,
    /// dates as ISO 8601 UTC.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("passTypeIdentifier", .optional(passTypeIdentifier)), ("teamIdentifier", .optional(teamIdentifier)),
                ("organization", .optional(organization)), ("subject", .string(subject)), ("issuer", .string(issuer)),
                ("serialNumber", .string(serialNumber)), ("issuingGeneration", .optional(issuingGeneration)),
                ("signingTime", .optional(signingTime.map(formatDate))),
                ("notBefore", .optional(notBefore.map(formatDate))),
                ("notAfter", .optional(notAfter.map(formatDate))), ("digestAlgorithm", .optional(digestAlgorithm)),
                ("signerIdentifier", .optional(signerIdentifier)), ("nfcEnabled", .bool(nfcEnabled)),
            ]))
    }
}

/// The verdict on one pass: a value, never a throw.
public struct PassVerification: Sendable, Hashable {
    /// Where the pass came from: a file path or a URL (already redacted).
    public var source: String
    /// True when no finding is an error.
    public var valid: Bool { !findings.contains { $0.severity == .error } }
    /// Every finding, in the order the checks ran (archive, manifest, signature, certificate, pass.json, images,
    /// localization).
    public var findings: [Finding]
    /// `nil` when the signer certificate could not be found.
    public var signer: PassSigner?
    /// `nil` when pass.json is missing or unreadable.
    public var summary: PassSummary?
    /// What `pass audit` compares across a fleet; `nil` when pass.json is missing or unreadable. Not in ``json``.
    public var facts: PassFacts?

    /// A verdict without pass contents, for a pass that never reached the verifier (a download that failed):
    /// the caller's findings say why. `source` is redacted here.
    public init(source: String, findings: [Finding]) {
        self.init(source: Redaction.redactURL(source), findings: findings, signer: nil, summary: nil)
    }

    init(source: String, findings: [Finding], signer: PassSigner?, summary: PassSummary?) {
        self.source = source
        self.findings = findings
        self.signer = signer
        self.summary = summary
    }

    /// Whether ``source`` is a URL rather than a path.
    public var sourceIsURL: Bool { source.hasPrefix("http://") || source.hasPrefix("https://") }

    /// `{"path" or "url", "valid", "summary", "signer", "findings":[{"severity","code","message","path"}]}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                (sourceIsURL ? "url" : "path", .string(source)), ("valid", .bool(valid)),
                ("summary", summary?.json ?? .null), ("signer", signer?.json ?? .null),
                ("findings", .array(findings.map(\.json))),
            ]))
    }
}

/// One file inside a pass archive.
public struct PassFile: Sendable, Hashable {
    /// The path inside the archive.
    public var name: String
    /// Uncompressed size in bytes.
    public var size: Int
    /// Size inside the archive in bytes.
    public var compressedSize: Int
    /// Lower-case hex SHA-1 (what manifest.json lists).
    public var sha1: String

    /// `{"name","size","compressedSize","sha1"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("name", .string(Redaction.redactText(name))), ("size", .int(size)),
                ("compressedSize", .int(compressedSize)), ("sha1", .string(sha1)),
            ]))
    }
}

/// One certificate embedded in the signature.
public struct PassCertificate: Sendable, Hashable {
    /// The subject, `C=US, O=Apple Inc., …` in the certificate's order.
    public var subject: String
    /// The issuer name.
    public var issuer: String
    /// Upper-case hex serial number.
    public var serialNumber: String
    /// Start of validity.
    public var notBefore: Date?
    /// End of validity.
    public var notAfter: Date?
    /// Lower-case hex SHA-256 of the DER certificate.
    public var sha256Fingerprint: String
    /// "G1"…"G8" for Apple WWDR intermediates.
    public var wwdrGeneration: String?
    /// Whether this is the certificate that signed the pass.
    public var isSigner: Bool

    /// `{"subject","issuer","serialNumber","notBefore","notAfter","sha256","wwdrGeneration","signer"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("subject", .string(subject)), ("issuer", .string(issuer)), ("serialNumber", .string(serialNumber)),
                ("notBefore", .optional(notBefore.map(formatDate))), ("notAfter", .optional(notAfter.map(formatDate))),
                ("sha256", .string(sha256Fingerprint)), ("wwdrGeneration", .optional(wwdrGeneration)),
                ("signer", .bool(isSigner)),
            ]))
    }
}

/// `pass inspect`: what is inside a pass, plus its verification.
public struct PassInspection: Sendable, Hashable {
    /// Every file of the archive, in archive order (empty when the archive could not be read).
    public var files: [PassFile]
    /// The certificates embedded in the signature, in order.
    public var certificates: [PassCertificate]
    /// The full verification of the same bytes.
    public var verification: PassVerification

    /// `{"path" or "url", "valid", "summary", "signer", "files", "certificates", "findings"}`.
    public var json: JSONValue {
        var object = verification.json.objectValue ?? JSONObject()
        let findings = object["findings"] ?? .array([])
        object["files"] = .array(files.map(\.json))
        object["certificates"] = .array(certificates.map(\.json))
        object["findings"] = nil
        object["findings"] = findings
        return .object(object)
    }
}

/// ISO 8601 UTC with seconds, e.g. `2024-06-27T18:06:53Z`. Hand-formatted: `String(format:)` goes through
/// Foundation's locale machinery, which showed up in profiles of the verify loop.
func formatDate(_ date: Date) -> String {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let year = String(parts.tm_year + 1900)
    let paddedYear = String(repeating: "0", count: max(0, 4 - year.count)) + year
    return "\(paddedYear)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):"
        + "\(two(parts.tm_sec))Z"
}
