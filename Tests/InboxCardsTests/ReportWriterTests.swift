import Findings
import Foundation
import StrictJSON
import Testing

@testable import InboxCards

/// The CLI streams reports with `write(to:)`; `check` and the tests build `json`. Both must give the same bytes.
@Suite struct ReportWriterTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let root = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/Fixtures/campaigns/" + name)))
    }

    static let hostile = Input.request([
        Input.notification(
            title: "T \"q\" \\ \u{1} é 😀 https://x.example/a?token=SECRET", body: ["en": "E", "de": "D"],
            image: "https://cdn.example.com/a.png?sig=SECRET",
            data: [
                "displayType": "carousel",
                "carousel": [["image": ""], ["image": "https://cdn.example.com/s.png", "url": "javascript:x"], 5],
                "buttons": [
                    ["title": "Go", "url": "https://x.example/?api_key=SECRET"],
                    ["title": "Custom", "payload": ["deep": ["x": "https://y.example/?token=SECRET"]]],
                ],
                "pinned": "yes",
            ])
    ])

    static let runs: [Named<(input: String, options: ResolveOptions)>] = [
        Named("demo, 7.2 iOS", ("demo.json", ResolveOptions())),
        Named(
            "demo, every profile and platform",
            ("demo.json", ResolveOptions(profiles: SDKProfile.allCases, platforms: Platform.allCases))),
        Named("rules, every profile", ("rules.ndjson", ResolveOptions(profiles: SDKProfile.allCases))),
        Named("rules, forced carousel", ("rules.ndjson", ResolveOptions(forceKind: .carousel))),
        Named(
            "hostile, every profile and platform",
            ("", ResolveOptions(profiles: SDKProfile.allCases, platforms: Platform.allCases))),
    ]

    @Test(arguments: runs, [false, true])
    func writerGivesTheJSONBytes(_ row: Named<(input: String, options: ResolveOptions)>, pretty: Bool) throws {
        let bytes = row.value.input.isEmpty ? Self.hostile : try Self.fixture(row.value.input)
        var batch = try CampaignReader.read(bytes: bytes, source: "campaign.json")
        // The worst severity without collecting the findings, on the input as it is (no error added).
        let plain = CardResolver(options: row.value.options).run(batch)
        #expect(plain.maxSeverity == plain.allFindings.map(\.severity).max())
        batch.findings.append(
            SourcedFinding(source: "x.json", finding: .error("input.unreadable", "gone", path: "a.b")))
        let run = CardResolver(options: row.value.options).run(batch)
        #expect(!run.cards.isEmpty)
        var writer = JSONWriter(pretty: pretty)
        run.write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == run.json.serialized(pretty: pretty))
        for card in run.cards {
            var one = JSONWriter(pretty: pretty)
            card.write(to: &one)
            #expect(String(decoding: one.bytes, as: UTF8.self) == card.json.serialized(pretty: pretty))
        }
        #expect(run.findingCount(.error) == run.allFindings.count(.error))
        #expect(run.findingCount(.warning) == run.allFindings.count(.warning))
        #expect(run.findingCount(.info) == run.allFindings.count(.info))
        #expect(run.maxSeverity == .error)
    }

    /// `resolve --format ndjson`: a card line per card as in the document, a finding line per input finding,
    /// then one summary line with the schema version and the document's counts; every line compact, type first.
    @Test(arguments: runs)
    func ndjsonLinesCarryTheDocument(_ row: Named<(input: String, options: ResolveOptions)>) throws {
        let bytes = row.value.input.isEmpty ? Self.hostile : try Self.fixture(row.value.input)
        var batch = try CampaignReader.read(bytes: bytes, source: "campaign.json")
        batch.findings.append(
            SourcedFinding(source: "x.json", finding: .error("input.unreadable", "gone", path: "a.b")))
        let run = CardResolver(options: row.value.options).run(batch)
        var writer = JSONWriter()
        run.writeLines(to: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("{\"type\":\"") })
        let values = try lines.dropLast().map { try JSON.parse(Array($0.utf8)) }
        #expect(values.count == run.cards.count + run.inputFindings.count + 1)
        func members(_ value: JSONValue) -> JSONValue {
            var object = value.objectValue ?? JSONObject()
            object["type"] = nil
            return .object(object)
        }
        #expect(values.prefix(run.cards.count).map(members) == run.cards.map(\.json))
        #expect(values.prefix(run.cards.count).allSatisfy { $0["type"] == "card" })
        let findings = values.dropFirst(run.cards.count).dropLast()
        #expect(findings.allSatisfy { $0["type"] == "finding" })
        #expect(findings.map(members) == run.inputFindings.map(\.json))
        let summary = try #require(values.last)
        #expect(summary["type"] == "summary")
        #expect(summary["schemaVersion"] == 1)
        for (key, value) in run.json["summary"]?.objectValue ?? JSONObject() {
            #expect(summary[key] == value, "summary.\(key)")
        }
    }

    /// Slide and link references keep their path in parts; read, it is the full path of the URL in the input, with
    /// the slide's index in the input (a dropped slide before it does not shift it).
    @Test func slideAssetPathsAreTheInputPaths() throws {
        let cards = try resolve(Self.hostile)
        let assets = try #require(cards.first).assets
        let slide = try #require(assets.first { $0.role == .carouselSlide })
        #expect(slide.index == 0)
        #expect(slide.path == "request.notifications[0].data.carousel[1].image")
        let link = try #require(assets.first { $0.role == .slideLink })
        #expect(link.path == "request.notifications[0].data.carousel[1].url")
        let eager = AssetReference(role: slide.role, index: slide.index, fetchURL: slide.fetchURL, path: slide.path)
        #expect(eager == slide && eager.hashValue == slide.hashValue)
        var moved = slide
        moved.path = "elsewhere"
        #expect(moved.path == "elsewhere" && moved != slide)
    }

    @Test func feedRootPathIsJoinedWhenRead() throws {
        let message = Input.feed(params: ["displayType": 5, "u": "{not json"])
        let batch = try CampaignReader.read(bytes: Input.bytes(.array([message])), source: "c.json")
        let read = try #require(batch.messages.first)
        #expect(read.root?.path == "[0].action_params")
        #expect(read.findings.first { $0.code == "input.customDataInvalid" }?.path == "[0].action_params.u")
        let card = try #require(CardResolver().resolve(read).first)
        #expect(card.finding("card.wrongType")?.path == "[0].action_params.displayType")
    }
}

/// `ByteScan` finds newlines eight bytes at a time; it must agree with a byte loop at every alignment and with bytes
/// that differ from a newline by one bit or sit next to one.
@Suite struct ByteScanTests {
    static let buffers: [[UInt8]] = {
        var generator = SystemRandomNumberGenerator()
        var buffers: [[UInt8]] = [[], [0x0A], [0x0B, 0x0A, 0x09], Array(repeating: 0x0A, count: 17)]
        buffers.append((0..<300).map { UInt8(truncatingIfNeeded: $0) })
        buffers.append(
            (0..<257).map { _ in [0x0A, 0x0B, 0x8A, 0x09, 0x00, 0xFF, 0x2A][Int.random(in: 0..<7, using: &generator)] })
        return buffers
    }()

    @Test func agreesWithAByteLoop() {
        for bytes in Self.buffers {
            bytes.withUnsafeBufferPointer { buffer in
                for start in 0...min(buffer.count, 24) {
                    let tail = UnsafeBufferPointer(rebasing: buffer[start...])
                    #expect(ByteScan.count(of: 0x0A, in: tail) == tail.filter { $0 == 0x0A }.count)
                    let expected = buffer[start...].firstIndex(of: 0x0A) ?? buffer.count
                    #expect(ByteScan.firstIndex(of: 0x0A, in: buffer, from: start) == expected)
                }
            }
        }
    }

    @Test func blankAndWhitespaceLinesAreSkipped() throws {
        let ndjson =
            "\n  \t\n"
            + #"{"inbox_id":"a","order":1,"rt":4102444800,"action_type":0,"status":1,"title":"T","text":"B"}"#
            + "\n \r\n" + #"{"inbox_id":"b"}"# + "\n\n"
        let batch = try CampaignReader.read(bytes: Array(ndjson.utf8), source: "f")
        #expect(batch.messages.map(\.id) == ["f#[0]", "f#[1]"])
    }
}
