import FixtureServer
import Foundation
import StrictJSON
import Testing

/// `inbox-assets probe` against the loopback fixture server.
@Suite(.serialized) struct ProbeCLITests {
    static let root: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-probe-www").path
        try? FileManager.default.createDirectory(atPath: directory + "/img", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory + "/img/a.png", contents: Data(repeating: 7, count: 1234))
        return directory
    }()

    @Test func mixedResultsTextAndExitCode() async throws {
        let server = try FixtureServer(root: Self.root)
        defer { server.stop() }
        let urls = [server.url("/img/a.png"), server.url("/status/404"), server.url("/redirect/2/img/a.png")]
        let result = try await CLI.run(
            ["probe", "-", "--retries", "0"], stdin: urls.joined(separator: "\n") + "\n# comment\n")
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(
            lines[0].hasPrefix("ok      200 \(urls[0])  application/octet-stream 1234 B")
                || lines[0].hasPrefix("ok      200 \(urls[0])  image/png 1234 B"))
        #expect(lines[1].hasPrefix("FAILED  404 \(urls[1])  http-status"))
        #expect(lines[2].contains("2 redirects"))
        #expect(lines[3] == "3 URLs: 2 ok, 1 failed")
        #expect(result.stderr.isEmpty, "no progress bar when stderr is not a terminal")
    }

    @Test func realLookingURLsMappedOntoTheServerWithConnectTo() async throws {
        let server = try FixtureServer(root: Self.root)
        defer { server.stop() }
        let port = try #require(server.httpsPort)
        let ca = try #require(server.caFilePath)
        let url = "https://cdn.example.com/img/a.png?token=SECRET"
        let result = try await CLI.run([
            "probe", url, "--get", "--format", "json", "--connect-to", "cdn.example.com:443:127.0.0.1:\(port)",
            "--cacert", ca,
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try JSON.parse(result.stdout)
        let first = try #require(report["results"]?[0])
        #expect(first["status"] == "ok")
        #expect(first["url"] == "https://cdn.example.com/img/a.png?token=REDACTED")
        #expect(first["bytes"] == 1234)
        #expect(!result.stdout.contains("SECRET"))
        #expect(server.requests(for: "/img/a.png?token=SECRET") == 1)
        // Without the CA the same mapping fails TLS verification.
        let untrusted = try await CLI.run(["probe", url, "--connect-to", "cdn.example.com:443:127.0.0.1:\(port)"])
        #expect(untrusted.status == 1)
        #expect(untrusted.stdout.contains("  tls"))
    }

    @Test(arguments: [
        (
            ["probe", "http://x/", "--connect-to", "a:1:b"],
            "Error: The value 'a:1:b' is invalid for '--connect-to <host:port:host2:port2>'."
        ),
        (["probe", "http://x/", "--max-size", "lots"], "Error: The value 'lots' is invalid for '--max-size <size>'."),
        (["probe", "http://x/", "--concurrency", "0"], "Error: The value '0' is invalid for '--concurrency <n>'."),
        (["probe", "http://x/", "--timeout", "-1"], "Error: The value '-1' is invalid for '--timeout <sec>'."),
    ])
    func badNetworkOptionsAreUsageErrors(arguments: [String], message: String) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message))
    }

    @Test func missingCAFileIsExit2() async throws {
        let result = try await CLI.run(["probe", "https://cdn.example.com/", "--cacert", "/nonexistent/ca.pem"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: "))
    }
}
