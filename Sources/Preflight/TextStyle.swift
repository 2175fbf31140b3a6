/// How a piece of terminal text is emphasised.
enum Tone: Sendable {
    case plain, red, yellow, green, dim, bold
}

/// ANSI styling for terminal reports; a no-op when colour is off (not a TTY, or `NO_COLOR`).
public struct TextStyle: Sendable {
    public var color: Bool

    public init(color: Bool) { self.color = color }

    func apply(_ tone: Tone, _ text: String) -> String {
        let code: String
        switch tone {
        case .plain: return text
        case .red: code = "31"
        case .yellow: code = "33"
        case .green: code = "32"
        case .dim: code = "2"
        case .bold: code = "1"
        }
        return color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func red(_ text: String) -> String { apply(.red, text) }
    func yellow(_ text: String) -> String { apply(.yellow, text) }
    func green(_ text: String) -> String { apply(.green, text) }
    func dim(_ text: String) -> String { apply(.dim, text) }
    func bold(_ text: String) -> String { apply(.bold, text) }
}

/// A plain-text table whose columns are as wide as their widest cell (cells are not truncated: ids are
/// what people grep for). Tones are applied after padding so escape codes do not skew the widths.
struct TextTable {
    var header: [String]
    private var rows: [(cells: [String], tones: [Tone])] = []

    init(header: [String]) { self.header = header }

    mutating func append(_ cells: [String], tones: [Tone]? = nil) {
        rows.append((cells, tones ?? Array(repeating: .plain, count: cells.count)))
    }

    func render(_ style: TextStyle) -> String {
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
}
