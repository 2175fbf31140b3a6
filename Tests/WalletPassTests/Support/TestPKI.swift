internal import COpenSSL
import Foundation

/// An RSA key generated for the test run.
final class TestKey: @unchecked Sendable {
    // @unchecked Sendable: the key is generated in init and only read (signing) afterwards.
    let pkey: OpaquePointer

    init(bits: Int32 = 2048) {
        let context = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil)
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) > 0, EVP_PKEY_CTX_set_rsa_keygen_bits(context, bits) > 0,
            EVP_PKEY_keygen(context, &key) > 0, let key
        else { preconditionFailure("RSA key generation failed") }
        self.pkey = key
    }

    deinit { EVP_PKEY_free(pkey) }
}

/// A certificate made by the tests, with the private key that belongs to it.
final class TestCertificate: @unchecked Sendable {
    // @unchecked Sendable: the X509 is built and signed in init and only read afterwards.
    let x509: OpaquePointer
    let key: TestKey

    /// What a certificate of the test PKI looks like.
    struct Profile {
        var subject: [(String, String)]
        var serial: Int = 1
        var notBefore: Date
        var notAfter: Date
        var isCA = false
        /// Extended key usage, e.g. "1.2.840.113635.100.4.14,clientAuth"; `nil` for none.
        var extendedKeyUsage: String?
        /// DER bytes for extension 1.2.840.113635.100.6.1.16; `nil` for none.
        var passTypeExtension: [UInt8]?
        var nfcExtension = false
    }

    /// Issues a certificate for `key` signed by `issuer` (self-signed when `nil`).
    init(_ profile: Profile, key: TestKey, issuer: TestCertificate?) {
        let x509 = X509_new()!
        self.x509 = x509
        self.key = key
        X509_set_version(x509, 2)
        ASN1_INTEGER_set(X509_get_serialNumber(x509), profile.serial)
        ASN1_TIME_set(X509_getm_notBefore(x509), time_t(profile.notBefore.timeIntervalSince1970))
        ASN1_TIME_set(X509_getm_notAfter(x509), time_t(profile.notAfter.timeIntervalSince1970))
        X509_set_pubkey(x509, key.pkey)
        let name = X509_get_subject_name(x509)
        for (field, value) in profile.subject {
            precondition(X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0) == 1, field)
        }
        X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.x509) } ?? name)
        var context = X509V3_CTX()
        ia_x509v3_set_ctx_nodb(&context)
        X509V3_set_ctx(&context, issuer?.x509 ?? x509, x509, nil, nil, 0)
        addExtension(NID_basic_constraints, profile.isCA ? "critical,CA:TRUE" : "critical,CA:FALSE", &context)
        addExtension(
            NID_key_usage, profile.isCA ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature", &context)
        addExtension(NID_subject_key_identifier, "hash", &context)
        addExtension(NID_authority_key_identifier, "keyid:always", &context)
        if let usage = profile.extendedKeyUsage { addExtension(NID_ext_key_usage, usage, &context) }
        if let value = profile.passTypeExtension { addRawExtension("1.2.840.113635.100.6.1.16", value) }
        if profile.nfcExtension { addRawExtension("1.2.840.113635.100.6.1.26", [0x05, 0x00]) }
        precondition(X509_sign(x509, (issuer?.key ?? key).pkey, EVP_sha256()) > 0, "X509_sign failed")
    }

    deinit { X509_free(x509) }

    private func addExtension(_ nid: Int32, _ value: String, _ context: inout X509V3_CTX) {
        guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
            preconditionFailure("extension \(nid)=\(value) rejected")
        }
        X509_add_ext(x509, ext, -1)
        X509_EXTENSION_free(ext)
    }

    private func addRawExtension(_ oid: String, _ der: [UInt8]) {
        let object = OBJ_txt2obj(oid, 1)!
        defer { ASN1_OBJECT_free(object) }
        let data = ASN1_OCTET_STRING_new()!
        defer { ASN1_OCTET_STRING_free(data) }
        ASN1_OCTET_STRING_set(data, der, Int32(der.count))
        let ext = X509_EXTENSION_create_by_OBJ(nil, object, 0, data)!
        X509_add_ext(x509, ext, -1)
        X509_EXTENSION_free(ext)
    }

    /// DER encoding.
    var der: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &out)
        defer { ia_openssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// PEM encoding.
    var pem: [UInt8] {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        PEM_write_bio_X509(bio, x509)
        var data: UnsafeMutablePointer<CChar>?
        let length = ia_bio_get_mem_data(bio, &data)
        return data!.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }
}

/// How to sign a manifest in a test.
struct SigningOptions {
    var sha1 = false
    /// An OpenSSL digest name ("SHA384", "MD5") overriding `sha1`.
    var digestName: String?
    /// A second SignerInfo by this certificate (Wallet expects exactly one).
    var secondSigner: TestCertificate?
    var signingTime: Date? = TestPKI.signingTime
    var subjectKeyIdentifier = false
    var embedCertificates = true
    /// Extra certificates to embed (the intermediate, usually).
    var chain: [TestCertificate] = []
}

/// Root → WWDR-like intermediate → Pass Type ID leaf, generated once per test run.
enum TestPKI {
    static let passTypeIdentifier = "pass.test.inboxAssets"
    static let teamIdentifier = "TEAM123456"
    static let signingTime = date("2025-06-01T12:00:00Z")
    static let validFrom = date("2024-01-01T00:00:00Z")
    static let validUntil = date("2027-01-01T00:00:00Z")
    /// "Now" for the tests: after signing, before the leaf expires.
    static let now = date("2025-07-01T00:00:00Z")

    static let root = TestCertificate(
        .init(
            subject: [("C", "US"), ("O", "Test PKI"), ("CN", "Test Root CA")], notBefore: date("2020-01-01T00:00:00Z"),
            notAfter: date("2040-01-01T00:00:00Z"), isCA: true), key: TestKey(), issuer: nil)
    static let intermediate = TestCertificate(
        .init(
            subject: [("C", "US"), ("O", "Test PKI"), ("OU", "G9"), ("CN", "Test Worldwide Developer Relations CA")],
            serial: 2, notBefore: date("2020-01-01T00:00:00Z"), notAfter: date("2035-01-01T00:00:00Z"), isCA: true),
        key: TestKey(), issuer: root)
    /// A second, unrelated intermediate under the same root (for the wrong-intermediate case).
    static let otherIntermediate = TestCertificate(
        .init(
            subject: [("C", "US"), ("O", "Test PKI"), ("CN", "Other Intermediate CA")], serial: 3,
            notBefore: date("2020-01-01T00:00:00Z"), notAfter: date("2035-01-01T00:00:00Z"), isCA: true),
        key: TestKey(), issuer: root)
    /// One key for every leaf: key generation is the slow part and leaves differ only in their fields.
    static let leafKey = TestKey()
    static let leaf = passLeaf()

    static func passLeaf(
        uid: String = passTypeIdentifier, team: String = teamIdentifier, extensionValue: String? = passTypeIdentifier,
        keyUsage: String? = "1.2.840.113635.100.4.14,clientAuth", commonName: String? = nil, nfc: Bool = false,
        notBefore: Date = validFrom, notAfter: Date = validUntil, serial: Int = 100
    ) -> TestCertificate {
        TestCertificate(
            .init(
                subject: [
                    ("UID", uid), ("CN", commonName ?? "Pass Type ID\(nfc ? " with NFC" : ""): \(uid)"), ("OU", team),
                    ("O", "Inbox Assets Tests"), ("C", "US"),
                ], serial: serial, notBefore: notBefore, notAfter: notAfter, extendedKeyUsage: keyUsage,
                passTypeExtension: extensionValue.map(utf8String), nfcExtension: nfc),
            key: leafKey, issuer: intermediate)
    }

    /// DER UTF8String.
    static func utf8String(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        precondition(bytes.count < 128)
        return [0x0C, UInt8(bytes.count)] + bytes
    }

    /// A detached CMS SignedData over `content`, DER.
    static func sign(_ content: [UInt8], with signer: TestCertificate, options: SigningOptions) -> [UInt8] {
        var flags = UInt32(CMS_DETACHED | CMS_BINARY | CMS_PARTIAL)
        if !options.embedCertificates { flags |= UInt32(CMS_NOCERTS) }
        if options.subjectKeyIdentifier { flags |= UInt32(CMS_USE_KEYID) }
        // OpenSSL adds signingTime itself unless there are no signed attributes at all.
        if options.signingTime == nil { flags |= UInt32(CMS_NOATTR) }
        let cms = CMS_sign(nil, nil, nil, nil, flags)!
        defer { CMS_ContentInfo_free(cms) }
        let digest = options.digestName.map { EVP_get_digestbyname($0)! } ?? (options.sha1 ? EVP_sha1() : EVP_sha256())
        let signerInfo = CMS_add1_signer(cms, signer.x509, signer.key.pkey, digest, flags)!
        if let second = options.secondSigner {
            precondition(CMS_add1_signer(cms, second.x509, second.key.pkey, digest, flags) != nil)
        }
        if let time = options.signingTime {
            let asn1 = ASN1_TIME_set(nil, time_t(time.timeIntervalSince1970))!
            defer { ASN1_TIME_free(asn1) }
            precondition(CMS_signed_add1_attr_by_NID(signerInfo, NID_pkcs9_signingTime, V_ASN1_UTCTIME, asn1, -1) == 1)
        }
        if options.embedCertificates {
            for certificate in options.chain { CMS_add1_cert(cms, certificate.x509) }
        }
        let storage = content.isEmpty ? [0] : content
        storage.withUnsafeBytes { raw in
            let bio = BIO_new_mem_buf(raw.baseAddress, Int32(content.count))!
            defer { BIO_free(bio) }
            precondition(CMS_final(cms, bio, nil, flags) == 1, "CMS_final failed")
        }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_CMS_ContentInfo(cms, &out)
        defer { ia_openssl_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    static func date(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text)!
    }
}
