import ArgumentKit
import Findings
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
        ] + InputLimits.options + NetworkOptions.options)

    static func run(_ invocation: Invocation) async throws -> Int32 {
        let limits = try InputLimits.parse(invocation)
        var urls: [String] = []
        for operand in invocation.positional("urls") {
            if operand == "-" {
                urls += urlLines(try InputFiles.read("-", limits: limits))
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
        // By index throughout: each outcome is read in place (a for-in, `reduce` or `allSatisfy` copies every
        // outcome out, retaining its strings — measurable at 10,000 URLs).
        var failed = 0
        for index in outcomes.indices where !outcomes[index].isOK { failed += 1 }
        if invocation.value("format") == "json" {
            Console.out(FetchOutcome.probeReport(outcomes).serialized(pretty: true) + "\n")
        } else {
            // One write for the whole report, not one per line (10,000 URLs were 10,000 write calls).
            var report = ""
            for index in outcomes.indices {
                report += ControlCharacters.escaped(outcomes[index].textLine)  // URLs from stdin lines: hostile
                report += "\n"
            }
            report +=
                "\(outcomes.count) URL\(outcomes.count == 1 ? "" : "s"): \(outcomes.count - failed) ok, \(failed) failed\n"
            Console.out(report)
        }
        return failed == 0 ? ExitCode.success : ExitCode.findings
    }

    /// The URLs in standard input's text: one per line, trimmed, blank lines and `#` comments skipped.
    static func urlLines(_ bytes: [UInt8]) -> [String] {
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            let text = String(decoding: bytes, as: UTF8.self)
            return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        // ASCII (every real URL list): the same split and trim on bytes, without Character and Foundation's
        // per-line bridging (50 ms of 10,000 lines, before the first request could start). In ASCII,
        // `Character.isNewline` is exactly LF, VT, FF and CR (a CR LF pair leaves an empty piece, skipped like
        // any blank line) and `CharacterSet.whitespaces` is space and tab.
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var urls: [String] = []
        for line in bytes.split(whereSeparator: { (0x0A...0x0D).contains($0) }) {
            guard let first = line.firstIndex(where: { !isBlank($0) }),
                let last = line.lastIndex(where: { !isBlank($0) }),
                line[first] != UInt8(ascii: "#")
            else { continue }
            urls.append(String(decoding: line[first...last], as: UTF8.self))
        }
        return urls
    }
}
