import Findings
public import InboxCards
public import StrictJSON

/// Counts over a retrieval run, for `prefetch`'s summary line and JSON.
public struct RetrievalSummary: Sendable, Hashable {
    /// URLs retrieved (each once).
    public var assets = 0
    /// Downloaded now.
    public var fetched = 0
    /// Body bytes received from the network.
    public var bytesFetched = 0
    /// Confirmed unchanged by a `304`.
    public var revalidated = 0
    /// Used from the store without a request.
    public var fromStore = 0
    /// Taken from the remote cache (`--remote-cache`) without an origin request.
    public var fromRemote = 0
    /// Kept in memory only (`no-store`, or a store that cannot be written).
    public var inMemory = 0
    /// Not available: fetch failures and offline gaps.
    public var failed = 0
    /// Video URLs not downloaded (no `--video`).
    public var skippedVideos = 0

    /// Counts `assets`; `skippedVideos` is the caller's to set.
    public init(_ assets: [RetrievedAsset], skippedVideos: Int = 0) {
        self.skippedVideos = skippedVideos
        // By index: `for asset in assets` copies every asset (a dozen retains) to read three fields.
        for index in assets.indices {
            self.assets += 1
            bytesFetched += assets[index].bytesFetched
            if !assets[index].isOK {
                failed += 1
                continue
            }
            switch assets[index].source {
            case .network: fetched += 1
            case .revalidated: revalidated += 1
            case .store: fromStore += 1
            case .remote: fromRemote += 1
            case .memory: inMemory += 1
            case .missing: failed += 1
            case .otherShard: self.assets -= 1  // another shard's: not this run's
            }
        }
    }

    /// `9 assets: 7 fetched (12.3 KiB), 1 revalidated, 0 from store, 1 failed` (+ memory and skipped videos when
    /// there are any).
    public var line: String {
        var text =
            "\(assets) asset\(assets == 1 ? "" : "s"): \(fetched) fetched (\(ByteCount.format(bytesFetched))), "
            + "\(revalidated) revalidated, \(fromStore) from store"
        if fromRemote > 0 { text += ", \(fromRemote) from remote" }
        if inMemory > 0 { text += ", \(inMemory) in memory only" }
        text += ", \(failed) failed"
        if skippedVideos > 0 {
            text += "; \(skippedVideos) video\(skippedVideos == 1 ? "" : "s") not downloaded (use --video)"
        }
        return text
    }

    /// `{"assets", "fetched", "bytesFetched", "revalidated", "fromStore", "fromRemote", "inMemory", "failed",
    /// "skippedVideos"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("assets", .int(assets)), ("fetched", .int(fetched)), ("bytesFetched", .int(bytesFetched)),
                ("revalidated", .int(revalidated)), ("fromStore", .int(fromStore)),
                ("fromRemote", .int(fromRemote)), ("inMemory", .int(inMemory)),
                ("failed", .int(failed)), ("skippedVideos", .int(skippedVideos)),
            ]))
    }
}

/// The `prefetch` report: a line per asset with a finding, then the summary; or the same as JSON.
public enum RetrievalReport {
    /// Text: `FAILED`/`warning` lines (URL redacted, code, message; control characters escaped), then `Summary: …`.
    public static func text(_ assets: [RetrievedAsset], summary: RetrievalSummary, store: String?, style: TextStyle)
        -> String
    {
        var text = "inbox-assets prefetch — \(summary.assets) asset\(summary.assets == 1 ? "" : "s")"
        text += store.map { " (store \($0))\n" } ?? " (no store)\n"
        for index in assets.indices where !assets[index].findings.isEmpty {
            let asset = assets[index]
            for finding in asset.findings.sorted(by: { $0.severity > $1.severity }) {
                let label: String
                switch finding.severity {
                case .error: label = style.red("FAILED ")
                case .warning: label = style.yellow("warning")
                case .info: label = style.dim("info   ")
                }
                let url = ControlCharacters.escaped(asset.redactedURL)
                let message = ControlCharacters.escaped(Redaction.redactText(finding.message))
                text += "  \(label) \(url)  \(finding.code): \(message)\n"
            }
        }
        return text + "Summary: \(summary.line)\n"
    }

    /// `{"schemaVersion": 1, "store", "summary", "assets": [{url, roles, source, ok, …}]}`, URLs redacted.
    /// - Parameter roles: the roles of the campaign's own URLs (segments and variant playlists have none).
    public static func json(
        _ assets: [RetrievedAsset], summary: RetrievalSummary, store: String?,
        roles: [String: Set<AssetReference.Role>]
    ) -> JSONValue {
        let rows = assets.map { asset -> JSONValue in
            var object = asset.json.objectValue ?? JSONObject()
            let names = (roles[asset.url] ?? []).map(\.rawValue).sorted()
            object["roles"] = .array(names.map(JSONValue.string))
            return .object(object)
        }
        return .object(
            JSONObject([
                ("schemaVersion", .int(1)), ("store", .optional(store)), ("summary", summary.json),
                ("assets", .array(rows)),
            ]))
    }
}
