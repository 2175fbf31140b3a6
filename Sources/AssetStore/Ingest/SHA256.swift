internal import COpenSSL

/// Incremental SHA-256 over OpenSSL's EVP interface (which uses the CPU's SHA instructions).
///
/// Owns one `EVP_MD_CTX`, freed in deinit. Not Sendable: one hasher belongs to one writer.
final class SHA256Hasher {
    private let context: OpaquePointer

    init() throws(StoreError) {
        guard let context = EVP_MD_CTX_new() else {
            throw StoreError(.ioFailure, "cannot allocate an OpenSSL digest context")
        }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw StoreError(.ioFailure, "cannot initialise OpenSSL SHA-256")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        // EVP_DigestUpdate only fails for a context without a digest, which init rules out.
        _ = EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The lowercase hex digest. The hasher is spent afterwards.
    func finish() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &digest, &length)
        return Hex.encode(digest)
    }

    /// One-shot SHA-256 of a buffer, as lowercase hex.
    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha256(), nil)
        return Hex.encode(digest)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes { hex($0) } }

    /// One-shot SHA-256 of a buffer: the 32 digest bytes.
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        bytes.withUnsafeBytes { raw in _ = EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil) }
        return digest
    }
}

enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0x0f)]
            }
            return bytes.count * 2
        }
    }

    /// Whether `text` is a SHA-256 digest as the store spells it: 64 lowercase hex digits.
    static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
