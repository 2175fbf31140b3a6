import ArgumentKit
import Findings
import Foundation
import HTTPFetch
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

    /// `--input-timeout` only: a pass's size limit is the verifier's (10 MiB, reported as `pass.archive.tooLarge`).
    static let inputTimeout = InputLimits.options.filter { $0.name == "input-timeout" }

    static let command = Command(
        "pass", abstract: "Verify and inspect Apple Wallet passes (.pkpass).",
        subcommands: [
            Command(
                "verify",
                abstract: "Verify passes: archive, manifest, CMS signature, certificate chain, pass.json, images.",
                discussion: """
                    The chain is evaluated at the signature's signingTime against pinned Apple anchors (never the
                    system trust store, never the network). Directories are walked for *.pkpass files; http(s)
                    URLs are downloaded with the network options (the served Content-Type is checked too).
                    Exit 1 when any pass is invalid, 2 when a path cannot be read.
                    """,
                arguments: [Positional("paths", help: "Pass files, directories or http(s) URLs.", repeating: true)],
                options: [trust, at, CommandTable.formatTextJSON, NetworkOptions.quiet] + inputTimeout
                    + NetworkOptions.options),
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
        let verifier: PassVerifier
        do {
            verifier = try PassVerifier(extraTrustFiles: invocation.values("trust"), now: now)
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

        var results: [PassVerification] = []
        var urls: [String] = []
        var unreadable: [CommandFailure] = []
        for operand in invocation.positional("paths") {
            var isDirectory: ObjCBool = false
            if operand.hasPrefix("http://") || operand.hasPrefix("https://") {
                urls.append(operand)
            } else if FileManager.default.fileExists(atPath: operand, isDirectory: &isDirectory), isDirectory.boolValue
            {
                // A file found by the walk that cannot be read is that pass's finding, not an unusable operand.
                for file in PassVerifier.passFiles(under: operand) {
                    do {
                        results.append(verifier.verify(bytes: try read(file, limits: limits), source: file))
                    } catch {
                        let finding = Finding.error(PassFindingCode.fileUnreadable, error.message)
                        results.append(PassVerification(source: file, findings: [finding]))
                    }
                }
            } else {
                do {
                    results.append(verifier.verify(bytes: try read(operand, limits: limits), source: operand))
                } catch {
                    unreadable.append(error)
                }
            }
        }
        if !urls.isEmpty { results += try await download(urls, invocation: invocation, verifier: verifier) }
        if json {
            let document: JSONValue = ["schemaVersion": 1, "passes": .array(results.map(\.json))]
            Console.out(document.serialized(pretty: true) + "\n")
        } else {
            for result in results { Console.out(ControlCharacters.escaped(result.text, keepingNewlines: true) + "\n") }
            let invalid = results.filter { !$0.valid }.count
            Console.out(
                "\(results.count) pass\(results.count == 1 ? "" : "es"): \(results.count - invalid) valid, \(invalid) invalid\n"
            )
        }
        for failure in unreadable { Console.err("Error: \(failure.message)\n") }
        if !unreadable.isEmpty { return ExitCode.invalidInput }
        return results.allSatisfy(\.valid) ? ExitCode.success : ExitCode.findings
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

    /// Downloads passes (10 MiB at most, the archive limit) and verifies the bytes; a failed download is an
    /// invalid pass whose finding says why.
    static func download(_ urls: [String], invocation: Invocation, verifier: PassVerifier) async throws
        -> [PassVerification]
    {
        let engine = try NetworkOptions.engine(invocation)
        let progress = ProgressLine(label: "passes", quiet: invocation.flag("quiet"))
        var results: [PassVerification] = []
        for (done, url) in urls.enumerated() {
            let sink = MemorySink(capacity: 10 << 20)
            let outcome = await engine.get(url, into: sink)
            progress.update(done: done + 1, total: urls.count)
            guard outcome.isOK else {
                results.append(PassVerification(source: url, findings: outcome.finding.map { [$0] } ?? []))
                continue
            }
            var verification = verifier.verify(bytes: sink.bytes, source: url)
            if let finding = PassVerifier.checkContentType(outcome.contentType) {
                verification.findings.append(finding)
            }
            results.append(verification)
        }
        await engine.shutdown()
        progress.finish()
        return results
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
