import Findings
import Foundation
import Testing

@testable import WalletPass

/// Issue 14 item 6: rules whose verdict or wording changed, each with its evidence in the code it tests.
@Suite struct RulesRevisitedTests {
    @Test(
        arguments: [
            (png(4000, 4000), nil),
            (png(5000, 10), Severity.warning),
            (png(5000, 1000), .warning),  // 20 MB decoded: within a pass's 32 MiB
            (png(4097, 4097), .error),  // 67 MB decoded: more than a whole pass may hold
            (png(100_000, 100_000), .error),
        ] as [([UInt8], Severity?)])
    func imagesAbove4096PxAreWarningsUntilTheyOutgrowAPass(_ data: [UInt8], _ severity: Severity?) {
        let entries = [
            ArchiveEntry(name: "icon.png", compressedSize: 0, data: png(29, 29)),
            ArchiveEntry(name: "background.png", compressedSize: data.count, data: data),
        ]
        let findings = ImageChecker.check(entries: entries, style: "eventTicket", limits: PassLimits())
            .filter { $0.code == PassFindingCode.imageTooLarge }
        #expect(findings.map(\.severity) == (severity.map { [$0] } ?? []), "\(findings)")
    }

    @Test(arguments: [
        (#""description": """#, #""description" is empty; it must be a non-empty string"#),
        (#""description": 5"#, #""description" must be a non-empty string, found number"#),
    ])
    func anEmptyDescriptionReadsAsEmpty(_ replacement: String, _ message: String) {
        let json = PassParts.passJSON(replacing: #""description": "Test pass""#, with: replacement)
        let lint = PassJSONLinter.lint(Array(json.utf8), now: TestPKI.now, limits: PassLimits())
        #expect(lint.findings.map(\.message) == [message], "\(lint.findings)")
    }

    @Test func aSelfSignedLeafSaysSoPlainly() throws {
        let selfSigned = TestCertificate(
            .init(
                subject: [
                    ("UID", TestPKI.passTypeIdentifier), ("CN", "Pass Type ID: \(TestPKI.passTypeIdentifier)"),
                    ("OU", TestPKI.teamIdentifier), ("O", "Inbox Assets Tests"), ("C", "US"),
                ], serial: 7, notBefore: TestPKI.validFrom, notAfter: TestPKI.validUntil,
                extendedKeyUsage: "1.2.840.113635.100.4.14,clientAuth",
                passTypeExtension: TestPKI.utf8String(TestPKI.passTypeIdentifier)),
            key: TestPKI.leafKey, issuer: nil)
        let pass = PassParts.signed(signer: selfSigned, options: SigningOptions()).archive
        let result = SignedPassTests.trusted.verify(bytes: pass, source: "self.pkpass")
        #expect(result.findings.map(\.code) == ["pass.cert.untrusted"], "\(result.findings)")
        #expect(result.findings.first?.message.hasPrefix("the signer certificate is self-signed") == true)
        #expect(!result.findings.contains { $0.message.contains("issued by UID=") })
    }
}
