import Findings
import InboxCards
import StrictJSON

/// `check --format sarif`: SARIF 2.1.0, what GitHub code scanning uploads.
///
/// - one rule per finding code that occurs, its description from docs/finding-codes.md (``RuleDescriptions``);
/// - one result per distinct finding (fingerprint: code + message id + redacted URL — the same finding of several
///   SDK profiles, platforms and languages is one result, `properties.targets` lists them), `level` its severity
///   after config overrides (`info` → `note`);
/// - a physical location in the campaign file: the line and column of the JSON value the finding's path names
///   (or the message's), from ``JSONPositions`` over the input's bytes;
/// - `partialFingerprints` (`inboxAssets/v1`), stable across runs, so code scanning tracks a finding;
/// - suppressed findings keep their result with `suppressions` (kind `external`, the ignore rule's reason);
/// - under `--baseline`, `baselineState` `new` or `unchanged`, and one `absent` result per fixed entry.
///
/// Every URL and message is redacted.
public enum SarifReport {
    /// The document. `source` gives the bytes of an input by its name (for line and column), `nil` when unknown.
    public static func render(
        _ report: CheckReport, version: String, source: @escaping (String) -> [UInt8]? = { _ in nil }
    ) -> String {
        var report = report
        if report.failOn == nil { Verdict(policy: .error).apply(to: &report) }
        var results = Results(inputFindings: report.inputFindings)
        for check in report.cards { results.add(check) }
        results.add(report.passes)
        var writer = JSONWriter(pretty: true)
        results.write(to: &writer, version: version, fixed: report.baselineFixed, source: source)
        writer.raw("\n")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The document of a prepared check judged by `verdict`, from one walk over its cards, written into `writer`
    /// (a pretty one; no final newline): what is held is one result per distinct finding (what the document lists), not
    /// the cards' checks, a tree of the document or its text. The same bytes as ``render(_:version:source:)`` of
    /// the judged report, less its final newline.
    public static func write(
        _ prepared: PreparedCheck, verdict: Verdict, keepingBaselineEntries: Bool = false, version: String,
        source: @escaping (String) -> [UInt8]? = { _ in nil }, to writer: inout JSONWriter
    ) -> CheckReportStream.Result {
        if prepared.inputsNamedAlike {
            // Two messages may share a card id, so a result's cards need not come together: held whole.
            var walk = CheckWalk(prepared, verdict: verdict, keepingBaselineEntries: keepingBaselineEntries)
            var results = Results(inputFindings: walk.inputFindings)
            prepared.cards.forEach { results.add(walk.next($0)) }
            results.add(walk.passes)
            let result = walk.result
            results.write(to: &writer, version: version, fixed: result.baselineFixed, source: source)
            return result
        }
        // The first walk judges the cards and finds what comes before the cards' results: the rules (the codes in
        // the order first met) and the input findings' results with every target they gain.
        var counting = CheckWalk(prepared, verdict: verdict, keepingBaselineEntries: keepingBaselineEntries)
        var head = Results(inputFindings: counting.inputFindings)
        var codes = Codes()
        for result in head.results { codes.add(result.finding.code) }
        prepared.cards.forEach { card in
            let check = counting.next(card)
            head.addToKnown(check, codes: &codes)
        }
        for pass in counting.passes {
            for finding in pass.verification.findings where finding.verdict != nil { codes.add(finding.code) }
        }
        let result = counting.result
        for entry in result.baselineFixed ?? [] { codes.add(entry.code) }
        let baseline = result.baselineFixed != nil
        var locator = Locator(source: source)
        func emit(_ results: [Result], to writer: inout JSONWriter) {
            for result in results {
                writer.value(result.json(ruleIndex: codes.index, baseline: baseline, locator: &locator))
            }
        }
        Results.writeHead(to: &writer, version: version, codes: codes.order)
        emit(head.results, to: &writer)
        // The second walk writes each card's results: a fingerprint names its card's message, whose cards come
        // one after another, so a message's results are complete when the next message starts.
        var message = Results(inputFindings: [])
        var messageID: String?
        var passCardResults = Set<String>()
        let passCards = Set(head.passCards.values)
        func flush(_ writer: inout JSONWriter) {
            emit(message.results, to: &writer)
            message = Results(inputFindings: [])
        }
        var writing = CheckWalk(prepared, verdict: verdict)
        prepared.cards.forEach { card in
            let check = writing.next(card)
            if check.card.id != messageID {
                flush(&writer)
                messageID = check.card.id
            }
            message.add(check, skipping: head.byFingerprint)
            if passCards.contains(check.card.id) { passCardResults.formUnion(message.byFingerprint.keys) }
        }
        flush(&writer)
        // The passes' results, located at the first card of each pass (unless a card's result is the same).
        var passResults = Results(inputFindings: [])
        passResults.passCards = head.passCards
        passResults.add(counting.passes, skipping: head.byFingerprint, passCardResults)
        emit(passResults.results, to: &writer)
        Results.writeTail(to: &writer, fixed: result.baselineFixed, ruleIndex: codes.index)
        return result
    }

    /// Rule ids in the order first met.
    private struct Codes {
        var order: [String] = []
        var index: [String: Int] = [:]

        mutating func add(_ code: String) {
            guard index[code] == nil else { return }
            index[code] = order.count
            order.append(code)
        }
    }

    /// One result per distinct finding (by fingerprint), in the order first seen, with the targets (profile,
    /// platform, language) of every card it was found on.
    private struct Results {
        var results: [Result] = []
        var byFingerprint: [String: Int] = [:]
        /// Pass URL → the first card that uses it (a pass's findings are located at that card).
        var passCards: [String: String] = [:]

        init(inputFindings: [SourcedFinding]) {
            for sourced in inputFindings { add(sourced.finding, id: sourced.source, url: nil, target: nil) }
        }

        mutating func add(
            _ finding: Finding, id: String, url: String?, target: String?, skipping known: [String: Int] = [:],
            _ alsoKnown: Set<String> = []
        ) {
            guard let verdict = finding.verdict, known[verdict.fingerprint] == nil,
                !alsoKnown.contains(verdict.fingerprint)
            else { return }
            if let index = byFingerprint[verdict.fingerprint] {
                if let target, !results[index].targets.contains(target) { results[index].targets.append(target) }
                return
            }
            byFingerprint[verdict.fingerprint] = results.count
            results.append(Result(finding: finding, id: id, url: url, targets: target.map { [$0] } ?? []))
        }

        mutating func add(_ check: CardCheck, skipping known: [String: Int] = [:]) {
            let card = check.card
            let target = Self.target(of: card)
            for finding in check.findings { add(finding, id: card.id, url: nil, target: target, skipping: known) }
            for asset in check.assets {
                if asset.role == .walletPass, passCards[asset.url] == nil { passCards[asset.url] = card.id }
                for finding in asset.findings {
                    add(finding, id: card.id, url: asset.url, target: target, skipping: known)
                }
            }
        }

        /// `7.2 ios en`: a card's profile, platform and language.
        static func target(of card: ResolvedCard) -> String {
            [card.profileName, card.platform.rawValue, card.language].compactMap { $0 }.joined(separator: " ")
        }

        /// `check` adds only to the results held (the input findings'): its targets where it repeats one, and the
        /// first card of each pass; each new code goes to `codes`.
        mutating func addToKnown(_ check: CardCheck, codes: inout Codes) {
            let card = check.card
            var target: String?
            func visit(_ finding: Finding, _ results: inout Results) {
                guard let verdict = finding.verdict else { return }
                codes.add(finding.code)
                guard let index = results.byFingerprint[verdict.fingerprint] else { return }
                let name = target ?? Self.target(of: card)
                target = name
                if !results.results[index].targets.contains(name) { results.results[index].targets.append(name) }
            }
            for finding in check.findings { visit(finding, &self) }
            for asset in check.assets {
                if asset.role == .walletPass, passCards[asset.url] == nil { passCards[asset.url] = card.id }
                for finding in asset.findings { visit(finding, &self) }
            }
        }

        mutating func add(
            _ passes: [PassCheck], skipping known: [String: Int] = [:], _ alsoKnown: Set<String> = []
        ) {
            for pass in passes {
                for finding in pass.verification.findings {
                    add(
                        finding, id: passCards[pass.url] ?? pass.url, url: pass.url, target: nil, skipping: known,
                        alsoKnown)
                }
            }
        }

        /// The SARIF log: the rules of the codes that occur, then each result as its JSON is made.
        func write(
            to writer: inout JSONWriter, version: String, fixed: [Baseline.Entry]?,
            source: @escaping (String) -> [UInt8]?
        ) {
            var codes = Codes()
            for code in results.lazy.map(\.finding.code) + (fixed ?? []).map(\.code) { codes.add(code) }
            Self.writeHead(to: &writer, version: version, codes: codes.order)
            var locator = Locator(source: source)
            for result in results {
                writer.value(result.json(ruleIndex: codes.index, baseline: fixed != nil, locator: &locator))
            }
            Self.writeTail(to: &writer, fixed: fixed, ruleIndex: codes.index)
        }

        /// The log up to its first result: the tool, its rules (one per code), `results` opened.
        static func writeHead(to writer: inout JSONWriter, version: String, codes: [String]) {
            writer.beginObject()
            writer.key("$schema")
            writer.string("https://json.schemastore.org/sarif-2.1.0.json")
            writer.key("version")
            writer.string("2.1.0")
            writer.key("runs")
            writer.beginArray()
            writer.beginObject()
            writer.key("tool")
            writer.beginObject()
            writer.key("driver")
            writer.beginObject()
            writer.key("name")
            writer.string("inbox-assets")
            writer.key("semanticVersion")
            writer.string(version)
            writer.key("rules")
            writer.beginArray()
            for code in codes { writer.value(SarifReport.rule(code)) }
            writer.endArray()
            writer.endObject()
            writer.endObject()
            writer.key("columnKind")
            writer.string("unicodeCodePoints")
            writer.key("results")
            writer.beginArray()
        }

        /// The baseline's fixed entries as `absent` results, and the log's end.
        static func writeTail(to writer: inout JSONWriter, fixed: [Baseline.Entry]?, ruleIndex: [String: Int]) {
            for entry in fixed ?? [] { writer.value(SarifReport.absent(entry, ruleIndex: ruleIndex[entry.code] ?? 0)) }
            writer.endArray()
            writer.endObject()
            writer.endArray()
            writer.endObject()
        }
    }

    /// A code's rule: its description from docs/finding-codes.md and the level it documents.
    private static func rule(_ code: String) -> JSONValue {
        let meaning = RuleDescriptions.all[code] ?? "Finding \(code)."
        var rule = JSONObject([
            ("id", .string(code)), ("shortDescription", .object(JSONObject([("text", .string(summary(meaning)))]))),
            ("fullDescription", .object(JSONObject([("text", .string(meaning))]))),
        ])
        if let level = documentedLevel(meaning) {
            rule["defaultConfiguration"] = .object(JSONObject([("level", .string(level))]))
        }
        return .object(rule)
    }

    /// The result of a baseline entry no finding matched (`baselineState` `absent`).
    private static func absent(_ entry: Baseline.Entry, ruleIndex: Int) -> JSONValue {
        .object(
            JSONObject([
                ("ruleId", .string(entry.code)), ("ruleIndex", .int(ruleIndex)),
                ("kind", .string("pass")), ("level", .string("none")),
                ("message", .object(JSONObject([("text", .string("Fixed since the baseline: \(entry.hint)"))]))),
                ("partialFingerprints", .object(JSONObject([("inboxAssets/v1", .string(entry.fingerprint))]))),
                ("baselineState", .string("absent")),
            ]))
    }

    /// The first sentence of a meaning.
    static func summary(_ meaning: String) -> String {
        guard let end = meaning.range(of: ". ") else { return meaning }
        return String(meaning[..<end.lowerBound]) + "."
    }

    /// The SARIF level the meaning documents ("… Warning."), if it names one.
    static func documentedLevel(_ meaning: String) -> String? {
        for (word, level) in [("Error", "error"), ("Warning", "warning"), ("Info", "note")]
        where meaning.hasSuffix(" \(word).") || meaning.contains("(\(word.lowercased()))") {
            return level
        }
        return nil
    }

    private struct Result {
        var finding: Finding
        var id: String
        var url: String?
        var targets: [String]

        func json(ruleIndex: [String: Int], baseline: Bool, locator: inout Locator) -> JSONValue {
            let verdict = finding.verdict!
            let level: String =
                switch finding.severity {
                case .error: "error"
                case .warning: "warning"
                case .info: "note"
                }
            var text = Redaction.redactText(finding.message)
            if let url { text += " (\(Redaction.redactURL(url)))" }
            var object = JSONObject([
                ("ruleId", .string(finding.code)), ("ruleIndex", .int(ruleIndex[finding.code] ?? 0)),
                ("level", .string(level)), ("message", .object(JSONObject([("text", .string(text))]))),
                ("locations", .array([locator.location(id: id, path: finding.path)])),
                ("partialFingerprints", .object(JSONObject([("inboxAssets/v1", .string(verdict.fingerprint))]))),
            ])
            if let reason = verdict.suppressed {
                object["suppressions"] = .array([
                    .object(
                        JSONObject([
                            ("kind", .string("external")), ("status", .string("accepted")),
                            ("justification", .string(Redaction.redactText(reason))),
                        ]))
                ])
            }
            if baseline { object["baselineState"] = .string(verdict.baseline == .known ? "unchanged" : "new") }
            var properties = JSONObject([("failing", .bool(verdict.failing)), ("id", .string(Redaction.redactURL(id)))])
            if !targets.isEmpty { properties["targets"] = .array(targets.map(JSONValue.string)) }
            // One platform's rule: the same asset may be fine on the other platform (its targets name the cards).
            if let platform = finding.platform { properties["platform"] = .string(platform.rawValue) }
            object["properties"] = .object(properties)
            return .object(object)
        }
    }

    /// Line and column of a JSON path in an input, each input indexed once.
    private struct Locator {
        let source: (String) -> [UInt8]?
        var indexed: [String: (bytes: [UInt8], positions: JSONPositions)?] = [:]

        mutating func location(id: String, path: String?) -> JSONValue {
            let hash = id.firstIndex(of: "#")
            let file = hash.map { String(id[..<$0]) } ?? id
            let messagePath = hash.map { String(id[id.index(after: $0)...]) }
            var physical = JSONObject([
                ("artifactLocation", .object(JSONObject([("uri", .string(Self.uri(file)))])))
            ])
            if indexed[file] == nil {
                indexed[file] = source(file).map { bytes in (bytes, JSONPositions(bytes)) } ?? .none
            }
            var line = 1
            var column = 1
            let jsonPath = path.flatMap { $0.containsBytes("/") && !$0.containsBytes("[") ? nil : $0 } ?? messagePath
            if let entry = indexed[file] ?? nil, let jsonPath, let offset = entry.positions.offset(of: jsonPath) {
                (line, column) = entry.positions.lineColumn(of: offset, in: entry.bytes)
            }
            physical["region"] = .object(JSONObject([("startLine", .int(line)), ("startColumn", .int(column))]))
            var location = JSONObject([("physicalLocation", .object(physical))])
            if let name = path ?? messagePath {
                location["logicalLocations"] = .array([
                    .object(JSONObject([("fullyQualifiedName", .string(Redaction.redactURL(name)))]))
                ])
            }
            return .object(location)
        }

        /// A relative URI reference for a file name (stdin `-` is `stdin`), percent-encoding what URIs cannot carry.
        static func uri(_ file: String) -> String {
            if file == "-" || file.isEmpty { return "stdin" }
            var out = ""
            for byte in Redaction.redactURL(file).utf8 {
                let safe =
                    (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                    || "-._~/:@!$&'()*+,;=".utf8.contains(byte)
                out += safe ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded
            }
            return out
        }
    }
}

extension String {
    fileprivate var leftPadded: String { count < 2 ? "0" + self : self }
}
