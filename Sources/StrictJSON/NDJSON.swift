/// Newline-delimited JSON lines as the reports write them (`--format ndjson`): one compact object per line, its
/// `"type"` first.
public enum NDJSON {
    /// Writes `{"type": type, …value's members}` and a newline (a value that is not an object becomes `"value"`).
    /// - Parameter writer: a compact writer (``JSONWriter/pretty`` false) between documents.
    public static func line(_ type: String, _ value: JSONValue, to writer: inout JSONWriter) {
        precondition(!writer.pretty, "an NDJSON line is compact")
        var object = JSONObject([("type", .string(type))])
        if let members = value.objectValue {
            for (key, member) in members where key != "type" { object[key] = member }
        } else {
            object["value"] = value
        }
        writer.value(.object(object))
        writer.raw("\n")
    }
}
