import FixtureServer
import Foundation
import StrictJSON
import TestSupport
import Testing

@testable import WalletPass

/// `pass audit --web-service` against the fixture server's PassKit web service on loopback, one pass per fault.
@Suite struct PassWebServiceTests {
    static let host = "passes.example.com"

    /// (serial, the service's fault switch, whether the served token file matches, expected codes, valid)
    static let cases: [(String, String, Bool, [String], Bool)] = [
        ("W-ok", "ok", true, ["pass.webService.ok"], true),
        ("W-wrong-pass", "wrong-pass", true, ["pass.webService.wrongPass"], false),
        ("W-wrong-serial", "wrong-serial", true, ["pass.webService.wrongSerial"], false),
        ("W-no-auth", "no-auth", true, ["pass.webService.noAuthCheck"], false),
        ("W-500", "500", true, ["pass.webService.status"], false),
        ("W-slow", "slow", true, ["pass.webService.unreachable"], false),
        ("W-unknown-token", "ok", false, ["pass.webService.status"], false),
    ]

    static func token(_ serial: String) -> String { "TOKEN-\(serial)-0123456789abcdef" }

    @Test func everyOutcomeHasItsCode() async throws {
        let fleet = try Fleet()
        let www = fleet.directory + "/www/passkit/" + TestPKI.passTypeIdentifier
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        func service(_ fault: String) -> String {
            #", "webServiceURL": "https://\#(Self.host)/passkit/\#(fault)/", "authenticationToken": "#
        }
        for (serial, fault, tokenKnown, _, _) in Self.cases {
            let pass = Fleet.pass(serial: serial, extraJSON: service(fault) + "\"\(Self.token(serial))\"")
            try fleet.write(serial + ".pkpass", pass)
            try Data(pass).write(to: URL(fileURLWithPath: www + "/" + serial + ".pkpass"))
            let served = tokenKnown ? Self.token(serial) : "ANOTHER-TOKEN-0123456789"
            try Data((served + "\n").utf8).write(to: URL(fileURLWithPath: www + "/" + serial + ".token"))
        }
        let elsewhere =
            #", "webServiceURL": "https://elsewhere.example.com/", "authenticationToken": "0123456789abcdefX""#
        try Data(Fleet.pass(serial: "W-wrong-pass", extraJSON: elsewhere)).write(
            to: URL(fileURLWithPath: fleet.directory + "/www/passkit/wrong-pass.pkpass"))
        let otherSerial = Fleet.pass(serial: "OTHER", extraJSON: service("wrong-serial") + "\"\(Self.token("OTHER"))\"")
        try Data(otherSerial).write(to: URL(fileURLWithPath: fleet.directory + "/www/passkit/wrong-serial.pkpass"))
        // A bundle's passes are asked about too.
        let bundled = Fleet.pass(serial: "W-bundled", extraJSON: service("ok") + "\"\(Self.token("W-bundled"))\"")
        try Data(bundled).write(to: URL(fileURLWithPath: www + "/W-bundled.pkpass"))
        try Data(Self.token("W-bundled").utf8).write(to: URL(fileURLWithPath: www + "/W-bundled.token"))
        try fleet.write("Z-bundle.pkpasses", ZipWriter.archive([.init("ok.pkpass", bundled)]))
        // A pass without a web service is not asked about.
        try fleet.write("W-none.pkpass", Fleet.pass(serial: "W-none"))

        let server = try FixtureServer(root: fleet.directory + "/www")
        defer { server.stop() }
        let result = try await fleet.run([
            "pass", "audit", fleet.passes, "--web-service", "--format", "json", "--retries", "0", "--timeout", "1",
            "--connect-to", "\(Self.host):443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!,
        ])
        #expect(result.status == 1)
        for (serial, _, _, _, _) in Self.cases + [("OTHER", "", true, [], true), ("W-bundled", "", true, [], true)] {
            #expect(!result.output.contains(Self.token(serial)), "tokens never reach the output")
        }
        let passes = try #require(try result.json()["passes"]?.arrayValue)
        let byPath = Dictionary(uniqueKeysWithValues: passes.map { ($0["path"]?.stringValue ?? "", $0) })
        for (serial, fault, _, expected, valid) in Self.cases {
            let pass = try #require(byPath[fleet.passes + "/" + serial + ".pkpass"])
            let codes = PassFleetTests.codes(pass).filter { $0.hasPrefix("pass.webService.") }
            #expect(codes == expected, "\(serial) (\(fault)): \(pass["findings"] ?? .null)")
            #expect(pass["valid"]?.boolValue == valid, "\(serial)")
        }
        #expect(PassFleetTests.codes(byPath[fleet.passes + "/W-none.pkpass"]).isEmpty)
        let inBundle = byPath[fleet.passes + "/Z-bundle.pkpasses"]?["passes"]?[0]
        #expect(PassFleetTests.codes(inBundle) == ["pass.webService.ok"], "\(inBundle ?? .null)")
        let stats = server.stats
        #expect(Set(stats.requestsByMethod.keys) == ["GET"], "never POST or DELETE: \(stats.requestsByMethod)")
        // ok: the latest pass, the conditional repeat (304), the wrong token (401).
        #expect(server.requests(for: "/passkit/ok/v1/passes/\(TestPKI.passTypeIdentifier)/W-ok") == 3)
        #expect(server.requests(for: "/passkit/ok/v1/passes/\(TestPKI.passTypeIdentifier)/W-bundled") == 3)
        // Every service that answered 200 (ok, the bundle's, no-auth, wrong-pass, wrong-serial) answers the repeat
        // with 304.
        #expect(stats.responsesByStatus[304] == 5)
    }
}
