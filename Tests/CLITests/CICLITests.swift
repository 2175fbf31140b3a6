import FixtureServer
import Foundation
import StrictJSON
import TestSupport
import Testing

/// The CI contract end to end, offline (an empty store: every asset is `asset.notInStore`, so no network): the
/// exit code, JSON, JUnit and text agree at every `--fail-on`; the config file's defaults and rules; the baseline.
@Suite(.serialized) struct CICLITests {
    final class Workspace {
        let directory: String
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-ci-\(UUID())").path
            try FileManager.default.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: true)
            // An empty store (`--offline` refuses one that does not exist).
            try FileManager.default.createDirectory(atPath: directory + "/store", withIntermediateDirectories: true)
            try Self.campaign.write(toFile: directory + "/c.json", atomically: true, encoding: .utf8)
        }
        deinit { try? FileManager.default.removeItem(atPath: directory) }

        /// A captioned card whose hero image is not in the store (broken: errors), and a carousel without
        /// slides (degraded: a warning).
        static let campaign = """
            {"request": {"notifications": [
             {"ios_title": "Summer sale", "content": "b", "inbox_days": 1,
              "inbox_image": "https://cdn.example.com/a.png?token=SECRET", "data": {"displayType": "captioned"}},
             {"ios_title": "Slides", "content": "b", "inbox_days": 1, "data": {"displayType": "carousel"}}
            ]}}
            """

        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }

        func check(_ extra: [String], in sub: String = "") async throws -> CLIResult {
            try await CLI.run(
                ["check", directory + "/c.json", "--offline", "--store", directory + "/store", "--quiet"] + extra,
                directory: directory + sub)
        }
    }

    /// The issue's first symptom: `--format junit --fail-on degrade` said failures="0" and exited 1.
    @Test(arguments: ["error", "warning", "degrade", "never"])
    func everyFormatAgreesWithTheExitCode(failOn: String) async throws {
        let workspace = try Workspace()
        try workspace.write("inbox-assets.json", "{}")
        let json = try await workspace.check(["--format", "json", "--fail-on", failOn])
        let report = try JSON.parse(json.stdout)
        let failing = report["summary"]?["failing"]?.boolValue
        #expect(failing == (json.status == 1), "\(json.stderr)")
        #expect(failing == (failOn != "never"))
        let junit = try await workspace.check(["--format", "junit", "--fail-on", failOn])
        #expect(junit.status == json.status)
        let failingCards = report["summary"]?["failingCards"]?.numberValue?.intValue ?? -1
        #expect(
            junit.stdout.contains("<testsuites name=\"inbox-assets check\" tests=\"2\" failures=\"\(failingCards)\""))
        let markdown = try await workspace.check(["--format", "markdown", "--fail-on", failOn])
        #expect(markdown.status == json.status)
        #expect(markdown.stdout.hasPrefix("## inbox-assets check: \(failing == true ? "❌ failing" : "✅ passing")"))
        let sarif = try await workspace.check(["--format", "sarif", "--fail-on", failOn])
        #expect(sarif.status == json.status)
        let results = try JSON.parse(sarif.stdout)["runs"]?[0]?["results"]?.arrayValue ?? []
        #expect(results.contains { $0["properties"]?["failing"] == true } == (failing == true))
        #expect(!sarif.stdout.contains("SECRET"))
        let text = try await workspace.check(["--fail-on", failOn])
        #expect(text.status == json.status)
        #expect(text.stdout.contains("failing (--fail-on \(failOn))  \(failing == true ? "yes" : "no")"))
        // degrade and warning fail the degraded carousel too; error only the broken card.
        #expect(failingCards == (failOn == "never" ? 0 : failOn == "error" ? 1 : 2))
    }

    /// The nearest inbox-assets.json (here in the parent of the working directory) gives defaults; the command
    /// line wins; ignore rules suppress with their reason.
    @Test func configDefaultsRulesAndCommandLineWins() async throws {
        let workspace = try Workspace()
        try workspace.write(
            "inbox-assets.json",
            """
            {"failOn": "warning", "commands": {"check": {"format": "json"}},
             "ignore": [{"url": "https://cdn.example.com/*", "reason": "CDN migration, ticket OPS-1"}]}
            """)
        let result = try await workspace.check([], in: "/sub")
        let report = try JSON.parse(result.stdout)
        // The broken card is suppressed; the degraded carousel still fails at the config's --fail-on warning.
        #expect(result.status == 1)
        #expect(report["summary"]?["suppressed"]?.numberValue?.intValue == 2)
        #expect(report["summary"]?["failingCards"]?.numberValue?.intValue == 1)
        // On a card of the report's messages (compact lines).
        #expect(result.stdout.contains("\"suppressed\":\"CDN migration, ticket OPS-1\""))
        let overridden = try await workspace.check(["--fail-on", "error"], in: "/sub")
        #expect(overridden.status == 0, "\(overridden.stderr)")

        let printed = try await CLI.run(["config"], directory: workspace.directory + "/sub")
        #expect(printed.status == 0)
        let config = try JSON.parse(printed.stdout)
        #expect(config["options"]?["failOn"]?["value"] == "warning")
        #expect(config["options"]?["failOn"]?["from"]?.stringValue?.hasSuffix("inbox-assets.json:1:12") == true)
        #expect(config["options"]?["format"]?["value"] == "json")

        try workspace.write("bad.json", "{\"failOn\": \"warning\",\n \"hostConcurency\": 4}")
        let bad = try await workspace.check(["--config", workspace.directory + "/bad.json"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("bad.json:2:2: unknown key \"hostConcurency\""))
        try workspace.write("choice.json", "{\"failOn\": \"sometimes\"}")
        let choice = try await workspace.check(["--config", workspace.directory + "/choice.json"])
        #expect(choice.status == 2)
        #expect(choice.stderr.contains("choice.json:1:12: the value 'sometimes' is invalid for '--fail-on <fail-on>'"))
    }

    /// A flag the config file turns on, `--no-NAME` turns off for one run (`denyPrivate` against loopback).
    @Test func aConfigFlagIsTurnedOffOnTheCommandLine() async throws {
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let workspace = try Workspace()
        try workspace.write("inbox-assets.json", #"{"denyPrivate": true}"#)
        let url = "http://127.0.0.1:\(server.httpPort)/campaign.json"
        let denied = try await CLI.run(["probe", url], directory: workspace.directory)
        #expect(denied.status == 1)
        #expect(denied.stdout.contains("(deny-private)"), "\(denied.stdout)")
        let allowed = try await CLI.run(["probe", "--no-deny-private", url], directory: workspace.directory)
        #expect(allowed.status == 0, "\(allowed.stdout)\(allowed.stderr)")
        #expect(allowed.stdout.hasPrefix("ok      200 "))
        let again = try await CLI.run(
            ["probe", "--no-deny-private", "--deny-private", url], directory: workspace.directory)
        #expect(again.status == 1, "the last word wins")
    }

    /// `--write-baseline` then `--baseline`: the same campaign passes, and the baseline file is sorted text.
    @Test func baselineRoundTripThroughTheCLI() async throws {
        let workspace = try Workspace()
        try workspace.write("inbox-assets.json", "{}")
        let baseline = workspace.directory + "/baseline.txt"
        let first = try await workspace.check(["--fail-on", "warning", "--write-baseline", baseline])
        #expect(first.status == 1)
        let text = try String(contentsOfFile: baseline, encoding: .utf8)
        let entries = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(entries.count >= 3)
        #expect(!text.contains("SECRET"))
        #expect(
            entries.contains {
                $0.contains(" asset.notInStore ") && $0.contains("c.json#request.notifications[0] https://")
            })
        let again = try await workspace.check(["--fail-on", "warning", "--baseline", baseline, "--format", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        let report = try JSON.parse(again.stdout)
        #expect(report["baseline"]?["fixed"] == .array([]))
        #expect(report["baseline"]?["new"] == 0)
        // Written again from the same run: the same bytes (stable and sorted).
        let second = workspace.directory + "/baseline2.txt"
        _ = try await workspace.check(["--fail-on", "warning", "--write-baseline", second])
        #expect(try String(contentsOfFile: second, encoding: .utf8) == text)
        // A missing or malformed baseline is exit 2, naming the file (and the line).
        let missing = try await workspace.check(["--baseline", workspace.directory + "/nope.txt"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("cannot read the baseline"))
        try workspace.write("broken.txt", "# header\nnot a fingerprint line\n")
        let broken = try await workspace.check(["--baseline", workspace.directory + "/broken.txt"])
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("broken.txt': line 2: expected `fingerprint code hint`"))
    }

    /// Against the fixture server (cdn.example.com mapped onto it): a bot challenge is its own warning and breaks
    /// no card; config headers (with ${ENV}) reach the host that needs them and are never printed.
    @Test func botChallengeAndHostHeaders() async throws {
        let workspace = try Workspace()
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let network = [
            "--connect-to", "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!,
            "--retries", "0", "--timeout", "5", "--quiet", "--no-store", "--format", "json",
        ]
        let cdn = "https://cdn.example.com"
        let campaign = """
            {"request": {"notifications": [
             {"ios_title": "A", "content": "b", "inbox_days": 1, "inbox_image": "\(cdn)/challenge/403", "data": {"displayType": "captioned"}},
             {"ios_title": "B", "content": "b", "inbox_days": 1, "inbox_image": "\(cdn)/challenge/503/page", "data": {"displayType": "captioned"}},
             {"ios_title": "C", "content": "b", "inbox_days": 1, "inbox_image": "\(cdn)/require-header/X-CDN-Token/t0ken/inbox/summer-sale.png", "data": {"displayType": "captioned"}}
            ]}}
            """
        try workspace.write("c.json", campaign)
        try workspace.write(
            "inbox-assets.json", #"{"headers": {"cdn.example.com": {"X-CDN-Token": "${CDN_TOKEN}"}}}"#)
        let run = try await CLI.run(
            ["check", "c.json"] + network, environment: ["CDN_TOKEN": "t0ken"], directory: workspace.directory)
        #expect(run.status == 0, "\(run.stderr)")
        let report = CheckReportJSON.flattened(try JSON.parse(run.stdout))
        let cards = try #require(report["cards"]?.arrayValue)
        for card in cards.prefix(2) {
            #expect(card["broken"] == false)
            let asset = card["assets"]?[0]
            #expect(asset?["failure"] == "bot-challenge")
            #expect(asset?["findings"]?[0]?["code"] == "asset.botChallenge")
            #expect(asset?["findings"]?[0]?["severity"] == "warning")
        }
        #expect(cards[2]["assets"]?[0]?["status"] == "ok")

        // Without the header the host answers 401: broken. An unset variable is a config error.
        try workspace.write("none.json", "{}")
        let bare = try await CLI.run(
            ["check", "c.json", "--config", "none.json"] + network, directory: workspace.directory)
        #expect(bare.status == 1)
        let unset = try await CLI.run(
            ["check", "c.json"] + network, environment: ["CDN_TOKEN": ""], directory: workspace.directory)
        #expect(unset.status == 1)
        let config = try await CLI.run(["config"], environment: ["CDN_TOKEN": "t0ken"], directory: workspace.directory)
        #expect(config.status == 0)
        #expect(!config.stdout.contains("t0ken"))
        #expect(config.stdout.contains("\"X-CDN-Token\": \"REDACTED\""))
    }

    /// Options of other stages get config keys from their names (`--remote-cache` → `remoteCache`, `--app-name` →
    /// `appName`), and `config` never prints their secrets: a remote's userinfo, a header's value.
    @Test func derivedKeysAndTheirSecretsInConfig() async throws {
        let workspace = try Workspace()
        try workspace.write(
            "inbox-assets.json",
            """
            {"remoteCache": "https://runner:REMOTESECRET@cache.example.com/c?token=QUERYSECRET",
             "remoteHeader": ["Authorization: Bearer HEADERSECRET"], "appName": "Shop",
             "commands": {"pass verify": {"jobs": "3"}}}
            """)
        let check = try await CLI.run(["config"], directory: workspace.directory)
        #expect(check.status == 0, "\(check.stderr)")
        let options = try JSON.parse(check.stdout)["options"]
        #expect(options?["appName"]?["value"] == "Shop")
        #expect(options?["remoteHeader"]?["value"]?[0] == "Authorization: REDACTED")
        let remote = try #require(options?["remoteCache"]?["value"]?.stringValue)
        #expect(remote.hasPrefix("https://") && remote.contains("cache.example.com/c"))
        for secret in ["REMOTESECRET", "QUERYSECRET", "HEADERSECRET"] { #expect(!check.stdout.contains(secret)) }
        let pass = try await CLI.run(["config", "--command", "pass verify"], directory: workspace.directory)
        #expect(try JSON.parse(pass.stdout)["options"]?["jobs"]?["value"] == "3")
    }

    /// One host failing TLS (a certificate for another name) for 20 URLs is one root cause: JSON lists it with
    /// its URLs and cards, text and Markdown print it once with its count.
    @Test func oneBrokenHostIsOneRootCause() async throws {
        let workspace = try Workspace()
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let wrongHost = try #require(server.tlsPorts[.wrongHost])
        let good = try #require(server.httpsPort)
        let notifications =
            (0..<20).map { index in
                #"{"ios_title": "Sale \#(index)", "content": "b", "inbox_days": 1, "inbox_image": "https://cdn.example.com/inbox/\#(index).png", "data": {"displayType": "captioned"}}"#
            } + [
                #"{"ios_title": "Fine", "content": "b", "inbox_days": 1, "inbox_image": "https://img.example.com/inbox/summer-sale.png", "data": {"displayType": "captioned"}}"#
            ]
        try workspace.write(
            "c.json", #"{"request": {"notifications": ["# + notifications.joined(separator: ",") + "]}}")
        try workspace.write("inbox-assets.json", "{}")
        let network = [
            "c.json", "--connect-to", "cdn.example.com:443:127.0.0.1:\(wrongHost)", "--connect-to",
            "img.example.com:443:127.0.0.1:\(good)", "--cacert", server.caFilePath!, "--retries", "0", "--timeout", "5",
            "--quiet", "--no-store", "--sdk", "all",
        ]
        let json = try await CLI.run(["check"] + network + ["--format", "json"], directory: workspace.directory)
        #expect(json.status == 1)
        let report = CheckReportJSON.flattened(try JSON.parse(json.stdout))
        let causes = try #require(report["rootCauses"]?.arrayValue)
        #expect(causes.count == 1)
        #expect(causes.first?["id"] == "asset.hostTLS cdn.example.com")
        #expect(causes.first?["urls"]?.arrayValue?.count == 20)
        #expect(causes.first?["cards"] == 60)  // 20 messages × 3 SDK profiles
        let cards = try #require(report["cards"]?.arrayValue)
        #expect(cards.filter { $0["rootCauses"] == .array(["asset.hostTLS cdn.example.com"]) }.count == 60)
        #expect(cards.filter { $0["rootCauses"] == .array([]) }.count == 3)

        let text = try await CLI.run(["check"] + network, directory: workspace.directory)
        #expect(
            text.stdout.components(
                separatedBy:
                    "asset.hostTLS cdn.example.com: TLS handshake failed for every request (20 URLs) — breaks 60 cards"
            ).count == 2)
        // The curl reason is in the root cause, not repeated per card.
        #expect(text.stdout.components(separatedBy: "asset.tls").count == 1, "\(text.stdout)")
        let markdown = try await CLI.run(
            ["check"] + network + ["--format", "markdown"], directory: workspace.directory)
        #expect(markdown.stdout.contains("### Root causes\n\n- `asset.hostTLS` cdn.example.com: TLS handshake failed"))
        #expect(!markdown.stdout.contains("`asset.tls`"))
    }
}
