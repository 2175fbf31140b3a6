internal import COpenSSL
import Synchronization

/// Parses the certificates embedded in pass signatures once per verifier.
///
/// Why: OpenSSL 3.0 decodes a certificate's public key through its provider machinery while parsing, which
/// costs ~100 µs per certificate here — more than all the signature math of a pass. A fleet of passes
/// embeds the same few certificates (the WWDR intermediate, one leaf per issuer), so the verifier cuts the
/// certificates out of the CMS bytes (``CMSLayout``), parses the rest, and re-attaches certificates parsed
/// once. The signature does not cover the certificate set, so verification is unchanged.
final class CertificateCache: Sendable {
    private let entries = Mutex<[Key: Certificate]>([:])
    /// Bounds memory when every pass brings new certificates: the cache starts over when full.
    private let capacity: Int

    init(capacity: Int = 1024) { self.capacity = capacity }

    /// The certificate for `der`, parsed on first use; `nil` when it does not parse (or has trailing bytes).
    func certificate(_ der: ArraySlice<UInt8>) -> Certificate? {
        let key = Key(der: Array(der))
        if let hit = entries.withLock({ $0[key] }) { return hit }
        let parsed: OpaquePointer? = key.der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let x509 = d2i_X509(nil, &cursor, buffer.count)
            guard let x509, cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                if let x509 { X509_free(x509) }
                return nil
            }
            return x509
        }
        guard let parsed else {
            ERR_clear_error()
            return nil
        }
        let certificate = Certificate(taking: parsed)
        entries.withLock { cache in
            if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = certificate
        }
        return certificate
    }

    /// DER bytes hashed in one call: `[UInt8]`'s own Hashable feeds the hasher byte by byte, which showed
    /// up in profiles for ~1.5 kB certificates.
    private struct Key: Hashable {
        var der: [UInt8]

        func hash(into hasher: inout Hasher) { der.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }
}

/// The byte layout of a CMS SignedData, enough to take its `certificates` field out.
///
/// ContentInfo ::= SEQUENCE { contentType OID, [0] EXPLICIT SignedData }
/// SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo SEQUENCE,
///                           certificates [0] IMPLICIT SET OPTIONAL, crls [1] IMPLICIT OPTIONAL, signerInfos SET }
/// Apple's signpass writes BER with indefinite lengths, so those are read too; the envelope is re-encoded with
/// definite lengths and every other element is copied byte for byte. Anything unexpected returns `nil`, and
/// the caller parses the original bytes the ordinary way.
enum CMSLayout {
    struct Split {
        /// The ContentInfo re-encoded without the certificates field.
        var withoutCertificates: [UInt8]
        /// Each embedded certificate's encoding, in order.
        var certificates: [ArraySlice<UInt8>]
    }

    static func split(_ bytes: [UInt8]) -> Split? {
        guard let (contentInfo, rest) = BER.read(bytes[...]), contentInfo.tag == 0x30, rest.isEmpty,
            let (contentType, afterType) = BER.read(contentInfo.content), contentType.tag == 0x06,
            let (explicit, afterExplicit) = BER.read(afterType), explicit.tag == 0xA0, afterExplicit.isEmpty,
            let (signedData, afterSignedData) = BER.read(explicit.content), signedData.tag == 0x30,
            afterSignedData.isEmpty
        else { return nil }
        var kept: [UInt8] = []
        kept.reserveCapacity(signedData.content.count)
        var certificates: [ArraySlice<UInt8>] = []
        var remaining = signedData.content
        var found = false
        while !remaining.isEmpty {
            guard let (element, next) = BER.read(remaining) else { return nil }
            if element.tag == 0xA0 && !found {
                found = true
                var members = element.content
                while !members.isEmpty {
                    guard let (certificate, after) = BER.read(members), certificate.tag == 0x30 else { return nil }
                    certificates.append(certificate.whole)
                    members = after
                }
            } else {
                kept += element.whole
            }
            remaining = next
        }
        guard found else { return nil }
        let explicitBytes = DER.encode(tag: 0xA0, DER.encode(tag: 0x30, kept))
        return Split(
            withoutCertificates: DER.encode(tag: 0x30, Array(contentType.whole) + explicitBytes),
            certificates: certificates)
    }
}

/// A BER reader for the CMS envelope: definite lengths as in DER plus indefinite lengths on constructed
/// elements (ended by two zero bytes). Nesting is bounded, so hostile input cannot exhaust the stack.
enum BER {
    struct Element {
        var tag: UInt8
        /// The content, without any end-of-contents marker.
        var content: ArraySlice<UInt8>
        /// Tag, length, content (and end-of-contents) as they appear in the input.
        var whole: ArraySlice<UInt8>
    }

    static let maxDepth = 32

    static func read(_ bytes: ArraySlice<UInt8>, depth: Int = 0) -> (Element, rest: ArraySlice<UInt8>)? {
        guard depth < maxDepth, bytes.count >= 2 else { return nil }
        let start = bytes.startIndex
        let tag = bytes[start]
        guard tag & 0x1F != 0x1F else { return nil }  // multi-byte tags do not occur in CMS
        guard bytes[start + 1] == 0x80 else {
            guard let (element, rest) = DER.read(bytes) else { return nil }
            return (Element(tag: tag, content: element.content, whole: bytes[start..<rest.startIndex]), rest)
        }
        guard tag & 0x20 != 0 else { return nil }  // only constructed encodings may be indefinite
        var cursor = bytes[(start + 2)...]
        while cursor.count >= 2 {
            if cursor[cursor.startIndex] == 0 && cursor[cursor.startIndex + 1] == 0 {
                let end = cursor.startIndex + 2
                let element = Element(
                    tag: tag, content: bytes[(start + 2)..<cursor.startIndex], whole: bytes[start..<end])
                return (element, bytes[end...])
            }
            guard let (_, next) = read(cursor, depth: depth + 1) else { return nil }
            cursor = next
        }
        return nil
    }
}
