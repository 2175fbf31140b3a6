import StrictJSON

/// Reading `check --format json` (schemaVersion 3) as tests did in schemaVersion 1: a flat `cards` array, each card
/// with every member, and its assets with their facts, status, failure and findings inline. Every such field is
/// reachable in schemaVersion 3 — a card is its message's members with one of the message's `cards` entries over
/// them (one card per version in the entry's `sdks`), a member left out is null, an asset reference's role,
/// status and findings' default verdicts are its use's in the top-level `assets` table — and this puts them back
/// together, so it also checks that each reference resolves.
public enum CheckReportJSON {
    /// `report` with a `cards` array: the cards of ``cards(of:)`` with their assets joined (unresolvable
    /// references are left out, which the tests that count assets notice).
    public static func flattened(_ report: JSONValue) -> JSONValue {
        guard var object = report.objectValue, report["messages"] != nil else { return report }
        object["cards"] = .array(cards(of: report).map { card in flattenedCard(card, in: report) })
        return .object(object)
    }

    /// The cards of a schemaVersion 3 report as schemaVersion 2 wrote them: every member in its order (null when
    /// left out), `sdk` one version, each asset reference with its `role`, `status` and findings' verdicts.
    public static func cards(of report: JSONValue) -> [JSONValue] {
        var cards: [JSONValue] = []
        for message in report["messages"]?.arrayValue ?? [] {
            for entry in message["cards"]?.arrayValue ?? [] {
                for sdk in entry["sdks"]?.arrayValue ?? [] {
                    var card = JSONObject()
                    for key in cardKeys {
                        if key == "sdk" {
                            card[key] = sdk
                        } else {
                            card[key] = entry[key] ?? message[key] ?? .null
                        }
                    }
                    card["findings"] = .array((card["findings"]?.arrayValue ?? []).map { filled($0, findingKeys) })
                    card["tapActions"] = .array(
                        (card["tapActions"]?.arrayValue ?? []).map { filled($0, tapActionKeys) })
                    card["slides"] = .array((card["slides"]?.arrayValue ?? []).map { filled($0, slideKeys) })
                    card["assets"] = .array(
                        (card["assets"]?.arrayValue ?? []).map { reference($0, in: report) })
                    cards.append(.object(card))
                }
            }
        }
        return cards
    }

    /// schemaVersion 2's members of a card, in order.
    static let cardKeys = [
        "id", "code", "sdk", "platform", "language", "requested", "resolved", "degraded", "degradeReason", "sdkLog",
        "broken", "failing", "rootCauses", "findings", "assets", "forced", "pinned", "buttons", "accessibility",
        "title", "body", "tapActions", "slides", "feedPosition",
    ]
    static let findingKeys = ["severity", "code", "message", "path", "failing", "suppressed", "baseline"]
    static let tapActionKeys = ["target", "index", "action", "url", "via", "overridden", "note"]
    static let slideKeys = ["index", "position", "image", "title", "url", "dropped", "reason"]

    /// `value` with `keys` in that order, null where it has none, then any other member it has.
    static func filled(_ value: JSONValue, _ keys: [String]) -> JSONValue {
        guard let object = value.objectValue else { return value }
        var result = JSONObject()
        for key in keys { result[key] = object[key] ?? .null }
        for (key, member) in object where result[key] == nil { result[key] = member }
        return .object(result)
    }

    /// An asset reference as schemaVersion 2 wrote it: `role`, `index`, `url`, `use`, `status`, `findings`
    /// (`{"code", "failing", "suppressed", "baseline"}` each, the default verdict when the reference has none),
    /// from the use where the reference leaves them out.
    static func reference(_ value: JSONValue, in report: JSONValue) -> JSONValue {
        guard let object = value.objectValue else { return value }
        let use = object["url"]?.stringValue.flatMap { key in
            object["use"]?.numberValue?.intValue.flatMap { report["assets"]?[key]?["uses"]?[$0] }
        }
        var result = JSONObject()
        result["role"] = object["role"] ?? use?["role"] ?? .null
        result["index"] = object["index"] ?? .null
        result["url"] = object["url"] ?? .null
        result["use"] = object["use"] ?? .null
        result["status"] = object["status"] ?? use?["status"] ?? .null
        result["findings"] =
            object["findings"]
            ?? .array(
                (use?["findings"]?.arrayValue ?? []).map { finding in
                    .object(
                        JSONObject([
                            ("code", finding["code"] ?? .null), ("failing", false), ("suppressed", .null),
                            ("baseline", .null),
                        ]))
                })
        if case .array(let findings)? = result["findings"] {
            // A finding without a verdict (a report not judged) is `{"code"}` in both versions.
            result["findings"] = .array(
                findings.map { $0["failing"] == nil ? $0 : filled($0, ["code", "failing", "suppressed", "baseline"]) })
        }
        return .object(result)
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
