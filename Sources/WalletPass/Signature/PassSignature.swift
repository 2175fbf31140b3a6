internal import COpenSSL
import Findings
import Foundation

/// What the detached CMS signature says (rules C1–C6), checked with OpenSSL's CMS API.
struct SignatureCheck {
    var findings: [Finding] = []
    /// Every certificate embedded in the SignedData, in order.
    var embedded: [Certificate] = []
    /// The certificate that matches the (first) SignerInfo, when embedded.
    var signer: Certificate?
    var signingTime: Date?
    /// "sha1", "sha256", … (OpenSSL short name, lower-cased).
    var digest: String?
    /// "issuerAndSerialNumber" or "subjectKeyIdentifier".
    var signerIdentifier: String?
}

enum SignatureChecker {
    /// Parses and verifies `signature` (DER CMS SignedData) as a detached signature over `manifest`.
    /// - Parameters:
    ///   - manifest: `nil` when the archive has none: the signature is still read (signer, time, certificates)
    ///     but there is nothing to verify it against.
    ///   - cache: where embedded certificates are parsed once; `nil` parses them with the CMS.
    static func check(signature: [UInt8], manifest: [UInt8]?, cache: CertificateCache?) -> SignatureCheck {
        var check = SignatureCheck()
        ERR_clear_error()
        guard let cms = parse(signature, cache: cache) else {
            let reason = takeOpenSSLError().text
            check.findings.append(
                .error(
                    PassFindingCode.signatureUnparseable, "the signature is not a DER CMS/PKCS#7 structure (\(reason))",
                    path: "signature"))
            return check
        }
        defer { CMS_ContentInfo_free(cms) }
        guard OBJ_obj2nid(CMS_get0_type(cms)) == NID_pkcs7_signed else {
            check.findings.append(
                .error(
                    PassFindingCode.signatureNotSignedData, "the signature is CMS but not SignedData", path: "signature"
                ))
            return check
        }
        // Some signers (edutap) embed a copy of manifest.json instead of signing detached. A byte-identical
        // copy signs the very same bytes (the corpus documents such a pass as valid), so it is a warning;
        // a different copy means the signature covers other content.
        var contentIsEmbedded = false
        if CMS_is_detached(cms) != 1 {
            let content = CMS_get0_content(cms)?.pointee.map { Certificate.bytes($0) } ?? []
            if let manifest, content != manifest {
                check.findings.append(
                    .error(
                        PassFindingCode.signatureManifestMismatch,
                        "the signature embeds signed content that differs from manifest.json", path: "signature"))
                return check
            }
            check.findings.append(
                .warning(
                    PassFindingCode.signatureNotDetached,
                    "the signature embeds a copy of manifest.json; Apple's signers produce a detached signature",
                    path: "signature"))
            contentIsEmbedded = true
        }
        if let stack = CMS_get1_certs(cms) {
            defer { ia_sk_x509_free(stack) }  // the references now belong to the Certificate objects
            for index in 0..<ia_sk_x509_num(stack) {
                if let x509 = ia_sk_x509_value(stack, index) { check.embedded.append(Certificate(taking: x509)) }
            }
        }
        guard let signerInfos = CMS_get0_SignerInfos(cms), ia_sk_cms_signerinfo_num(signerInfos) > 0 else {
            check.findings.append(
                .error(PassFindingCode.signatureNoSigner, "the SignedData has no SignerInfo", path: "signature"))
            return check
        }
        let signerCount = ia_sk_cms_signerinfo_num(signerInfos)
        if signerCount > 1 {
            check.findings.append(
                .warning(
                    PassFindingCode.signatureMultipleSigners,
                    "the SignedData has \(signerCount) SignerInfos; Wallet expects exactly one", path: "signature"))
        }
        guard let signerInfo = ia_sk_cms_signerinfo_value(signerInfos, 0) else { return check }
        readSignerInfo(signerInfo, into: &check)
        check.signer = check.embedded.first { CMS_SignerInfo_cert_cmp(signerInfo, $0.x509) == 0 }
        guard check.signer != nil else {
            let detail =
                check.embedded.isEmpty
                ? "no certificates are embedded" : "none of the \(check.embedded.count) embedded certificates matches"
            check.findings.append(
                .error(
                    PassFindingCode.signatureSignerNotFound, "signer certificate not found: \(detail)",
                    path: "signature"))
            return check
        }
        if let manifest { verifyMath(cms, manifest: contentIsEmbedded ? nil : manifest, into: &check) }
        return check
    }

    /// d2i of the ContentInfo; with a cache, the certificates are cut out first and re-attached from the cache.
    /// Any surprise on the fast path (unusual layout, a certificate that does not parse, a duplicate) falls
    /// back to parsing the original bytes, so both paths report the same problems.
    private static func parse(_ der: [UInt8], cache: CertificateCache?) -> OpaquePointer? {
        if let cache, let split = CMSLayout.split(der), let cms = decode(split.withoutCertificates) {
            let attached = split.certificates.allSatisfy { bytes in
                guard let certificate = cache.certificate(bytes) else { return false }
                return CMS_add1_cert(cms, certificate.x509) == 1
            }
            if attached { return cms }
            CMS_ContentInfo_free(cms)
            ERR_clear_error()
        }
        return decode(der)
    }

    private static func decode(_ der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_CMS_ContentInfo(nil, &cursor, buffer.count)
        }
    }

    private static func readSignerInfo(_ signerInfo: OpaquePointer, into check: inout SignatureCheck) {
        var keyID: UnsafeMutablePointer<ASN1_OCTET_STRING>?
        var issuer: OpaquePointer?
        var serial: UnsafeMutablePointer<ASN1_INTEGER>?
        if CMS_SignerInfo_get0_signer_id(signerInfo, &keyID, &issuer, &serial) == 1 {
            check.signerIdentifier = keyID != nil ? "subjectKeyIdentifier" : "issuerAndSerialNumber"
        }
        var digestAlgorithm: UnsafeMutablePointer<X509_ALGOR>?
        CMS_SignerInfo_get0_algs(signerInfo, nil, nil, &digestAlgorithm, nil)
        if let digestAlgorithm {
            var object: OpaquePointer?
            X509_ALGOR_get0(&object, nil, nil, digestAlgorithm)
            let nid = OBJ_obj2nid(object)
            let name = nid == NID_undef ? "unknown" : String(cString: OBJ_nid2sn(nid)).lowercased()
            check.digest = name
            switch nid {
            case NID_sha1, NID_sha256: break
            case NID_sha224, NID_sha384, NID_sha512:
                check.findings.append(
                    .warning(
                        PassFindingCode.signatureUnusualDigest,
                        "the signature digest is \(name); passes use SHA-1 or SHA-256",
                        path: "signature"))
            default:
                check.findings.append(
                    .error(
                        PassFindingCode.signatureWeakDigest,
                        "the signature digest \(name) is not accepted (SHA-1 or SHA-256)",
                        path: "signature"))
            }
        }
        let index = CMS_signed_get_attr_by_NID(signerInfo, NID_pkcs9_signingTime, -1)
        if index >= 0, let attribute = CMS_signed_get_attr(signerInfo, index),
            let value = X509_ATTRIBUTE_get0_type(attribute, 0),
            value.pointee.type == V_ASN1_UTCTIME || value.pointee.type == V_ASN1_GENERALIZEDTIME,
            let time = Certificate.date(UnsafePointer(value.pointee.value.utctime))
        {
            check.signingTime = time
        } else {
            check.findings.append(
                .error(
                    PassFindingCode.signatureNoSigningTime,
                    index >= 0
                        ? "the signingTime attribute is unreadable"
                        : "the SignerInfo has no signingTime signed attribute",
                    path: "signature"))
        }
    }

    /// CMS_verify over the exact manifest bytes, binary mode (no MIME canonicalisation), chain checked
    /// separately by the pass policy (CMS_NO_SIGNER_CERT_VERIFY).
    /// `manifest` is `nil` when the SignedData carries its own (already compared) copy.
    private static func verifyMath(_ cms: OpaquePointer, manifest: [UInt8]?, into check: inout SignatureCheck) {
        let flags = UInt32(CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY)
        let verified: Bool
        if let manifest {
            // BIO_new_mem_buf needs a non-null pointer even for empty content, so hand it a one-byte buffer then.
            let storage = manifest.isEmpty ? [0] : manifest
            verified = storage.withUnsafeBytes { raw -> Bool in
                guard let content = BIO_new_mem_buf(raw.baseAddress, Int32(manifest.count)) else { return false }
                defer { BIO_free(content) }
                return CMS_verify(cms, nil, nil, content, nil, flags) == 1
            }
        } else {
            verified = CMS_verify(cms, nil, nil, nil, nil, flags) == 1
        }
        if verified {
            ERR_clear_error()
            return
        }
        let (reasons, text) = takeOpenSSLError()
        if reasons.contains(CMS_R_CONTENT_VERIFY_ERROR) {
            check.findings.append(
                .error(
                    PassFindingCode.signatureManifestMismatch,
                    "the signature was made over different bytes than this manifest.json (message digest mismatch)",
                    path: "signature"))
        } else {
            check.findings.append(
                .error(PassFindingCode.signatureInvalid, "the signature does not verify: \(text)", path: "signature"))
        }
    }
}
