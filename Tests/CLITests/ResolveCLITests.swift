import Foundation
import StrictJSON
import Testing

/// End-to-end: the built binary, its help text, outputs and exit codes (the CLI contract).
struct ResolveCLITests {
    static let demo = "Fixtures/campaigns/demo.json"

    @Test func rootHelpListsCommandsAndExitCodes() async throws {
        let result = try await CLI.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.hasPrefix("OVERVIEW: Pre-flight Pushwoosh InboxKit campaigns: cards, assets, passes.\n"))
        #expect(result.stdout.contains("USAGE: inbox-assets <subcommand>\n"))
        #expect(result.stdout.contains("SUBCOMMANDS:\n  check                   Pre-flight a campaign"))
        for command in ["resolve", "probe", "pass", "store"] {
            #expect(result.stdout.contains("\n  \(command) "), "\(command) is listed")
        }
        #expect(result.stdout.contains("Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it;"))
        #expect(try await CLI.run([]).stdout == result.stdout)
        #expect(try await CLI.run(["help"]).stdout == result.stdout)
    }

    @Test func resolveHelpIsPinned() async throws {
        let result = try await CLI.run(["resolve", "--help"])
        #expect(result.status == 0)
        let expected = try String(contentsOfFile: CLI.fixture("expected/resolve-help.txt"), encoding: .utf8)
        #expect(result.stdout == expected)
        #expect(try await CLI.run(["help", "resolve"]).stdout == expected)
    }

    @Test func version() async throws {
        let result = try await CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "inbox-assets 0.1.0\n")
    }

    @Test(arguments: [
        (["resolve"], "Error: Missing expected argument '<inputs> ...'"),
        (
            ["resolve", demo, "--sdk", "8.0"],
            "Error: The value '8.0' is invalid for '--sdk <sdk>'. Please provide one of '7.0', '7.1', '7.2' and 'all'."
        ),
        (
            ["resolve", demo, "--android-sdk", "6.14"],
            "Error: The value '6.14' is invalid for '--android-sdk <version>'. Please provide one of '6.11', '6.12', "
                + "'6.13', '6.15' and 'all'."
        ),
        (["resolve", demo, "--format", "xml"], "Error: The value 'xml' is invalid for '--format <format>'."),
        (["resolve", demo, "--frobnicate"], "Error: Unknown option '--frobnicate'"),
        (["resolve", "-", "-"], "Error: Standard input ('-') can be given only once"),
        (["frobnicate"], "Error: Unknown subcommand 'frobnicate'"),
    ])
    func usageErrorsExit64WithUsageOnStderr(arguments: [String], message: String) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix(message))
        #expect(result.stderr.contains("\nUsage: inbox-assets"))
        #expect(result.stderr.contains("\n  See 'inbox-assets help"))
        #expect(result.stderr.hasSuffix("' for more information.\n"))
    }

    @Test func demoTextReportIsPinned() async throws {
        let result = try await CLI.run(["resolve", Self.demo])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(!result.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")
        let expected = try String(contentsOfFile: CLI.fixture("expected/demo-resolve.txt"), encoding: .utf8)
        #expect(result.stdout == expected)
    }

    @Test func demoJSONAllProfilesAndPlatformsIsPinned() async throws {
        let result = try await CLI.run([
            "resolve", Self.demo, "--sdk", "all", "--platform", "all", "--android-sdk", "all", "--format", "json",
        ])
        #expect(result.status == 0)
        let expected = try String(contentsOfFile: CLI.fixture("expected/demo-resolve-all.json"), encoding: .utf8)
        #expect(result.stdout == expected)
        let report = try JSON.parse(result.stdout)
        #expect(report["schemaVersion"] == 1)
        let cards = try #require(report["cards"]?.arrayValue)
        #expect(
            Set(cards.compactMap { $0["sdk"]?.stringValue }) == ["7.0", "7.1", "7.2", "6.11", "6.12", "6.13", "6.15"])
        #expect(Set(cards.compactMap { $0["platform"]?.stringValue }) == ["ios", "android"])
        for card in cards {
            let log = card["sdkLog"]?.stringValue
            switch (card["platform"]?.stringValue, card["sdk"]?.stringValue) {
            case ("ios", "7.0"):
                // 7.0 logs INFO on every resolve.
                #expect(log?.hasPrefix("Inbox cell resolve — code=") == true)
            case ("ios", _) where card["degraded"] == true:
                #expect(log?.hasPrefix("Inbox cell degraded — code=") == true)
                #expect(log?.contains("→classic (") == true)
            case ("android", "6.11"):
                // 6.11 has no rich cards and logs nothing.
                #expect(log == nil)
            case ("android", _) where card["degraded"] == true:
                #expect(log?.hasPrefix("Inbox card degraded — code=") == true)
            default:
                #expect(log == nil)
            }
        }
    }

    /// The Android card options from the command line: `6.15` is a profile of its own, `--android-heuristic` turns the
    /// legacy row of a message without displayType into the heuristic's card, `--at` decides what has expired, and a
    /// date that is not ISO 8601 is a usage error.
    @Test func androidOptionsAndAtReachTheResolver() async throws {
        let rules = "Fixtures/campaigns/android-rules.ndjson"
        func cards(_ extra: [String]) async throws -> [JSONValue] {
            let result = try await CLI.run(["resolve", rules, "--platform", "android", "--format", "json"] + extra)
            return try #require(try JSON.parse(result.stdout)["cards"]?.arrayValue)
        }
        func kind(_ cards: [JSONValue], _ code: String) -> String? {
            cards.first { $0["code"]?.stringValue == code }?["resolved"]?.stringValue
        }
        let only615 = try await cards(["--android-sdk", "6.15", "--at", "2026-12-01"])
        #expect(Set(only615.compactMap { $0["sdk"]?.stringValue }) == ["6.15"])
        let all = try await cards(["--android-sdk", "all", "--at", "2026-12-01"])
        let videoProfiles = all.filter { $0["code"] == "video" }.compactMap { $0["sdk"]?.stringValue }
        #expect(videoProfiles == ["6.11", "6.12", "6.13", "6.15"])
        #expect(Set(try await cards(["--at", "2026-12-01"]).compactMap { $0["sdk"]?.stringValue }) == ["6.13"])
        #expect(kind(only615, "no-displayType-legacy-row") == "legacy")
        let heuristic = try await cards(["--android-heuristic", "--at", "2026-12-01"])
        #expect(kind(heuristic, "no-displayType-legacy-row") == "captioned")
        // hidden-expired-rt expires at 1700000000 (2023-11-14T22:13:20Z).
        #expect(kind(only615, "hidden-expired-rt") == nil)
        #expect(kind(try await cards(["--at", "2023-01-01"]), "hidden-expired-rt") == "banner")
        let bad = try await CLI.run(["resolve", rules, "--at", "yesterday"])
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("Error: The value 'yesterday' is invalid for '--at <date>'."))
    }

    @Test(arguments: [
        ("error", Int32(0)), ("warning", 1), ("degrade", 1), ("never", 0),
    ])
    func failOnLevels(level: String, status: Int32) async throws {
        #expect(try await CLI.run(["resolve", Self.demo, "--fail-on", level]).status == status)
    }

    @Test func failOnErrorWhenAMessageHasAnError() async throws {
        let ndjson = """
            {"pw_inbox": "1", "inbox_params": {"rt": "2099-12-31"}, "aps": {"alert": {"title": "t", "body": "b"}}}
            {not json
            """
        let result = try await CLI.run(["resolve", "-", "--format", "json"], stdin: ndjson)
        #expect(result.status == 1, "a broken NDJSON line is an error finding; the other line still resolves")
        let report = try JSON.parse(result.stdout)
        #expect(report["summary"]?["cards"] == 1)
        #expect(report["findings"]?[0]?["code"] == "input.invalidJSON")
        #expect(report["findings"]?[0]?["source"] == "-#[1]")
    }

    @Test func unreadableAndInvalidInputsExit2ButOthersAreReported() async throws {
        let result = try await CLI.run(["resolve", "missing.json", "-", Self.demo, "--format", "json"], stdin: "[1, 2")
        #expect(result.status == 2)
        #expect(result.stderr.contains("Error: cannot read 'missing.json': no such file\n"))
        #expect(result.stderr.contains("Error: -: line 1, column 6: unexpected end of input\n"))
        let report = try JSON.parse(result.stdout)
        #expect(report["summary"]?["cards"] == 21)
        let codes = report["findings"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(codes.contains("input.unreadable") && codes.contains("input.invalidJSON"))
    }

    @Test func directoryIsUnreadableInput() async throws {
        let result = try await CLI.run(["resolve", "Fixtures"])
        #expect(result.status == 2)
        #expect(result.stderr == "Error: cannot read 'Fixtures': is a directory\n")
    }

    @Test func secretsNeverReachAnyFormat() async throws {
        let campaign = """
            {"request": {"application": "ABCDE-12345", "auth": "SUPERSECRETAUTHTOKEN",
              "notifications": [{"content": "Hi https://x.example/a?token=TOPSECRET1", "inbox_days": 3,
                "inbox_image": "https://cdn.example.com/a.png?token=TOPSECRET2&w=1",
                "data": {"displayType": "banner", "buttons": [{"title": "Go", "url": "https://x.example/?api_key=TOPSECRET3"}]}}]}}
            """
        for format in ["text", "json"] {
            let result = try await CLI.run(["resolve", "-", "--format", format, "--sdk", "all"], stdin: campaign)
            #expect(result.status == 0)
            for secret in ["SUPERSECRETAUTHTOKEN", "TOPSECRET1", "TOPSECRET2", "TOPSECRET3"] {
                #expect(!result.stdout.contains(secret), "\(secret) leaked in \(format)")
                #expect(!result.stderr.contains(secret))
            }
        }
        let json = try await CLI.run(["resolve", "-", "--format", "json"], stdin: campaign).stdout
        #expect(json.contains("token=REDACTED&w=1"))
    }

    @Test func hostileInputsNeverCrash() async throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let deepResult = try await CLI.run(["resolve", "-"], stdin: deep)
        #expect(deepResult.status == 2)
        #expect(deepResult.stderr.contains("nesting deeper than 512 levels"))

        let invalidUTF8Path = FileManager.default.temporaryDirectory.appendingPathComponent("ia-invalid-utf8.json").path
        try Data([0x7B, 0x22, 0x74, 0x69, 0x74, 0x6C, 0x65, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]).write(
            to: URL(fileURLWithPath: invalidUTF8Path))
        let utf8Result = try await CLI.run(["resolve", invalidUTF8Path])
        #expect(utf8Result.status == 2)
        #expect(utf8Result.stderr.contains("line 1, column 11: invalid UTF-8"))

        let wrongTypes = """
            {"request": {"notifications": [
              {"title": 5, "content": ["x"], "inbox_days": "7", "data": {"displayType": 5, "carousel": "x", "buttons": {}}},
              {"content": "ok", "inbox_days": 2, "data": {"displayType": "banner"}}
            ]}}
            """
        let typed = try await CLI.run(["resolve", "-", "--format", "json", "--fail-on", "never"], stdin: wrongTypes)
        #expect(typed.status == 0)
        let report = try JSON.parse(typed.stdout)
        #expect(report["summary"]?["messages"] == 2, "one broken message does not stop the others")
    }

    @Test func fiftyMegabyteInputIsRead() async throws {
        // One feed message whose body is a 50 MB string: the size is handled without a crash or a copy per byte.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ia-50mb-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).json"
        ).path
        let body = String(repeating: "0123456789", count: 5_000_000)
        let message =
            #"{"inbox_id":"m","order":1,"rt":4102444800,"action_type":0,"status":1,"title":"T","text":""# + body
            + #"","image":"https://cdn.example.com/a.png","action_params":"{}"}"#
        try Data(message.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await CLI.run(["resolve", path, "--format", "json"])
        #expect(result.status == 0)
        let report = try JSON.parse(result.stdout)
        #expect(report["summary"]?["cards"] == 1)
        #expect(report["cards"]?[0]?["resolved"] == "captioned")
    }
}
