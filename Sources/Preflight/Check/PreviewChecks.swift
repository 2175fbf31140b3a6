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

    /// Every placeholder in `text`, in order.
    public static func matches(_ text: String) -> [Match] {
        var found: [Match] = []
        var cursor = text.startIndex
        // The innermost `{{` before each `}}`: `{{ {{x}}` is the placeholder `x` after a stray `{{ `.
        while let first = text[cursor...].range(of: "{{"), let close = text[first.upperBound...].range(of: "}}"),
            let open = text[first.lowerBound..<close.lowerBound].range(of: "{{", options: .backwards)
        {
            let inner = text[open.upperBound..<close.lowerBound]
            let parts = inner.split(separator: "|", maxSplits: 1)
            let name = parts.first.map { $0.trimmingCharacters(in: " ") } ?? ""
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
            if !name.isEmpty && !name.contains("{") {
                found.append(Match(range: open.lowerBound..<close.upperBound, name: name, defaultValue: defaultValue))
            }
            cursor = close.upperBound
        }
        return found
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
