import Findings

/// How a piece of terminal text is emphasised.
enum Tone: Sendable {
    case plain, red, yellow, green, dim, bold
}

/// ANSI styling for terminal reports; a no-op when colour is off (not a TTY, or `NO_COLOR`).
public struct TextStyle: Sendable {
    public var color: Bool

    public init(color: Bool) { self.color = color }

    func apply(_ tone: Tone, _ text: String) -> String {
        guard let code = code(tone) else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    /// The SGR code of `tone`, or `nil` when the tone leaves text as it is (plain, or colour off).
    func code(_ tone: Tone) -> String? {
        guard color else { return nil }
        switch tone {
        case .plain: return nil
        case .red: return "31"
        case .yellow: return "33"
        case .green: return "32"
        case .dim: return "2"
        case .bold: return "1"
        }
    }

    func red(_ text: String) -> String { apply(.red, text) }
    func yellow(_ text: String) -> String { apply(.yellow, text) }
    func green(_ text: String) -> String { apply(.green, text) }
    func dim(_ text: String) -> String { apply(.dim, text) }
    func bold(_ text: String) -> String { apply(.bold, text) }
}

/// A plain-text table whose columns are as wide as their widest cell (cells are not truncated: ids are
/// what people grep for). Tones are applied after padding so escape codes do not skew the widths. Cells hold
/// campaign data (ids, languages, URLs): their control characters are escaped (``ControlCharacters``), so a cell
/// can neither rewrite the terminal nor break the table's lines.
///
/// Rendering writes bytes in one pass: a resolve report has a row per card (100,000 and more), and building
/// each line from padded `String` parts and joining them was a fifth of a whole run.
struct TextTable {
    var header: [String]
    /// Every row's cells, one after another; `rowEnds[i]` is where row `i` ends.
    private var cells: [String] = []
    private var cellWidths: [Int] = []
    private var cellTones: [Tone] = []
    private var rowEnds: [Int] = []
    private var widths: [Int]

    /// A table for about `rows` rows (reserving room up front saves growing the cell arrays many times).
    init(header: [String], rows: Int = 0) {
        self.header = header.map { ControlCharacters.escaped($0) }
        self.widths = self.header.map(Self.width)
        cells.reserveCapacity(rows * header.count)
        cellWidths.reserveCapacity(rows * header.count)
        cellTones.reserveCapacity(rows * header.count)
        rowEnds.reserveCapacity(rows)
    }

    mutating func append(_ row: [String], tones: [Tone]? = nil) {
        for (column, raw) in row.enumerated() {
            let cell = ControlCharacters.escaped(raw)
            let width = Self.width(cell)
            widths[column] = max(widths[column], width)
            cells.append(cell)
            cellWidths.append(width)
            cellTones.append(tones?[column] ?? .plain)
        }
        rowEnds.append(cells.count)
    }

    func render(_ style: TextStyle) -> String {
        var output: [UInt8] = []
        write(style, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the rendered table to `output`.
    func write(_ style: TextStyle, to output: inout [UInt8]) {
        var estimate = 0
        for width in widths { estimate += width + 2 }
        output.reserveCapacity(output.count + (rowEnds.count + 1) * (estimate + 16))
        let headerWidths = header.map(Self.width)
        let bold = Array(repeating: Tone.bold, count: header.count)
        header.withUnsafeBufferPointer { headerCells in
            headerWidths.withUnsafeBufferPointer { headerWidths in
                bold.withUnsafeBufferPointer { bold in
                    line(headerCells, headerWidths, bold, style, to: &output)
                }
            }
        }
        cells.withUnsafeBufferPointer { cells in
            cellWidths.withUnsafeBufferPointer { cellWidths in
                cellTones.withUnsafeBufferPointer { cellTones in
                    var start = 0
                    for end in rowEnds {
                        line(
                            UnsafeBufferPointer(rebasing: cells[start..<end]),
                            UnsafeBufferPointer(rebasing: cellWidths[start..<end]),
                            UnsafeBufferPointer(rebasing: cellTones[start..<end]), style, to: &output)
                        start = end
                    }
                }
            }
        }
    }

    /// One line: cells padded to their column's width (the last one not), joined by two spaces, trailing spaces
    /// trimmed.
    private func line(
        _ cells: UnsafeBufferPointer<String>, _ cellWidths: UnsafeBufferPointer<Int>,
        _ tones: UnsafeBufferPointer<Tone>, _ style: TextStyle, to output: inout [UInt8]
    ) {
        widths.withUnsafeBufferPointer { widths in
            Self.line(cells, cellWidths, tones, widths: widths, style, to: &output)
        }
    }

    /// One line of a table whose column widths are `widths` (a table written a row at a time).
    static func line(_ cells: [String], tones: [Tone], widths: [Int], _ style: TextStyle, to output: inout [UInt8]) {
        let cellWidths = cells.map(width)
        cells.withUnsafeBufferPointer { cells in
            cellWidths.withUnsafeBufferPointer { cellWidths in
                tones.withUnsafeBufferPointer { tones in
                    widths.withUnsafeBufferPointer { widths in
                        line(cells, cellWidths, tones, widths: widths, style, to: &output)
                    }
                }
            }
        }
    }

    private static func line(
        _ cells: UnsafeBufferPointer<String>, _ cellWidths: UnsafeBufferPointer<Int>,
        _ tones: UnsafeBufferPointer<Tone>, widths: UnsafeBufferPointer<Int>, _ style: TextStyle,
        to output: inout [UInt8]
    ) {
        let start = output.count
        for column in cells.indices {
            if column > 0 { output.append(contentsOf: Self.gap) }
            let padding = column == cells.count - 1 ? 0 : widths[column] - cellWidths[column]
            let code = style.code(tones[column])
            if let code {
                output.append(0x1B)
                output.append(UInt8(ascii: "["))
                output.append(contentsOf: code.utf8)
                output.append(UInt8(ascii: "m"))
            }
            output.append(contentsOf: cells[column].utf8)
            if padding > 0 { output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: padding)) }
            if code != nil { output.append(contentsOf: Self.reset) }
        }
        var end = output.count
        while end > start && output[end - 1] == UInt8(ascii: " ") { end -= 1 }
        if end < output.count && end > start && output[end - 1] >= 0x80 {
            // A space after some non-ASCII characters (e.g. U+0600, a prepended mark) is part of that character, and
            // trimming " " characters stops there: let String decide, as the report always did.
            var text = String(decoding: output[start...], as: UTF8.self)
            while text.hasSuffix(" ") { text.removeLast() }
            output.removeSubrange(start...)
            output.append(contentsOf: text.utf8)
        } else {
            output.removeSubrange(end...)
        }
        output.append(0x0A)
    }

    private static let gap: [UInt8] = [0x20, 0x20]
    private static let reset: [UInt8] = [0x1B, UInt8(ascii: "["), UInt8(ascii: "0"), UInt8(ascii: "m")]

    /// The width of a cell in characters: its byte count when it is ASCII without `\r` (the common case, no
    /// grapheme breaking needed), else its `Character` count.
    static func width(_ cell: String) -> Int {
        var ascii = true
        for byte in cell.utf8 where byte >= 0x80 || byte == 0x0D {
            ascii = false
            break
        }
        return ascii ? cell.utf8.count : cell.count
    }
}
