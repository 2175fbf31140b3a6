public import Findings
import Foundation

/// `--write-baseline FILE` / `--baseline FILE`: the fingerprints of accepted findings, so only new ones count for
/// `--fail-on`. The file is sorted text, one finding a line — `fingerprint code hint` — with `#` comment lines, so
/// it diffs well in the campaign's repository.
public struct Baseline: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        /// 16 hex digits: FNV-1a 64 of code, message id and redacted URL (or the finding's path).
        public var fingerprint: String
        public var code: String
        /// The message id and URL, for a human reading the file; not matched.
        public var hint: String

        public init(fingerprint: String, code: String, hint: String) {
            self.fingerprint = fingerprint
            self.code = code
            self.hint = hint
        }
    }

    public var entries: [Entry]
    private var fingerprints: Set<String>

    public init(entries: [Entry]) {
        var unique: [String: Entry] = [:]
        for entry in entries where unique[entry.fingerprint] == nil { unique[entry.fingerprint] = entry }
        self.entries = unique.values.sorted { ($0.code, $0.hint, $0.fingerprint) < ($1.code, $1.hint, $1.fingerprint) }
        self.fingerprints = Set(unique.keys)
    }

    public func contains(_ fingerprint: String) -> Bool { fingerprints.contains(fingerprint) }

    /// A baseline error: the line and what is wrong with it.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// Parses the file's text: blank and `#` lines are skipped; every other line is `fingerprint code [hint]`.
    public static func parse(_ text: String) throws(ParseError) -> Baseline {
        var entries: [Entry] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[0].count == 16, fields[0].allSatisfy(\.isHexDigit) else {
                throw ParseError(
                    line: number + 1, message: "expected `fingerprint code hint` (a fingerprint is 16 hex digits)")
            }
            entries.append(
                Entry(
                    fingerprint: String(fields[0]).lowercased(), code: String(fields[1]),
                    hint: fields.count > 2 ? String(fields[2]).trimmingCharacters(in: .whitespaces) : ""))
        }
        return Baseline(entries: entries)
    }

    /// The file's text: a comment header, then the sorted entries.
    public var text: String {
        var out = "# inbox-assets baseline: findings accepted as known; `check --baseline FILE` fails only on others.\n"
        out += "# fingerprint code hint (message id and URL). Regenerate with `check --write-baseline FILE`.\n"
        for entry in entries { out += "\(entry.fingerprint) \(entry.code) \(entry.hint)\n" }
        return out
    }

    /// The entries of every finding of a judged report (suppressed ones excluded: the config already accepts them).
    public static func of(_ report: CheckReport) -> Baseline { Baseline(entries: report.findingEntries) }

    /// Stable across runs and SDK profiles: code, message id, redacted URL (or the finding's path).
    public static func fingerprint(_ finding: Finding, _ context: FindingContext) -> String {
        fingerprint(
            finding, redactedID: Redaction.redactURL(context.id), redactedURL: context.url.map(Redaction.redactURL))
    }

    /// ``fingerprint(_:_:)`` with the context's id and URL redacted already (once per card and asset, not once per
    /// finding): FNV-1a over `code\nid\nsubject[\nplatform]`, fed part by part instead of from one joined string.
    static func fingerprint(_ finding: Finding, redactedID: String, redactedURL: String?) -> String {
        var hash = FNV1a()
        hash.add(finding.code)
        hash.add(0x0A)
        hash.add(redactedID)
        hash.add(0x0A)
        hash.add(redactedURL ?? finding.path ?? "")
        // An Android rule's finding is its own (the same code may say another thing on iOS: a cell's geometry); an
        // iOS rule's keeps the fingerprint it had when iOS's rules were the only ones, so older baselines still match.
        if let platform = finding.platform, platform != .ios {
            hash.add(0x0A)
            hash.add(platform.rawValue)
        }
        return hash.hex
    }

    static func hint(_ finding: Finding, _ context: FindingContext) -> String {
        var hint = Redaction.redactURL(context.id)
        if let url = context.url {
            hint += " " + Redaction.redactURL(url)
        } else if let path = finding.path {
            hint += " " + Redaction.redactURL(path)
        }
        // Checked first: Foundation's replacing copies every hint, one per finding of every card.
        return hint.utf8.contains(0x0A) ? hint.replacingOccurrences(of: "\n", with: " ") : hint
    }
}
