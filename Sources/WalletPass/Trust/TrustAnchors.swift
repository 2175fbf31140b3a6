internal import COpenSSL
import Foundation
import Synchronization

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
    /// Every notBefore and notAfter of the pinned certificates, in seconds; `nil` when one does not parse (then no
    /// outcome is remembered).
    private let pinnedBoundaries: [Int64]?
    /// Chain outcomes already computed, by their inputs (``ChainKey``). A fleet is signed by a few certificates,
    /// so most passes repeat an earlier pass's chain: two RSA verifications and OpenSSL's chain building, 15% of a
    /// pass's verification on one core (bench/RESULTS.md, item d).
    private let outcomes = Mutex<[ChainKey: ChainOutcome]>([:])
    /// Bounds memory when every pass brings new certificates (each entry keeps its certificates alive).
    private static let outcomeCapacity = 1024
    /// How many chains OpenSSL verified (the rest were remembered): for the tests.
    let verifications = Atomic<Int>(0)

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
        self.pinnedBoundaries = Self.boundaries(of: certificates)
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
    enum ChainOutcome: Sendable {
        case trusted
        /// `depth` 0 is the leaf.
        case failed(code: Int32, message: String, depth: Int32)
    }

    /// Builds the chain leaf → pinned intermediates (then embedded certificates) → anchor and checks it at
    /// `time` (no time check when `nil`). Purpose "any": pass certificates carry Apple's EKU, so OpenSSL's
    /// S/MIME purpose check (rule D5) must not run.
    ///
    /// Remembered: X509_verify_cert is a function of the store (fixed per verifier), the leaf, the untrusted list
    /// (the pinned intermediates, then `embedded` in order) and, for time, only of how the verification time compares
    /// with each candidate's notBefore and notAfter — OpenSSL's validity checks and its preference for a currently
    /// valid issuer both go through `X509_cmp_time` at whole seconds. The key holds the certificates (by their X509
    /// objects, which the certificate cache shares between passes) and where the time falls among every such
    /// boundary (``TimeCell``), so a remembered outcome is the one OpenSSL would compute again.
    func evaluate(leaf: Certificate, embedded: [Certificate], at time: Date?) -> ChainOutcome {
        let seconds = time.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
        guard let key = chainKey(leaf: leaf, embedded: embedded, seconds: seconds) else {
            return verify(leaf: leaf, embedded: embedded, seconds: seconds)
        }
        if let known = outcomes.withLock({ $0[key] }) { return known }
        let outcome = verify(leaf: leaf, embedded: embedded, seconds: seconds)
        outcomes.withLock { known in
            if known.count >= Self.outcomeCapacity { known.removeAll(keepingCapacity: true) }
            known[key] = outcome
        }
        return outcome
    }

    /// The inputs of a chain verification; `nil` when a validity date does not parse.
    private func chainKey(leaf: Certificate, embedded: [Certificate], seconds: Int64?) -> ChainKey? {
        let certificates = [leaf] + embedded
        guard let seconds else { return ChainKey(certificates: certificates, time: nil) }
        guard let pinned = pinnedBoundaries, let own = Self.boundaries(of: certificates) else { return nil }
        var cell = TimeCell(before: 0, atOrBefore: 0)
        for boundaries in [pinned, own] {
            for boundary in boundaries {
                if boundary < seconds { cell.before += 1 }
                if boundary <= seconds { cell.atOrBefore += 1 }
            }
        }
        return ChainKey(certificates: certificates, time: cell)
    }

    /// Every notBefore and notAfter of `certificates` in seconds, as OpenSSL compares them; `nil` when one does not
    /// parse.
    private static func boundaries(of certificates: [Certificate]) -> [Int64]? {
        var result: [Int64] = []
        result.reserveCapacity(certificates.count * 2)
        for certificate in certificates {
            for time in [X509_get0_notBefore(certificate.x509), X509_get0_notAfter(certificate.x509)] {
                var parts = tm()
                guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else {
                    ERR_clear_error()
                    return nil
                }
                result.append(Int64(timegm(&parts)))
            }
        }
        return result
    }

    /// Where a verification time falls among the boundaries: how many are before it, and how many at or before
    /// it. Two times with the same cell compare the same way with every boundary.
    private struct TimeCell: Hashable {
        var before: Int
        var atOrBefore: Int
    }

    /// A chain verification's inputs besides the fixed store: the leaf and the embedded certificates by their X509
    /// objects (kept alive by `certificates`, so an address is never reused while remembered), and the time's cell
    /// (`nil`: no time check).
    private struct ChainKey: Hashable, @unchecked Sendable {
        // @unchecked Sendable: the certificates are immutable once parsed (``Certificate``).
        let certificates: [Certificate]
        let time: TimeCell?

        static func == (a: ChainKey, b: ChainKey) -> Bool {
            a.time == b.time && a.certificates.count == b.certificates.count
                && zip(a.certificates, b.certificates).allSatisfy { $0.x509 == $1.x509 }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(time)
            for certificate in certificates { hasher.combine(certificate.x509) }
        }
    }

    /// X509_verify_cert for `leaf` at `seconds` (no time check when `nil`).
    private func verify(leaf: Certificate, embedded: [Certificate], seconds: Int64?) -> ChainOutcome {
        verifications.add(1, ordering: .relaxed)
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
        if let seconds {
            X509_STORE_CTX_set_time(context, 0, time_t(seconds))
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
