import Foundation
import StrictJSON
import Testing

@testable import WalletPass

/// The documented verdict of every real pass in `Fixtures/passes/corpus` (copied byte for byte from
/// `pass-corpus/passes`; see its README.txt for origin and per-file detail).
struct CorpusCase: CustomTestStringConvertible, Sendable {
    var file: String
    var valid: Bool
    /// Exactly the error codes expected.
    var errors: Set<String>
    /// Warning codes that must be among the findings (image-size and similar lint may add more).
    var warnings: Set<String>
    /// The WWDR generation that issued the signer certificate, when one is found.
    var generation: String?

    var testDescription: String { file }

    static let expired = "pass.cert.expiredSince"
    static let all: [CorpusCase] = [
        .init(
            file: "apple-sample__BoardingPass", valid: true, errors: [],
            warnings: [expired, "pass.json.trailingComma"], generation: "G1"),
        .init(file: "apple-sample__Coupon", valid: true, errors: [], warnings: [expired], generation: "G1"),
        .init(file: "apple-sample__Event", valid: true, errors: [], warnings: [expired], generation: "G1"),
        .init(file: "apple-sample__Generic", valid: true, errors: [], warnings: [expired], generation: "G1"),
        .init(file: "apple-sample__StoreCard", valid: true, errors: [], warnings: [expired], generation: "G1"),
        .init(
            file: "dotnet-passbook__sample-web-pass-2012", valid: false, errors: ["pass.signature.signerNotFound"],
            warnings: [], generation: nil),
        .init(
            file: "edutap__basic_pass", valid: true, errors: [], warnings: [expired, "pass.signature.notDetached"],
            generation: "G4"),
        .init(file: "edutap__generated-eventticket", valid: true, errors: [], warnings: [expired], generation: "G4"),
        .init(
            file: "edutap__generated-loyaltypass_nfc", valid: true, errors: [], warnings: [expired], generation: "G4"),
        .init(
            file: "edutap__unsigned-1234", valid: false, errors: ["pass.manifest.missing", "pass.signature.missing"],
            warnings: [], generation: nil),
        .init(
            file: "passandroid__broken-fail", valid: false, errors: ["pass.archive.notZip"], warnings: [],
            generation: nil),
        .init(
            file: "passandroid__westbahn-special", valid: false,
            errors: ["pass.manifest.missingFile", "pass.image.iconMissing", "pass.json.fieldDuplicateKey"],
            warnings: [expired], generation: "G1"),
        .init(
            file: "pkpassvalidator__bad", valid: false, errors: ["pass.cert.extensionMismatch"], warnings: [expired],
            generation: "G1"),
        .init(file: "pkpassvalidator__good", valid: true, errors: [], warnings: [expired], generation: "G1"),
        .init(
            file: "ueman-passkit__BoardingPass_unsigned", valid: false, errors: ["pass.manifest.hashMismatch"],
            warnings: [expired],
            generation: "G1"),
        .init(file: "ueman-passkit__cinema", valid: true, errors: [], warnings: [expired], generation: "G4"),
        .init(
            file: "ueman-passkit__coffee_club", valid: true, errors: [],
            warnings: [expired, "pass.cert.wrongIntermediate"],
            generation: "G4"),
        .init(
            file: "ueman-passkit__generic_with_invalid_checksum", valid: false, errors: ["pass.manifest.hashMismatch"],
            warnings: [expired], generation: "G1"),
        .init(
            file: "ueman-passkit__generic_with_missing_checksum", valid: false,
            errors: ["pass.manifest.hashMismatch", "pass.manifest.unlistedFile", "pass.signature.manifestMismatch"],
            warnings: [expired], generation: "G1"),
        .init(
            file: "ueman-passkit__kudit-boardingpass-coupon", valid: true, errors: [],
            warnings: [expired, "pass.cert.wrongIntermediate"], generation: "G4"),
        .init(
            file: "ueman-passkit__kudit-coupon", valid: true, errors: [],
            warnings: [expired, "pass.cert.wrongIntermediate"],
            generation: "G4"),
        .init(
            file: "walletcompanion-kashif__SamplePasses-Event", valid: true, errors: [], warnings: [expired],
            generation: "G1"),
        .init(file: "walletcompanion-kashif__event1", valid: true, errors: [], warnings: [expired], generation: "G1"),
        .init(file: "walletcompanion-kashif__sample", valid: true, errors: [], warnings: [expired], generation: "G1"),
    ]
}

@Suite struct CorpusTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/passes/corpus").standardized
    /// A fixed "now" so "expired since" does not depend on the day the tests run.
    static let verifier = try! PassVerifier(now: TestPKI.date("2026-11-29T00:00:00Z"))

    static func path(_ file: String) -> String { directory.appendingPathComponent(file + ".pkpass").path }

    @Test func everyCorpusFileHasAPinnedVerdict() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter {
            $0.hasSuffix(".pkpass")
        }
        #expect(Set(files.map { String($0.dropLast(7)) }) == Set(CorpusCase.all.map(\.file)))
    }

    @Test(arguments: CorpusCase.all)
    func verdict(_ expected: CorpusCase) {
        let result = Self.verifier.verify(fileAt: Self.path(expected.file))
        let errors = Set(result.findings.filter { $0.severity == .error }.map(\.code))
        let warnings = Set(result.findings.filter { $0.severity == .warning }.map(\.code))
        #expect(result.valid == expected.valid, "\(result.findings)")
        #expect(errors == expected.errors, "\(result.findings)")
        #expect(expected.warnings.isSubset(of: warnings), "\(result.findings)")
        #expect(result.signer?.issuingGeneration == expected.generation)
        // Every finding says something specific and, apart from whole-archive ones, where.
        for finding in result.findings { #expect(!finding.message.isEmpty) }
        #expect(result.findings.allSatisfy { PassFindingCode.all.contains($0.code) }, "undocumented code")
    }

    @Test func cinemaUsesASubjectKeyIdentifierSigner() {
        let result = Self.verifier.verify(fileAt: Self.path("ueman-passkit__cinema"))
        #expect(result.signer?.signerIdentifier == "subjectKeyIdentifier")
        #expect(result.signer?.digestAlgorithm == "sha256")
        #expect(result.signer?.passTypeIdentifier == "pass.express.kinotickets.pass.ticket")
        #expect(result.signer?.teamIdentifier == "ATN8PB95XQ")
        #expect(result.signer?.serialNumber == "1408333CCA0355D70EA1EEB67FB5B5AC")
        #expect(result.signer?.signingTime == TestPKI.date("2024-06-27T18:06:53Z"))
        #expect(result.signer?.notAfter == TestPKI.date("2024-12-21T12:56:33Z"))
        #expect(result.summary?.style == "eventTicket")
    }

    @Test func wrongIntermediateNamesTheOneNeeded() {
        let result = Self.verifier.verify(fileAt: Self.path("ueman-passkit__coffee_club"))
        let finding = result.findings.first { $0.code == "pass.cert.wrongIntermediate" }
        #expect(finding?.message.contains("WWDR G4") == true)
        #expect(finding?.message.contains("WWDR G1") == true)
    }

    @Test func nfcCertificateIsRecognised() {
        let result = Self.verifier.verify(fileAt: Self.path("edutap__generated-loyaltypass_nfc"))
        #expect(result.signer?.nfcEnabled == true)
        #expect(result.summary?.hasNFC == true)
    }

    @Test func jsonCarriesPathVerdictSummarySignerAndFindings() {
        let result = Self.verifier.verify(fileAt: Self.path("pkpassvalidator__bad"))
        let json = result.json
        #expect(json.objectValue?.keys == ["path", "valid", "summary", "signer", "findings"])
        #expect(json["valid"]?.boolValue == false)
        #expect(json["summary"]?["passTypeIdentifier"]?.stringValue == "pass.fr.avomark.lerendezvous")
        #expect(json["signer"]?["issuingGeneration"]?.stringValue == "G1")
        #expect(json["signer"]?["signingTime"]?.stringValue == "2020-02-04T15:26:06Z")
        let codes = json["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(codes.contains("pass.cert.extensionMismatch"))
        let url = Self.verifier.verify(bytes: [], source: "https://cdn.example/p.pkpass?token=secret").json
        #expect(url["url"]?.stringValue == "https://cdn.example/p.pkpass?token=REDACTED")
        #expect(url["path"] == nil)
        let failed = PassVerification(
            source: "https://cdn.example/p.pkpass?sig=abc", findings: [.error("asset.http-status", "HTTP 404")])
        #expect(!failed.valid)
        #expect(failed.json["url"]?.stringValue == "https://cdn.example/p.pkpass?sig=REDACTED")
        #expect(failed.json["signer"] == .null)
    }

    @Test func inspectListsFilesAndCertificates() {
        let inspection = Self.verifier.inspect(fileAt: Self.path("pkpassvalidator__good"))
        #expect(
            inspection.files.map(\.name).sorted() == [
                "icon.png", "icon@2x.png", "logo.png", "logo@2x.png", "manifest.json", "pass.json", "signature",
                "strip.png",
            ])
        #expect(inspection.files.first { $0.name == "pass.json" }?.size == 1646)
        #expect(inspection.certificates.count == 2)
        #expect(inspection.certificates.filter(\.isSigner).map(\.serialNumber) == ["5D3F8CAFE08C602D"])
        #expect(inspection.certificates.first { !$0.isSigner }?.wwdrGeneration == "G1")
        let json = inspection.json
        #expect(json.objectValue?.keys == ["path", "valid", "summary", "signer", "files", "certificates", "findings"])
        #expect(json["files"]?.arrayValue?.count == 8)
    }
}

extension CorpusTests {
    @Test func oneVerifierServesManyThreadsWithTheSameAnswers() async {
        let files = CorpusCase.all.map(\.file)
        let serial = files.map { Self.verifier.verify(fileAt: Self.path($0)) }
        let parallel = await withTaskGroup(of: (Int, PassVerification).self) { group in
            for (index, file) in files.enumerated() {
                group.addTask { (index, Self.verifier.verify(fileAt: Self.path(file))) }
            }
            var results = [PassVerification?](repeating: nil, count: files.count)
            for await (index, result) in group { results[index] = result }
            return results
        }
        #expect(parallel == serial)
    }
}

extension CorpusTests {
    @Test func textNamesTheVerdictTheSignerAndEveryFinding() {
        let result = Self.verifier.verify(fileAt: Self.path("ueman-passkit__coffee_club"))
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines[0] == Self.path("ueman-passkit__coffee_club") + ": valid (\(result.findings.count) warnings)")
        #expect(lines[1].hasPrefix("  pass: storeCard"))
        #expect(
            lines[2].hasPrefix("  signer: pass.com.kudit.temp4 team 3QPV894C33, WWDR G4, signed 2024-07-21T10:02:05Z"))
        #expect(lines.count == 3 + result.findings.count)
        #expect(lines.contains { $0.hasPrefix("  warning pass.cert.wrongIntermediate [signature]: ") })
        let broken = Self.verifier.verify(fileAt: Self.path("passandroid__broken-fail")).text
        #expect(
            broken.hasSuffix(
                ": INVALID (1 error)\n  error pass.archive.notZip: not a ZIP archive (starts with 'f' 'a' 'i' 'l')"))
    }

    @Test func directoriesAreWalkedForPasses() {
        let paths = PassVerifier.passFiles(under: Self.directory.path)
        #expect(paths.count == CorpusCase.all.count)
        #expect(paths == paths.sorted())
        #expect(PassVerifier.passFiles(under: Self.path("ueman-passkit__cinema")).isEmpty)
    }
}

extension CorpusTests {
    /// The certificate cache cuts certificates out of the CMS bytes: it must see every real layout and change
    /// nothing about the outcome.
    @Test(arguments: CorpusCase.all)
    func certificateCacheChangesNothing(_ expected: CorpusCase) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.path(expected.file))))
        let archive = PassArchiveReader.read(bytes, limits: PassLimits())
        guard let signature = archive.entries.first(where: { $0.name == "signature" })?.data else { return }
        let manifest = archive.entries.first { $0.name == "manifest.json" }?.data ?? []
        let cache = CertificateCache()
        let plain = SignatureChecker.check(signature: signature, manifest: manifest, cache: nil)
        let cached = SignatureChecker.check(signature: signature, manifest: manifest, cache: cache)
        let again = SignatureChecker.check(signature: signature, manifest: manifest, cache: cache)
        for result in [cached, again] {
            #expect(result.findings == plain.findings)
            #expect(result.embedded.map(\.sha256Fingerprint) == plain.embedded.map(\.sha256Fingerprint))
            #expect(result.signer?.serialHex == plain.signer?.serialHex)
            #expect(result.signingTime == plain.signingTime)
        }
        let split = CMSLayout.split(signature)
        #expect(split?.certificates.count == (plain.embedded.isEmpty ? nil : plain.embedded.count))
        #expect(again.embedded.allSatisfy { embedded in cached.embedded.contains { $0.x509 == embedded.x509 } })
    }

    @Test func cmsLayoutRefusesWhatItDoesNotKnow() throws {
        #expect(CMSLayout.split([]) == nil)
        #expect(CMSLayout.split([0x30, 0x80, 0x06, 0x00, 0x00, 0x00]) == nil)  // no end-of-contents
        #expect(CMSLayout.split([0x30, 0x80, 0x06, 0x01, 0x2A, 0x00, 0x00]) == nil)  // no [0] SignedData
        // 10,000 nested indefinite SEQUENCEs: refused at the depth limit, no stack overflow.
        let nested = (0..<20_000).map { $0 % 2 == 0 ? UInt8(0x30) : UInt8(0x80) }
        #expect(BER.read(nested[...]) == nil)
        // Indefinite and definite lengths both read; `whole` keeps the input bytes.
        let indefinite: [UInt8] = [0x30, 0x80, 0x02, 0x01, 0x05, 0x30, 0x80, 0x00, 0x00, 0x00, 0x00, 0xFF]
        let (element, rest) = try #require(BER.read(indefinite[...]))
        #expect(element.content.elementsEqual([0x02, 0x01, 0x05, 0x30, 0x80, 0x00, 0x00]))
        #expect(element.whole.count == 11 && rest.elementsEqual([0xFF]))
        #expect(CMSLayout.split(DER.encode(tag: 0x30, [0x06, 0x01, 0x2A])) == nil)  // no [0] SignedData
    }
}
