internal import COpenSSL
import Findings
import Foundation
import StrictJSON

/// Rules D1–D8 on the signer certificate, one small check each, composed by ``check(passJSON:now:)``.
struct CertificatePolicy {
    let anchors: TrustAnchors
    let oids: AppleOIDs
    let signer: Certificate
    let signature: SignatureCheck
    /// The pinned WWDR generation whose DN and key id match the signer's issuer.
    let generation: String?
    let nfcEnabled: Bool
    private let path = "signature"

    init(anchors: TrustAnchors, oids: AppleOIDs, signer: Certificate, signature: SignatureCheck) {
        self.anchors = anchors
        self.oids = oids
        self.signer = signer
        self.signature = signature
        self.generation = anchors.issuers(of: signer).first?.generation
        self.nfcEnabled =
            (signer.commonName ?? "").hasPrefix("Pass Type ID with NFC:")
            || signer.extensionValue(oids.nfcPassType) != nil
    }

    /// What the report says about the signer.
    var signerDetails: PassSigner {
        PassSigner(
            passTypeIdentifier: signer.userID, teamIdentifier: signer.organizationalUnit,
            organization: signer.organization, subject: signer.subjectText, issuer: signer.issuerText,
            serialNumber: signer.serialHex, issuingGeneration: generation, signingTime: signature.signingTime,
            notBefore: signer.notBefore, notAfter: signer.notAfter, digestAlgorithm: signature.digest,
            signerIdentifier: signature.signerIdentifier, nfcEnabled: nfcEnabled)
    }

    func check(passJSON: JSONObject?, now: Date) -> [Finding] {
        let passType = passJSON?["passTypeIdentifier"]?.stringValue
        let team = passJSON?["teamIdentifier"]?.stringValue
        return passTypeCertificate() + identity(passType: passType, team: team) + chain() + expiredSince(now: now)
            + embeddedIntermediate() + nfc(required: passJSON?["nfc"] != nil)
    }

    /// D1/D5: a Pass Type ID certificate carries extension …6.1.16 and, when it lists key usages, …4.14.
    func passTypeCertificate() -> [Finding] {
        let hasExtension = signer.extensionValue(oids.passTypeIdentifier) != nil
        let keyUsages = signer.extensionValue(nid: NID_ext_key_usage).flatMap(DER.objectIdentifiers)
        let usageMissing = keyUsages.map { !$0.contains(DER.passTypeKeyUsage) } ?? false
        guard !hasExtension || usageMissing else { return [] }
        let why =
            hasExtension
            ? "its extended key usage lacks 1.2.840.113635.100.4.14" : "it lacks extension 1.2.840.113635.100.6.1.16"
        return [
            .error(
                PassFindingCode.certNotPassType,
                "the signer certificate (\(signer.subjectText)) is not a Pass Type ID certificate: \(why)", path: path)
        ]
    }

    /// D1–D3: extension …6.1.16, UID and CN name pass.json's passTypeIdentifier; OU is its teamIdentifier.
    func identity(passType: String?, team: String?) -> [Finding] {
        var findings: [Finding] = []
        if let passType {
            if let raw = signer.extensionValue(oids.passTypeIdentifier), DER.string(raw) != passType {
                let value = DER.string(raw).map(quoted) ?? "no UTF8String"
                findings.append(
                    .error(
                        PassFindingCode.certExtensionMismatch,
                        "certificate extension 1.2.840.113635.100.6.1.16 holds \(value), "
                            + "not the passTypeIdentifier \(quoted(passType))", path: path))
            }
            if signer.userID != passType {
                findings.append(
                    .error(
                        PassFindingCode.certUIDMismatch,
                        "the certificate UID \(signer.userID.map(quoted) ?? "(none)") differs from "
                            + "passTypeIdentifier \(quoted(passType))", path: path))
            } else {
                let commonName = signer.commonName ?? ""
                let expected = ["Pass Type ID: \(passType)", "Pass Type ID with NFC: \(passType)"]
                if !expected.contains(commonName) {
                    findings.append(
                        .error(
                            PassFindingCode.certSubjectMismatch,
                            "the certificate CN \(quoted(commonName)) is not \(quoted(expected[0]))", path: path))
                }
            }
        }
        if let team, signer.organizationalUnit != team {
            findings.append(
                .error(
                    PassFindingCode.certTeamMismatch,
                    "the certificate OU \(signer.organizationalUnit.map(quoted) ?? "(none)") differs from "
                        + "teamIdentifier \(quoted(team))", path: path))
        }
        return findings
    }

    /// D4/D6: the chain to a pinned anchor, evaluated at signingTime.
    func chain() -> [Finding] {
        guard
            case .failed(let code, let message, let depth) = anchors.evaluate(
                leaf: signer, embedded: signature.embedded, at: signature.signingTime)
        else { return [] }
        let which = depth == 0 ? "the signer certificate" : "a chain certificate (depth \(depth))"
        let when = signature.signingTime.map { "at signing time \(formatDate($0))" } ?? ""
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return [.error(PassFindingCode.certExpiredAtSigning, "\(which) had expired \(when)", path: path)]
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return [.error(PassFindingCode.certNotYetValidAtSigning, "\(which) was not yet valid \(when)", path: path)]
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
            return [
                .error(
                    PassFindingCode.certUntrusted,
                    "the signer certificate is self-signed, not issued by an Apple WWDR intermediate: it does not "
                        + "chain to Apple Root CA or a --trust anchor", path: path)
            ]
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
            return [
                .error(
                    PassFindingCode.certUntrusted,
                    "the signer certificate does not chain to Apple Root CA or a --trust anchor (\(message))",
                    path: path)
            ]
        default:
            return [
                .error(PassFindingCode.certChainInvalid, "the certificate chain is invalid: \(message)", path: path)
            ]
        }
    }

    /// D6: valid when signed but expired by `now` (Wallet keeps showing it; updates need a new signature).
    func expiredSince(now: Date) -> [Finding] {
        guard let notAfter = signer.notAfter, notAfter < now, signature.signingTime.map({ $0 <= notAfter }) ?? true
        else { return [] }
        return [
            .warning(
                PassFindingCode.certExpiredSince,
                "the signer certificate expired on \(formatDate(notAfter)): installed passes still show, "
                    + "but updates need a pass re-signed with a current certificate", path: path)
        ]
    }

    /// D7: the embedded intermediate should be the one that issued the signer (DN + key id).
    func embeddedIntermediate() -> [Finding] {
        let intermediates = signature.embedded.filter { !$0.isSame(as: signer) }
        guard !intermediates.contains(where: { TrustAnchors.couldHaveIssued($0, signer) }) else { return [] }
        // A self-signed leaf has no intermediate to embed: chain() already says it is self-signed.
        guard signer.subjectText != signer.issuerText else { return [] }
        let needed = generation.map { "WWDR \($0)" } ?? signer.issuerText
        if intermediates.isEmpty {
            return [
                .warning(
                    PassFindingCode.certIntermediateMissing,
                    "the signature embeds no intermediate certificate; it should embed \(needed)", path: path)
            ]
        }
        let names = intermediates.map { TrustAnchors.generation(of: $0).map { "WWDR \($0)" } ?? $0.subjectText }
        return [
            .warning(
                PassFindingCode.certWrongIntermediate,
                "the signature embeds \(names.joined(separator: ", ")) but the signer certificate was issued by "
                    + needed, path: path)
        ]
    }

    /// D8: an `nfc` dictionary needs an NFC-enabled certificate.
    func nfc(required: Bool) -> [Finding] {
        guard required, !nfcEnabled else { return [] }
        return [
            .error(
                PassFindingCode.certNFCNotEnabled,
                "pass.json has an nfc dictionary but the certificate is not NFC-enabled (\"Pass Type ID with NFC\")",
                path: path)
        ]
    }
}
