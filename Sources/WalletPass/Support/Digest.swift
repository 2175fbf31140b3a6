internal import COpenSSL

/// SHA-1 and SHA-256 with one EVP_MD fetched per verifier.
///
/// `EVP_sha1()` makes OpenSSL 3 look the implementation up again on every digest; fetching once keeps
/// the per-pass cost to the hash itself (the verifier hashes every file of every pass).
final class Digester: @unchecked Sendable {
    // @unchecked Sendable: both EVP_MD pointers are fetched once in init, never mutated, and OpenSSL
    // documents fetched EVP_MD objects as safe to share between threads.
    private let sha1: OpaquePointer
    private let sha256: OpaquePointer

    init() {
        guard let sha1 = EVP_MD_fetch(nil, "SHA1", nil) else {
            preconditionFailure("OpenSSL's default provider has no SHA1")
        }
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
            EVP_MD_free(sha1)
            preconditionFailure("OpenSSL's default provider has no SHA256")
        }
        self.sha1 = sha1
        self.sha256 = sha256
    }

    deinit {
        EVP_MD_free(sha1)
        EVP_MD_free(sha256)
    }

    /// The 20-byte SHA-1 of `bytes` (one-shot, no copy).
    func sha1(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, sha1, length: 20) }

    /// The 32-byte SHA-256 of `bytes`.
    func sha256(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, sha256, length: 32) }

    private func digest(_ bytes: [UInt8], _ md: OpaquePointer, length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        let status = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                EVP_Digest(
                    input.baseAddress, input.count, output.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    &written, md, nil)
            }
        }
        precondition(status == 1 && Int(written) == length, "EVP_Digest failed")
        return out
    }
}

/// Hex helpers shared by the manifest check and the reports.
enum Hex {
    private static let lowerDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let upperDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Hex of `bytes`, lower-case unless `uppercase`.
    static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = uppercase ? upperDigits : lowerDigits
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes of a hex string (either case), or `nil` when it holds anything but pairs of hex digits.
    static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Equality of two digests in time independent of where they differ (rule B2), via CRYPTO_memcmp.
func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    return lhs.withUnsafeBytes { left in
        rhs.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
    }
}

/// Drains OpenSSL's thread-local error queue: every reason code (oldest first) and the text of the last
/// error, which is the most specific one for CMS (e.g. "content verify error" after "verification failure").
func takeOpenSSLError() -> (reasons: [Int32], text: String) {
    var reasons: [Int32] = []
    var last: UInt = 0
    while case let code = ERR_get_error(), code != 0 {
        reasons.append(ERR_GET_REASON(code))
        last = code
    }
    guard last != 0 else { return ([], "unknown OpenSSL error") }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(last, &buffer, buffer.count)
    return (reasons, String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
}
