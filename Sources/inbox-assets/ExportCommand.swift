import ArgumentKit
import AssetStore
import Findings
import Foundation
import Preflight
import StrictJSON

/// `inbox-assets export INPUT... --out DIR`: prefetch (or, offline, only read the store), then write the assets
/// as files plus `manifest.json` for an app to embed.
enum ExportCommand {
    static let command = Command(
        "export", abstract: "Write the campaign's assets as files plus manifest.json, for an offline inbox.",
        discussion: """
            Prefetches every asset (as prefetch does) unless --offline, then copies the stored bodies to
            DIR/assets/ and writes DIR/manifest.json:
            {"schemaVersion":1,"assets":{"<url>":{"path","sha256","contentType","bytes"}}}.
            The export replaces an earlier one at DIR atomically; anything else at DIR is refused (exit 2).
            A store that cannot be written is read as it is (new downloads are exported from memory, with a
            store.readOnly warning). Exit 1 when any asset is missing.
            """,
        arguments: [
            Positional(
                "inputs", help: "Campaign files (createMessage, feed dump, push payloads); - reads standard input.",
                repeating: true)
        ],
        options: [
            .value("out", "dir", help: "Directory to write (required): an earlier export there is replaced."),
            StoreCommand.storeOption,
            .flag("offline", help: "Use only the store: no network request; report what is missing."),
            .flag(
                "redact-keys",
                help:
                    "Key manifest.json by the SHA-256 of each exact URL instead of the URL (no URL text in the export)."
            ),
            PrefetchCommand.video,
        ] + CommandTable.cardOptions + [CommandTable.formatTextJSON, NetworkOptions.quiet] + InputLimits.options
            + NetworkOptions.options + NetworkOptions.remoteOptions + [ShardOption.option])

    static func run(_ invocation: Invocation) async throws -> Int32 {
        guard let out = invocation.value("out"), !out.isEmpty else {
            throw invocation.usageError("Missing expected option '--out <dir>'")
        }
        let run = try await Prefetch.run(
            invocation, offline: invocation.flag("offline"), label: "export", requireWritableStore: false)
        // Downloads a store that cannot be written kept in memory are exported from there (never no-store ones).
        var bodies: [String: ExportBody] = [:]
        for asset in run.assets where asset.source == .memory && asset.isOK {
            guard !asset.findings.contains(where: { $0.code == AssetFindingCode.noStore }),
                let bytes = asset.body(limit: Int.max)
            else { continue }
            bodies[asset.url] = ExportBody(bytes: bytes, contentType: asset.contentType)
        }
        let options = ExportOptions(manifestKeys: invocation.flag("redact-keys") ? .sha256 : .exactURL)
        let result: ExportResult
        do {
            result = try run.store.export(urls: run.assets.map(\.url), to: out, options: options, bodies: bodies)
        } catch {
            throw CommandFailure(message: "cannot export to \(out): \(error.message)", status: ExitCode.invalidInput)
        }
        // Why an asset is missing: the retrieval's reason (404, offline, no-store) beats the export's "not in store".
        let byURL = Dictionary(run.assets.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        let missing: [(url: String, findings: [Finding])] = result.missing.map { gap in
            let retrieval = byURL[gap.url]?.findings.filter { $0.severity >= .warning } ?? []
            return (gap.url, retrieval.isEmpty ? [gap.finding] : retrieval)
        }
        if invocation.value("format") == "json" {
            let report = JSONValue.object(
                JSONObject([
                    ("schemaVersion", .int(1)), ("out", .string(result.directory)),
                    ("manifest", .string(result.directory + "/manifest.json")), ("exported", .int(result.assets.count)),
                    ("summary", run.summary.json),
                    ("findings", .array([run.storeFinding, run.remoteFinding].compactMap { $0?.json })),
                    (
                        "missing",
                        .array(
                            missing.map { gap in
                                .object(
                                    JSONObject([
                                        ("url", .string(Redaction.redactURL(gap.url))),
                                        ("findings", .array(gap.findings.map(\.json))),
                                    ]))
                            })
                    ),
                ]))
            Console.out(report.serialized(pretty: true) + "\n")
        } else {
            var text = "Exported \(result.assets.count) asset\(result.assets.count == 1 ? "" : "s") to "
            text += "\(result.directory) (manifest.json)\n"
            if !missing.isEmpty {
                text += "Missing \(missing.count):\n"
                for gap in missing {
                    for finding in gap.findings {
                        text += "  \(ControlCharacters.escaped(Redaction.redactURL(gap.url)))  \(finding.code): "
                        text += ControlCharacters.escaped(Redaction.redactText(finding.message)) + "\n"
                    }
                }
            }
            for finding in [run.storeFinding, run.remoteFinding].compactMap({ $0 }) {
                text += "warning \(finding.code): \(ControlCharacters.escaped(Redaction.redactText(finding.message)))\n"
            }
            text += "Summary: \(run.summary.line)\n"
            Console.out(text)
        }
        let status = try run.finish()
        // Exits with the run alive, as prefetch does (see PrefetchCommand.run).
        withExtendedLifetime(run) { exit(status == ExitCode.success && !missing.isEmpty ? ExitCode.findings : status) }
    }
}
