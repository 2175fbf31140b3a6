public import StrictJSON

extension Finding {
    /// `{"severity", "code", "message", "path"}`: the one JSON shape of a finding in every report (DESIGN.md
    /// "Report"). Message and path pass through ``Redaction`` once more, so no stage can leak a secret by
    /// building a message from a raw URL.
    /// A platform rule's finding adds `platform` (`ios`, `android`) after `path`.
    /// With a ``verdict``, `failing`, `suppressed` (the reason or `null`) and `baseline` (`new`, `known` or `null`)
    /// follow.
    public var json: JSONValue {
        var object = JSONObject([
            ("severity", .string(severity.rawValue)), ("code", .string(code)),
            ("message", .string(Redaction.redactText(message))),
            ("path", path.map { .string(Redaction.redactURL($0)) } ?? .null),
        ])
        if let platform { object["platform"] = .string(platform.rawValue) }
        if let verdict {
            object["failing"] = .bool(verdict.failing)
            object["suppressed"] = .optional(verdict.suppressed.map(Redaction.redactText))
            object["baseline"] = .optional(verdict.baseline?.rawValue)
        }
        return .object(object)
    }

    /// Writes the members of ``json`` into the object `writer` has open (callers that put members first, such as
    /// a `source`, write them before).
    public func writeMembers(to writer: inout JSONWriter) {
        writer.key("severity")
        writer.string(severity.rawValue)
        writer.key("code")
        writer.string(code)
        writer.key("message")
        writer.string(Redaction.redactText(message))
        writer.key("path")
        writer.string(path.map(Redaction.redactURL))
        if let platform {
            writer.key("platform")
            writer.string(platform.rawValue)
        }
        writeVerdictMembers(to: &writer)
    }

    /// `failing`, `suppressed` and `baseline` when the finding has a verdict; nothing before one.
    public func writeVerdictMembers(to writer: inout JSONWriter) {
        guard let verdict else { return }
        writer.key("failing")
        writer.bool(verdict.failing)
        writer.key("suppressed")
        writer.string(verdict.suppressed.map(Redaction.redactText))
        writer.key("baseline")
        writer.string(verdict.baseline?.rawValue)
    }

    /// Writes ``json`` without building it: the same bytes.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writeMembers(to: &writer)
        writer.endObject()
    }
}
