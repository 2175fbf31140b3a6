import Foundation
import Testing

@testable import WalletPass

/// Passes signed by a PKI the tests generate (root → WWDR-like intermediate → Pass Type ID leaf).
@Suite struct SignedPassTests {
    static let trusted = try! PassVerifier(extraTrustCertificates: [TestPKI.root.pem], now: TestPKI.now)

    @Test func aWellFormedSignedPassVerifiesWhenItsRootIsTrusted() {
        let result = Self.trusted.verify(bytes: PassParts.signed().archive, source: "test.pkpass")
        #expect(result.valid, "\(result.findings)")
        #expect(result.findings.isEmpty, "\(result.findings)")
        #expect(result.signer?.passTypeIdentifier == TestPKI.passTypeIdentifier)
        #expect(result.signer?.teamIdentifier == TestPKI.teamIdentifier)
        #expect(result.signer?.signingTime == TestPKI.signingTime)
        #expect(result.signer?.digestAlgorithm == "sha256")
        #expect(result.signer?.signerIdentifier == "issuerAndSerialNumber")
        #expect(result.summary?.style == "generic")
        #expect(result.summary?.serialNumber == "TEST-0001")
    }
}

/// One way to break (or legitimately vary) a signed pass, and what the verifier must say about it.
struct Mutation: CustomTestStringConvertible, Sendable {
    var name: String
    /// Expected verdict.
    var valid: Bool
    /// Finding codes that must appear (errors when invalid; warnings may be listed too).
    var codes: Set<String>
    var make: @Sendable () -> [UInt8]

    var testDescription: String { name }

    static let chain = [TestPKI.intermediate]

    static let all: [Mutation] = [
        Mutation(name: "SHA-1 digest is accepted", valid: true, codes: []) {
            PassParts.signed(options: SigningOptions(sha1: true, chain: chain)).archive
        },
        Mutation(name: "subjectKeyIdentifier signer (SignedData v3) is accepted", valid: true, codes: []) {
            PassParts.signed(options: SigningOptions(subjectKeyIdentifier: true, chain: chain)).archive
        },
        Mutation(name: "tampered file after signing", valid: false, codes: ["pass.manifest.hashMismatch"]) {
            var parts = PassParts.signed()
            parts.replace("logo.png", with: png(150, 50))
            return parts.archive
        },
        Mutation(name: "tampered manifest after signing", valid: false, codes: ["pass.signature.manifestMismatch"]) {
            var parts = PassParts.signed()
            parts.manifest! += Array(" ".utf8)
            return parts.archive
        },
        Mutation(name: "file added but not listed", valid: false, codes: ["pass.manifest.unlistedFile"]) {
            var parts = PassParts.signed()
            parts.files.append(("strip.png", png(375, 98)))
            return parts.archive
        },
        Mutation(name: "listed file missing from the archive", valid: false, codes: ["pass.manifest.missingFile"]) {
            var parts = PassParts.signed()
            parts.files.removeAll { $0.name == "logo.png" }
            return parts.archive
        },
        Mutation(name: "no signature file", valid: false, codes: ["pass.signature.missing"]) {
            var parts = PassParts.signed()
            parts.signature = nil
            return parts.archive
        },
        Mutation(
            name: "no manifest.json", valid: false,
            codes: ["pass.manifest.missing"]
        ) {
            var parts = PassParts.signed()
            parts.manifest = nil
            return parts.archive
        },
        Mutation(name: "signature over other bytes", valid: false, codes: ["pass.signature.manifestMismatch"]) {
            var parts = PassParts.signed()
            parts.signature = TestPKI.sign(Array("{}".utf8), with: TestPKI.leaf, options: SigningOptions(chain: chain))
            return parts.archive
        },
        Mutation(name: "signature is not CMS", valid: false, codes: ["pass.signature.unparseable"]) {
            var parts = PassParts.signed()
            parts.signature = Array("not a signature".utf8)
            return parts.archive
        },
        Mutation(name: "no signingTime attribute", valid: false, codes: ["pass.signature.noSigningTime"]) {
            PassParts.signed(options: SigningOptions(signingTime: nil, chain: chain)).archive
        },
        Mutation(name: "no embedded certificates", valid: false, codes: ["pass.signature.signerNotFound"]) {
            PassParts.signed(options: SigningOptions(embedCertificates: false)).archive
        },
        Mutation(name: "extension .16 holds another value", valid: false, codes: ["pass.cert.extensionMismatch"]) {
            PassParts.signed(signer: TestPKI.passLeaf(extensionValue: "My Pass Description")).archive
        },
        Mutation(
            name: "certificate UID differs from passTypeIdentifier", valid: false, codes: ["pass.cert.uidMismatch"]
        ) {
            let leaf = TestPKI.passLeaf(
                uid: "pass.test.other", commonName: "Pass Type ID: \(TestPKI.passTypeIdentifier)")
            return PassParts.signed(signer: leaf).archive
        },
        Mutation(name: "certificate OU differs from teamIdentifier", valid: false, codes: ["pass.cert.teamMismatch"]) {
            PassParts.signed(signer: TestPKI.passLeaf(team: "OTHERTEAM1")).archive
        },
        Mutation(name: "CN is not 'Pass Type ID: …'", valid: false, codes: ["pass.cert.subjectMismatch"]) {
            PassParts.signed(signer: TestPKI.passLeaf(commonName: "Some Certificate")).archive
        },
        Mutation(name: "certificate expired at signing time", valid: false, codes: ["pass.cert.expiredAtSigning"]) {
            let leaf = TestPKI.passLeaf(
                notBefore: TestPKI.date("2023-01-01T00:00:00Z"), notAfter: TestPKI.date("2024-01-01T00:00:00Z"))
            return PassParts.signed(signer: leaf).archive
        },
        Mutation(
            name: "certificate not yet valid at signing time", valid: false,
            codes: ["pass.cert.notYetValidAtSigning"]
        ) {
            let leaf = TestPKI.passLeaf(notBefore: TestPKI.date("2025-12-01T00:00:00Z"))
            return PassParts.signed(signer: leaf).archive
        },
        Mutation(name: "leaf is not a Pass Type ID certificate", valid: false, codes: ["pass.cert.notPassType"]) {
            PassParts.signed(signer: TestPKI.passLeaf(extensionValue: nil, keyUsage: "clientAuth,emailProtection"))
                .archive
        },
        Mutation(name: "wrong intermediate embedded", valid: true, codes: ["pass.cert.wrongIntermediate"]) {
            // The right intermediate comes from --trust (as the pinned WWDR set does for real passes).
            PassParts.signed(options: SigningOptions(chain: [TestPKI.otherIntermediate])).archive
        },
        Mutation(
            name: "SHA-384 digest is accepted with a warning", valid: true, codes: ["pass.signature.unusualDigest"]
        ) {
            PassParts.signed(options: SigningOptions(digestName: "SHA384", chain: chain)).archive
        },
        Mutation(name: "MD5 digest is refused", valid: false, codes: ["pass.signature.weakDigest"]) {
            PassParts.signed(options: SigningOptions(digestName: "MD5", chain: chain)).archive
        },
        Mutation(name: "two SignerInfos", valid: true, codes: ["pass.signature.multipleSigners"]) {
            let second = TestPKI.passLeaf(serial: 102)
            return PassParts.signed(options: SigningOptions(secondSigner: second, chain: chain)).archive
        },
        Mutation(name: "no intermediate embedded", valid: true, codes: ["pass.cert.intermediateMissing"]) {
            PassParts.signed(options: SigningOptions(chain: [])).archive
        },
        Mutation(name: "nfc without an NFC certificate", valid: false, codes: ["pass.cert.nfcNotEnabled"]) {
            PassParts.signed(
                passJSON: PassParts.passJSON(
                    replacing: "\"generic\": {", with: "\"nfc\": {\"message\": \"hello\"}, \"generic\": {")
            ).archive
        },
        Mutation(name: "nfc with an NFC certificate", valid: true, codes: []) {
            PassParts.signed(
                passJSON: PassParts.passJSON(
                    replacing: "\"generic\": {", with: "\"nfc\": {\"message\": \"hello\"}, \"generic\": {"),
                signer: TestPKI.passLeaf(nfc: true, serial: 101)
            ).archive
        },
    ]
}

extension SignedPassTests {
    /// The intermediate is trusted explicitly too, so the wrong-intermediate case still chains.
    static let trustedWithIntermediate = try! PassVerifier(
        extraTrustCertificates: [TestPKI.root.pem, TestPKI.intermediate.der], now: TestPKI.now)

    @Test(arguments: Mutation.all)
    func mutation(_ mutation: Mutation) {
        let result = Self.trustedWithIntermediate.verify(bytes: mutation.make(), source: "mutated.pkpass")
        let codes = Set(result.findings.map(\.code))
        #expect(result.findings.allSatisfy { PassFindingCode.all.contains($0.code) }, "undocumented code")
        #expect(result.valid == mutation.valid, "\(result.findings)")
        #expect(mutation.codes.isSubset(of: codes), "expected \(mutation.codes), got \(result.findings)")
        if mutation.valid {
            #expect(result.findings.allSatisfy { $0.severity != .error })
        } else {
            // Every error is one the case expects: a mutation must not set off unrelated rules.
            let errors = Set(result.findings.filter { $0.severity == .error }.map(\.code))
            #expect(errors.isSubset(of: mutation.codes), "unexpected errors: \(result.findings)")
        }
    }

    @Test func theSamePassIsUntrustedWithoutTheTestRoot() throws {
        let verifier = try PassVerifier(now: TestPKI.now)
        let result = verifier.verify(bytes: PassParts.signed().archive, source: "test.pkpass")
        #expect(!result.valid)
        #expect(result.findings.map(\.code) == ["pass.cert.untrusted"], "\(result.findings)")
    }

    @Test func anIntermediateAloneIsNotAnAnchor() throws {
        let verifier = try PassVerifier(extraTrustCertificates: [TestPKI.intermediate.pem], now: TestPKI.now)
        let result = verifier.verify(bytes: PassParts.signed().archive, source: "test.pkpass")
        #expect(result.findings.map(\.code) == ["pass.cert.untrusted"], "\(result.findings)")
    }

    @Test func anExpiredCertificateIsReportedSinceButStillValid() throws {
        let later = try PassVerifier(
            extraTrustCertificates: [TestPKI.root.pem], now: TestPKI.date("2028-01-01T00:00:00Z"))
        let result = later.verify(bytes: PassParts.signed().archive, source: "test.pkpass")
        #expect(result.valid)
        #expect(result.findings.map(\.code).contains("pass.cert.expiredSince"))
        #expect(result.findings.map(\.code).contains("pass.json.expired"))
    }

    @Test func subjectKeyIdentifierSignerIsReported() {
        let archive = PassParts.signed(options: SigningOptions(subjectKeyIdentifier: true, chain: Mutation.chain))
            .archive
        let result = Self.trusted.verify(bytes: archive, source: "ski.pkpass")
        #expect(result.signer?.signerIdentifier == "subjectKeyIdentifier")
    }

    @Test func trustFilesAreReadFromDiskAsPEMOrDER() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wallet-trust-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = directory.appendingPathComponent("intermediates.pem")  // several certificates in one PEM file
        try Data(TestPKI.otherIntermediate.pem + TestPKI.intermediate.pem).write(to: pem)
        let der = directory.appendingPathComponent("root.cer")
        try Data(TestPKI.root.der).write(to: der)
        let passFile = directory.appendingPathComponent("test.pkpass")
        // No intermediate embedded: the chain needs the one from the PEM file.
        try Data(PassParts.signed(options: SigningOptions(chain: [])).archive).write(to: passFile)
        let verifier = try PassVerifier(extraTrustFiles: [pem.path, der.path], now: TestPKI.now)
        let result = verifier.verify(fileAt: passFile.path)
        #expect(result.valid, "\(result.findings)")
        #expect(result.findings.map(\.code) == [PassFindingCode.certIntermediateMissing])
        #expect(result.json["path"]?.stringValue == passFile.path)

        let garbage = directory.appendingPathComponent("garbage.pem")
        try Data("hello".utf8).write(to: garbage)
        #expect(throws: PassVerifierError.self) { try PassVerifier(extraTrustFiles: [garbage.path]) }
        #expect(throws: PassVerifierError.self) {
            try PassVerifier(extraTrustFiles: [directory.appendingPathComponent("none").path])
        }
        for unreadable in [directory.appendingPathComponent("none.pkpass").path, directory.path] {
            #expect(verifier.verify(fileAt: unreadable).findings.map(\.code) == ["pass.file.unreadable"])
        }
    }
}
