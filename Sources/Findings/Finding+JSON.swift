public import StrictJSON

extension Finding {
    /// `{"severity", "code", "message", "path"}`: the one JSON shape of a finding in every report (DESIGN.md
    /// "Report"). Message and path pass through ``Redaction`` once more, so no stage can leak a secret by
    /// building a message from a raw URL.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("severity", .string(severity.rawValue)), ("code", .string(code)),
                ("message", .string(Redaction.redactText(message))),
                ("path", path.map { .string(Redaction.redactURL($0)) } ?? .null),
            ]))
    }
}
