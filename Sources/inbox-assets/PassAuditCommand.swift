import ArgumentKit
import Findings
import Foundation
import StrictJSON
import WalletPass

/// `inbox-assets pass audit PATH|URL...`: the fleet view over `pass verify` — signers with an expiry forecast,
/// duplicates, expired and voided passes, counts by code.
enum PassAuditCommand {
    static let warnExpiry = Option.value(
        "warn-expiry", "days",
        help: "Forecast window: warn when a signer certificate expires within this many days (30d or 30).",
        default: "30d")

    static let webService = Option.flag(
        "web-service",
        help: "Also ask each pass's update web service (read-only GETs): the latest pass, a conditional repeat, a "
            + "wrong token.")

    static let command = Command(
        "audit",
        abstract: "Audit a fleet of passes: signers and their expiry, duplicates, expired and voided passes.",
        discussion: """
            Verifies every pass like `pass verify` (same inputs, --jobs, streaming), then groups the passes by
            signer certificate with an expiry forecast (--warn-expiry), finds serial numbers reused with
            different contents, shared barcode messages and authentication tokens, and counts findings by code.
            Text prints the invalid passes as they complete, then the fleet report. Exit 1 when any pass is
            invalid, a fleet finding is an error, or a signer expires within the forecast window.
            """,
        arguments: [Positional("paths", help: "Pass and bundle files, directories or http(s) URLs.", repeating: true)],
        options: [
            PassCommand.trust, PassCommand.at, PassCommand.formatStreaming, warnExpiry, webService,
            PassCommand.verdictStore,
            NetworkOptions.quiet,
        ] + PassRunner.options + PassCommand.inputTimeout + NetworkOptions.options + NetworkOptions.remoteOptions
            + [ShardOption.passOption])

    static func run(_ invocation: Invocation, verifier: PassVerifier, limits: InputLimits, now: Date) async throws
        -> Int32
    {
        let window = try parseDays(invocation)
        let inputs = try PassInput.expand(invocation.positional("paths"), shard: ShardOption.parse(invocation))
        let format = PassOutput.Format(rawValue: invocation.value("format") ?? "text") ?? .text
        let output = PassOutput(format: format, document: "passes")
        var audit = PassAudit()
        var unreadable: [CommandFailure] = []
        output.begin()
        let runner = try await PassCommand.runner(invocation, verifier: verifier, limits: limits, inputs: inputs)
        await runner.run(inputs) { _, outcome in
            switch outcome {
            case .unreadable(let failure): unreadable.append(failure)
            case .result(let result):
                if case .bundle(let bundle) = result { audit.addInputFindings(bundle.findings) }
                for pass in result.passes { audit.add(pass) }
                // Text shows what needs attention; JSON and NDJSON every verdict.
                if format != .text || !result.valid { output.item(result) }
            }
        }
        let report = audit.report(now: now, warnExpiry: window)
        if format == .ndjson {
            for signer in report.signers { output.line(signer.json, type: "signer") }
            for finding in report.findings { output.line(finding.json, type: "finding") }
        }
        var summary = report.json.objectValue ?? JSONObject()
        summary["signers"] = .int(report.signers.count)
        summary["findings"] = .int(report.findings.count)
        output.end(
            summary: .object(summary), text: ControlCharacters.escaped(report.text, keepingNewlines: true) + "\n",
            extra: [("audit", report.json)])
        for failure in unreadable { Console.err("Error: \(failure.message)\n") }
        if !unreadable.isEmpty { return ExitCode.invalidInput }
        let fleetError = report.findings.contains { $0.severity == .error }
        return report.invalid == 0 && !fleetError && !report.forecastCrossed ? ExitCode.success : ExitCode.findings
    }

    /// `--warn-expiry 30d` or `30`, in seconds.
    static func parseDays(_ invocation: Invocation) throws -> TimeInterval {
        let text = invocation.value("warn-expiry") ?? "30d"
        let digits = text.hasSuffix("d") ? String(text.dropLast()) : text
        guard let days = Int(digits), (0...3650).contains(days) else {
            throw invocation.invalid(text, for: "warn-expiry", hint: "Expected a number of days such as 30d (0–3650).")
        }
        return TimeInterval(days) * 86_400
    }
}
