import Findings
import Foundation
import InboxCards
import Preflight
import StrictJSON
import TestSupport
import Testing

/// `docs/report.schema.json` against real `CheckReport.json` outputs, and deliberately broken documents.
struct SchemaTests {
    static let schema: JSONValue? = try? JSON.parse(
        RenderFixtures.readFile("\(RenderFixtures.root)/docs/report.schema.json"))
    static var validator: SchemaValidator? { schema.map(SchemaValidator.init(root:)) }

    /// The report as the CLI prints it: streamed through a writer, then parsed back (what a consumer validates).
    static func printed(_ report: CheckReport) throws -> JSONValue {
        try JSON.parse(streamed(report))
    }

    /// `check --format json`'s bytes: the report written member by member into small chunks.
    static func streamed(_ report: CheckReport, pretty: Bool = true) -> [UInt8] {
        let chunks = Chunks()
        var writer = JSONWriter(pretty: pretty, flushThreshold: 64) { chunks.bytes += $0 }
        if pretty { report.write(to: &writer) } else { report.writeLines(to: &writer) }
        writer.flush()
        return chunks.bytes
    }

    /// What a streaming writer handed on (one test's writer at a time).
    final class Chunks: @unchecked Sendable {
        var bytes: [UInt8] = []
    }

    /// The streamed document is byte for byte the document written whole, for every corner of the model, and
    /// the same value as its tree: indented, but each message one compact line.
    @Test(arguments: Sample.allCases)
    func streamedIsTheTreeSerialized(sample: Sample) throws {
        let report = sample.report
        var whole = JSONWriter(pretty: true)
        report.write(to: &whole)
        let streamed = Self.streamed(report)
        #expect(streamed == whole.bytes)
        #expect(try JSON.parse(streamed) == report.json)
        let text = String(decoding: streamed, as: UTF8.self)
        let messages = text.split(separator: "\n").filter { $0.hasPrefix("    {\"id\":") }
        #expect(messages.count == report.json["messages"]?.arrayValue?.count)
        #expect(messages.allSatisfy { $0.hasSuffix("}") || $0.hasSuffix("},") })
    }

    /// `check --format ndjson`: every line one compact object with its type first, the cards in order with the
    /// members they have in the document, the input findings, passes and root causes, then one summary line with
    /// the schema version, the counts and the baseline.
    @Test(arguments: Sample.allCases)
    func ndjsonLinesCarryTheDocument(sample: Sample) throws {
        let report = sample.report
        let text = String(decoding: Self.streamed(report, pretty: false), as: UTF8.self)
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.allSatisfy { $0.hasPrefix("{\"type\":\"") && !$0.contains("\n") })
        let values = try lines.map { try JSON.parse(Array($0.utf8)) }
        let document = try Self.printed(report)
        func stripped(_ value: JSONValue) -> JSONValue {
            var object = value.objectValue ?? JSONObject()
            object["type"] = nil
            return .object(object)
        }
        func typed(_ type: String) -> [JSONValue] { values.filter { $0["type"] == .string(type) }.map(stripped) }
        // The lines come in the document's order: assets, passes, root causes, cards, input findings, summary.
        let order = ["asset", "pass", "rootCause", "card", "finding", "summary"]
        let ranks = values.compactMap { $0["type"]?.stringValue }.map { order.firstIndex(of: $0) ?? -1 }
        #expect(ranks == ranks.sorted() && !ranks.contains(-1))
        let assets = values.filter { $0["type"] == "asset" }
        #expect(assets.count == document["assets"]?.objectValue?.count)
        for line in assets {
            var entry = stripped(line).objectValue ?? JSONObject()
            let key = entry["key"]?.stringValue ?? ""
            entry["key"] = nil
            #expect(JSONValue.object(entry) == document["assets"]?[key], "asset \(key)")
        }
        // Each card line is the card of the document's messages as schemaVersion 2 wrote it.
        #expect(typed("card") == CheckReportJSON.cards(of: document))
        #expect(typed("finding") == document["findings"]?.arrayValue)
        #expect(typed("pass") == document["passes"]?.arrayValue)
        #expect(typed("rootCause") == document["rootCauses"]?.arrayValue)
        let summary = try #require(values.last)
        #expect(summary["type"] == "summary")
        #expect(values.filter { $0["type"] == "summary" }.count == 1)
        #expect(summary["schemaVersion"] == .int(CheckReport.schemaVersion))
        #expect(summary["baseline"] == document["baseline"])
        for (key, value) in document["summary"]?.objectValue ?? JSONObject() {
            #expect(summary[key] == value, "summary.\(key)")
        }
        #expect(
            values.count == assets.count + report.cards.count + report.inputFindings.count + report.passes.count
                + report.rootCauses.count + 1)
    }

    @Test func schemaUsesOnlyCheckedKeywordsAndResolvableRefs() throws {
        let validator = try #require(Self.validator, "docs/report.schema.json is missing or not JSON")
        #expect(validator.lint() == [])
        #expect(validator.root["$schema"] == "https://json-schema.org/draft/2020-12/schema")
    }

    /// Reports the pipeline produces, from every corner of the model.
    enum Sample: String, CaseIterable, CustomTestStringConvertible {
        case everyKindWithFailuresAndPasses
        case everyProfileAndPlatform
        case androidTapTargets
        case forcedKind
        case perLanguageFeedMessages
        case empty
        case suppressedAndBaseline
        case rootCause

        var testDescription: String { rawValue }

        /// Judged as `check` judges every report (the JSON carries the verdict).
        var report: CheckReport {
            var report = raw
            var verdict = Verdict(policy: .warning)
            if self == .suppressedAndBaseline {
                verdict.rules = FindingRules(ignore: [IgnoreRule(code: "card.broken", reason: "known CDN outage")])
                verdict.baseline = Baseline(
                    entries: [Baseline.Entry(fingerprint: "0123456789abcdef", code: "asset.gone", hint: "fixed")])
            }
            verdict.apply(to: &report)
            return report
        }

        var raw: CheckReport {
            switch self {
            case .suppressedAndBaseline: RenderFixtures.report()
            case .rootCause: SchemaTests.hostAnswering503()
            case .everyKindWithFailuresAndPasses: RenderFixtures.report()
            case .everyProfileAndPlatform:
                RenderFixtures.report(
                    options: ResolveOptions(profiles: SDKProfile.allCases, platforms: Platform.allCases))
            case .androidTapTargets:
                // Every Android profile: the legacy row's attachment, a video row that runs `l` (6.12, 6.13) or opens
                // the player (6.15), and 6.15's button notes.
                RenderFixtures.report(
                    """
                    [{"title": "Row", "content": "Body", "inbox_days": 1, "android_banner": "https://c.example/b.png"},
                     {"title": "Clip", "content": "Play", "inbox_days": 1, "link": "https://example.com/sale",
                      "data": {"displayType": "video", "video": {"url": "https://c.example/v.mp4"}}},
                     {"title": "Buttons", "content": "Tap", "inbox_days": 1, "data": {"displayType": "classic",
                      "buttons": [{"title": "Run", "url": "javascript:alert(1)"}, {"title": "Read", "action": "markRead"}]}}]
                    """, options: ResolveOptions(platforms: [.android], androidProfiles: AndroidProfile.allCases),
                    passes: [])
            case .forcedKind: RenderFixtures.report(options: ResolveOptions(forceKind: .carousel))
            case .perLanguageFeedMessages:
                RenderFixtures.report(
                    """
                    [{"ios_title": {"en": "Hi", "de": "Hallo"}, "content": {"en": "a", "de": "b"}, "inbox_days": 1,
                      "inbox_image": "https://c.example/x.png?token=T"},
                     {"inbox_id": "abc","order": 1, "rt": 4102444800, "action_type": 0, "status": 1,  "title": "Feed", "text": "msg", "image": "https://c.example/y.png",
                      "action_params": "{\\"displayType\\": \\"classic\\"}"},
                     not json
                    ]
                    """, passes: [])
            case .empty:
                CheckReport(
                    options: ResolveOptions(), summary: CheckSummary(), inputFindings: [], cards: [], passes: [])
            }
        }
    }

    /// Two images on one host that answers 503 to both: one `asset.hostStatus` root cause.
    static func hostAnswering503() -> CheckReport {
        let image =
            #"{"ios_title": "t", "content": "b", "inbox_days": 1, "inbox_image": "https://down.example.com/missing-%@.png", "data": {"displayType": "captioned"}}"#
        var report = RenderFixtures.report(
            #"{"request": {"notifications": ["#
                + ["a", "b"].map { image.replacingOccurrences(of: "%@", with: $0) }
                .joined(separator: ",") + "]}}", passes: [])
        for card in report.cards.indices {
            for asset in report.cards[card].assets.indices where report.cards[card].assets[asset].status == .failed {
                report.cards[card].assets[asset].httpStatus = 503
            }
        }
        report.rootCauses = RootCause.find(in: report)
        return report
    }

    @Test func aHostAnsweringEveryRequestWith503IsOneRootCause() throws {
        let report = Self.hostAnswering503()
        #expect(report.rootCauses.map(\.id) == ["asset.hostStatus down.example.com"])
        #expect(report.rootCauses.first?.urls.count == 2)
        #expect(report.rootCauses.first?.cards == 2)
        let json = try Self.printed(Sample.rootCause.report).serialized()
        #expect(json.contains("\"rootCauses\":[\"asset.hostStatus down.example.com\"]"))
    }

    @Test(arguments: Sample.allCases)
    func realReportsAreValid(sample: Sample) throws {
        let validator = try #require(Self.validator)
        let report = sample.report
        #expect(validator.validate(try Self.printed(report)) == [])
        #expect(validator.validate(report.json) == [])
    }

    /// The samples really do reach the nullable and optional corners the schema describes.
    @Test func samplesCoverTheSchemasCorners() throws {
        let printed = try Self.printed(Sample.everyKindWithFailuresAndPasses.report)
        // The cards as schemaVersion 2 had them (the references' statuses and null indices put back) and the rest.
        let json = printed.serialized() + JSONValue.array(CheckReportJSON.cards(of: printed)).serialized()
        for needle in [
            "\"signer\":{", "\"signer\":null", "\"summary\":{\"style\"", "\"payload\":{", "\"action\":\"openURL\"",
            "\"status\":\"failed\"", "\"status\":\"skipped\"", "\"httpStatus\":404", "\"index\":null", "\"index\":1",
        ] {
            #expect(json.contains(needle), "no sample has \(needle)")
        }
        let judged = try Self.printed(Sample.suppressedAndBaseline.report).serialized()
        for needle in [
            "\"suppressed\":\"known CDN outage\"", "\"baseline\":\"new\"", "\"fixed\":[{", "\"failing\":true",
        ] {
            #expect(judged.contains(needle), "no sample has \(needle)")
        }
        let all = try Self.printed(Sample.everyProfileAndPlatform.report).serialized()
        #expect(all.contains("\"6.13\"") && all.contains("\"sdks\":[\"7.0\""))
        let android = try Self.printed(Sample.androidTapTargets.report).serialized()
        for needle in [
            "\"sdks\":[\"6.11\"", "\"6.15\"", "\"target\":\"attachment\"", "\"action\":\"openAttachment\"",
            "\"action\":\"refused\"", "OwnRowDestination", "markMessageOpened",
        ] {
            #expect(android.contains(needle), "no sample has \(needle)")
        }
    }

    /// One change that makes a valid report invalid, and the path and reason the validator must name.
    struct Breakage: Sendable, CustomTestStringConvertible {
        var name: String
        var path: [String]
        var value: JSONValue?  // nil removes the key
        var expected: String

        var testDescription: String { name }
    }

    static let breakages: [Breakage] = [
        Breakage(
            name: "no schemaVersion", path: ["schemaVersion"], value: nil, expected: "$: required key schemaVersion"),
        Breakage(name: "schemaVersion 1", path: ["schemaVersion"], value: 1, expected: "$.schemaVersion: 1 is not 3"),
        Breakage(
            name: "negative count", path: ["summary", "cards"], value: -1,
            expected: "$.summary.cards: -1 is less than 0"),
        Breakage(
            name: "count as string", path: ["summary", "errors"], value: "3",
            expected: "$.summary.errors: string is not integer"),
        Breakage(
            name: "fractional count", path: ["summary", "bytesFetched"], value: 1.5,
            expected: "$.summary.bytesFetched: number is not integer"),
        Breakage(
            name: "unknown summary key", path: ["summary", "skipped"], value: 0,
            expected: "$.summary: key skipped is not allowed"),
        Breakage(
            name: "unknown kind", path: ["messages", "0", "resolved"], value: "fancy",
            expected: "$.messages[0].resolved: \"fancy\" is not one of"),
        Breakage(
            name: "unknown platform", path: ["messages", "0", "cards", "0", "platform"], value: "web",
            expected: "$.messages[0].cards[0].platform: \"web\" is not one of"),
        Breakage(
            name: "degraded as string", path: ["messages", "0", "degraded"], value: "false",
            expected: "$.messages[0].degraded: string is not boolean"),
        Breakage(
            name: "entry without sdks", path: ["messages", "1", "cards", "0", "sdks"], value: nil,
            expected: "$.messages[1].cards[0]: required key sdks is missing"),
        Breakage(
            name: "entry without a version", path: ["messages", "1", "cards", "0", "sdks"], value: .array([]),
            expected: "$.messages[1].cards[0].sdks:"),
        Breakage(
            name: "unknown SDK version", path: ["messages", "1", "cards", "0", "sdks"], value: ["7.9"],
            expected: "$.messages[1].cards[0].sdks[0]: \"7.9\" is not one of"),
        Breakage(
            name: "message without id", path: ["messages", "2", "id"], value: nil,
            expected: "$.messages[2]: required key id is missing"),
        Breakage(
            name: "a card member on the message", path: ["messages", "2", "platform"], value: "ios",
            expected: "$.messages[2]: key platform is not allowed"),
        Breakage(
            name: "unknown asset status", path: ["messages", "0", "assets", "0", "status"], value: "gone",
            expected: "$.messages[0].assets[0].status: \"gone\" is not one of"),
        Breakage(
            name: "unknown asset role", path: ["messages", "0", "assets", "0", "role"], value: "logo",
            expected: "$.messages[0].assets[0].role: \"logo\" is not one of"),
        Breakage(
            name: "use as string", path: ["messages", "0", "assets", "0", "use"], value: "0",
            expected: "$.messages[0].assets[0].use: string is not integer"),
        Breakage(
            name: "unknown severity", path: ["messages", "6", "findings", "0", "severity"], value: "fatal",
            expected: "$.messages[6].findings[0].severity: \"fatal\" is not one of"),
        Breakage(
            name: "finding without message", path: ["messages", "6", "findings", "0", "message"], value: nil,
            expected: "$.messages[6].findings[0]: required key message is missing"),
        Breakage(
            name: "input finding without source", path: ["findings", "0", "source"], value: nil,
            expected: "$.findings[0]: required key source is missing"),
        Breakage(
            name: "unknown button action", path: ["messages", "1", "buttons", "0", "action"], value: "open",
            expected: "$.messages[1].buttons[0].action: \"open\" is not one of"),
        Breakage(
            name: "signer as string", path: ["passes", "0", "signer"], value: "Apple",
            expected: "$.passes[0].signer: string is not object or null"),
        Breakage(
            name: "signer without subject", path: ["passes", "0", "signer", "subject"], value: nil,
            expected: "$.passes[0].signer: required key subject is missing"),
        Breakage(
            name: "messages as object", path: ["messages"], value: .object(JSONObject()),
            expected: "$.messages: object is not array"),
    ]

    @Test(arguments: breakages)
    func brokenDocumentsFail(breakage: Breakage) throws {
        let validator = try #require(Self.validator)
        let valid = try Self.printed(Sample.everyKindWithFailuresAndPasses.report)
        let broken = try #require(
            valid.setting(breakage.path[...], to: breakage.value), "no \(breakage.path) in the report")
        let errors = validator.validate(broken)
        #expect(errors.contains { $0.hasPrefix(breakage.expected) }, "\(errors)")
    }

    @Test func aDocumentThatIsNotAnObjectFails() throws {
        let validator = try #require(Self.validator)
        #expect(validator.validate(.array([])) == ["$: array is not object"])
        #expect(validator.validate(.null) == ["$: null is not object"])
    }
}

extension JSONValue {
    /// A copy with the value at `path` (object keys, or array indexes as decimal strings) replaced, or removed
    /// when `value` is nil; `nil` when the path does not lead anywhere.
    func setting(_ path: ArraySlice<String>, to value: JSONValue?) -> JSONValue? {
        guard let key = path.first else { return value }
        switch self {
        case .object(var object):
            if path.count == 1 {
                object[key] = value
                return .object(object)
            }
            guard let child = object[key], let changed = child.setting(path.dropFirst(), to: value) else { return nil }
            object[key] = changed
            return .object(object)
        case .array(var elements):
            guard let index = Int(key), elements.indices.contains(index),
                let changed = elements[index].setting(path.dropFirst(), to: value)
            else { return nil }
            elements[index] = changed
            return .array(elements)
        default: return nil
        }
    }
}
