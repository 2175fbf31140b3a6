internal import COpenSSL
import Foundation

/// One owned OpenSSL X509 certificate with the accessors the pass rules need.
final class Certificate: @unchecked Sendable {
    // @unchecked Sendable: the X509 is never mutated after init; OpenSSL's read accessors on a fully
    // parsed certificate are thread-safe (the extension cache is filled under a lock).
    let x509: OpaquePointer

    /// Takes ownership of `x509` (one reference).
    init(taking x509: OpaquePointer) { self.x509 = x509 }

    /// Shares `x509` with another owner (adds a reference).
    init(retaining x509: OpaquePointer) {
        X509_up_ref(x509)
        self.x509 = x509
    }

    deinit { X509_free(x509) }

    /// Parses every certificate in `bytes`: PEM (several certificates allowed) or one DER certificate.
    static func parseAll(_ bytes: [UInt8]) -> [Certificate] {
        let pemMarker = Array("-----BEGIN".utf8)
        let isPEM =
            bytes.count >= pemMarker.count
            && bytes.indices.dropLast(pemMarker.count - 1).contains {
                bytes[$0..<($0 + pemMarker.count)].elementsEqual(pemMarker)
            }
        return bytes.withUnsafeBytes { raw -> [Certificate] in
            guard let base = raw.baseAddress, raw.count > 0, raw.count <= Int(Int32.max) else { return [] }
            if isPEM {
                guard let bio = BIO_new_mem_buf(base, Int32(raw.count)) else { return [] }
                defer { BIO_free(bio) }
                var result: [Certificate] = []
                while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) {
                    result.append(Certificate(taking: x509))
                }
                ERR_clear_error()  // the loop ends on "no start line", which is not an error here
                return result
            }
            var cursor: UnsafePointer<UInt8>? = base.assumingMemoryBound(to: UInt8.self)
            guard let x509 = d2i_X509(nil, &cursor, raw.count) else {
                ERR_clear_error()
                return []
            }
            return [Certificate(taking: x509)]
        }
    }

    // MARK: names

    /// The subject as `C=US, O=Apple Inc., …` in the certificate's own order.
    var subjectText: String { Self.nameText(X509_get_subject_name(x509)) }
    /// The issuer, formatted like ``subjectText``.
    var issuerText: String { Self.nameText(X509_get_issuer_name(x509)) }

    /// The first value of the subject attribute `nid` (e.g. `NID_userId`, `NID_commonName`), as UTF-8.
    func subjectValue(_ nid: Int32) -> String? {
        guard let name = X509_get_subject_name(x509) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index) else { return nil }
        return Self.utf8(X509_NAME_ENTRY_get_data(entry))
    }

    var userID: String? { subjectValue(NID_userId) }
    var commonName: String? { subjectValue(NID_commonName) }
    var organizationalUnit: String? { subjectValue(NID_organizationalUnitName) }
    var organization: String? { subjectValue(NID_organizationName) }

    /// Whether the subject and issuer names are equal and the certificate says it is self-signed.
    var isSelfSigned: Bool { X509_get_extension_flags(x509) & UInt32(EXFLAG_SS) != 0 }

    /// Whether `self`'s issuer name equals `other`'s subject name.
    func issuerNameMatches(subjectOf other: Certificate) -> Bool {
        X509_NAME_cmp(X509_get_issuer_name(x509), X509_get_subject_name(other.x509)) == 0
    }

    /// Whether both are the same certificate (same DER encoding).
    func isSame(as other: Certificate) -> Bool { X509_cmp(x509, other.x509) == 0 }

    // MARK: validity, serial, key ids

    var notBefore: Date? { Self.date(X509_get0_notBefore(x509)) }
    var notAfter: Date? { Self.date(X509_get0_notAfter(x509)) }

    /// The serial number as upper-case hex, as `openssl x509 -serial` prints it.
    var serialHex: String {
        guard let serial = X509_get0_serialNumber(x509) else { return "" }
        return Hex.encode(Self.bytes(serial), uppercase: true)
    }

    var subjectKeyIdentifier: [UInt8]? { X509_get0_subject_key_id(x509).map { Self.bytes($0) } }
    var authorityKeyIdentifier: [UInt8]? { X509_get0_authority_key_id(x509).map { Self.bytes($0) } }

    /// The SHA-256 fingerprint as lower-case hex.
    var sha256Fingerprint: String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard X509_digest(x509, EVP_sha256(), &digest, &length) == 1 else { return "" }
        return Hex.encode(digest.prefix(Int(length)))
    }

    // MARK: extensions

    /// The raw value (the OCTET STRING's content) of the extension `object`, `nil` when absent.
    func extensionValue(_ object: OpaquePointer) -> [UInt8]? {
        extensionValue(at: X509_get_ext_by_OBJ(x509, object, -1))
    }

    /// The raw value of the extension with NID `nid`, `nil` when absent.
    func extensionValue(nid: Int32) -> [UInt8]? { extensionValue(at: X509_get_ext_by_NID(x509, nid, -1)) }

    private func extensionValue(at index: Int32) -> [UInt8]? {
        guard index >= 0, let ext = X509_get_ext(x509, index), let data = X509_EXTENSION_get_data(ext) else {
            return nil
        }
        return Self.bytes(data)
    }

    // MARK: helpers

    static func bytes(_ string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(string))
        guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    static func bytes(_ string: UnsafeMutablePointer<ASN1_STRING>) -> [UInt8] { bytes(UnsafePointer(string)) }

    private static func utf8(_ string: UnsafeMutablePointer<ASN1_STRING>?) -> String? {
        guard let string else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&out, string)
        guard length >= 0, let out else { return nil }
        defer { ia_openssl_free(out) }
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
    }

    private static func nameText(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        var parts: [String] = []
        for index in 0..<X509_NAME_entry_count(name) {
            guard let entry = X509_NAME_get_entry(name, index) else { continue }
            let nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry))
            let key = OBJ_nid2sn(nid).map { String(cString: $0) } ?? "?"
            parts.append("\(key)=\(utf8(X509_NAME_ENTRY_get_data(entry)) ?? "")")
        }
        return parts.joined(separator: ", ")
    }

    /// Converts an ASN1_TIME (UTCTime or GeneralizedTime) to a `Date`.
    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
