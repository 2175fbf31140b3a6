import Findings
import Foundation
import StrictJSON
import Testing

@testable import InboxCards

/// ``CardResolver/stream(_:readerOptions:observer:card:)`` holds no card, reads an NDJSON file a chunk at a time and
/// resolves the cards again each walk: every walk must give exactly the cards, findings and counts of
/// ``CardResolver/run(_:)`` on the same input read whole.
@Suite struct StreamedResolveTests {
    static let options = ResolveOptions(
        profiles: SDKProfile.allCases, platforms: Platform.allCases, androidProfiles: AndroidProfile.allCases,
        at: 1_750_000_000)

    /// A feed message; `title` may be per language (then the message has a card per language).
    static func feed(_ id: String, sent: Int, title: JSONValue = "Title", status: Int = 1, pinned: Bool = false)
        -> JSONValue
    {
        let params: JSONValue = ["displayType": "classic", "pinned": .bool(pinned)]
        return [
            "inbox_id": .string(id), "order": 1, "rt": 4_102_444_800, "title": title, "text": "Body",
            "send_date": .int(sent), "action_type": 0, "status": .int(status),
            "action_params": .string(params.serialized()),
        ]
    }

    /// NDJSON of `values`, one a line.
    static func ndjson(_ values: [JSONValue], newline: String = "\n") -> [UInt8] {
        Array(values.map { $0.serialized() }.joined(separator: newline).utf8) + Array(newline.utf8)
    }

    /// Inputs whose streamed resolve must equal the whole one: the project's campaigns, per-language messages (other
    /// feed positions), and NDJSON the chunked reader must cut right.
    static func cases() throws -> [Named<[UInt8]>] {
        var languages: [JSONValue] = []
        for index in 0..<40 {
            let perLanguage: JSONValue = [
                "en": .string("Sale \(index)"), "de": .string("Angebot \(index)"), "fr": "Solde",
            ]
            let sent: Int = 1_700_000_000 + (index * 7919) % 500
            languages.append(
                feed(
                    "m\(index)", sent: sent, title: index % 3 == 0 ? perLanguage : "Plain",
                    status: index % 4 == 0 ? 2 : 1, pinned: index % 5 == 0))
        }
        let long = feed("long", sent: 1_700_000_000, title: .string(String(repeating: "x", count: 3 << 20)))
        var bom = ndjson(Array(languages.prefix(3)))
        bom.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0)
        var broken = ndjson(Array(languages.prefix(6)))
        broken.insert(contentsOf: Array("{\"inbox_id\": \n\n[1, 2]\n   \n".utf8), at: broken.count / 2)
        return [
            Named("demo.json", try ReportWriterTests.fixture("demo.json")),
            Named("rules.ndjson", try ReportWriterTests.fixture("rules.ndjson")),
            Named("android-rules.ndjson", try ReportWriterTests.fixture("android-rules.ndjson")),
            Named("per-language array", Input.bytes(.array(languages))),
            Named("per-language NDJSON", ndjson(languages)),
            Named("CRLF, no newline at the end", Array(ndjson(languages, newline: "\r\n").dropLast(2))),
            Named("a line longer than the chunk", ndjson([languages[0], long, languages[1]])),
            Named("byte order mark", bom),
            Named("broken and blank lines between", broken),
            Named("first line blank (read whole)", Array("\n".utf8) + ndjson(languages)),
            Named("first line broken (read whole)", Array("{\"a\":\n".utf8) + ndjson(languages)),
            Named("one object over two lines", Array("{\"inbox_id\":\"x\",\n\"order\":1}\n".utf8)),
            Named("empty", []),
            Named("blank", Array("  \n\n".utf8)),
            Named("nothing recognised", Array("{\"a\":1}\n{\"b\":2}\n".utf8)),
        ]
    }

    /// Writes `bytes` to a new temporary file and opens it.
    static func file(_ bytes: [UInt8]) throws -> (path: String, file: CampaignFile) {
        let path = NSTemporaryDirectory() + "streamed-\(UUID().uuidString).ndjson"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, try CampaignFile(descriptor: open(path, O_RDONLY | O_CLOEXEC)))
    }

    /// The whole run, as ``CardResolver/run(_:)`` after the CLI's reading (unusable inputs as findings).
    static func whole(_ bytes: [UInt8], name: String) -> (run: ResolveRun, unusable: [InputError]) {
        do {
            var batch = try CampaignReader.read(bytes: bytes, source: name)
            var unusable: [InputError] = []
            if batch.messages.isEmpty {
                batch.findings.removeAll { $0.finding.code == CardFindingCode.noMessages }
                let first = batch.findings.firstIndex { $0.finding.severity == .error }
                let reason = first.map { batch.findings.remove(at: $0).finding.message }
                unusable.append(InputError(source: name, kind: .noMessages(reason: reason)))
            }
            var run = CardResolver(options: options).run(batch)
            run.inputFindings += unusable.map(\.finding)
            return (run, unusable)
        } catch {
            var run = CardResolver(options: options).run(ReadBatch())
            run.inputFindings.append(error.finding)
            return (run, [error])
        }
    }

    static func expectSame(_ streamed: StreamedResolve, _ whole: (run: ResolveRun, unusable: [InputError])) {
        var cards: [ResolvedCard] = []
        streamed.cards.forEach { cards.append($0) }
        #expect(streamed.cards.failure == nil)
        #expect(cards.count == whole.run.cards.count)
        #expect(streamed.cards.count == whole.run.cards.count)
        for (streamedCard, wholeCard) in zip(cards, whole.run.cards) where streamedCard != wholeCard {
            Issue.record("card \(wholeCard.id) \(wholeCard.platform) \(wholeCard.language ?? "-") differs")
            break
        }
        #expect(streamed.inputFindings == whole.run.inputFindings)
        #expect(streamed.messagesRead == whole.run.messagesRead)
        #expect(streamed.unusableInputs == whole.unusable)
        #expect(streamed.degraded == whole.run.degradedCount)
        #expect(streamed.maxSeverity == whole.run.maxSeverity)
        #expect(streamed.findingCount(.error) == whole.run.findingCount(.error))
        #expect(streamed.findingCount(.warning) == whole.run.findingCount(.warning))
    }

    @Test(arguments: try cases())
    func bytesStreamAsTheWholeRun(_ input: Named<[UInt8]>) {
        let streamed = CardResolver(options: Self.options).stream([CampaignInput(name: "in.ndjson", bytes: input.value)]
        )
        Self.expectSame(streamed, Self.whole(input.value, name: "in.ndjson"))
    }

    @Test(arguments: try cases())
    func filesStreamAsTheWholeRun(_ input: Named<[UInt8]>) throws {
        let (path, file) = try Self.file(input.value)
        defer { unlink(path) }
        let streamed = CardResolver(options: Self.options).stream([CampaignInput(name: "in.ndjson", file: file)])
        Self.expectSame(streamed, Self.whole(input.value, name: "in.ndjson"))
        // A second walk gives the same cards again.
        var first: [ResolvedCard] = []
        var second: [ResolvedCard] = []
        streamed.cards.forEach { first.append($0) }
        streamed.cards.forEach { second.append($0) }
        #expect(first == second)
    }

    /// `resolve`'s spool: the cards serialized as the first read resolves them and copied with their positions give
    /// the bytes of the whole run's report, JSON and NDJSON (a card longer than the copy's 1 MiB buffer included).
    @Test(arguments: try cases())
    func spooledReportsAreTheWholeRunsBytes(_ input: Named<[UInt8]>) throws {
        let whole = Self.whole(input.value, name: "in.ndjson").run
        for format in [CardSpool.Format.json, .ndjson] {
            let spool = try CardSpool(format: format)
            let streamed = CardResolver(options: Self.options).stream(
                [CampaignInput(name: "in.ndjson", bytes: input.value)], card: spool.add)
            var wholeRun = whole
            wholeRun.inputFindings = streamed.inputFindings
            var expected = JSONWriter(pretty: format == .json)
            var written = JSONWriter(pretty: format == .json)
            if format == .json {
                wholeRun.write(to: &expected)
            } else {
                wholeRun.writeLines(to: &expected)
            }
            #expect(spool.isComplete)
            try streamed.write(to: &written, spool: spool)
            #expect(written.bytes == expected.bytes, "\(input.name), \(format)")
            #expect(spool.count == whole.cards.count)
        }
    }

    /// A spool stops at its capacity as at a full `$TMPDIR` (the report then resolves the cards again): below it every
    /// card is kept, past it none is added and the spool says it is incomplete.
    @Test(arguments: [CardSpool.Format.json, .ndjson])
    func aSpoolStopsAtItsCapacity(_ format: CardSpool.Format) throws {
        let input = try #require(try Self.cases().first { $0.value.count > 1_000 }).value
        let roomy = try CardSpool(format: format, capacity: 1 << 30)
        let tight = try CardSpool(format: format, capacity: 512)
        _ = CardResolver(options: Self.options).stream(
            [CampaignInput(name: "in.ndjson", bytes: input)],
            card: { card in
                roomy.add(card)
                tight.add(card)
            })
        #expect(roomy.isComplete && roomy.count > 0)
        #expect(!tight.isComplete)
        var written = JSONWriter(pretty: format == .json)
        #expect(throws: CardSpool.Failure.self) {
            try CardResolver(options: Self.options).stream([CampaignInput(name: "in.ndjson", bytes: input)])
                .write(to: &written, spool: tight)
        }
        #expect(CardSpool.Failure(code: EFBIG).description.hasPrefix("cannot write the card spool in $TMPDIR"))
        #expect(
            CardSpool.Failure(code: EIO, positions: true).description.hasPrefix(
                "cannot read the feed positions back in $TMPDIR"))
    }

    /// Several inputs, one of them unusable: findings in the whole run's order, cards numbered across inputs.
    @Test func severalInputsKeepTheirOrder() throws {
        let inputs = try Self.cases()
        let a = inputs[0].value
        let b = inputs[4].value
        let (path, file) = try Self.file(b)
        defer { unlink(path) }
        let streamed = CardResolver(options: Self.options).stream([
            CampaignInput(name: "a.json", bytes: a), CampaignInput(name: "bad.json", bytes: Array("{".utf8)),
            CampaignInput(name: "b.ndjson", file: file),
        ])
        var batch = try CampaignReader.read(bytes: a, source: "a.json")
        batch.append(try CampaignReader.read(bytes: b, source: "b.ndjson"))
        var run = CardResolver(options: Self.options).run(batch)
        let bad: InputError
        do {
            _ = try CampaignReader.read(bytes: Array("{".utf8), source: "bad.json")
            Issue.record("an unfinished object read")
            return
        } catch {
            bad = error
        }
        run.inputFindings.append(bad.finding)
        Self.expectSame(streamed, (run, [bad]))
    }

    /// A file rewritten between the first read and a walk ends the walk with `input.unreadable`, never with cards
    /// of the new text under the old positions.
    @Test func aFileThatChangesEndsTheWalk() throws {
        let bytes = try Self.cases()[4].value
        let (path, file) = try Self.file(bytes)
        defer { unlink(path) }
        let streamed = CardResolver(options: Self.options).stream([CampaignInput(name: "in.ndjson", file: file)])
        #expect(streamed.cards.count > 0)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n".utf8))
        try handle.close()
        var walked = 0
        streamed.cards.forEach { _ in walked += 1 }
        #expect(walked == 0)
        let failure = try #require(streamed.cards.failure)
        #expect(failure.finding.finding.code == CardFindingCode.unreadable)
        #expect(failure.description.contains("changed while it was being checked"))
    }

    /// An NDJSON file many chunks long: every message handed on, none kept in the batch.
    @Test func aManyChunkFileStreamsEveryMessageAndKeepsNone() throws {
        let line = Self.feed("m", sent: 1_700_000_000).serialized()
        let bytes = Array(Array(repeating: line, count: 40_000).joined(separator: "\n").utf8)
        #expect(bytes.count > 4 * NDJSONFile.chunk)
        let (path, file) = try Self.file(bytes)
        defer { unlink(path) }
        var messages = 0
        let read = try CampaignReader.stream(CampaignInput(name: "big.ndjson", file: file)) { _ in messages += 1 }
        #expect(messages == 40_000)
        #expect(read.messages == 40_000)
        #expect(read.batch.messages.isEmpty)
    }
}
