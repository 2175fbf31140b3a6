internal import COpenSSL

/// Errors the fixture server throws when it cannot start (these are bugs or environment problems, not faults).
public struct FixtureServerError: Error, Sendable, CustomStringConvertible {
    /// What failed, with the OS or OpenSSL reason.
    public var description: String

    init(_ description: String) { self.description = description }

    /// Builds an error from the OpenSSL error queue (drained, so the next failure starts clean).
    static func openSSL(_ what: String) -> FixtureServerError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return FixtureServerError(
            "\(what): \(reasons.isEmpty ? "unknown OpenSSL error" : reasons.joined(separator: "; "))")
    }
}

/// The kind of certificate an HTTPS listener presents, so tests can produce every TLS failure class.
public enum FixtureCertificate: String, Sendable, CaseIterable {
    /// A leaf for 127.0.0.1 and localhost signed by the generated test CA (valid for clients using the CA file).
    case valid
    /// Signed by the test CA, but expired yesterday.
    case expired
    /// Signed by the test CA, but for `wrong.example` only.
    case wrongHost
    /// Self-signed for 127.0.0.1 and localhost, not chained to the test CA.
    case selfSigned
}

/// Owns an `SSL_CTX` configured with one server certificate and key.
///
/// `@unchecked Sendable`: the context is never mutated after `init`, and OpenSSL documents `SSL_new` on a
/// shared, fully configured `SSL_CTX` as thread-safe, so connection threads may share it.
final class ServerTLSContext: @unchecked Sendable {
    let context: OpaquePointer

    fileprivate init(certificate: OpaquePointer, key: OpaquePointer) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw FixtureServerError.openSSL("SSL_CTX_new") }
        guard SSL_CTX_use_certificate(context, certificate) == 1, SSL_CTX_use_PrivateKey(context, key) == 1,
            SSL_CTX_check_private_key(context) == 1
        else {
            SSL_CTX_free(context)
            throw FixtureServerError.openSSL("loading the fixture certificate")
        }
        _ = ia_ssl_ctx_set_min_proto_version(context, TLS1_2_VERSION)
        self.context = context
    }

    deinit { SSL_CTX_free(context) }
}

/// A throwaway PKI generated in memory at start: one CA and the leaves for every ``FixtureCertificate``.
struct TestPKI {
    /// The CA certificate in PEM, for clients (`--cacert`).
    let caPEM: String
    /// One server context per certificate kind.
    let contexts: [FixtureCertificate: ServerTLSContext]

    init() throws {
        let caKey = try OwnedKey()
        let ca = try OwnedCertificate(
            commonName: "inbox-assets fixture CA", key: caKey, issuer: nil, serial: 1, validDays: (-1, 30),
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE"), (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ])
        let leafKey = try OwnedKey()
        let serverExtensions: (String) -> [(Int32, String)] = { san in
            [
                (NID_basic_constraints, "critical,CA:FALSE"), (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"), (NID_subject_alt_name, san),
                (NID_authority_key_identifier, "keyid:always"),
            ]
        }
        // example.com names too, so real-looking campaign URLs (https://cdn.example.com/…) can be mapped onto
        // the loopback server with --connect-to and still pass TLS verification (make demo, CLI tests).
        let loopbackNames = "IP:127.0.0.1,DNS:localhost,DNS:example.com,DNS:*.example.com"
        var contexts: [FixtureCertificate: ServerTLSContext] = [:]
        for kind in FixtureCertificate.allCases {
            let leaf: OwnedCertificate
            switch kind {
            case .valid:
                leaf = try OwnedCertificate(
                    commonName: "127.0.0.1", key: leafKey, issuer: (ca, caKey), serial: 2, validDays: (-1, 30),
                    extensions: serverExtensions(loopbackNames))
            case .expired:
                leaf = try OwnedCertificate(
                    commonName: "127.0.0.1", key: leafKey, issuer: (ca, caKey), serial: 3, validDays: (-10, -1),
                    extensions: serverExtensions(loopbackNames))
            case .wrongHost:
                leaf = try OwnedCertificate(
                    commonName: "wrong.example", key: leafKey, issuer: (ca, caKey), serial: 4, validDays: (-1, 30),
                    extensions: serverExtensions("DNS:wrong.example"))
            case .selfSigned:
                leaf = try OwnedCertificate(
                    commonName: "127.0.0.1", key: leafKey, issuer: nil, serial: 5, validDays: (-1, 30),
                    extensions: [(NID_basic_constraints, "critical,CA:FALSE"), (NID_subject_alt_name, loopbackNames)])
            }
            contexts[kind] = try ServerTLSContext(certificate: leaf.pointer, key: leafKey.pointer)
        }
        self.caPEM = try ca.pem()
        self.contexts = contexts
    }
}

/// Owns an `EVP_PKEY` (P-256).
private final class OwnedKey {
    let pointer: OpaquePointer

    init() throws {
        guard let key = ia_fixture_ec_gen_p256() else { throw FixtureServerError.openSSL("generating a P-256 key") }
        pointer = key
    }

    deinit { EVP_PKEY_free(pointer) }
}

/// Owns an `X509` built and signed in `init`.
private final class OwnedCertificate {
    let pointer: OpaquePointer

    /// - Parameters:
    ///   - issuer: the signing CA and its key; `nil` makes the certificate self-signed with `key`.
    ///   - validDays: not-before and not-after, in days relative to now.
    ///   - extensions: (NID, OpenSSL config value) pairs.
    init(
        commonName: String, key: OwnedKey, issuer: (certificate: OwnedCertificate, key: OwnedKey)?, serial: Int,
        validDays: (Int, Int), extensions: [(Int32, String)]
    ) throws {
        guard let x509 = X509_new() else { throw FixtureServerError.openSSL("X509_new") }
        pointer = x509
        // From here on `deinit` frees x509 whatever fails.
        guard X509_set_version(x509, 2) == 1, ASN1_INTEGER_set(X509_get_serialNumber(x509), serial) == 1,
            X509_gmtime_adj(X509_getm_notBefore(x509), validDays.0 * 86_400 - 3_600) != nil,
            X509_gmtime_adj(X509_getm_notAfter(x509), validDays.1 * 86_400) != nil,
            X509_set_pubkey(x509, key.pointer) == 1
        else { throw FixtureServerError.openSSL("filling the certificate") }
        let name = X509_get_subject_name(x509)
        guard X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
            X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.certificate.pointer) } ?? name) == 1
        else { throw FixtureServerError.openSSL("naming the certificate") }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.certificate.pointer ?? x509, x509, nil, nil, 0)
        for (nid, value) in extensions {
            guard let extensionPointer = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw FixtureServerError.openSSL("extension \(nid) = \(value)")
            }
            defer { X509_EXTENSION_free(extensionPointer) }
            guard X509_add_ext(x509, extensionPointer, -1) == 1 else {
                throw FixtureServerError.openSSL("X509_add_ext")
            }
        }
        guard X509_sign(x509, (issuer?.key ?? key).pointer, EVP_sha256()) > 0 else {
            throw FixtureServerError.openSSL("signing the certificate")
        }
    }

    deinit { X509_free(pointer) }

    func pem() throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw FixtureServerError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, pointer) == 1 else { throw FixtureServerError.openSSL("PEM_write_bio_X509") }
        var data: UnsafeMutablePointer<CChar>?
        let length = ia_bio_get_mem_data(bio, &data)
        guard let data, length > 0 else { throw FixtureServerError.openSSL("reading the PEM") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
