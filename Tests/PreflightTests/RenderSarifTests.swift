import Findings
import Foundation
import InboxCards
import StrictJSON
import Testing

@testable import Preflight

/// `check --format sarif` against the SARIF 2.1.0 schema (PyPI jsonschema), and what code scanning reads.
struct RenderSarifTests {
    static let campaign = Array(RenderFixtures.campaign.utf8)

    static func judged(_ verdict: Verdict) -> CheckReport {
        var report = RenderFixtures.report(
            options: ResolveOptions(profiles: SDKProfile.allCases, platforms: Platform.allCases))
        verdict.apply(to: &report)
        return report
    }

    static func sarif(_ report: CheckReport) throws -> (String, JSONValue) {
        let text = SarifReport.render(report, version: "0.1.0") { $0 == "c.json" ? campaign : nil }
        return (text, try JSON.parse(text))
    }

    /// Validates argv[2] against the JSON schema argv[1] (the schema's own draft: SARIF's is draft-04).
    static let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.validators.validator_for(schema)(schema).validate(json.load(open(sys.argv[2])))
        """

    static let rules = FindingRules(ignore: [IgnoreRule(code: "pass.*", reason: "legacy pass, ticket PASS-7")])

    @Test(arguments: [false, true])
    func validAgainstTheSarifSchema(withBaseline: Bool) async throws {
        var baseline: Baseline? = nil
        if withBaseline {
            // Half of today's findings known, plus one fixed entry.
            let entries = Baseline.of(Self.judged(Verdict(policy: .error))).entries
            baseline = Baseline(
                entries: entries.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
                    + [Baseline.Entry(fingerprint: "00000000000000aa", code: "asset.httpStatus", hint: "gone")])
        }
        let report = Self.judged(Verdict(policy: .warning, rules: Self.rules, baseline: baseline))
        let (text, _) = try Self.sarif(report)
        let errors = try await CISchemaTests.validate(
            Self.script, schema: "\(CISchemaTests.schemas)/sarif-schema-2.1.0.json", document: text, suffix: ".sarif")
        #expect(errors == "")
    }

    /// The validator really validates: a result with an unknown level is refused.
    @Test func theSchemaRefusesABadLevel() async throws {
        let bad =
            #"{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "fatal"}]}]}"#
        let errors = try await CISchemaTests.validate(
            Self.script, schema: "\(CISchemaTests.schemas)/sarif-schema-2.1.0.json", document: bad, suffix: ".sarif")
        #expect(errors.contains("fatal"))
    }

    @Test func everyFindingIsOneResultAtItsSeverityWithItsLocation() throws {
        let report = Self.judged(Verdict(policy: .error, rules: Self.rules))
        let (_, sarif) = try Self.sarif(report)
        let run = try #require(sarif["runs"]?[0])
        let results = try #require(run["results"]?.arrayValue)
        // One result per distinct fingerprint: the per-profile copies of a finding are one.
        let fingerprints = Set(report.allFindings.compactMap { $0.verdict?.fingerprint })
        #expect(results.count == fingerprints.count)
        #expect(Set(results.compactMap { $0["partialFingerprints"]?["inboxAssets/v1"]?.stringValue }) == fingerprints)
        // Rules: one per code, with the documented description.
        let rules = try #require(run["tool"]?["driver"]?["rules"]?.arrayValue)
        #expect(Set(rules.compactMap { $0["id"]?.stringValue }) == Set(report.allFindings.map(\.code)))
        let degraded = try #require(rules.first { $0["id"] == "card.degraded" })
        #expect(degraded["fullDescription"]?["text"]?.stringValue == RuleDescriptions.all["card.degraded"])
        #expect(degraded["defaultConfiguration"]?["level"] == "warning")
        for result in results {
            let code = result["ruleId"]?.stringValue ?? ""
            let ruleIndex = result["ruleIndex"]?.numberValue?.intValue ?? -1
            #expect(rules[ruleIndex]["id"]?.stringValue == code)
            let finding = try #require(
                report.allFindings.first {
                    $0.verdict?.fingerprint == result["partialFingerprints"]?["inboxAssets/v1"]?.stringValue
                })
            let level = ["error": "error", "warning": "warning", "info": "note"][finding.severity.rawValue]
            #expect(result["level"]?.stringValue == level)
            #expect((result["suppressions"] != nil) == (finding.verdict?.suppressed != nil))
        }
        // The slide's 404 points at the line and column of its `image` value in the campaign.
        let missing = try #require(results.first { $0["ruleId"] == "asset.httpStatus" })
        let region = try #require(missing["locations"]?[0]?["physicalLocation"]?["region"])
        let positions = JSONPositions(Self.campaign)
        let offset = try #require(positions.values["request.notifications[3].data.carousel[1].image"])
        let (line, column) = positions.lineColumn(of: offset, in: Self.campaign)
        #expect(region["startLine"]?.numberValue?.intValue == line)
        #expect(region["startColumn"]?.numberValue?.intValue == column)
        #expect(line > 1)
        #expect(missing["locations"]?[0]?["physicalLocation"]?["artifactLocation"]?["uri"] == "c.json")
        // Suppressed pass findings carry the rule's reason.
        let suppressed = try #require(results.first { $0["suppressions"] != nil })
        #expect(suppressed["suppressions"]?[0]?["kind"] == "external")
        #expect(suppressed["suppressions"]?[0]?["justification"] == "legacy pass, ticket PASS-7")
    }

    @Test func baselineStatesAndFixedEntries() throws {
        let first = Self.judged(Verdict(policy: .error))
        var entries = Baseline.of(first).entries
        let dropped = entries.removeFirst()
        let fixed = Baseline.Entry(fingerprint: "00000000000000aa", code: "asset.httpStatus", hint: "gone")
        let report = Self.judged(Verdict(policy: .error, baseline: Baseline(entries: entries + [fixed])))
        let (text, sarif) = try Self.sarif(report)
        let results = try #require(sarif["runs"]?[0]?["results"]?.arrayValue)
        let states = results.map { $0["baselineState"]?.stringValue ?? "" }
        #expect(states.filter { $0 == "absent" }.count == 1)
        #expect(states.filter { $0 == "new" }.count == 1)
        let new = try #require(results.first { $0["baselineState"] == "new" })
        #expect(new["partialFingerprints"]?["inboxAssets/v1"]?.stringValue == dropped.fingerprint)
        #expect(!text.contains("SECRET"))
        // Without --baseline there is no baselineState.
        let (plain, _) = try Self.sarif(first)
        #expect(!plain.contains("baselineState"))
    }
}
