internal import COpenSSL
import Foundation

/// The pinned trust set: Apple's roots as anchors, the WWDR intermediates (and any `--trust` certificates)
/// as known intermediates, loaded once per verifier into one X509_STORE.
///
/// Never the system trust store, never a network fetch (no AIA): the store has no lookup methods but the
/// certificates added here.
final class TrustAnchors: @unchecked Sendable {
    // @unchecked Sendable: the store and the certificate lists are filled in init and only read afterwards;
    // OpenSSL's X509_STORE is safe for concurrent X509_verify_cert calls with separate X509_STORE_CTXs.
    private let store: OpaquePointer
    /// Self-signed certificates: the anchors chains must end at.
    let anchors: [Certificate]
    /// Every other pinned certificate, with its WWDR generation label when it is an Apple WWDR intermediate.
    let intermediates: [(certificate: Certificate, generation: String?)]

    /// - Parameter certificates: the bundled certificates followed by the extra ones.
    init(certificates: [Certificate]) throws(PassVerifierError) {
        guard let store = X509_STORE_new() else { throw .openSSL("X509_STORE_new failed") }
        var anchors: [Certificate] = []
        var intermediates: [(Certificate, String?)] = []
        for certificate in certificates {
            if certificate.isSelfSigned {
                if X509_STORE_add_cert(store, certificate.x509) != 1 {
                    ERR_clear_error()  // a duplicate anchor is harmless
                }
                anchors.append(certificate)
            } else {
                intermediates.append((certificate, Self.generation(of: certificate)))
            }
        }
        self.store = store
        self.anchors = anchors
        self.intermediates = intermediates
    }

    deinit { X509_STORE_free(store) }

    /// Loads the bundled Apple certificates (`Resources/certs`).
    static func bundledCertificates() throws(PassVerifierError) -> [Certificate] {
        guard let directory = Bundle.module.url(forResource: "certs", withExtension: nil) else {
            throw .resourceMissing("the bundled Apple certificates (Resources/certs) are missing")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        } catch {
            throw .resourceMissing("cannot list \(directory.path): \(error)")
        }
        var result: [Certificate] = []
        for name in names where name.hasSuffix(".cer") || name.hasSuffix(".pem") {
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
            else { throw .resourceMissing("cannot read bundled certificate \(name)") }
            let parsed = Certificate.parseAll([UInt8](data))
            guard !parsed.isEmpty else { throw .resourceMissing("bundled certificate \(name) does not parse") }
            result += parsed
        }
        return result
    }

    /// "G1"…"G8" for Apple WWDR intermediates (the 2008 and 2013 G1 share DN and key), `nil` otherwise.
    static func generation(of certificate: Certificate) -> String? {
        guard let commonName = certificate.commonName, commonName.hasPrefix("Apple Worldwide Developer Relations")
        else { return nil }
        if let unit = certificate.organizationalUnit, unit.count <= 3, unit.hasPrefix("G") { return unit }
        if let range = commonName.range(of: " - G") { return "G" + commonName[range.upperBound...] }
        if certificate.organizationalUnit == "Apple Worldwide Developer Relations" { return "G1" }
        return nil
    }

    /// The pinned intermediates that issued `leaf`: issuer DN equal to their subject and, when the leaf
    /// names one, authority key id equal to their subject key id.
    func issuers(of leaf: Certificate) -> [(certificate: Certificate, generation: String?)] {
        let authorityKey = leaf.authorityKeyIdentifier
        return intermediates.filter { candidate in
            guard leaf.issuerNameMatches(subjectOf: candidate.certificate) else { return false }
            guard let authorityKey else { return true }
            return candidate.certificate.subjectKeyIdentifier == authorityKey
        }
    }

    /// Whether `certificate` (DN + key id) could have issued `leaf`.
    static func couldHaveIssued(_ certificate: Certificate, _ leaf: Certificate) -> Bool {
        guard leaf.issuerNameMatches(subjectOf: certificate) else { return false }
        guard let authorityKey = leaf.authorityKeyIdentifier else { return true }
        return certificate.subjectKeyIdentifier == authorityKey
    }

    /// The outcome of building and checking a chain.
    enum ChainOutcome {
        case trusted
        /// `depth` 0 is the leaf.
        case failed(code: Int32, message: String, depth: Int32)
    }

    /// Builds the chain leaf → pinned intermediates (then embedded certificates) → anchor and checks it at
    /// `time` (no time check when `nil`). Purpose "any": pass certificates carry Apple's EKU, so OpenSSL's
    /// S/MIME purpose check (rule D5) must not run.
    func evaluate(leaf: Certificate, embedded: [Certificate], at time: Date?) -> ChainOutcome {
        guard let untrusted = ia_sk_x509_new_null() else {
            return .failed(code: -1, message: "out of memory", depth: 0)
        }
        defer { ia_sk_x509_free(untrusted) }  // the certificates stay owned by their Certificate objects
        // Pinned first: OpenSSL takes the first matching issuer, so an embedded look-alike cannot win.
        for entry in intermediates { _ = ia_sk_x509_push(untrusted, entry.certificate.x509) }
        for certificate in embedded where !certificate.isSame(as: leaf) {
            _ = ia_sk_x509_push(untrusted, certificate.x509)
        }
        guard let context = X509_STORE_CTX_new() else { return .failed(code: -1, message: "out of memory", depth: 0) }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.x509, untrusted) == 1 else {
            return .failed(code: -1, message: takeOpenSSLError().text, depth: 0)
        }
        _ = X509_STORE_CTX_set_purpose(context, X509_PURPOSE_ANY)
        if let time {
            X509_STORE_CTX_set_time(context, 0, time_t(time.timeIntervalSince1970.rounded(.down)))
        } else {
            X509_STORE_CTX_set_flags(context, UInt(X509_V_FLAG_NO_CHECK_TIME))
        }
        if X509_verify_cert(context) == 1 { return .trusted }
        ERR_clear_error()
        let code = X509_STORE_CTX_get_error(context)
        let message = String(cString: X509_verify_cert_error_string(Int(code)))
        return .failed(code: code, message: message, depth: X509_STORE_CTX_get_error_depth(context))
    }
}
