import Foundation
import Testing

@testable import WalletPass

@Suite struct PassBundleTests {
    static let good = PassParts.signed().archive

    @Test func aBundleOfGoodPassesIsValid() {
        let bundle = ZipWriter.archive([.init("one.pkpass", Self.good), .init("two.pkpass", Self.good)])
        let result = SignedPassTests.trusted.verifyBundle(bytes: bundle, source: "tickets.pkpasses")
        #expect(result.valid, "\(result.findings) \(result.passes.map(\.findings))")
        #expect(result.passes.map(\.source) == ["tickets.pkpasses#one.pkpass", "tickets.pkpasses#two.pkpass"])
        #expect(result.json["passes"]?.arrayValue?.count == 2)
        #expect(result.json["path"]?.stringValue == "tickets.pkpasses")
    }

    @Test(
        arguments: [
            (
                "more than ten passes", (0..<11).map { ZipWriter.Entry("p\($0).pkpass", good) },
                "pass.bundle.tooManyPasses"
            ),
            ("no pass at all", [ZipWriter.Entry("readme.txt", Array("hi".utf8))], "pass.bundle.empty"),
            ("a broken pass inside", [ZipWriter.Entry("bad.pkpass", Array("fail\n".utf8))], "pass.archive.notZip"),
        ] as [(String, [ZipWriter.Entry], String)])
    func badBundles(_ name: String, _ entries: [ZipWriter.Entry], _ code: String) {
        let result = SignedPassTests.trusted.verifyBundle(bytes: ZipWriter.archive(entries), source: name)
        let codes = result.findings.map(\.code) + result.passes.flatMap { $0.findings.map(\.code) }
        #expect(!result.valid)
        #expect(codes.contains(code), "\(codes)")
    }

    @Test func extraFilesAreWarnings() {
        let bundle = ZipWriter.archive([.init("one.pkpass", Self.good), .init("notes.txt", Array("x".utf8))])
        let result = SignedPassTests.trusted.verifyBundle(bytes: bundle, source: "b.pkpasses")
        #expect(result.valid)
        #expect(result.findings.map(\.code) == ["pass.bundle.extraFile"])
    }

    @Test func bundleFilesAreReadFromDisk() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(getpid()).pkpasses").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(ZipWriter.archive([.init("one.pkpass", Self.good)])).write(to: URL(fileURLWithPath: path))
        #expect(SignedPassTests.trusted.verifyBundle(fileAt: path).valid)
        #expect(
            SignedPassTests.trusted.verifyBundle(fileAt: path + ".none").findings.map(\.code) == [
                "pass.file.unreadable"
            ])
    }

    @Test func aBundleThatIsNotAZipIsRejected() {
        let result = SignedPassTests.trusted.verifyBundle(bytes: Array("nope".utf8), source: "b.pkpasses")
        #expect(result.findings.map(\.code) == ["pass.archive.notZip"])
        #expect(result.passes.isEmpty)
    }
}
