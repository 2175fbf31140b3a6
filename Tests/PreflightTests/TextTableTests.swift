import Findings
import InboxCards
import Testing

@testable import Preflight

/// `TextTable` renders in one pass into bytes; these tables must come out as the `String`-built rendering that
/// the reports were pinned with (kept here as the reference), including the cases where characters are not bytes.
@Suite struct TextTableTests {
    /// The rendering before the byte writer: pad with `count`, join, trim trailing " " characters; cells (and the
    /// header) with their control characters escaped, as the table has them since issue 17.
    static func reference(header: [String], rows: [(cells: [String], tones: [Tone])], style: TextStyle) -> String {
        let header = header.map { ControlCharacters.escaped($0) }
        let rows = rows.map { (cells: $0.cells.map { ControlCharacters.escaped($0) }, tones: $0.tones) }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.cells.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String], _ tones: [Tone]) -> String {
            var parts: [String] = []
            for (column, cell) in cells.enumerated() {
                let padding = column == cells.count - 1 ? 0 : widths[column] - cell.count
                parts.append(style.apply(tones[column], cell + String(repeating: " ", count: padding)))
            }
            var text = parts.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text + "\n"
        }
        var text = line(header, Array(repeating: .bold, count: header.count))
        for row in rows { text += line(row.cells, row.tones) }
        return text
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let rows: [[String]]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "ASCII",
            rows: [["a#[0]", "7.2", "ios", "-", "banner → banner", ""], ["long-id", "", "", "", "", "x"]]),
        Case(name: "empty trailing cells", rows: [["x", "", "", "", "", ""], ["", "", "", "", "", ""]]),
        Case(name: "multi-byte characters", rows: [["日本語", "é", "😀😀", "👩‍👩‍👧", "e\u{301}", "ü"]]),
        Case(
            name: "a prepended mark before padding",
            rows: [["a\u{600}", "b\u{600}", "", "", "", ""], ["abcdef", "", "", "", "", ""]]),
        Case(name: "CRLF is escaped, and counted as escaped", rows: [["a\r\nb", "\r\n", "x", "", "", ""]]),
        Case(name: "escape sequences are escaped", rows: [["\u{1B}[2J", "\u{9B}1m", "\t", "\u{0}", "", "x"]]),
        Case(
            name: "trailing spaces in the last cell",
            rows: [["a", "b", "c", "d", "e", "f   "], ["a", "", "", "", "", " "]]),
        Case(name: "short rows", rows: [["only"], ["two", "cells"]]),
        Case(
            name: "wider than the header",
            rows: [[String(repeating: "w", count: 90), "7.0", "android", "pt-BR", "carousel → classic", "no slides"]]),
    ]

    static let header = ["CARD", "SDK", "PLATFORM", "LANG", "REQUESTED → RESOLVED", "REASON"]

    @Test(arguments: cases, [false, true])
    func rendersAsTheStringReference(_ row: Case, color: Bool) {
        let style = TextStyle(color: color)
        let tones: [[Tone]] = row.rows.enumerated().map { index, cells in
            cells.indices.map { column in index % 2 == 1 && column >= 4 ? .yellow : column == 0 ? .dim : .plain }
        }
        var table = TextTable(header: Self.header, rows: row.rows.count)
        for (cells, tones) in zip(row.rows, tones) { table.append(cells, tones: tones) }
        let expected = Self.reference(header: Self.header, rows: Array(zip(row.rows, tones)), style: style)
        #expect(table.render(style) == expected)
    }

    /// The CLI writes the report's bytes; `render` is the same text as a `String`.
    @Test func resolveReportBytesAreTheRenderedText() throws {
        let campaign = """
            {"request": {"notifications": [
              {"content": "b", "ios_title": {"en": "E", "de": "D"}, "inbox_days": 2, "data": {"displayType": "banner"}},
              {"content": "ok", "inbox_days": 2, "inbox_image": "https://cdn.example.com/a.png"},
              {"content": 5}
            ]}}
            """
        let run = ResolveJob(options: ResolveOptions(profiles: SDKProfile.allCases, platforms: Platform.allCases))
            .run([("c.json", Array(campaign.utf8))]).run
        for color in [false, true] {
            var bytes: [UInt8] = []
            ResolveTextReport.write(run, style: TextStyle(color: color), to: &bytes)
            #expect(
                String(decoding: bytes, as: UTF8.self) == ResolveTextReport.render(run, style: TextStyle(color: color)))
            #expect(bytes.count > 100)
        }
    }
}
