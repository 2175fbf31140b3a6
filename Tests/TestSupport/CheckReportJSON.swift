import StrictJSON

/// Reading `check --format json` (schemaVersion 2) as tests did in schemaVersion 1: a card's assets with their
/// facts, status, failure and findings inline. Every such field is reachable in schemaVersion 2 — the facts and the
/// findings in the top-level `assets` table under the card's `url` and `use`, the verdicts on the card — and this
/// joins them back, so it also checks that each reference resolves.
public enum CheckReportJSON {
    /// `report` with every card's `assets` replaced by the joined assets (unresolvable references are left out,
    /// which the tests that count assets notice).
    public static func flattened(_ report: JSONValue) -> JSONValue {
        guard var object = report.objectValue, let cards = report["cards"]?.arrayValue else { return report }
        object["cards"] = .array(cards.map { card in flattenedCard(card, in: report) })
        return .object(object)
    }

    /// One card with its assets joined (`card` as in `report["cards"]` or an NDJSON `card` line; `report` holds the
    /// `assets` table, or is a dictionary of NDJSON `asset` lines by key in the same shape).
    public static func flattenedCard(_ card: JSONValue, in report: JSONValue) -> JSONValue {
        guard var object = card.objectValue else { return card }
        object["assets"] = .array(assets(of: card, in: report))
        return .object(object)
    }

    /// The joined assets of one card.
    public static func assets(of card: JSONValue, in report: JSONValue) -> [JSONValue] {
        (card["assets"]?.arrayValue ?? []).compactMap { reference in
            guard let key = reference["url"]?.stringValue, let entry = report["assets"]?[key],
                let index = reference["use"]?.numberValue?.intValue, let use = entry["uses"]?[index]
            else { return nil }
            var asset = JSONObject()
            asset["role"] = reference["role"] ?? .null
            asset["index"] = reference["index"] ?? .null
            asset["url"] = entry["url"] ?? .null
            asset["status"] = reference["status"] ?? .null
            asset["failure"] = use["failure"] ?? .null
            for fact in [
                "httpStatus", "contentType", "bytes", "sha256", "width", "height", "codec", "durationSeconds",
                "moovBeforeMdat", "format", "source",
            ] {
                asset[fact] = entry[fact] ?? .null
            }
            asset["needed"] = use["needed"] ?? .null
            let verdicts = reference["findings"]?.arrayValue ?? []
            let findings = (use["findings"]?.arrayValue ?? []).enumerated().map { offset, finding -> JSONValue in
                guard var merged = finding.objectValue, offset < verdicts.count,
                    let verdict = verdicts[offset].objectValue
                else { return finding }
                for (name, value) in verdict where name != "code" { merged[name] = value }
                return .object(merged)
            }
            asset["findings"] = .array(findings)
            return .object(asset)
        }
    }
}
