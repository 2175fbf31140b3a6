import Testing

@testable import Preflight

/// The width-fitting card table (issue 18 item 6): ids shortened in the middle, columns giving way in order.
@Suite struct TextTableFitTests {
    @Test(arguments: [
        (
            "Fixtures/campaigns/demo.json#request.notifications[11]", 60, false,
            "Fixtures/campaigns/demo.json#request.notifications[11]"
        ),
        ("Fixtures/campaigns/demo.json#request.notifications[11]", 40, false, "demo.json#request.notifications[11]"),
        ("Fixtures/campaigns/demo.json#request.notifications[11]", 20, false, "demo.json#…[11]"),
        ("Fixtures/campaigns/demo.json#request.notifications[11]", 20, true, "demo.json#…[11]"),
        ("Fixtures/campaigns/demo.json#request.notifications[11]", 10, true, "…[11]"),
        ("Fixtures/campaigns/demo.json#request.notifications[11]", 10, false, "demo.…[11]"),
        ("feed.json#[3]", 8, false, "feed…[3]"),
        ("single.json", 8, false, "sing…son"),
        ("a.json#x", 1, false, "…"),
    ])
    func idsShortenInTheMiddle(id: String, width: Int, shared: Bool, expected: String) {
        let short = FittedTable.shortenID(id, to: width, sharedInput: shared)
        #expect(short == expected)
        #expect(short.count <= max(width, 1))
    }

    static func table() -> FittedTable {
        var table = FittedTable(
            header: ["ID", "TITLE", "STATUS", "REASON"], shortening: [.id, .end, nil, .end],
            steps: [
                .compactIDs(column: 0), .shrink(column: 1, to: 8), .drop(column: 1), .shrink(column: 3, to: 6),
            ])
        table.append(
            ["in/a.json#request.notifications[1]", "A long title here", "BROKEN", "hero image: HTTP 404"],
            tones: [.plain, .plain, .plain, .plain])
        table.append(
            ["in/a.json#request.notifications[2]", "Short", "ok", ""], tones: [.plain, .plain, .plain, .plain])
        return table
    }

    /// Natural widths 34, 17, 6, 20 plus three gaps of 2 (83): the ids go compact (`…[1]`, 4), the title shrinks as far
    /// as needed down to 8, then goes, then the reason shrinks.
    @Test(arguments: [
        (nil, [34, 17, 6, 20], [true, true, true, true]),
        (200, [34, 17, 6, 20], [true, true, true, true]),
        (60, [4, 17, 6, 20], [true, true, true, true]),
        (50, [4, 14, 6, 20], [true, true, true, true]),
        (40, [4, 8, 6, 20], [true, false, true, true]),
        (20, [4, 8, 6, 6], [true, false, true, true]),
    ])
    func columnsGiveWayInOrder(width: Int?, widths: [Int], kept: [Bool]) {
        let layout = Self.table().layout(width: width)
        #expect(layout.widths == widths)
        #expect(layout.kept == kept)
    }

    @Test(arguments: [40, 60, 80])
    func everyLineFits(width: Int) {
        let text = Self.table().render(TextStyle(color: false), width: width)
        for line in text.split(separator: "\n") { #expect(line.count <= width, "\(line)") }
    }
}
