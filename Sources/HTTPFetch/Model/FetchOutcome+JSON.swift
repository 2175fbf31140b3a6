import StrictJSON

extension FetchOutcome {
    /// The outcome as one entry of `probe --format json`'s `results` (keys in this order; absent values are
    /// `null` so every entry has the same shape). URLs and error text are already redacted. Times in seconds.
    public var json: JSONValue {
        func int(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
        let timings: JSONValue = [
            "dns": .double(self.timings.dns), "connect": .double(self.timings.connect),
            "tls": .double(self.timings.tls), "firstByte": .double(self.timings.firstByte),
            "total": .double(self.timings.total), "elapsed": .double(self.timings.elapsed),
        ]
        return [
            "url": .string(url),
            "kind": .string(kind.rawValue),
            "status": .string(status.rawValue),
            "failure": .optional(failure?.rawValue),
            "httpStatus": int(httpStatus),
            "notModified": .bool(notModified),
            "finalURL": .string(finalURL),
            "redirects": .array(
                redirects.map { ["url": .string($0.url), "status": .int($0.status), "location": .string($0.location)] }
            ),
            "contentType": .optional(contentType),
            "contentLength": int(contentLength),
            "contentRange": .optional(contentRange),
            "acceptRanges": .optional(acceptRanges),
            "sha256": .optional(sha256),
            "bytes": int(bytes),
            "etag": .optional(etag),
            "lastModified": .optional(lastModified),
            "cacheControl": .optional(cacheControl),
            "httpVersion": .optional(httpVersion),
            "tlsVersion": .optional(tlsVersion),
            "remoteAddress": .optional(remoteAddress),
            "attempts": .int(attempts),
            "usedGETFallback": .bool(usedGETFallback),
            "timings": timings,
            "error": .optional(errorText),
        ]
    }
}

extension FetchOutcome {
    /// The `probe --format json` document: `{"schemaVersion":1,"results":[…]}`.
    public static func probeReport(_ outcomes: [FetchOutcome]) -> JSONValue {
        ["schemaVersion": .int(1), "results": .array(outcomes.map(\.json))]
    }

    /// One line for `probe --format text`, e.g.
    /// `ok      200 https://cdn.example/a.png  image/png 1520 B  2 redirects  31 ms` or
    /// `FAILED  404 https://cdn.example/b.png  http-status: HTTP 404`.
    public var textLine: String {
        let code = httpStatus.map { String($0) } ?? "---"
        let padded = String(repeating: " ", count: max(0, 3 - code.count)) + code
        var line = (isOK ? "ok     " : "FAILED ") + " \(padded) \(url)"
        if let failure {
            line += "  \(failure.rawValue)"
            if let errorText { line += ": \(errorText)" }
            return line
        }
        if notModified { line += "  not modified" }
        if let contentType { line += "  \(contentType)" }
        if let size = bytes ?? contentLength { line += " \(size) B" }
        if !redirects.isEmpty { line += "  \(redirects.count) redirect\(redirects.count == 1 ? "" : "s")" }
        if usedGETFallback { line += "  (HEAD refused, GET used)" }
        line += "  \(Int((timings.elapsed * 1000).rounded())) ms"
        return line
    }
}
