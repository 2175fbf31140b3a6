import Foundation
import InboxCards
import StrictJSON
import Testing
import WalletPass

@testable import Preflight

/// `check --format json|ndjson` writes each card as it is checked and judged (``CheckReportStream``): the bytes are
/// those of the whole report judged at once, under severity overrides, ignore rules and a baseline alike.
@Suite(.serialized)
struct CheckReportStreamTests {
    /// The demo campaign checked for both platforms, `copies` times under as many names (each a JUnit suite), or
    /// all under its own name (`alike`: two messages then share each card id, as in `check demo.json demo.json`).
    static func prepared(copies: Int = 1, alike: Bool = false) async throws -> PreparedCheck {
        var resolve = ResolveOptions()
        resolve.platforms = [.ios, .android]
        return try await RenderFixtures.withDemoPipeline(CheckOptions(resolve: resolve)) { pipeline, inputs in
            await pipeline.prepare(
                inputs
                    + (1..<copies).map { (name: alike ? inputs[0].name : "again-\($0).json", bytes: inputs[0].bytes) })
        }
    }

    /// Verdicts that change what is written: none; a severity override, an ignore rule and a baseline that knows
    /// one finding and has one entry no finding matches.
    static func verdicts(_ prepared: PreparedCheck) -> [Verdict] {
        var whole = prepared.report()
        Verdict(policy: .error).apply(to: &whole)
        let known = whole.findingEntries.first
        let baseline = Baseline(
            entries: (known.map { [$0] } ?? []) + [
                Baseline.Entry(fingerprint: "00000000000000aa", code: "asset.httpStatus", hint: "fixed since")
            ])
        return [
            Verdict(policy: .error),
            Verdict(
                policy: .warning,
                rules: FindingRules(
                    ignore: [IgnoreRule(code: "card.degraded", reason: "accepted")],
                    severity: ["asset.httpStatus": .warning, "image.tooLarge": .error]),
                baseline: baseline),
        ]
    }

    @Test(arguments: [false, true]) func theStreamWritesTheJudgedReportsBytes(lines: Bool) async throws {
        var prepared = try await Self.prepared()
        prepared.inputFindings.append(
            SourcedFinding(source: "extra.json", finding: .error("input.unreadable", "added by the caller")))
        #expect(prepared.cards.count > 10)
        for verdict in Self.verdicts(prepared) {
            var report = prepared.report()
            verdict.apply(to: &report)
            var whole = JSONWriter(pretty: !lines)
            if lines { report.writeLines(to: &whole) } else { report.write(to: &whole) }

            var streamed = JSONWriter(pretty: !lines)
            let result = CheckReportStream.write(
                prepared, verdict: verdict, keepingBaselineEntries: true, lines: lines, to: &streamed)
            #expect(streamed.bytes == whole.bytes, "verdict at \(verdict.policy)")
            #expect(result.summary == report.summary)
            #expect(result.summary.broken > 0 && result.summary.errors > 0)
            #expect(Baseline(entries: result.baselineEntries ?? []) == Baseline.of(report))
            if verdict.baseline != nil { #expect(report.summary.known == 1 && report.baselineFixed?.count == 1) }
        }
    }

    @Test func noBaselineEntriesAreKeptUnlessAsked() async throws {
        let prepared = try await Self.prepared()
        var writer = JSONWriter()
        let result = CheckReportStream.write(prepared, verdict: Verdict(policy: .error), lines: true, to: &writer)
        #expect(result.baselineEntries == nil && result.summary.cards == prepared.cards.count)
        let lines = String(decoding: writer.bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix(#"{"type":"card""#) }.count == prepared.cards.count)
        #expect(lines.last?.hasPrefix(#"{"type":"summary""#) == true)
    }

    /// `check --format junit` counts the suites in a first walk and writes each testcase as it is judged: the
    /// text of the whole report rendered at once, with two input files, an input finding and a pass suite.
    @Test func theJUnitStreamWritesTheJudgedReportsText() async throws {
        var prepared = try await Self.prepared(copies: 2)
        prepared.inputFindings.append(
            SourcedFinding(source: "extra.json", finding: .error("input.unreadable", "added by the caller")))
        for verdict in Self.verdicts(prepared) {
            var report = prepared.report()
            verdict.apply(to: &report)
            var pieces: [String] = []
            let result = JUnitReport.write(prepared, verdict: verdict, keepingBaselineEntries: true) {
                pieces.append($0)
            }
            let streamed = pieces.joined()
            #expect(streamed == JUnitReport.render(report), "verdict at \(verdict.policy)")
            #expect(streamed.contains(#"<testsuite name="again-1.json""#) && streamed.contains(#"name="passes""#))
            #expect(result.summary == report.summary)
            #expect(Baseline(entries: result.baselineEntries ?? []) == Baseline.of(report))
        }
    }

    /// `check --format markdown` walks the cards once, keeping only the rows and lines it shows: the text of the
    /// whole report rendered at once, with the row and finding caps not reached (one copy of the demo) and
    /// reached (eight).
    @Test(arguments: [1, 8]) func theMarkdownWalkWritesTheJudgedReportsText(copies: Int) async throws {
        let prepared = try await Self.prepared(copies: copies)
        for verdict in Self.verdicts(prepared) {
            var report = prepared.report()
            verdict.apply(to: &report)
            let page = MarkdownReport.render(prepared, verdict: verdict, keepingBaselineEntries: true)
            #expect(page.text == MarkdownReport.render(report), "verdict at \(verdict.policy)")
            #expect(page.text.contains("more cards.") == (copies > 1))
            #expect(page.text.contains("more findings.") == (copies > 1))
            #expect(page.result.summary == report.summary)
            #expect(Baseline(entries: page.result.baselineEntries ?? []) == Baseline.of(report))
        }
    }

    /// `check --format sarif` walks the cards once, holding one result per distinct finding: the bytes of the
    /// whole report rendered at once, valid against the SARIF 2.1.0 schema.
    @Test func theSarifWalkWritesTheJudgedReportsBytes() async throws {
        let prepared = try await Self.prepared(copies: 2)
        for verdict in Self.verdicts(prepared) {
            var report = prepared.report()
            verdict.apply(to: &report)
            var writer = JSONWriter(pretty: true)
            let result = SarifReport.write(
                prepared, verdict: verdict, keepingBaselineEntries: true, version: "1.0", to: &writer)
            writer.raw("\n")
            let streamed = String(decoding: writer.bytes, as: UTF8.self)
            #expect(streamed == SarifReport.render(report, version: "1.0"), "verdict at \(verdict.policy)")
            let errors = try await CISchemaTests.validate(
                RenderSarifTests.script, schema: "\(CISchemaTests.schemas)/sarif-schema-2.1.0.json",
                document: streamed, suffix: ".sarif")
            #expect(errors == "")
            #expect(result.summary == report.summary)
            #expect(Baseline(entries: result.baselineEntries ?? []) == Baseline.of(report))
        }
    }

    /// `check`'s text report walks the cards three times (the table's widths, its rows, the findings), keeping only
    /// what the layout needs: the text of the whole report rendered at once, printed whole and fitted to narrow
    /// terminals, with one input and with two.
    @Test(arguments: [1, 2]) func theTextWalksWriteTheJudgedReportsText(copies: Int) async throws {
        let prepared = try await Self.prepared(copies: copies)
        for verdict in Self.verdicts(prepared) {
            var report = prepared.report()
            verdict.apply(to: &report)
            for width in [nil, 60, 100, 140] as [Int?] {
                let style = TextStyle(color: width == 100)
                var bytes: [UInt8] = []
                let result = CheckTextReport.write(
                    prepared, verdict: verdict, keepingBaselineEntries: true, style: style, width: width
                ) { bytes += $0 }
                let streamed = String(decoding: bytes, as: UTF8.self)
                #expect(streamed == CheckTextReport.render(report, style: style, width: width), "width \(width ?? 0)")
                #expect(result.summary == report.summary)
                #expect(Baseline(entries: result.baselineEntries ?? []) == Baseline.of(report))
            }
        }
    }

    /// Two inputs of one name give two messages each card id: the walks that keep a message's fingerprints only
    /// while its cards go by (text, Markdown) and SARIF's per-message results keep them all instead, and write what
    /// the whole report renders.
    @Test func inputsOfOneNameWriteTheJudgedReportsText() async throws {
        let prepared = try await Self.prepared(copies: 2, alike: true)
        let single = try await Self.prepared()
        #expect(prepared.inputsNamedAlike && !single.inputsNamedAlike)
        let verdict = Verdict(policy: .warning)
        var report = prepared.report()
        verdict.apply(to: &report)
        func text(_ prepared: PreparedCheck) -> String {
            var bytes: [UInt8] = []
            _ = CheckTextReport.write(prepared, verdict: verdict, style: TextStyle(color: false)) { bytes += $0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        /// The cards' own finding lines (four spaces, then the severity) of the Findings section: each fingerprint
        /// is printed once.
        func findingLines(_ text: String) -> Int {
            guard let start = text.range(of: "\nFindings\n") else { return 0 }
            let section = text[start.upperBound...]
            let end = section.range(of: "\n\n")?.lowerBound ?? section.endIndex
            return section[..<end].split(separator: "\n").count { line in
                ["    error ", "    warning ", "    info "].contains { line.hasPrefix($0) }
            }
        }
        let twice = text(prepared)
        #expect(twice == CheckTextReport.render(report, style: TextStyle(color: false)))
        #expect(findingLines(twice) == findingLines(text(single)), "the second copy's findings print as repeated")
        #expect(findingLines(twice) > 0)
        let page = MarkdownReport.render(prepared, verdict: verdict).text
        #expect(page == MarkdownReport.render(report))
        /// `N findings (once per message)`: the same messages, the same distinct findings.
        func counted(_ page: String) -> Substring? {
            page.split(separator: "\n").first { $0.contains("(once per message)") }
        }
        #expect(counted(page) != nil)
        #expect(counted(page) == counted(MarkdownReport.render(single, verdict: verdict).text))
        var writer = JSONWriter(pretty: true)
        _ = SarifReport.write(prepared, verdict: verdict, version: "1.0", to: &writer)
        writer.raw("\n")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == SarifReport.render(report, version: "1.0"))
    }
}
