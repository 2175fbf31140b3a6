import Findings
import StrictJSON
import WalletPass

/// Writes `pass verify`/`pass audit` verdicts as they arrive: text a block per input; JSON the usual document
/// (`{"schemaVersion":1,"passes":[…]…}`, byte for byte what one serialization would give) written element by
/// element; NDJSON one compact object per line with a `"type"` first, then a summary line.
struct PassOutput {
    enum Format: String {
        case text, json, ndjson
    }

    let format: Format
    /// The member holding the array of verdicts in the JSON document.
    let document: String
    private let state = Counter()

    /// Starts the document (JSON only).
    func begin() {
        if format == .json { Console.out("{\n  \"schemaVersion\": 1,\n  \"\(document)\": [") }
    }

    /// One input's verdict.
    func item(_ result: PassResult) {
        switch format {
        case .text: Console.out(ControlCharacters.escaped(result.text, keepingNewlines: true) + "\n")
        case .json: element(result.json)
        case .ndjson: line(result.json, type: resultType(result))
        }
    }

    /// A JSON array element at the document's second level.
    private func element(_ value: JSONValue) {
        let text = value.serialized(pretty: true).replacingOccurrences(of: "\n", with: "\n    ")
        Console.out((state.next() == 0 ? "\n    " : ",\n    ") + text)
    }

    /// An NDJSON line: `{"type": type, …value's members}`.
    func line(_ value: JSONValue, type: String) {
        var object = JSONObject([("type", .string(type))])
        for (key, member) in value.objectValue ?? JSONObject() where key != "type" { object[key] = member }
        Console.out(JSONValue.object(object).serialized() + "\n")
    }

    private func resultType(_ result: PassResult) -> String {
        if case .bundle = result { return "bundle" }
        return "pass"
    }

    /// Closes the document: JSON gets `extra` members after the array, NDJSON the `summary` line, text `text`.
    func end(summary: JSONValue, text: String, extra: [(String, JSONValue)] = []) {
        switch format {
        case .text: Console.out(text)
        case .ndjson: line(summary, type: "summary")
        case .json:
            var tail = state.value == 0 ? "]" : "\n  ]"
            for (key, value) in extra {
                let member = value.serialized(pretty: true).replacingOccurrences(of: "\n", with: "\n  ")
                tail += ",\n  " + JSONValue.string(key).serialized() + ": " + member
            }
            Console.out(tail + "\n}\n")
        }
    }
}

/// How many array elements were written (the writer is used from one task at a time).
private final class Counter: @unchecked Sendable {
    // @unchecked Sendable: only the run's emitting task touches it, one call at a time.
    private(set) var value = 0

    func next() -> Int {
        defer { value += 1 }
        return value
    }
}
