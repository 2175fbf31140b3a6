import Findings
import StrictJSON
import Testing

@testable import Preflight

/// `inbox-assets.json`: what it accepts, and errors at the line and column of what is wrong.
struct CheckConfigTests {
    static let keys = ["failOn": "fail-on", "hostConcurrency": "host-concurrency", "trust": "trust", "quiet": "quiet"]

    static func parse(_ text: String, environment: [String: String] = [:]) throws(CheckConfig.ConfigError)
        -> CheckConfig
    {
        try CheckConfig.parse(Array(text.utf8), path: "c.json", optionKeys: keys, environment: environment)
    }

    @Test func everySectionParses() throws {
        let config = try Self.parse(
            """
            {
              "failOn": "degrade", "hostConcurrency": 4, "quiet": true, "trust": ["a.pem", "b.pem"],
              "commands": {"check": {"failOn": "warning"}},
              "ignore": [{"code": "image.*", "url": "https://cdn.example.com/*", "reason": "owned by design"}],
              "severity": {"card.degraded": "error"},
              "acceptStatus": {"*.example.com": [401, 403]},
              "headers": {"cdn.example.com": {"Authorization": "Bearer ${TOKEN}", "X-Plain": "v"}}
            }
            """, environment: ["TOKEN": "s3cret"])
        #expect(config.options.map(\.option) == ["fail-on", "host-concurrency", "quiet", "trust", "fail-on"])
        #expect(config.options[1].values == ["4"])
        #expect(config.options[2].values == [])
        #expect(config.options[3].values == ["a.pem", "b.pem"])
        #expect(config.options[4].command == "check")
        #expect(config.options[0].origin == "c.json:2:13")
        #expect(
            config.rules.ignore == [
                IgnoreRule(code: "image.*", url: "https://cdn.example.com/*", reason: "owned by design")
            ])
        #expect(config.rules.severity == ["card.degraded": .error])
        #expect(
            config.rules.acceptedStatuses == [CheckConfig.AcceptedStatus(host: "*.example.com", statuses: [401, 403])])
        #expect(config.headers.map(\.value) == ["Bearer s3cret", "v"])
        let printed = config.json(effective: []).serialized()
        #expect(!printed.contains("s3cret"))
        #expect(printed.contains("\"Authorization\":\"REDACTED\""))
    }

    /// Each mistake, and the position and words its error names.
    @Test(arguments: [
        ("{\"failOn\": \"error\",\n  \"fail_on\": 1}", "c.json:2:3: unknown key \"fail_on\""),
        ("{\"ignore\": [\n  {\"code\": \"x\"}]}", "c.json:2:3: an ignore rule needs a \"reason\""),
        ("{\"ignore\": [{\"reason\": \"r\"}]}", "c.json:1:13: an ignore rule needs at least one of"),
        (
            "{\"ignore\": [{\"reason\": \"r\", \"codes\": \"x\"}]}",
            "c.json:1:29: unknown key \"codes\" in an ignore rule"
        ),
        ("{\"severity\": {\"a.b\": \"fatal\"}}", "c.json:1:22: expected \"error\", \"warning\" or \"info\""),
        ("{\"acceptStatus\": {\"*\": [99]}}", "c.json:1:25: expected an HTTP status from 100 to 599"),
        ("{\"headers\": {\"h\": {\"A\": \"${UNSET}\"}}}", "c.json:1:25: the environment variable UNSET is not set"),
        ("{\"failOn\": {}}", "c.json:1:12: expected a string, a number, true"),
        ("{\"failOn\": \"error\",}", "c.json:1:20: unexpected character"),
        ("{\"quiet\": true, \"quiet\": true}", "c.json:1:17: duplicate key"),
        ("[]", "c.json:1:1: the config must be a JSON object"),
        ("{\"commands\": {\"check\": {\"nope\": 1}}}", "c.json:1:25: unknown option key \"nope\""),
    ])
    func errorsNameTheirPosition(text: String, expected: String) {
        do {
            _ = try Self.parse(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
        }
    }

    /// With the commands' own keys known, a `commands` section must name a command and use only its options.
    @Test(arguments: [
        (
            "{\"commands\": {\"chek\": {}}}",
            "c.json:1:15: unknown command \"chek\" (commands: \"check\", \"pass verify\")"
        ),
        ("{\"commands\": {\"check\": {\"trust\": []}}}", "c.json:1:25: unknown option key \"trust\" for \"check\""),
    ])
    func commandSectionsAreChecked(text: String, expected: String) throws {
        let commands: [String: Set<String>] = ["check": ["failOn", "quiet"], "pass verify": ["trust", "quiet"]]
        do {
            _ = try CheckConfig.parse(
                Array(text.utf8), path: "c.json", optionKeys: Self.keys, commandKeys: commands, environment: [:])
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description == expected)
        }
        let fine = try CheckConfig.parse(
            Array("{\"commands\": {\"pass verify\": {\"trust\": [\"a.pem\"]}}}".utf8), path: "c.json",
            optionKeys: Self.keys, commandKeys: commands, environment: [:])
        #expect(fine.options.map(\.command) == ["pass verify"])
    }

    @Test func positionsOfValuesAndKeys() throws {
        let text = "{\"a\": [1, {\"b-c\": \"x\"}],\n \"d\": {\"e\": null}}"
        let bytes = Array(text.utf8)
        let positions = JSONPositions(bytes)
        #expect(positions.values["a[1][\"b-c\"]"] == 18)
        #expect(positions.keys["d"] == 26)
        #expect(positions.lineColumn(of: positions.values["d.e"]!, in: bytes) == (2, 13))
        // Columns count characters, not bytes.
        let accented = Array("{\"é\": \"ü\", \"b\": 1}".utf8)
        let accentedPositions = JSONPositions(accented)
        #expect(accentedPositions.lineColumn(of: accentedPositions.values["b"]!, in: accented) == (1, 17))
        #expect(accentedPositions.lineColumn(of: accentedPositions.values["[\"é\"]"]!, in: accented) == (1, 7))
        // A path into a string (JSON inside JSON) points at the string.
        #expect(positions.offset(of: "a[1][\"b-c\"].deeper[2]") == 18)
    }
}
