import ArgumentKit
import Foundation
import HTTPFetch

/// `inbox-assets probe URL...`: reachability of URLs with the engine's rules.
enum ProbeCommand {
    static let command = Command(
        "probe", abstract: "Check that URLs are reachable (HEAD, falling back to GET), with the engine's rules.",
        discussion: """
            Each URL gets ok or failed with one failure class: dns, connect, tls, timeout, http-status,
            too-many-redirects, scheme, private-address, too-large, reset, truncated (also invalid-url).
            Exit 1 when any URL fails.
            """,
        arguments: [
            Positional("urls", help: "URLs to check; - reads one URL per line from standard input.", repeating: true)
        ],
        options: [
            .flag("get", help: "Download the bodies (hashed, then discarded) instead of HEAD."),
            CommandTable.formatTextJSON, NetworkOptions.quiet,
        ] + NetworkOptions.options)

    static func run(_ invocation: Invocation) async throws -> Int32 {
        var urls: [String] = []
        for operand in invocation.positional("urls") {
            if operand == "-" {
                let text = String(decoding: try InputFiles.read("-"), as: UTF8.self)
                urls += text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            } else {
                urls.append(operand)
            }
        }
        let engine = try NetworkOptions.engine(invocation)
        let progress = ProgressLine(label: "probe", quiet: invocation.flag("quiet"))
        let outcomes = await engine.fetchAll(urls, kind: invocation.flag("get") ? .get : .probe) { done, total in
            progress.update(done: done, total: total)
        }
        await engine.shutdown()
        progress.finish()
        if invocation.value("format") == "json" {
            Console.out(FetchOutcome.probeReport(outcomes).serialized(pretty: true) + "\n")
        } else {
            // One write for the whole report, not one per line (10,000 URLs were 10,000 write calls).
            var report = ""
            for outcome in outcomes {
                report += outcome.textLine
                report += "\n"
            }
            let failed = outcomes.filter { !$0.isOK }.count
            report +=
                "\(outcomes.count) URL\(outcomes.count == 1 ? "" : "s"): \(outcomes.count - failed) ok, \(failed) failed\n"
            Console.out(report)
        }
        return outcomes.allSatisfy(\.isOK) ? ExitCode.success : ExitCode.findings
    }
}
