import Findings
public import InboxCards

/// What the cell will show wrongly although every fetch worked: images scaled far up or mostly cropped by the frame
/// the cell draws them in, and placeholders without a default (``PreviewFindingCode``). The HTML preview marks the
/// same images on the card.
public enum PreviewChecks {
    /// The width in points a cell draws an image of `role` at on a 390 pt wide phone (a 16 pt margin each side),
    /// and the frame's width:height ratio; `nil` for roles drawn as small icons.
    public static func frame(_ role: AssetReference.Role, kind: CardKind) -> (points: Int, aspect: Double)? {
        switch role {
        case .heroImage:
            switch kind {
            case .banner: (358, 2)
            case .legacy: (358, 3)
            default: (358, 16.0 / 9)
            }
        case .carouselSlide: (300, 4.0 / 3)
        case .videoPoster: (358, 16.0 / 9)
        default: nil
        }
    }

    /// Pixels across a 3× screen draws per point.
    static let scale = 3

    /// Why the image will look wrong in its cell (`too small`, `cropped`), `nil` when it will not.
    public static func problem(
        width: Int?, height: Int?, role: AssetReference.Role, kind: CardKind
    ) -> (code: String, message: String)? {
        guard let width, let height, width > 0, height > 0, let frame = frame(role, kind: kind) else { return nil }
        let pixels = frame.points * scale
        if width * 4 < pixels {
            return (
                PreviewFindingCode.imageTooSmall,
                "\(width)×\(height) image drawn \(frame.points) pt wide (\(pixels) px at @3x): scaled up "
                    + "\(pixels / width)×, it looks blurred or blocky"
            )
        }
        let aspect = Double(width) / Double(height)
        if aspect > frame.aspect * 3 || aspect * 3 < frame.aspect {
            let shown = aspect > frame.aspect ? frame.aspect / aspect : aspect / frame.aspect
            return (
                PreviewFindingCode.imageCropped,
                "\(width)×\(height) image in a \(ratio(frame.aspect)) frame filled by cropping: "
                    + "\(Int((shown * 100).rounded()))% of it shows"
            )
        }
        return nil
    }

    /// The check with these findings added to its images and its text.
    public static func annotate(_ check: CardCheck) -> CardCheck {
        var check = check
        let kind = check.card.resolved
        for index in check.assets.indices where check.assets[index].status == .ok {
            let asset = check.assets[index]
            if let (code, message) = problem(width: asset.width, height: asset.height, role: asset.role, kind: kind) {
                check.assets[index].findings.append(.warning(code, message))
            }
        }
        for (field, text) in [("title", check.card.title), ("body", check.card.body)] {
            let missing = Placeholders.withoutDefault(text ?? "")
            guard !missing.isEmpty else { continue }
            let names = missing.map { "{{\($0)}}" }.joined(separator: ", ")
            check.checkFindings.append(
                .warning(
                    PreviewFindingCode.placeholderNoDefault,
                    Redaction.redactText(
                        "the \(field) has \(names) without a default (|default:'…'): a user without that tag sees "
                            + "nothing there")))
        }
        return check
    }

    static func ratio(_ aspect: Double) -> String {
        aspect == 16.0 / 9 ? "16:9" : aspect == 4.0 / 3 ? "4:3" : "\(Int(aspect)):1"
    }
}

/// Pushwoosh dynamic content placeholders in titles and bodies: `{{name}}`, `{{name|default:'text'}}` (also with
/// double quotes). The device shows the user's tag value, else the default.
public enum Placeholders {
    /// One placeholder of `text`.
    public struct Match: Sendable, Hashable {
        public var range: Range<String.Index>
        public var name: String
        public var defaultValue: String?
    }

    /// Every placeholder in `text`, in order: each `}}` closes the innermost `{{` before it (`{{ {{x}}` is the
    /// placeholder `x` after a stray `{{ `).
    public static func matches(_ text: String) -> [Match] {
        var found: [Match] = []
        var open: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            guard next < text.endIndex, text[index] == text[next], text[index] == "{" || text[index] == "}" else {
                index = next
                continue
            }
            let after = text.index(after: next)
            if text[index] == "{" {
                open = index
            } else if let start = open {
                if let match = parse(text[text.index(start, offsetBy: 2)..<index], range: start..<after) {
                    found.append(match)
                }
                open = nil
            }
            index = after
        }
        return found
    }

    /// `name` or `name|default:'text'` (also `"text"`), spaces around the parts allowed.
    private static func parse(_ inner: Substring, range: Range<String.Index>) -> Match? {
        let parts = inner.split(separator: "|", maxSplits: 1)
        let name = parts.first.map { $0.trimmingCharacters(in: " ") } ?? ""
        guard !name.isEmpty, !name.contains("{"), !name.contains("}") else { return nil }
        var defaultValue: String?
        if parts.count == 2 {
            let filter = parts[1].trimmingCharacters(in: " ")
            if filter.hasPrefix("default:") {
                var value = Substring(filter.dropFirst("default:".count)).trimmingCharacters(in: " ")
                if value.count >= 2, let first = value.first, first == "'" || first == "\"", value.last == first {
                    value = String(value.dropFirst().dropLast())
                }
                defaultValue = value
            }
        }
        return Match(range: range, name: name, defaultValue: defaultValue)
    }

    /// The names of the placeholders in `text` that have no default.
    public static func withoutDefault(_ text: String) -> [String] {
        guard text.contains("{{") else { return [] }
        return matches(text).filter { $0.defaultValue == nil }.map(\.name)
    }
}

extension StringProtocol {
    /// The text without leading and trailing `character`s.
    fileprivate func trimmingCharacters(in character: Character) -> String {
        guard let start = firstIndex(where: { $0 != character }), let end = lastIndex(where: { $0 != character }) else {
            return ""
        }
        return String(self[start...end])
    }
}
