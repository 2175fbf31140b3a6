import FixtureServer
import Foundation
import StrictJSON
import Testing

/// `inbox-assets pass verify|inspect` on the committed corpus of real passes.
struct PassCLITests {
    static let corpus = "Fixtures/passes/corpus"

    @Test func verifyADirectoryReportsEveryPassAndExits1() async throws {
        let result = try await CLI.run(["pass", "verify", Self.corpus, "--format", "json"])
        #expect(result.status == 1, "the corpus holds broken passes on purpose")
        let report = try JSON.parse(result.stdout)
        #expect(report["schemaVersion"] == 1)
        let passes = try #require(report["passes"]?.arrayValue)
        #expect(passes.count == 24)
        let byPath = Dictionary(
            uniqueKeysWithValues: passes.map { ($0["path"]?.stringValue ?? "", $0["valid"]?.boolValue ?? false) })
        #expect(byPath["\(Self.corpus)/apple-sample__Coupon.pkpass"] == true)
        #expect(byPath["\(Self.corpus)/passandroid__broken-fail.pkpass"] == false)
        #expect(byPath["\(Self.corpus)/pkpassvalidator__bad.pkpass"] == false)
        #expect(byPath.values.filter { $0 }.count == 16)
    }

    @Test func verifyOneValidPassExits0WithText() async throws {
        let result = try await CLI.run(["pass", "verify", "\(Self.corpus)/ueman-passkit__cinema.pkpass"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("\(Self.corpus)/ueman-passkit__cinema.pkpass: valid"))
        #expect(result.stdout.contains("WWDR G4"))
        #expect(result.stdout.hasSuffix("1 pass: 1 valid, 0 invalid\n"))
    }

    @Test func inspectShowsFilesAndCertificates() async throws {
        let result = try await CLI.run([
            "pass", "inspect", "\(Self.corpus)/edutap__basic_pass.pkpass", "--format", "json",
        ])
        #expect(result.status == 0)
        let report = try JSON.parse(result.stdout)
        #expect(
            report["files"]?.arrayValue?.map { $0["name"]?.stringValue ?? "" } == [
                "pass.json", "manifest.json", "signature", "icon.png",
            ])
        #expect(report["certificates"]?.arrayValue?.count == 2)
        let text = try await CLI.run(["pass", "inspect", "\(Self.corpus)/edutap__basic_pass.pkpass"]).stdout
        #expect(text.contains("  files:\n") && text.contains("  certificates:\n    chain  CN=Apple Worldwide"))
    }

    @Test func missingPathIsExit2AndBadDateIsUsage() async throws {
        let missing = try await CLI.run(["pass", "verify", "nope.pkpass", "\(Self.corpus)/apple-sample__Coupon.pkpass"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "Error: cannot read 'nope.pkpass': no such file\n")
        #expect(missing.stdout.contains("apple-sample__Coupon.pkpass: valid"))
        let badDate = try await CLI.run(["pass", "verify", Self.corpus, "--at", "yesterday"])
        #expect(badDate.status == 64)
        #expect(badDate.stderr.hasPrefix("Error: The value 'yesterday' is invalid for '--at <date>'."))
        let badTrust = try await CLI.run(["pass", "verify", Self.corpus, "--trust", "nope.pem"])
        #expect(badTrust.status == 2)
    }

    @Test func atMovesNowBeforeTheCertificateExpired() async throws {
        let path = "\(Self.corpus)/edutap__basic_pass.pkpass"
        let later = try await CLI.run(["pass", "verify", path, "--format", "json"]).stdout
        let earlier = try await CLI.run(["pass", "verify", path, "--at", "2025-06-01", "--format", "json"]).stdout
        let codes = { (text: String) in
            try JSON.parse(text)["passes"]?[0]?["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        }
        #expect(try codes(later).contains("pass.cert.expiredSince"))
        #expect(try !codes(earlier).contains("pass.cert.expiredSince"))
    }

    @Test func urlsAreDownloadedWithTheNetworkOptions() async throws {
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let result = try await CLI.run([
            "pass", "verify", "https://cdn.example.com/passes/loyalty-abc123.pkpass?token=SECRET",
            "https://cdn.example.com/passes/missing.pkpass", "--format", "json", "--retries", "0",
            "--connect-to", "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!,
        ])
        #expect(result.status == 1)
        #expect(!result.stdout.contains("SECRET"))
        let passes = try #require(try JSON.parse(result.stdout)["passes"]?.arrayValue)
        #expect(passes.count == 2)
        #expect(passes[0]["url"] == "https://cdn.example.com/passes/loyalty-abc123.pkpass?token=REDACTED")
        let codes = passes[0]["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(codes.contains("pass.cert.extensionMismatch"))
        #expect(passes[1]["valid"] == false)
        #expect(passes[1]["findings"]?[0]?["code"] == "asset.httpStatus")
    }
}
