import Findings
public import InboxCards
import MediaRules

/// What the cell will show wrongly although every fetch worked: images scaled far up or mostly cropped by the frame
/// their platform's cell draws them in (``CellGeometry``, judged with the asset's other platform rules), and
/// placeholders without a default (``PreviewFindingCode``). The HTML preview marks the same images on the card.
public enum PreviewChecks {
    /// Why the image will look wrong in its cell on `platform` (`too small`, `cropped`, at warning level), `nil` when
    /// it will not.
    public static func problem(
        width: Int?, height: Int?, role: AssetReference.Role, kind: CardKind, platform: Platform = .ios
    ) -> (code: String, message: String)? {
        guard let use = AssetRoles.imageUse(role, kind: kind) else { return nil }
        let findings = CellGeometry.judge(width: width, height: height, use: use, on: platform.rulePlatform)
        return findings.first { $0.severity >= .warning }.map { ($0.code, $0.message) }
    }

    /// The check with the text findings added: placeholders without a default in the title or body.
    public static func annotate(_ check: CardCheck) -> CardCheck {
        var check = check
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
        guard text.containsBytes("{{") else { return [] }
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
