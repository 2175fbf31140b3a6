import FixtureServer
import Foundation
import StrictJSON
import TestSupport
import Testing

@testable import WalletPass

/// `pass verify` over many passes through the built binary: bundles, every core, ordering, NDJSON, memory.
@Suite struct PassFleetTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/passes/corpus").path

    static func codes(_ value: JSONValue?) -> [String] {
        value?["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
    }

    @Test func bundlesInADirectoryAreVerifiedPassByPass() async throws {
        let fleet = try Fleet()
        let good = Fleet.pass(serial: "B-1")
        var broken = PassParts.signed()
        broken.replace("logo.png", with: png(10, 10))  // no longer the manifest's hash
        try fleet.write("a-good.pkpasses", ZipWriter.archive([.init("one.pkpass", good), .init("two.pkpass", good)]))
        try fleet.write(
            "b-one-bad.pkpasses", ZipWriter.archive([.init("ok.pkpass", good), .init("bad.pkpass", broken.archive)]))
        try fleet.write("c-eleven.pkpasses", ZipWriter.archive((0..<11).map { .init("p\($0).pkpass", good) }))
        let inner = ZipWriter.archive([.init("x.pkpass", good)])
        try fleet.write(
            "d-nested.pkpasses",
            ZipWriter.archive([.init("ok.pkpass", good), .init("inner.pkpasses", inner), .init("hidden.pkpass", inner)])
        )
        try fleet.write("e-bundle-named-as-pass.pkpass", inner)
        try fleet.write("f-single.pkpass", good)
        let result = try await fleet.run(["pass", "verify", fleet.passes, "--format", "json"])
        #expect(result.status == 1)
        let entries = try #require(try result.json()["passes"]?.arrayValue)
        #expect(entries.map { $0["bundle"]?.boolValue ?? false } == [true, true, true, true, true, false])
        #expect(entries.map { $0["valid"]?.boolValue } == [true, false, false, false, true, true])
        #expect(entries[0]["passes"]?.arrayValue?.count == 2)
        #expect(entries[0]["passes"]?[0]?["path"]?.stringValue == fleet.passes + "/a-good.pkpasses#one.pkpass")
        let oneBad = try #require(entries[1]["passes"]?.arrayValue)
        #expect(oneBad.map { $0["valid"]?.boolValue } == [true, false])
        #expect(Self.codes(oneBad[1]).contains("pass.manifest.hashMismatch"), "\(Self.codes(oneBad[1]))")
        #expect(Self.codes(entries[2]) == ["pass.bundle.tooManyPasses"])
        #expect(entries[2]["passes"]?.arrayValue?.count == 11)
        #expect(Self.codes(entries[3]) == ["pass.bundle.nested", "pass.bundle.nested"])
        #expect(entries[3]["findings"]?[1]?["path"] == "hidden.pkpass")

        let text = try await fleet.run(["pass", "verify", fleet.passes + "/b-one-bad.pkpasses"])
        #expect(text.output.hasPrefix(fleet.passes + "/b-one-bad.pkpasses: INVALID bundle of 2 passes\n  "))
        #expect(text.output.contains("\n  " + fleet.passes + "/b-one-bad.pkpasses#bad.pkpass: INVALID"))
        #expect(text.output.hasSuffix("1 pass: 0 valid, 1 invalid\n"))
    }

    @Test func aBundleTooLargeIsOneFinding() {
        var limits = PassLimits()
        limits.maxBundleBytes = 1000
        let verifier = try! PassVerifier(extraTrustCertificates: [TestPKI.root.pem], now: TestPKI.now, limits: limits)
        let bundle = ZipWriter.archive([.init("a.pkpass", PassParts.signed().archive)])
        let result = verifier.verifyBundle(bytes: bundle, source: "big.pkpasses")
        #expect(result.findings.map(\.code) == ["pass.bundle.tooLarge"])
        #expect(!result.valid)
    }

    @Test func aBundleDownloadIsRecognisedByItsContentType() async throws {
        let fleet = try Fleet()
        let good = Fleet.pass(serial: "U-1")
        try fleet.write("tickets.pkpasses", ZipWriter.archive([.init("one.pkpass", good)]))
        let server = try FixtureServer(root: fleet.passes)
        defer { server.stop() }
        let url = "https://cdn.example.com/tickets.pkpasses?token=SECRET"
        let result = try await fleet.run([
            "pass", "verify", url, "--format", "ndjson", "--connect-to",
            "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!, "--retries", "0",
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains("SECRET"))
        let lines = try result.output.split(separator: "\n").map { try JSON.parse(String($0)) }
        #expect(lines.count == 2)
        #expect(lines[0]["type"] == "bundle")
        #expect(lines[0]["valid"] == true)
        #expect(Self.codes(lines[0]).isEmpty, "served as application/vnd.apple.pkpasses: no content-type warning")
        #expect(lines[1]["type"] == "summary")
    }

    /// Every mutation of the signed-pass tests plus the corpus: one core and three give the same verdicts, in
    /// the same order; `--unordered` the same set; NDJSON one line per pass and a summary.
    @Test func everyCoreGivesTheVerdictsOfOne() async throws {
        let fleet = try Fleet()
        for (index, mutation) in Mutation.all.enumerated() { try fleet.write("m\(index).pkpass", mutation.make()) }
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.corpus) where name.hasSuffix(".pkpass") {
            try FileManager.default.copyItem(atPath: Self.corpus + "/" + name, toPath: fleet.passes + "/" + name)
        }
        let one = try await fleet.run(["pass", "verify", fleet.passes, "--format", "json", "--jobs", "1"])
        let three = try await fleet.run(["pass", "verify", fleet.passes, "--format", "json", "--jobs", "3"])
        #expect(one.status == 1)
        #expect(one.output == three.output)
        let passes = try #require(try one.json()["passes"]?.arrayValue)
        #expect(passes.count == Mutation.all.count + 24)
        let byPath = Dictionary(uniqueKeysWithValues: passes.map { ($0["path"]?.stringValue ?? "", $0) })
        for (index, mutation) in Mutation.all.enumerated() {
            #expect(
                byPath[fleet.passes + "/m\(index).pkpass"]?["valid"]?.boolValue == mutation.valid, "\(mutation.name)")
        }
        let unordered = try await fleet.run([
            "pass", "verify", fleet.passes, "--format", "ndjson", "--jobs", "3", "--unordered",
        ])
        let lines = try unordered.output.split(separator: "\n").map { try JSON.parse(String($0)) }
        #expect(lines.count == passes.count + 1)
        #expect(lines.last?["type"] == "summary")
        #expect(lines.last?["passes"] == .int(passes.count))
        #expect(lines.last?["invalid"] == .int(passes.filter { $0["valid"] == false }.count))
        let streamed = lines.dropLast().map { line -> String in
            var object = line.objectValue!
            object["type"] = nil
            return JSONValue.object(object).serialized()
        }
        #expect(Set(streamed) == Set(passes.map { $0.serialized() }))
    }

    /// GNU time, which `make test` installs, forks the binary itself: `%M` is that child's own peak RSS.
    static let time = "/usr/bin/time"

    /// 20,000 small passes: the peak RSS of verifying them stays within a few MiB of verifying 200, and under
    /// 64 MiB — verdicts are printed as they complete, not held.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: time), "needs GNU time for max RSS"))
    func twentyThousandPassesStreamInFlatMemory() async throws {
        let fleet = try Fleet()
        let bytes = Data(Fleet.pass(serial: "R-1"))
        let few = fleet.directory + "/few"
        try FileManager.default.createDirectory(atPath: few, withIntermediateDirectories: true)
        for index in 0..<20_000 {
            let folder = index < 200 ? few : fleet.passes
            try bytes.write(to: URL(fileURLWithPath: "\(folder)/p\(index).pkpass"))
        }
        func peak(_ folder: String) async throws -> (status: Int32, kib: Int, lines: Int) {
            let result = try await Child.run(
                Self.time,
                ["-f", "maxrss=%M", Products.inboxAssets, "pass", "verify", folder, "--format", "ndjson"]
                    + fleet.trustArguments + ["--at", "2025-07-01"])
            let line = result.errors.split(separator: "\n").last { $0.hasPrefix("maxrss=") } ?? ""
            let lines = result.output.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) }
            return (result.status, Int(line.dropFirst("maxrss=".count)) ?? Int.max, lines)
        }
        let small = try await peak(few)
        let large = try await peak(fleet.passes)
        #expect(small.status == 0 && large.status == 0)
        #expect(small.lines == 201 && large.lines == 19_801)
        #expect(large.kib < small.kib + 12 * 1024, "200 passes: \(small.kib) KiB, 19,800: \(large.kib) KiB")
        #expect(large.kib < 64 * 1024, "peak RSS \(large.kib) KiB")
    }
}

/// `check`: a wallet card whose URL serves a `.pkpasses` bundle gets the bundle's verdict, not "no pass.json".
@Suite struct WalletCardBundleTests {
    @Test func aWalletCardServingABundleIsVerifiedPassByPass() async throws {
        let fleet = try Fleet()
        let good = Fleet.pass(serial: "K-1")
        var broken = PassParts.signed()
        broken.replace("logo.png", with: png(10, 10))
        try fleet.write("good.pkpasses", ZipWriter.archive([.init("a.pkpass", good), .init("b.pkpass", good)]))
        try fleet.write(
            "bad.pkpasses", ZipWriter.archive([.init("a.pkpass", good), .init("b.pkpass", broken.archive)]))
        let server = try FixtureServer(root: fleet.passes)
        defer { server.stop() }
        func card(_ name: String) -> String {
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "wallet", "wallet": "https://cdn.example.com/\#(name)"}}"#
        }
        let campaign = fleet.directory + "/campaign.json"
        let text = #"{"request": {"notifications": ["# + card("good.pkpasses") + "," + card("bad.pkpasses") + "]}}"
        try Data(text.utf8).write(to: URL(fileURLWithPath: campaign))
        let result = try await Child.run(
            Products.inboxAssets,
            [
                "check", campaign, "--no-store", "--format", "json", "--retries", "0", "--connect-to",
                "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!,
            ] + fleet.trustArguments)
        let report = CheckReportJSON.flattened(try result.json())
        let passes = try #require(report["passes"]?.arrayValue)
        let byURL = Dictionary(uniqueKeysWithValues: passes.map { ($0["url"]?.stringValue ?? "", $0) })
        let valid = try #require(byURL["https://cdn.example.com/good.pkpasses"])
        #expect(valid["valid"] == true, "\(valid)")
        #expect(PassFleetTests.codes(valid).isEmpty, "served as application/vnd.apple.pkpasses")
        let bad = try #require(byURL["https://cdn.example.com/bad.pkpasses"])
        #expect(bad["valid"] == false)
        let paths = bad["findings"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
        #expect(paths.contains { $0.hasPrefix("b.pkpass/") }, "\(paths)")
        #expect(!PassFleetTests.codes(bad).contains("pass.json.missing"))
        #expect(report["cards"]?[0]?["broken"] == false)
        #expect(report["cards"]?[1]?["broken"] == true)
    }
}
