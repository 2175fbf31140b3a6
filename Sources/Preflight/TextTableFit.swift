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
    /// What the rows measure: what the layout needs, kept as the rows are added.
    private(set) var measure: Measure

    /// - Parameters:
    ///   - header: the column names.
    ///   - shortening: per column, how its cells are shortened (`nil`: never, the column keeps its width).
    ///   - steps: how the columns give way, in order.
    init(header: [String], shortening: [Shortening?], steps: [Step]) {
        self.header = header
        self.shortening = shortening
        self.steps = steps
        measure = Measure(header: header, shortening: shortening)
    }

    mutating func append(_ cells: [String], tones: [Tone]) {
        let escaped = cells.map { ControlCharacters.escaped($0) }
        measure.add(escaped)
        rows.append((escaped, tones))
    }

    /// What a table's layout needs of its rows, added one at a time without keeping them (a report of millions of
    /// cards lays out its table in one walk and writes the rows in a second): each column's widest cell, whether an
    /// id column's ids all name one input, and the distinct widths of the ids' shorter forms.
    struct Measure {
        /// The forms of an id, by width: whole, without its directory, without its JSON path but the last element,
        /// without its input (-1: the id has no such form).
        struct IDWidths: Hashable {
            var whole: Int
            var base: Int
            var compact: Int
            var shared: Int
        }

        let header: [String]
        let shortening: [Shortening?]
        /// Per column, the widest cell (or the header).
        var widths: [Int]
        /// Per id column, the input part all its ids share so far (`nil`: none yet, or not all the same).
        var inputs: [Int: String] = [:]
        var mixedInputs: Set<Int> = []
        var idWidths: [Int: Set<IDWidths>] = [:]
        var rows = 0

        init(header: [String], shortening: [Shortening?]) {
            self.header = header
            self.shortening = shortening
            widths = header.map(TextTable.width)
        }

        /// Counts a row of escaped cells.
        mutating func add(_ cells: [String]) {
            rows += 1
            for (column, cell) in cells.enumerated() {
                widths[column] = max(widths[column], TextTable.width(cell))
                guard shortening[column] == .id else { continue }
                let input = FittedTable.inputPart(cell)
                if rows == 1 {
                    inputs[column] = String(input)
                } else if let first = inputs[column], first != input {
                    inputs[column] = nil
                    mixedInputs.insert(column)
                }
                let forms = FittedTable.idForms(cell, sharedInput: true)
                let width = TextTable.width
                idWidths[column, default: []].insert(
                    IDWidths(
                        whole: width(cell), base: width(forms[0]), compact: forms.count > 1 ? width(forms[1]) : -1,
                        shared: forms.count > 2 ? width(forms[2]) : -1))
            }
        }

        /// Whether every id in `column` names the same input file (`demo.json#…`).
        func sharesInput(_ column: Int) -> Bool { rows > 0 && !mixedInputs.contains(column) }

        /// The widest compact id of `column` (``FittedTable/compactID(_:sharedInput:)``).
        func compactWidth(_ column: Int) -> Int {
            let shared = sharesInput(column)
            return (idWidths[column] ?? []).reduce(TextTable.width(header[column])) { widest, forms in
                max(
                    widest, shared && forms.shared >= 0 ? forms.shared : forms.compact >= 0 ? forms.compact : forms.base
                )
            }
        }

        /// The width of `column` once its cells are shortened to `width` (``FittedTable/shorten(_:to:_:sharedInput:)``).
        func shortenedWidth(_ column: Int, to width: Int) -> Int {
            let headerWidth = TextTable.width(header[column])
            guard shortening[column] == .id else {
                return max(headerWidth, widths[column] <= width ? widths[column] : max(1, width))
            }
            let shared = sharesInput(column)
            return (idWidths[column] ?? []).reduce(headerWidth) { widest, forms in
                let fits = [forms.whole, forms.base, forms.compact, shared ? forms.shared : -1].first {
                    $0 >= 0 && $0 <= width
                }
                return max(widest, fits ?? max(1, width))
            }
        }
    }

    /// The column widths and the columns kept for a line of at most `width` characters (`nil`: no limit).
    func layout(width: Int?) -> (widths: [Int], kept: [Bool]) { Self.layout(measure, steps: steps, width: width) }

    static func layout(_ measure: Measure, steps: [Step], width: Int?) -> (widths: [Int], kept: [Bool]) {
        var widths = measure.widths
        let header = measure.header
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
                widths[column] = min(widths[column], measure.compactWidth(column))
            case .drop(let column):
                kept[column] = false
            }
        }
        return (widths, kept)
    }

    /// How a measured table is drawn: the columns kept, what their cells are shortened to, the widths the drawn
    /// cells take, and whether an id column's ids all name one input.
    struct Fitted {
        let header: [String]
        let shortening: [Shortening?]
        let columns: [Int]
        let limits: [Int]
        let widths: [Int]
        let shared: [Bool]

        init(_ measure: Measure, steps: [Step], width: Int?) {
            let (limits, kept) = FittedTable.layout(measure, steps: steps, width: width)
            header = measure.header
            shortening = measure.shortening
            columns = header.indices.filter { kept[$0] }
            self.limits = limits
            shared = header.indices.map { measure.shortening[$0] == .id && measure.sharesInput($0) }
            // The drawn width: what the shortened cells (escaped again, as a table escapes its cells) take.
            widths = columns.map { measure.shortenedWidth($0, to: limits[$0]) }
        }

        /// The header line.
        func writeHeader(_ style: TextStyle, to output: inout [UInt8]) {
            TextTable.line(
                columns.map { ControlCharacters.escaped(header[$0]) }, tones: columns.map { _ in .bold },
                widths: widths, style, to: &output)
        }

        /// One row's line; `escaped` are its cells escaped as ``FittedTable/append(_:tones:)`` escapes them.
        func write(escaped: [String], tones: [Tone], _ style: TextStyle, to output: inout [UInt8]) {
            let drawn = columns.map { column in
                ControlCharacters.escaped(
                    FittedTable.shorten(
                        escaped[column], to: limits[column], shortening[column] ?? .end, sharedInput: shared[column]))
            }
            TextTable.line(drawn, tones: columns.map { tones[$0] }, widths: widths, style, to: &output)
        }
    }

    /// The table, fitted to `width` columns when one is given.
    func render(_ style: TextStyle, width: Int?) -> String {
        let fitted = Fitted(measure, steps: steps, width: width)
        var output: [UInt8] = []
        fitted.writeHeader(style, to: &output)
        for row in rows { fitted.write(escaped: row.cells, tones: row.tones, style, to: &output) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether every id in `column` names the same input file (`demo.json#…`): then the compact ids leave it out.
    func sharesInput(_ column: Int) -> Bool { measure.sharesInput(column) }

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
    static func idForms(_ id: String, sharedInput: Bool) -> [String] {
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
