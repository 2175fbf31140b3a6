import Findings

/// A table that fits a terminal's width: columns give way in a fixed order (shortened, or left out) until the
/// lines fit, instead of wrapping. Without a width (output piped to a file) every cell is printed whole.
///
/// Cells are shortened with `…`: ids in the middle (``shortenID(_:to:)``: the file's directory and the JSON path
/// go first, `demo.json#…[11]`, so the message's index stays), other text at the end.
struct FittedTable {
    /// How a column's cells are shortened.
    enum Shortening: Sendable {
        /// At the end: `Weekend look…`.
        case end
        /// In the middle, as a card id: `demo.json#…[11]`.
        case id
    }

    /// One step of giving way, tried in order until the table fits.
    enum Step: Sendable {
        /// The column shrinks, as far as needed, down to at most this many characters.
        case shrink(column: Int, to: Int)
        /// An id column shrinks to its ids' compact forms (`demo.json#…[11]`, ``shortenID(_:to:)``), when they are
        /// narrower.
        case compactIDs(column: Int)
        /// The column is left out.
        case drop(column: Int)
    }

    let header: [String]
    let shortening: [Shortening?]
    let steps: [Step]
    private var rows: [(cells: [String], tones: [Tone])] = []

    /// - Parameters:
    ///   - header: the column names.
    ///   - shortening: per column, how its cells are shortened (`nil`: never, the column keeps its width).
    ///   - steps: how the columns give way, in order.
    init(header: [String], shortening: [Shortening?], steps: [Step]) {
        self.header = header
        self.shortening = shortening
        self.steps = steps
    }

    mutating func append(_ cells: [String], tones: [Tone]) {
        rows.append((cells.map { ControlCharacters.escaped($0) }, tones))
    }

    /// The column widths and the columns kept for a line of at most `width` characters (`nil`: no limit).
    func layout(width: Int?) -> (widths: [Int], kept: [Bool]) {
        var widths = header.map(TextTable.width)
        for row in rows {
            for (column, cell) in row.cells.enumerated() { widths[column] = max(widths[column], TextTable.width(cell)) }
        }
        var kept = Array(repeating: true, count: header.count)
        guard let width else { return (widths, kept) }
        func total() -> Int {
            let columns = widths.indices.filter { kept[$0] }
            return columns.reduce(0) { $0 + widths[$1] } + 2 * max(0, columns.count - 1)
        }
        for step in steps {
            let excess = total() - width
            guard excess > 0 else { break }
            switch step {
            case .shrink(let column, let target):
                let floor = max(target, TextTable.width(header[column]), 1)
                if widths[column] > floor { widths[column] = max(floor, widths[column] - excess) }
            case .compactIDs(let column):
                let shared = sharesInput(column)
                let compact = rows.reduce(TextTable.width(header[column])) {
                    max($0, TextTable.width(Self.compactID($1.cells[column], sharedInput: shared)))
                }
                widths[column] = min(widths[column], compact)
            case .drop(let column):
                kept[column] = false
            }
        }
        return (widths, kept)
    }

    /// The table, fitted to `width` columns when one is given.
    func render(_ style: TextStyle, width: Int?) -> String {
        let (widths, kept) = layout(width: width)
        let columns = header.indices.filter { kept[$0] }
        var table = TextTable(header: columns.map { header[$0] }, rows: rows.count)
        let shared = header.indices.map { shortening[$0] == .id && sharesInput($0) }
        for row in rows {
            let cells = columns.map { column in
                Self.shorten(
                    row.cells[column], to: widths[column], shortening[column] ?? .end, sharedInput: shared[column])
            }
            table.append(cells, tones: columns.map { row.tones[$0] })
        }
        return table.render(style)
    }

    /// Whether every id in `column` names the same input file (`demo.json#…`): then the compact ids leave it out.
    func sharesInput(_ column: Int) -> Bool {
        guard let first = rows.first.map({ Self.inputPart($0.cells[column]) }) else { return false }
        return rows.allSatisfy { Self.inputPart($0.cells[column]) == first }
    }

    static func inputPart(_ id: String) -> Substring { id[..<(id.firstIndex(of: "#") ?? id.endIndex)] }

    static func shorten(_ cell: String, to width: Int, _ shortening: Shortening, sharedInput: Bool = false) -> String {
        guard TextTable.width(cell) > width else { return cell }
        switch shortening {
        case .end: return String(cell.prefix(max(0, width - 1))) + "…"
        case .id: return shortenID(cell, to: width, sharedInput: sharedInput)
        }
    }

    /// A card id at most `width` characters wide, shortened in the middle: first the input's directory goes
    /// (`Fixtures/campaigns/demo.json#request.notifications[11]` → `demo.json#request.notifications[11]`), then
    /// the JSON path up to its last element (`demo.json#…[11]`), then characters from the middle of what is left
    /// (`de…n#…[11]`). When every card of the table comes from one input (`sharedInput`), the last form leaves
    /// the input out too (`…[11]`). The findings section names every card by its full id.
    static func shortenID(_ id: String, to width: Int, sharedInput: Bool = false) -> String {
        guard TextTable.width(id) > width else { return id }
        let candidates = idForms(id, sharedInput: sharedInput)
        for candidate in candidates where TextTable.width(candidate) <= width { return candidate }
        let shortest = Array(candidates.last ?? id)
        guard width > 1 else { return "…" }
        let tail = (width - 1) / 2
        let head = width - 1 - tail
        return String(shortest.prefix(head)) + "…" + String(shortest.suffix(tail))
    }

    /// The shortest form of `id` that drops only whole parts (`demo.json#…[11]`, or `…[11]` for a shared input).
    static func compactID(_ id: String, sharedInput: Bool = false) -> String {
        idForms(id, sharedInput: sharedInput).last ?? id
    }

    /// `id` without its directory, then also without its JSON path up to the last element, then (for a shared
    /// input) without the input.
    private static func idForms(_ id: String, sharedInput: Bool) -> [String] {
        var candidates: [String] = []
        let hash = id.firstIndex(of: "#") ?? id.endIndex
        let file = id[..<hash]
        let fragment = id[hash...]
        let base = file.lastIndex(of: "/").map { file[file.index(after: $0)...] } ?? file
        candidates.append(String(base + fragment))
        if let bracket = fragment.lastIndex(of: "["), bracket > fragment.index(after: fragment.startIndex) {
            candidates.append(String(base) + "#…" + fragment[bracket...])
            if sharedInput { candidates.append("…" + fragment[bracket...]) }
        }
        return candidates
    }
}
