import ArgumentKit
import AssetStore
import Findings
import Foundation
import HTTPFetch
import Preflight
import StrictJSON
import WalletPass

/// `inbox-assets pass verify|inspect`: audit Apple Wallet passes.
enum PassCommand {
    static let trust = Option.value(
        "trust", "file",
        help:
            "Extra trust anchors or intermediates (PEM or DER; repeatable). Apple Root CA and WWDR G1–G8 are built in.",
        repeating: true)
    static let at = Option.value(
        "at", "date",
        help: "Evaluate \"now\" (expiry warnings) at this ISO 8601 date, e.g. 2025-01-31 or 2025-01-31T12:00:00Z.")

    /// `--store DIR`: keep verdicts in the store's record area (off without it).
    static let verdictStore = Option.value(
        "store", "dir",
        help: "Keep each pass's verdict in this asset store (records/), keyed by its bytes: a re-run re-hashes "
            + "unchanged passes and decides only expiry again.")

    /// `--format text|json|ndjson` for the commands that stream a verdict per pass.
    static let formatStreaming = Option.value(
        "format", help: "Output format (ndjson: one JSON object per line as each pass completes, then a summary).",
        default: "text", choices: ["text", "json", "ndjson"])

    /// `--input-timeout` only: a pass's size limit is the verifier's (10 MiB, reported as `pass.archive.tooLarge`).
    static let inputTimeout = InputLimits.options.filter { $0.name == "input-timeout" }

    static let command = Command(
        "pass", abstract: "Verify, audit and inspect Apple Wallet passes (.pkpass, .pkpasses).",
        subcommands: [
            Command(
                "verify",
                abstract: "Verify passes: archive, manifest, CMS signature, certificate chain, pass.json, images.",
                discussion: """
                    The chain is evaluated at the signature's signingTime against pinned Apple anchors (never the
                    system trust store, never the network). Directories are walked for *.pkpass and *.pkpasses files; http(s)
                    URLs are downloaded with the network options (the served Content-Type is checked too).
                    *.pkpasses bundles (a zip of up to 10 passes) are verified pass by pass, plus the bundle
                    rules. Passes are verified on --jobs cores at once and printed as they complete, in input order
                    unless --unordered. Exit 1 when any pass is invalid, 2 when a path cannot be read.
                    """,
                arguments: [Positional("paths", help: "Pass files, directories or http(s) URLs.", repeating: true)],
                options: [trust, at, formatStreaming, verdictStore, NetworkOptions.quiet] + PassRunner.options
                    + inputTimeout
                    + NetworkOptions.options + NetworkOptions.remoteOptions + [ShardOption.passOption]),
            PassAuditCommand.command,
            Command(
                "inspect", abstract: "Show a pass's files, certificates and verification.",
                arguments: [Positional("path", help: "A pass file.")],
                options: [trust, at, CommandTable.formatTextJSON] + inputTimeout),
        ])

    static func run(_ invocation: Invocation) async throws -> Int32 {
        var now: Date? = nil
        if let text = invocation.value("at") {
            guard let date = parseDate(text) else {
                throw invocation.invalid(
                    text, for: "at", hint: "Expected an ISO 8601 date such as 2025-01-31T12:00:00Z.")
            }
            now = date
        }
        var local: RecordArea? = nil
        if let directory = invocation.value("store") {
            do {
                local = try AssetStore(directory: directory).records
            } catch {
                throw CommandFailure(message: "cannot open the store: \(error)", status: ExitCode.invalidInput)
            }
        }
        let remote = try NetworkOptions.remote(invocation)
        let cache = verdictCache(local: local, remote: remote?.cache)
        let verifier: PassVerifier
        do {
            verifier = try PassVerifier(extraTrustFiles: invocation.values("trust"), now: now, cache: cache)
        } catch {
            throw CommandFailure(message: "\(error)", status: ExitCode.invalidInput)
        }
        let json = invocation.value("format") == "json"
        var limits = try InputLimits.parse(invocation)
        limits.maxBytes = verifier.limits.maxArchiveBytes
        if invocation.path.last == "inspect" {
            let path = invocation.positional("path")[0]
            var status = stat()
            if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                throw CommandFailure.invalidInput(
                    "cannot read '\(path)': it is a directory; pass inspect shows one .pkpass file (pass verify walks "
                        + "directories)")
            }
            let inspection = verifier.inspect(bytes: try read(path, limits: limits), source: path)
            // pass.json text is the pass author's: its control characters are escaped for the terminal.
            Console.out(
                json
                    ? inspection.json.serialized(pretty: true) + "\n"
                    : ControlCharacters.escaped(inspection.text, keepingNewlines: true) + "\n")
            return inspection.verification.valid ? ExitCode.success : ExitCode.findings
        }

        if invocation.path.last == "audit" {
            let status = try await PassAuditCommand.run(
                invocation, verifier: verifier, limits: limits, now: now ?? Date())
            await finishRemote(remote)
            return status
        }
        let inputs = try PassInput.expand(invocation.positional("paths"), shard: ShardOption.parse(invocation))
        let format = PassOutput.Format(rawValue: invocation.value("format") ?? "text") ?? .text
        let output = PassOutput(format: format, document: "passes")
        var unreadable: [CommandFailure] = []
        var total = 0
        var invalid = 0
        output.begin()
        try await runner(invocation, verifier: verifier, limits: limits, inputs: inputs).run(inputs) { _, outcome in
            switch outcome {
            case .unreadable(let failure): unreadable.append(failure)
            case .result(let result):
                total += 1
                if !result.valid { invalid += 1 }
                output.item(result)
            }
        }
        output.end(
            summary: [
                "passes": .int(total), "valid": .int(total - invalid), "invalid": .int(invalid),
            ],
            text: "\(total) pass\(total == 1 ? "" : "es"): \(total - invalid) valid, \(invalid) invalid\n")
        for failure in unreadable { Console.err("Error: \(failure.message)\n") }
        await finishRemote(remote)
        if !unreadable.isEmpty { return ExitCode.invalidInput }
        return invalid == 0 ? ExitCode.success : ExitCode.findings
    }

    /// The verdict cache of `--store` and `--remote-cache`: the local record area first, then the remote's
    /// `/ac/{key}` (a hit is kept locally too); a new verdict is saved locally and uploaded in the background. The
    /// key digests the pass bytes, the trust anchors, the limits and the verifier version, so a record can only be
    /// reused for the same pass judged by the same rules. A remote's records are trusted as its writers are (the
    /// runners sharing it): `--no-remote` audits from the bytes alone.
    static func verdictCache(local: RecordArea?, remote: RemoteCache?) -> PassVerdictCache? {
        guard local != nil || remote != nil else { return nil }
        return PassVerdictCache(
            load: { key in
                if let data = local?.load(key) { return data }
                guard let bytes = remote?.getWaiting(.action(key)) else { return nil }
                let data = Data(bytes)
                local?.save(key, data)
                return data
            },
            save: { key, data in
                local?.save(key, data)
                remote?.put([(.action(key), .bytes(Array(data)))])
            })
    }

    /// Waits for the verdict uploads and prints the remote's one warning (on stderr: pass reports have no
    /// run-level findings).
    static func finishRemote(_ remote: RemoteTier?) async {
        guard let remote else { return }
        await remote.cache.finishUploads(within: NetworkOptions.uploadDeadline)
        guard let problem = remote.cache.problem else { return }
        Console.err(
            "warning: \(AssetFindingCode.remoteUnavailable): the remote cache \(remote.cache.redactedURL) could not "
                + "be used (\(problem)): verdicts were computed here\n")
    }

    /// The runner for `--jobs`, `--unordered` and, when an input is a URL, the network options.
    static func runner(_ invocation: Invocation, verifier: PassVerifier, limits: InputLimits, inputs: [PassInput])
        async throws -> PassRunner
    {
        let jobs = try invocation.int("jobs", in: 1...1024) ?? ProcessInfo.processInfo.activeProcessorCount
        let hasURL = inputs.contains {
            if case .url = $0 { return true }
            return false
        }
        let webService = invocation.flag("web-service")
        let engine = hasURL || webService ? try NetworkOptions.engine(invocation) : nil
        return PassRunner(
            verifier: verifier, limits: limits, engine: engine, jobs: jobs, unordered: invocation.flag("unordered"),
            quiet: invocation.flag("quiet"),
            webService: webService ? engine.map { PassWebServiceCheck(engine: $0, verifier: verifier) } : nil)
    }

    /// A pass file's bytes through the one input reader: at most one byte past the archive limit (the verifier
    /// reports the size), and a FIFO or device that sends nothing gives up after `--input-timeout`.
    /// - Throws: ``CommandFailure`` (exit 2) when it cannot be read.
    static func read(_ path: String, limits: InputLimits) throws(CommandFailure) -> [UInt8] {
        do {
            return try InputReader.read(path: path, limits: limits, overflow: .truncate)
        } catch {
            throw InputFiles.failure(error, operand: path)
        }
    }

    /// `2025-01-31`, `2025-01-31T12:00:00Z` or with an offset.
    static func parseDate(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return day.date(from: text)
    }
}
