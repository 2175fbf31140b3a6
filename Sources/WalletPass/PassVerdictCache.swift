import Findings
import Foundation
import StrictJSON

/// Where a verifier keeps verdicts between runs: two functions over self-contained records under a hex key, so
/// the caller can back it with the asset store's record area, a remote cache, or both.
public struct PassVerdictCache: Sendable {
    /// The record under a key, `nil` when absent.
    public var load: @Sendable (String) -> Data?
    /// Saves a record under a key (best effort).
    public var save: @Sendable (String, Data) -> Void

    public init(load: @escaping @Sendable (String) -> Data?, save: @escaping @Sendable (String, Data) -> Void) {
        self.load = load
        self.save = save
    }
}

/// A pass's verdict with the two time-dependent findings kept conditional: it is a pure function of the bytes,
/// the trust anchors, the limits and the verifier's version, so it can be cached under those; ``at(_:source:)``
/// then decides "expired since" (`pass.cert.expiredSince`) and "expired" (`pass.json.expired`) for any "now".
struct TimelessVerdict: Sendable, Hashable {
    /// Bump when a rule changes what the verifier reports: older records are then never read.
    static let version = 1

    /// Every finding the pass has at the end of time, in check order.
    var findings: [Finding]
    var signer: PassSigner?
    var summary: PassSummary?
    var facts: PassFacts?
    /// `pass.cert.expiredSince` holds when this is before "now" (the signer's notAfter).
    var certificateExpiry: Date?
    /// `pass.json.expired` holds when this is before "now" (pass.json's expirationDate).
    var passExpiry: Date?

    /// The verification at `now`, reported for `source` (already redacted).
    func at(_ now: Date, source: String) -> PassVerification {
        var kept = findings
        if certificateExpiry.map({ $0 >= now }) ?? true {
            kept.removeAll { $0.code == PassFindingCode.certExpiredSince }
        }
        if passExpiry.map({ $0 >= now }) ?? true { kept.removeAll { $0.code == PassFindingCode.jsonExpired } }
        var verification = PassVerification(source: source, findings: kept, signer: signer, summary: summary)
        verification.facts = facts
        return verification
    }

    // MARK: - the record (compact JSON; dates as seconds since 1970)

    var record: Data {
        func date(_ value: Date?) -> JSONValue { value.map { .number(JSONNumber($0.timeIntervalSince1970)) } ?? .null }
        var object = JSONObject([
            ("v", .int(Self.version)),
            (
                "findings",
                .array(
                    findings.map {
                        .array([
                            .string($0.severity.rawValue), .string($0.code), .string($0.message), .optional($0.path),
                        ])
                    })
            ),
            ("certificateExpiry", date(certificateExpiry)), ("passExpiry", date(passExpiry)),
        ])
        if let signer {
            object["signer"] = .array([
                .optional(signer.passTypeIdentifier), .optional(signer.teamIdentifier), .optional(signer.organization),
                .string(signer.subject), .string(signer.issuer), .string(signer.serialNumber),
                .optional(signer.issuingGeneration), date(signer.signingTime), date(signer.notBefore),
                date(signer.notAfter), .optional(signer.digestAlgorithm), .optional(signer.signerIdentifier),
                .bool(signer.nfcEnabled),
            ])
        }
        if let summary {
            object["summary"] = .array([
                .optional(summary.style), .optional(summary.organizationName), .optional(summary.description),
                .optional(summary.serialNumber), .optional(summary.passTypeIdentifier),
                .optional(summary.teamIdentifier), .optional(summary.expirationDate), .bool(summary.hasNFC),
            ])
        }
        if let facts {
            object["facts"] = .array([
                .string(facts.sha256), .bool(facts.voided), .optional(facts.webServiceURL),
                .optional(facts.authenticationTokenDigest), .array(facts.barcodeDigests.map(JSONValue.string)),
            ])
        }
        var bytes: [UInt8] = []
        JSONValue.object(object).write(to: &bytes)
        return Data(bytes)
    }

    /// Reads a record; `nil` when it is not one of this version (then the pass is verified again).
    init?(record: Data) {
        guard let value = try? JSON.parse([UInt8](record)), value["v"] == .int(Self.version),
            let list = value["findings"]?.arrayValue
        else { return nil }
        func date(_ value: JSONValue?) -> Date? {
            value?.numberValue.map { Date(timeIntervalSince1970: $0.doubleValue) }
        }
        var findings: [Finding] = []
        for item in list {
            guard let severity = item[0]?.stringValue.flatMap(Severity.init(rawValue:)),
                let code = item[1]?.stringValue, let message = item[2]?.stringValue
            else { return nil }
            findings.append(Finding(severity, code, message, path: item[3]?.stringValue))
        }
        self.findings = findings
        certificateExpiry = date(value["certificateExpiry"])
        passExpiry = date(value["passExpiry"])
        if let s = value["signer"], let subject = s[3]?.stringValue, let issuer = s[4]?.stringValue,
            let serial = s[5]?.stringValue
        {
            signer = PassSigner(
                passTypeIdentifier: s[0]?.stringValue, teamIdentifier: s[1]?.stringValue,
                organization: s[2]?.stringValue, subject: subject, issuer: issuer, serialNumber: serial,
                issuingGeneration: s[6]?.stringValue, signingTime: date(s[7]), notBefore: date(s[8]),
                notAfter: date(s[9]), digestAlgorithm: s[10]?.stringValue, signerIdentifier: s[11]?.stringValue,
                nfcEnabled: s[12]?.boolValue == true)
        }
        if let s = value["summary"] {
            summary = PassSummary(
                style: s[0]?.stringValue, organizationName: s[1]?.stringValue, description: s[2]?.stringValue,
                serialNumber: s[3]?.stringValue, passTypeIdentifier: s[4]?.stringValue,
                teamIdentifier: s[5]?.stringValue, expirationDate: s[6]?.stringValue, hasNFC: s[7]?.boolValue == true)
        }
        if let f = value["facts"], let sha256 = f[0]?.stringValue {
            facts = PassFacts(
                sha256: sha256, voided: f[1]?.boolValue == true, webServiceURL: f[2]?.stringValue,
                authenticationTokenDigest: f[3]?.stringValue,
                barcodeDigests: f[4]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }

    init(
        findings: [Finding], signer: PassSigner?, summary: PassSummary?, facts: PassFacts?, certificateExpiry: Date?,
        passExpiry: Date?
    ) {
        self.findings = findings
        self.signer = signer
        self.summary = summary
        self.facts = facts
        self.certificateExpiry = certificateExpiry
        self.passExpiry = passExpiry
    }
}
