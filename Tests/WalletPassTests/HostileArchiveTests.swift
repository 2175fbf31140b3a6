import Foundation
import TestSupport
import Testing

@testable import WalletPass

/// Archives built to hurt a reader. Each must end in its own clear finding, without a crash, within bounded
/// memory (limits are checked from the headers before inflating) and time.
struct HostileCase: CustomTestStringConvertible, Sendable {
    var name: String
    var code: String
    var make: @Sendable () -> [UInt8]

    var testDescription: String { name }

    static let passJSON = Array(PassParts.standardPassJSON.utf8)
    static let zeros = [UInt8](repeating: 0, count: 3 << 20)

    static let all: [HostileCase] = [
        HostileCase(name: "not a zip", code: "pass.archive.notZip") { Array("hello, I am a pass".utf8) },
        HostileCase(name: "empty input", code: "pass.archive.notZip") { [] },
        HostileCase(name: "truncated archive", code: "pass.archive.truncated") {
            let archive = PassParts.signed().archive
            return Array(archive.prefix(archive.count / 2))
        },
        HostileCase(name: "zip slip ../", code: "pass.archive.unsafePath") {
            ZipWriter.archive([.init("pass.json", passJSON), .init("../../etc/evil.sh", Array("x".utf8))])
        },
        HostileCase(name: "absolute path", code: "pass.archive.unsafePath") {
            ZipWriter.archive([.init("/etc/passwd", Array("x".utf8))])
        },
        HostileCase(name: "backslash path", code: "pass.archive.unsafePath") {
            ZipWriter.archive([.init("..\\evil.txt", Array("x".utf8))])
        },
        HostileCase(name: "symlink entry", code: "pass.archive.symlink") {
            var link = ZipWriter.Entry("icon.png", Array("/etc/passwd".utf8))
            link.symlink = true
            return ZipWriter.archive([.init("pass.json", passJSON), link])
        },
        HostileCase(name: "duplicate names", code: "pass.archive.duplicateName") {
            ZipWriter.archive([.init("pass.json", passJSON), .init("pass.json", Array("{}".utf8))])
        },
        HostileCase(name: "encrypted entry", code: "pass.archive.encrypted") {
            var entry = ZipWriter.Entry("pass.json", passJSON)
            entry.encrypted = true
            return ZipWriter.archive([entry])
        },
        HostileCase(name: "unsupported compression (LZMA)", code: "pass.archive.unsupportedCompression") {
            var entry = ZipWriter.Entry("pass.json", passJSON)
            entry.method = 14
            return ZipWriter.archive([entry])
        },
        HostileCase(name: "zip bomb (3 MiB of zeros deflated)", code: "pass.archive.compressionRatio") {
            ZipWriter.archive([.init("strip.png", zeros, deflated: ZipWriter.deflate(zeros))])
        },
        HostileCase(name: "entry declaring 3 GiB", code: "pass.archive.entryTooLarge") {
            var entry = ZipWriter.Entry("strip.png", Array(repeating: 1, count: 100))
            entry.declaredSize = 3 << 30
            return ZipWriter.archive([entry])
        },
        HostileCase(name: "header lies: declares 1 KiB, inflates to 3 MiB", code: "pass.archive.sizeMismatch") {
            var entry = ZipWriter.Entry("strip.png", zeros, deflated: ZipWriter.deflate(zeros))
            entry.declaredSize = 1024
            return ZipWriter.archive([entry])
        },
        HostileCase(name: "total uncompressed too large", code: "pass.archive.totalTooLarge") {
            // 10 entries of 4 MiB − 1 each, 42 kB compressed (under the ratio limit): each passes the
            // per-entry checks, together they exceed 32 MiB. Only the headers are read, so the data is filler.
            let entries = (0..<10).map { index in
                var entry = ZipWriter.Entry("big\(index).png", [], deflated: Array(repeating: 7, count: 42_000))
                entry.declaredSize = (4 << 20) - 1
                return entry
            }
            return ZipWriter.archive(entries)
        },
        HostileCase(name: "100,000 entries (ZIP64 count)", code: "pass.archive.tooManyEntries") {
            ZipWriter.archive((0..<100_000).map { ZipWriter.Entry("f\($0)", []) })
        },
        HostileCase(name: "300 entries", code: "pass.archive.tooManyEntries") {
            ZipWriter.archive((0..<300).map { ZipWriter.Entry("f\($0).png", png(1, 1)) })
        },
        HostileCase(name: "archive over 10 MiB", code: "pass.archive.tooLarge") {
            ZipWriter.archive([.init("strip.png", [UInt8](repeating: 1, count: (10 << 20) + 1))])
        },
        HostileCase(name: "pass inside a folder", code: "pass.archive.notAtRoot") {
            let parts = PassParts.signed()
            return ZipWriter.archive([
                .init("MyPass/pass.json", passJSON), .init("MyPass/manifest.json", parts.manifest!),
                .init("MyPass/signature", parts.signature!),
            ])
        },
    ]
}

@Suite struct HostileArchiveTests {
    @Test(arguments: HostileCase.all)
    func hostileArchive(_ hostile: HostileCase) {
        let result = SignedPassTests.trusted.verify(bytes: hostile.make(), source: "hostile.pkpass")
        #expect(!result.valid)
        #expect(result.findings.contains { $0.code == hostile.code && $0.severity == .error }, "\(result.findings)")
        #expect(result.findings.allSatisfy { PassFindingCode.all.contains($0.code) }, "undocumented code")
    }

    @Test func secretsInEntryNamesNeverReachTheReport() {
        let name = "../https://cdn.example/x.png?token=s3cr3t"
        let result = SignedPassTests.trusted.verify(bytes: ZipWriter.archive([.init(name, [1])]), source: "s.pkpass")
        #expect(result.findings.map(\.code) == [PassFindingCode.archiveUnsafePath])
        #expect(!result.json.serialized().contains("s3cr3t"))
        #expect(!result.text.contains("s3cr3t"))
        #expect(result.json.serialized().contains("REDACTED"))
    }

    @Test func junkFilesAreReportedAndBreakTheManifest() {
        var parts = PassParts.signed()
        parts.files.append(("__MACOSX/._pass.json", [0, 5, 22, 7]))
        parts.files.append((".DS_Store", [0, 0, 0, 1]))
        let result = SignedPassTests.trusted.verify(bytes: parts.archive, source: "junk.pkpass")
        let junk = result.findings.filter { $0.code == "pass.archive.junk" }
        #expect(junk.map(\.path) == ["__MACOSX/._pass.json", ".DS_Store"])
        #expect(junk.allSatisfy { $0.severity == .warning })
        #expect(result.findings.filter { $0.code == "pass.manifest.unlistedFile" }.count == 2)
    }

    @Test func namesDifferingOnlyInCaseAreAWarning() {
        var parts = PassParts.signed(extraFiles: [("Logo.png", png(160, 50))])
        parts.manifest = PassParts.manifest(for: parts.files)
        parts.signature = TestPKI.sign(
            parts.manifest!, with: TestPKI.leaf, options: SigningOptions(chain: Mutation.chain))
        let result = SignedPassTests.trusted.verify(bytes: parts.archive, source: "case.pkpass")
        #expect(result.valid, "\(result.findings)")
        #expect(result.findings.map(\.code) == ["pass.archive.caseDuplicate"])
        #expect(result.findings.first?.path == "Logo.png")
    }

    @Test func deflatedEntriesReadLikeStoredOnes() {
        let parts = PassParts.signed()
        let entries =
            [ZipWriter.Entry("pass.json", parts.files[0].data, deflated: ZipWriter.deflate(parts.files[0].data))]
            + [ZipWriter.Entry("manifest.json", parts.manifest!), ZipWriter.Entry("signature", parts.signature!)]
            + parts.files.dropFirst().map { ZipWriter.Entry($0.name, $0.data, deflated: ZipWriter.deflate($0.data)) }
        let result = SignedPassTests.trusted.verify(bytes: ZipWriter.archive(entries), source: "deflated.pkpass")
        #expect(result.valid, "\(result.findings)")
        #expect(result.findings.isEmpty, "\(result.findings)")
    }

    @Test func everyPrefixOfAPassIsRejectedAsTruncated() {
        // Cutting a pass at many points exercises every "ends too early" path of libzip and the readers.
        let archive = PassParts.signed().archive
        for length in stride(from: 0, to: archive.count, by: max(1, archive.count / 97)) {
            let result = SignedPassTests.trusted.verify(bytes: Array(archive.prefix(length)), source: "cut.pkpass")
            let expected = length < 2 ? "pass.archive.notZip" : "pass.archive.truncated"
            #expect(result.findings.map(\.code) == [expected], "cut at \(length): \(result.findings)")
        }
    }

    @Test func flippedBytesAreRejectedOrLeaveTheSignedContentIntact() {
        let archive = PassParts.signed().archive
        let original = SignedPassTests.trusted.verify(bytes: archive, source: "flipped.pkpass")
        var generator = SeededGenerator(seed: 0x5EED_0F_7E57)
        for _ in 0..<200 {
            var damaged = archive
            for _ in 0..<4 {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] ^= UInt8.random(
                    in: 1...255, using: &generator)
            }
            let result = SignedPassTests.trusted.verify(bytes: damaged, source: "flipped.pkpass")
            #expect(result.findings.allSatisfy { $0.code.hasPrefix("pass.") && !$0.message.isEmpty })
            if result.valid {
                // Only bytes outside the signed content changed (timestamps, unused header fields).
                #expect(result.summary == original.summary && result.signer == original.signer)
            }
        }
    }

    @Test func damagedSignaturesAreRejectedNeverCrash() {
        // Byte flips inside the CMS exercise the certificate-cutting fast path and OpenSSL's parser together.
        let parts = PassParts.signed()
        var generator = SeededGenerator(seed: 0x5EED_0F_7E57)
        var rejected = 0
        for round in 0..<300 {
            var damaged = parts
            let count = round % 3 + 1
            for _ in 0..<count {
                let index = Int.random(in: 0..<damaged.signature!.count, using: &generator)
                damaged.signature![index] ^= UInt8.random(in: 1...255, using: &generator)
            }
            let result = SignedPassTests.trusted.verify(bytes: damaged.archive, source: "damaged.pkpass")
            #expect(result.findings.allSatisfy { PassFindingCode.all.contains($0.code) })
            if !result.valid { rejected += 1 }
        }
        // A flip can land in bytes no signature covers (the SignedData's version or its digestAlgorithms
        // list, which verification does not use), so a few may pass; nearly all must be caught.
        #expect(rejected >= 270, "only \(rejected) of 300 damaged signatures were rejected")
    }

    @Test func aCentralDirectoryPointingNowhereIsCorrupt() {
        var archive = PassParts.signed().archive
        let end = archive.count - 22  // no comment: the EOCD record is the last 22 bytes
        archive.replaceSubrange((end + 16)..<(end + 20), with: [0xF0, 0xFF, 0xFF, 0x00])
        let result = SignedPassTests.trusted.verify(bytes: archive, source: "corrupt.pkpass")
        #expect(!result.valid)
        #expect(result.findings.map(\.code) == ["pass.archive.corrupt"], "\(result.findings)")
    }
}
