import FixtureServer
import Foundation
import StrictJSON
import Testing

/// Issue 17 items 6 and 7 end to end: exact URLs (a control character is `input.badURL` and never requested),
/// terminal-safe text, `--connect-to` with IPv6, and every credential form redacted in every output.
@Suite(.serialized) struct HostileURLCLITests {
    static let cdn = "https://cdn.example.com"

    @Test func resolveReportsANULInAURLWithWhereItIs() async throws {
        let campaign = CheckCLITests.campaign(
            #"{"ios_title": "t\u001b[2J", "content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/png/a\u0000b.png", "data": {"displayType": "banner"}}"#
        )
        let text = try await CLI.run(["resolve", "-"], stdin: campaign)
        #expect(text.status == 1, "an error finding fails the default --fail-on error")
        #expect(!text.stdout.utf8.contains(0) && !text.stdout.utf8.contains(0x1B))
        #expect(
            text.stdout.contains(
                #"error   input.badURL: heroImage https://cdn.example.com/png/a\x00b.png holds the control character \x00 at byte 29"#
            ))
        #expect(text.stdout.contains("(at request.notifications[0].inbox_image)"))

        let json = try await CLI.run(["resolve", "-", "--format", "json"], stdin: campaign)
        let finding = try #require(
            try JSON.parse(json.stdout)["cards"]?[0]?["findings"]?.arrayValue?.first { $0["code"] == "input.badURL" })
        #expect(finding["severity"] == "error")
        #expect(finding["path"] == "request.notifications[0].inbox_image")
    }

    @Test func checkNeverRequestsAURLWithANULAndSaysSo() async throws {
        let env = try CheckCLITests.Environment()
        let notifications = [
            #"{"content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/inbox/summer-sale.png\u0000.evil", "data": {"displayType": "banner"}}"#,
            #"{"content": "b", "inbox_days": 1, "inbox_image": "\#(Self.cdn)/inbox/loyalty.png", "data": {"displayType": "banner"}}"#,
        ].joined(separator: ",")
        let (result, report) = try await env.json(CheckCLITests.campaign(notifications))
        #expect(result.status == 0, "\(result.stderr)")  // --fail-on never
        // Cut at the NUL, the request would have been for /inbox/summer-sale.png: the server never saw it.
        #expect(env.server.requests(for: "/inbox/summer-sale.png") == 0)
        #expect(env.server.requests(for: "/inbox/loyalty.png") == 1)
        let cards = try #require(report["cards"]?.arrayValue)
        #expect(cards[0]["broken"] == true)
        #expect(cards[0]["assets"]?[0]?["status"] == "failed")
        #expect(cards[0]["assets"]?[0]?["failure"] == "invalid-url")
        #expect(cards[0]["assets"]?[0]?["findings"]?[0]?["code"] == "input.badURL")
        #expect(cards[0]["findings"]?.arrayValue?.contains { $0["code"] == "input.badURL" } == true)
        #expect(cards[1]["broken"] == false)

        let text = try await env.check(CheckCLITests.campaign(notifications), ["--fail-on", "error"])
        #expect(text.status == 1)
        #expect(!text.stdout.utf8.contains(0))
        #expect(text.stdout.contains("BROKEN  hero image: invalid-url"))
        #expect(text.stdout.contains(#"summer-sale.png\x00.evil"#))
        #expect(env.server.requests(for: "/inbox/summer-sale.png") == 0)
    }

    @Test func prefetchReportsTheRefusedURLAsFailed() async throws {
        let fixture = try PrefetchFixture()
        let campaign = try fixture.campaign(images: [
            #"\#(Self.cdn)/inbox/summer-sale.png\u001b[2J"#, "\(Self.cdn)/inbox/loyalty.png",
        ])
        let result = try await fixture.run(["prefetch", campaign, "--store", fixture.store, "--quiet"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(!result.stdout.utf8.contains(0x1B))
        #expect(result.stdout.contains(#"FAILED  https://cdn.example.com/inbox/summer-sale.png\x1b[2J  input.badURL"#))
        #expect(result.stdout.contains("2 assets: 1 fetched"))
        #expect(fixture.server.requests(for: "/inbox/summer-sale.png") == 0)
    }

    @Test func probeRefusesControlCharactersFromStandardInput() async throws {
        let server = try FixtureServer(root: ProbeCLITests.root, httpsPort: nil)
        defer { server.stop() }
        let result = try await CLI.run(
            ["probe", "-", "--retries", "0"],
            stdin: server.url("/img/a.png") + "\u{0}x\n" + server.url("/img/a.png") + "\n")
        #expect(result.status == 1)
        #expect(result.stdout.contains(#"FAILED  --- \#(server.url("/img/a.png"))\x00x  invalid-url"#))
        #expect(server.requests(for: "/img/a.png") == 1)  // only the clean line
    }

    @Test(arguments: [
        ("::1:443:h:80", "Too many colons: an IPv6 address needs brackets ([::1])"),
        ("h:80:[::1:8443", "The [ of HOST2 is never closed"),
        ("h:80:[zz]:1", "[zz] is not an IPv6 address"),
        ("h:99999:h2:1", #"PORT "99999" is not a port from 1 to 65535"#),
    ])
    func malformedConnectToIsAUsageError(mapping: String, reason: String) async throws {
        let result = try await CLI.run(["probe", "http://x/", "--connect-to", mapping])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: The value '\(mapping)' is invalid for '--connect-to <host:port:host2:port2>'. \(reason); "
                    + "expected HOST:PORT:HOST2:PORT2, IPv6 addresses in brackets ([::1]:443:[::1]:8443)."),
            "\(result.stderr)")
        #expect(result.stderr.contains("\nUsage: inbox-assets probe"))
    }

    /// Whether this machine can listen on ::1 (the IPv6 test is skipped where it cannot).
    static let hasIPv6Loopback: Bool = {
        guard let server = try? FixtureServer(root: "/", httpsPort: nil, address: .ipv6) else { return false }
        server.stop()
        return true
    }()

    @Test(.enabled(if: hasIPv6Loopback, "no IPv6 loopback on this machine"))
    func connectToBracketedIPv6OnBothSides() async throws {
        let server = try FixtureServer(root: ProbeCLITests.root, httpsPort: nil, address: .ipv6)
        defer { server.stop() }
        let port = server.httpPort
        let result = try await CLI.run([
            "probe", "http://cdn.example.com/img/a.png", "http://[::1]/img/a.png", "--get", "--format", "json",
            "--retries", "0", "--connect-to", "cdn.example.com:80:[::1]:\(port)", "--connect-to",
            "[::1]:80:[::1]:\(port)",
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let results = try #require(try JSON.parse(result.stdout)["results"]?.arrayValue)
        #expect(results.map { $0["remoteAddress"]?.stringValue } == ["::1", "::1"])
        #expect(server.requests(for: "/img/a.png") == 2)
    }

    @Test func everyCredentialFormIsRedactedInEveryOutput() async throws {
        let server = try FixtureServer(root: ProbeCLITests.root, httpsPort: nil)
        defer { server.stop() }
        let port = server.httpPort
        let urls = [
            "http://user:PASSWORD1@127.0.0.1:\(port)/img/a.png",
            "http://TOKEN2@127.0.0.1:\(port)/img/a.png?page=2",
            "http://127.0.0.1:\(port)/img/a.png#access_token=FRAGMENT3&state=s",
            "http://127.0.0.1:\(port)/img;jsessionid=MATRIX4/a.png",
            "http://127.0.0.1:\(port)/img/a.png?to%6Ben=ENCODED5&TOKEN=UPPER6",
        ]
        let secrets = ["PASSWORD1", "TOKEN2", "FRAGMENT3", "MATRIX4", "ENCODED5", "UPPER6"]
        for format in ["text", "json"] {
            let probe = try await CLI.run(
                ["probe", "-", "--retries", "0", "--format", format], stdin: urls.joined(separator: "\n"))
            for secret in secrets {
                #expect(
                    !probe.stdout.contains(secret) && !probe.stderr.contains(secret), "\(secret) in probe \(format)")
            }
            #expect(probe.stdout.contains("page=2") && probe.stdout.contains("state=s"))
        }
        let campaign = CheckCLITests.campaign(
            urls.map {
                #"{"ios_title": "t", "content": "b", "inbox_days": 1, "inbox_image": "\#($0)", "data": {"displayType": "banner"}}"#
            }.joined(separator: ","))
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("ia-redact-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        for arguments in [
            ["resolve", "-"], ["resolve", "-", "--format", "json"], ["check", "-", "--no-store"],
            ["check", "-", "--no-store", "--format", "json"], ["check", "-", "--no-store", "--format", "junit"],
            ["check", "-", "--no-store", "--format", "html"], ["prefetch", "-", "--store", store],
            ["prefetch", "-", "--store", store, "--format", "json"],
        ] {
            let result = try await CLI.run(arguments + ["--quiet"], stdin: campaign)
            for secret in secrets + ["AUTHSECRET"] {
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(secret) in \(arguments)")
            }
        }
        let listing = try await CLI.run(["store", "ls", "--store", store])
        #expect(listing.status == 0)
        for secret in secrets { #expect(!listing.stdout.contains(secret), "\(secret) in store ls") }
        #expect(listing.stdout.contains("http://REDACTED@127.0.0.1"))
    }
}
