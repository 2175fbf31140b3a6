import ArgumentKit
import Findings
import Foundation
import InboxCards
import Preflight
import StrictJSON

/// `inbox-assets resolve`: read inputs, resolve cards, print the report, map findings to the exit code. It exits
/// the process itself once the report is written (see the end of ``run(_:)``).
enum ResolveCommand {
    static func run(_ invocation: Invocation) throws -> Int32 {
        Console.growHeapInLargeSteps()
        let options = try resolveOptions(invocation)
        let limits = try InputLimits.parse(invocation)
        // The report's destination is checked before any input is read (a closed standard output too).
        let output = try OutputTarget.prepare(invocation.value("output"))
        let (inputs, unreadable) = try openInputs(invocation, limits: limits)
        // The work runs on a thread of its own: it is CPU-bound for as long as the input is large and would block a
        // cooperative thread, and a new thread gets a new malloc arena, which starts with the large heap steps set
        // above (this thread's arena already grows page by page: 16,000 mprotect calls for 100,000 messages).
        let worker = Thread {
            report(
                inputs: inputs, unreadable: unreadable, options: options, limits: limits, output: output,
                invocation: invocation)
        }
        worker.stackSize = 8 << 20
        worker.start()
        while true { sleep(3600) }  // `report` exits the process
    }

    /// Resolves, prints the report and exits with the outcome's status.
    private static func report(
        inputs: [CampaignInput], unreadable: [CommandFailure], options: ResolveOptions,
        limits: InputLimits, output: OutputTarget, invocation: Invocation
    ) -> Never {
        // The cards are not held: a first read resolves them, counts them, works out the feed order and (JSON,
        // NDJSON) writes each into a spool file, which the report copies with the positions; the text report lays
        // out every row, so it holds them. Without a whole spool (an unwritable or full $TMPDIR) the report resolves
        // them again.
        let format = invocation.value("format")
        let spool: CardSpool? =
            switch format {
            case "json": try? CardSpool(format: .json)
            case "ndjson": try? CardSpool(format: .ndjson)
            default: nil
            }
        var outcome = CardResolver(options: options).stream(
            inputs, readerOptions: limits.readerOptions, card: { spool?.add($0) })
        outcome.inputFindings += unreadable.map(\.finding)

        do throws(CommandFailure) {
            switch format {
            // Streamed: the report of 100,000 cards is never one tree, one 65 MB buffer or a copy of it.
            case "json", "ndjson":
                var failure: CardSpool.Failure?
                try JSONReportStream.write(to: output, lines: format == "ndjson") { writer in
                    guard let spool, spool.isComplete else {
                        return format == "json" ? outcome.write(to: &writer) : outcome.writeLines(to: &writer)
                    }
                    do throws(CardSpool.Failure) {
                        try outcome.write(to: &writer, spool: spool)
                    } catch {
                        failure = error
                    }
                }
                if let failure { throw CommandFailure(message: failure.description, status: ExitCode.ioError) }
            default:
                let run = outcome.materialized()
                var text: [UInt8] = []
                let width = output.isStandardOutput ? Console.width(of: STDOUT_FILENO) : nil
                ResolveTextReport.write(
                    run, style: TextStyle(color: output.isStandardOutput && Console.stdoutWantsColor),
                    width: width, to: &text)
                let stream = try output.stream()
                text.withUnsafeBytes(stream.write)
                try stream.finish()
                // Exiting with the run alive skips freeing every card one by one (memory the process gives back).
                withExtendedLifetime(run) {}
            }
        } catch {
            Console.err("Error: \(ControlCharacters.escaped(error.message))\n")
            exit(error.status)
        }
        let changed = outcome.cards.failure.map { [$0] } ?? []
        let status = exitCode(
            invocation, unreadable: unreadable, unusable: outcome.unusableInputs + changed,
            worst: outcome.maxSeverity, degraded: outcome.degraded)
        exit(status)
    }

    /// `--sdk`, `--platform`, `--android-sdk`, `--android-heuristic`, `--at` and `--force-kind` (when the command
    /// has it).
    static func resolveOptions(_ invocation: Invocation) throws(UsageError) -> ResolveOptions {
        let profiles: [SDKProfile] =
            invocation.value("sdk") == "all" ? SDKProfile.allCases : [SDKProfile(rawValue: invocation.value("sdk")!)!]
        let platforms: [Platform] =
            invocation.value("platform") == "all"
            ? Platform.allCases : [Platform(rawValue: invocation.value("platform")!)!]
        let android = invocation.value("android-sdk") ?? AndroidProfile.latest.rawValue
        let androidProfiles: [AndroidProfile] =
            android == "all" ? AndroidProfile.allCases : [AndroidProfile(rawValue: android) ?? .latest]
        var at: Int64?
        if let text = invocation.value("at") {
            guard let date = PassCommand.parseDate(text) else {
                throw invocation.invalid(
                    text, for: "at", hint: "Expected an ISO 8601 date such as 2026-12-01 or 2026-12-01T12:00:00Z.")
            }
            at = Int64(date.timeIntervalSince1970.rounded(.down))
        }
        return ResolveOptions(
            profiles: profiles, platforms: platforms, forceKind: invocation.value("force-kind").flatMap(CardKind.init),
            androidProfiles: androidProfiles, androidHeuristic: invocation.flag("android-heuristic"), at: at)
    }

    /// Opens the `<inputs>` operands within `limits` (``InputFiles/open(_:limits:)``: regular files stay on disk);
    /// unreadable ones are returned (they become `input.unreadable` or `input.tooLarge` findings and exit 2).
    static func openInputs(
        _ invocation: Invocation, limits: InputLimits
    ) throws(UsageError) -> (inputs: [CampaignInput], unreadable: [CommandFailure]) {
        let operands = invocation.positional("inputs")
        if operands.filter({ $0 == "-" }).count > 1 {
            throw invocation.usageError("Standard input ('-') can be given only once")
        }
        var inputs: [CampaignInput] = []
        var unreadable: [CommandFailure] = []
        for operand in operands {
            do {
                inputs.append(try InputFiles.open(operand, limits: limits))
            } catch {
                unreadable.append(error)
            }
        }
        return (inputs, unreadable)
    }

    /// Prints what could not be read and maps the outcome to the exit code: 2 for unreadable or unusable
    /// inputs, else 1 when `--fail-on` is reached, else 0.
    static func exitCode(
        _ invocation: Invocation, unreadable: [CommandFailure], unusable: [InputError], worst: Severity?,
        degraded: Int
    ) -> Int32 {
        let policy = FailPolicy(rawValue: invocation.value("fail-on")!)!
        return exitCode(
            unreadable: unreadable, unusable: unusable, failing: policy.fails(worst: worst, degradedCards: degraded))
    }

    /// The same, for a run whose verdict is made (`check`: ``Verdict``).
    static func exitCode(unreadable: [CommandFailure], unusable: [InputError], failing: Bool) -> Int32 {
        for failure in unreadable { Console.err("Error: \(ControlCharacters.escaped(failure.message))\n") }
        for error in unusable { Console.err("Error: \(ControlCharacters.escaped(error.description))\n") }
        if !unreadable.isEmpty || !unusable.isEmpty { return ExitCode.invalidInput }
        return failing ? ExitCode.findings : ExitCode.success
    }
}
