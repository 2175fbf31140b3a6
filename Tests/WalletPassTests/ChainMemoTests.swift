import Findings
import Foundation
import Testing

@testable import WalletPass

/// The verifier remembers chain outcomes (``TrustAnchors``): a remembered outcome must be exactly the one OpenSSL
/// computes afresh, at every signing time around the validity boundaries of the leaf and the intermediate.
struct ChainMemoTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var signingTime: Date?
        /// The chain finding a fresh verifier reports (`nil`: none).
        var expected: String?
        var testDescription: String { name }
    }

    static let leafFrom = TestPKI.validFrom
    static let leafUntil = TestPKI.validUntil
    static let intermediateUntil = TestPKI.date("2035-01-01T00:00:00Z")

    static let rows: [Row] = [
        Row(
            name: "a second before the leaf's notBefore", signingTime: leafFrom - 1,
            expected: "pass.cert.notYetValidAtSigning"),
        Row(name: "at the leaf's notBefore", signingTime: leafFrom, expected: nil),
        Row(name: "a second after the leaf's notBefore", signingTime: leafFrom + 1, expected: nil),
        Row(name: "inside", signingTime: TestPKI.signingTime, expected: nil),
        Row(name: "inside, 7 s later", signingTime: TestPKI.signingTime + 7, expected: nil),
        Row(name: "a second before the leaf's notAfter", signingTime: leafUntil - 1, expected: nil),
        Row(name: "at the leaf's notAfter", signingTime: leafUntil, expected: "pass.cert.expiredAtSigning"),
        Row(
            name: "a second after the leaf's notAfter", signingTime: leafUntil + 1,
            expected: "pass.cert.expiredAtSigning"),
        Row(
            name: "after the intermediate's notAfter", signingTime: intermediateUntil + 1,
            expected: "pass.cert.expiredAtSigning"),
        Row(name: "no signing time", signingTime: nil, expected: nil),
    ]

    static func archive(_ row: Row) -> [UInt8] {
        PassParts.signed(options: SigningOptions(signingTime: row.signingTime, chain: [TestPKI.intermediate])).archive
    }

    static func chainFindings(_ verification: PassVerification) -> [Finding] {
        verification.findings.filter { $0.code.hasPrefix("pass.cert.") && $0.code != "pass.cert.expiredSince" }
    }

    /// One verifier for every row, twice over and in both orders (so each outcome is computed once and then
    /// remembered), against a fresh verifier per row.
    @Test func rememberedOutcomesEqualFreshOnes() throws {
        let archives = Self.rows.map(Self.archive)
        let shared = try PassVerifier(extraTrustCertificates: [TestPKI.root.pem], now: TestPKI.now)
        let order = Array(Self.rows.indices) + Self.rows.indices.reversed() + Array(Self.rows.indices)
        for index in order {
            let row = Self.rows[index]
            let fresh = try PassVerifier(extraTrustCertificates: [TestPKI.root.pem], now: TestPKI.now)
            let expected = fresh.verify(bytes: archives[index], source: "p.pkpass")
            let remembered = shared.verify(bytes: archives[index], source: "p.pkpass")
            #expect(remembered.findings == expected.findings, "\(row.name)")
            #expect(Self.chainFindings(expected).map(\.code) == (row.expected.map { [$0] } ?? []), "\(row.name)")
        }
        // Each row's chain was verified by OpenSSL at most once (the two inside rows share one), the rest remembered.
        let verified = shared.anchors.verifications.load(ordering: .relaxed)
        #expect(verified <= Self.rows.count - 1, "\(verified) verifications for \(order.count) passes")
    }

    /// The intermediate's expiry is reported at its own depth, also when remembered.
    @Test func anExpiredIntermediateIsNamedByDepth() throws {
        let row = Self.rows.first { $0.signingTime == Self.intermediateUntil + 1 }!
        let verifier = try PassVerifier(extraTrustCertificates: [TestPKI.root.pem], now: TestPKI.now)
        for _ in 0..<2 {
            let messages = Self.chainFindings(verifier.verify(bytes: Self.archive(row), source: "p.pkpass"))
                .map(\.message)
            #expect(
                messages.count == 1 && messages[0].hasPrefix("a chain certificate (depth 1) had expired"), "\(messages)"
            )
        }
    }
}
