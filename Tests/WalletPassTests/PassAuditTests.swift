import Foundation
import StrictJSON
import TestSupport
import Testing

@testable import WalletPass

/// `pass audit` through the built binary over fleets of test-PKI passes, "now" set with `--at`.
@Suite struct PassAuditTests {
    /// A second Pass Type ID certificate that lapses on 2025-08-01 (the standard leaf lasts until 2027).
    static let shortLeaf = TestPKI.passLeaf(notAfter: TestPKI.date("2025-08-01T00:00:00Z"), serial: 101)

    static func codes(_ findings: JSONValue?) -> [String] {
        findings?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
    }

    @Test(
        arguments: [
            // (at, --warn-expiry, expected fleet codes in signer order — the long leaf first —, exit status)
            ("2025-07-01", "30d", [], 0 as Int32),
            ("2025-07-10", "30d", ["pass.audit.signerExpiring"], 1),
            ("2025-07-10", "10", [], 0),
            ("2025-08-02", "30d", ["pass.audit.signerExpired"], 1),
            (
                "2026-12-15", "30d",
                ["pass.audit.signerExpiring", "pass.audit.signerExpired"], 1
            ),
        ] as [(String, String, [String], Int32)])
    func theExpiryForecastFollowsAt(_ at: String, _ window: String, _ expected: [String], _ status: Int32)
        async throws
    {
        let fleet = try Fleet()
        for index in 0..<3 { try fleet.write("long-\(index).pkpass", Fleet.pass(serial: "L-\(index)")) }
        for index in 0..<2 {
            try fleet.write("short-\(index).pkpass", Fleet.pass(serial: "S-\(index)", signer: Self.shortLeaf))
        }
        let result = try await fleet.run(
            ["pass", "audit", fleet.passes, "--warn-expiry", window, "--format", "json"], at: at)
        #expect(result.status == status, "\(result.output)")
        let audit = try #require(try result.json()["audit"])
        #expect(Self.codes(audit["findings"]) == expected)
        let signers = try #require(audit["signers"]?.arrayValue)
        #expect(signers.map { $0["passes"] } == [3, 2])
        #expect(signers.map { $0["serialNumber"] } == ["64", "65"])
        #expect(signers.map { $0["notAfter"] } == ["2027-01-01T00:00:00Z", "2025-08-01T00:00:00Z"])
        #expect(signers.allSatisfy { $0["passTypeIdentifier"] == .string(TestPKI.passTypeIdentifier) })
        #expect(signers.allSatisfy { $0["teamIdentifier"] == .string(TestPKI.teamIdentifier) })
        if expected == ["pass.audit.signerExpiring"] {
            let message = audit["findings"]?[0]?["message"]?.stringValue ?? ""
            #expect(message.contains("signs 2 passes and expires in 22 days (2025-08-01T00:00:00Z)"), "\(message)")
        }
    }

    @Test func duplicatesVoidedAndInsecurePassesAreFleetFindings() async throws {
        let fleet = try Fleet()
        let token =
            #", "webServiceURL": "https://passes.example.com/ws", "authenticationToken": "SECRET-TOKEN-0123456789""#
        let first = Fleet.pass(serial: "D-1")
        try fleet.write("a.pkpass", first)
        try fleet.write("a-copy.pkpass", first)  // the same pass twice is no conflict
        try fleet.write("b.pkpass", Fleet.pass(serial: "D-1", extraJSON: #", "groupingIdentifier": "changed""#))
        try fleet.write("c.pkpass", Fleet.pass(serial: "D-2", barcode: "SHARED"))
        try fleet.write("d.pkpass", Fleet.pass(serial: "D-3", barcode: "SHARED"))
        try fleet.write("e.pkpass", Fleet.pass(serial: "D-4", extraJSON: token))
        try fleet.write("f.pkpass", Fleet.pass(serial: "D-5", extraJSON: token))
        try fleet.write("g.pkpass", Fleet.pass(serial: "D-6", extraJSON: #", "voided": true"#))
        try fleet.write(
            "h.pkpass",
            Fleet.pass(
                serial: "D-7",
                extraJSON:
                    #", "webServiceURL": "http://passes.example.com/ws", "authenticationToken": "OTHER-TOKEN-0123456789""#
            ))
        let result = try await fleet.run(["pass", "audit", fleet.passes, "--format", "json"])
        #expect(result.status == 1, "h.pkpass is invalid and D-1 is a duplicate")
        #expect(!result.output.contains("SECRET-TOKEN") && !result.output.contains("OTHER-TOKEN"))
        let report = try result.json()
        #expect(report["passes"]?.arrayValue?.count == 9)
        let audit = try #require(report["audit"])
        let findings = try #require(audit["findings"]?.arrayValue)
        #expect(
            Self.codes(audit["findings"]) == [
                "pass.audit.duplicateSerial", "pass.audit.duplicateBarcode", "pass.audit.reusedToken",
                "pass.audit.passesVoided", "pass.audit.insecureWebService",
            ])
        let root = fleet.passes + "/"
        #expect(findings[0]["path"] == .string(TestPKI.passTypeIdentifier + "/D-1"))
        #expect(findings[0]["message"]?.stringValue?.hasSuffix(": \(root)a-copy.pkpass, \(root)b.pkpass") == true)
        #expect(findings[1]["message"]?.stringValue?.hasSuffix(": \(root)c.pkpass, \(root)d.pkpass") == true)
        #expect(findings[2]["message"]?.stringValue?.hasSuffix(": \(root)e.pkpass, \(root)f.pkpass") == true)
        #expect(findings[3]["message"] == .string("1 pass voided: \(root)g.pkpass"))
        #expect(audit["codes"]?["pass.json.webServiceUrl"] == 1)
        #expect(audit["codes"]?["pass.audit.duplicateSerial"] == 1)
        #expect(audit["invalid"] == 1)
        #expect(audit["signers"]?[0]?["passes"] == 9)

        let text = try await fleet.run(["pass", "audit", fleet.passes])
        #expect(text.status == 1)
        #expect(text.output.hasPrefix(root + "h.pkpass: INVALID"), "text prints only the invalid passes")
        #expect(text.output.contains("\nsigners (1):\n  \(TestPKI.passTypeIdentifier) team \(TestPKI.teamIdentifier)"))
        #expect(text.output.hasSuffix("audit: 9 passes: 8 valid, 1 invalid; 1 signer\n"))

        let lines = try await fleet.run(["pass", "audit", fleet.passes, "--format", "ndjson"]).output
            .split(separator: "\n").map { try JSON.parse(String($0)) }
        #expect(
            lines.map { $0["type"]?.stringValue ?? "" } == Array(repeating: "pass", count: 9) + ["signer"]
                + Array(repeating: "finding", count: 5) + ["summary"])
        #expect(lines.last?["findings"] == 5)
    }

    @Test func badWarnExpiryIsAUsageError() async throws {
        let fleet = try Fleet()
        let result = try await fleet.run(["pass", "audit", fleet.passes, "--warn-expiry", "soon"])
        #expect(result.status == 64)
        #expect(result.errors.contains("'--warn-expiry <days>'"), "\(result.errors)")
    }
}

/// `--store DIR`: verdicts kept by the bytes' digest, time-dependent findings decided again on every run.
@Suite struct PassVerdictCacheTests {
    @Test func aReAuditReadsTheVerdictsAndDecidesExpiryAgain() async throws {
        let fleet = try Fleet()
        for index in 0..<6 { try fleet.write("p\(index).pkpass", Fleet.pass(serial: "C-\(index)")) }
        try fleet.write("broken.pkpass", Array("not a zip".utf8))
        try FileManager.default.copyItem(atPath: fleet.passes + "/p0.pkpass", toPath: fleet.passes + "/copy.pkpass")
        let store = fleet.directory + "/store"
        let arguments = ["pass", "audit", fleet.passes, "--format", "json", "--store", store]
        let first = try await fleet.run(arguments)
        let records = try FileManager.default.subpathsOfDirectory(atPath: store + "/records")
            .filter { $0.split(separator: "/").count == 2 }
        #expect(records.count == 7, "one record per distinct pass, not per path: \(records)")
        let again = try await fleet.run(arguments)
        #expect(again.output == first.output)
        #expect(again.status == first.status)
        // Later, the certificate and the passes have expired: the cached verdicts give what a fresh run gives.
        for at in ["2027-02-01T00:00:00Z", "2026-12-31T23:00:00Z"] {
            let cached = try await fleet.run(arguments, at: at)
            let fresh = try await fleet.run(["pass", "audit", fleet.passes, "--format", "json"], at: at)
            #expect(cached.output == fresh.output, "at \(at)")
            #expect(cached.output != first.output)
        }
        let later = try await fleet.run(arguments, at: "2027-02-01T00:00:00Z")
        let codes = try later.json()["audit"]?["codes"]
        #expect(codes?["pass.cert.expiredSince"] == 7)
        #expect(codes?["pass.json.expired"] == 7)
        // A damaged record is not believed: the pass is verified again and the record rewritten.
        let path = store + "/records/" + records[0]
        try Data("{\"v\": 1, \"findings\": 3}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await fleet.run(arguments).output == first.output)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("{\"v\":1,\"findings\":["))
    }
}
