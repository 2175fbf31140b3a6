import Foundation
import TestSupport
import Testing

@testable import Preflight

/// `Base64.decodeCanonical` decodes the remote's inline blobs in one pass; whatever it accepts must decode exactly as
/// Foundation does, and it must accept everything the encoder writes.
@Suite struct Base64DecodeTests {
    @Test func everyEncodingRoundTrips() {
        for size in 0..<300 {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ size) }
            let text = Array(Base64.encode(bytes).utf8)
            #expect(Base64.decodeCanonical(text[...]) == bytes, "\(size) bytes")
        }
    }

    @Test(arguments: [
        "", "=", "==", "A", "AA", "AAA", "AA=", "A===", "====", "AA==", "AQ==", "AR==", "AB==", "AAE=", "AAF=", "AAB=",
        "QUJD", "QUJ", "QU=D", "Q===", "QUJD\n", " QUJD", "QUJD====", "QU JD", "QUJD=", "+/+/", "-_-_", "QUJDRA==",
        "QUJDRA=A", "QUJDR===", "////", "AAAA", "\u{00}AAA", "AAA\u{80}",
    ])
    func acceptedTextDecodesAsFoundationDoes(_ text: String) {
        let bytes = Array(text.utf8)
        let foundation = Data(base64Encoded: Data(bytes)).map { [UInt8]($0) }
        if let decoded = Base64.decodeCanonical(bytes[...]) {
            #expect(decoded == foundation, "\(text.debugDescription)")
        }
        // Canonical texts are decoded here, never left to Foundation.
        let canonical: Set = ["", "AA==", "AQ==", "AAE=", "QUJD", "+/+/", "QUJDRA==", "////", "AAAA"]
        #expect((Base64.decodeCanonical(bytes[...]) != nil) == canonical.contains(text), "\(text.debugDescription)")
    }

    @Test func mutatedTextIsDecodedAsFoundationDoesOrLeftToIt() {
        var generator = SeededGenerator(seed: 0xBA5E)  // the same 20,000 texts every run
        func next(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &generator) }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n".utf8)
        var accepted = 0
        for _ in 0..<20_000 {
            var text = Array(Base64.encode((0..<next(40)).map { _ in UInt8(next(256)) }).utf8)
            for _ in 0..<next(3) where !text.isEmpty { text[next(text.count)] = alphabet[next(alphabet.count)] }
            let foundation = Data(base64Encoded: Data(text)).map { [UInt8]($0) }
            if let decoded = Base64.decodeCanonical(text[...]) {
                accepted += 1
                #expect(decoded == foundation, "\(String(decoding: text, as: UTF8.self).debugDescription)")
            }
        }
        #expect(accepted > 5_000, "most texts are canonical: \(accepted)")
    }
}
