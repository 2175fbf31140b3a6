import ArgumentKit
import Findings
import InboxCards

/// Every command the tool offers: its help, its options, and the function that runs it.
enum CommandTable {
    static let version = "inbox-assets 0.1.0"

    static let formatTextJSON = Option.value(
        "format", help: "Output format.", default: "text", choices: ["text", "json"])
    /// `-o/--output FILE` of the commands that write a report.
    static let outputFile = Option.value(
        "output", "file", short: "o",
        help: "Write the report to this file (a new name or a regular file, replaced atomically; - is standard "
            + "output).")
    static let failOn = Option.value(
        "fail-on",
        help: "Exit 1 when a finding at or above this level exists (degrade: any card renders classic).",
        default: "error", choices: ["error", "warning", "degrade", "never"])

    /// The options that decide which cards a campaign becomes (resolve, check, prefetch, export).
    static let cardOptions: [Option] = [
        .value(
            "sdk", help: "InboxKit (iOS) SDK profile to model; all = one card per profile.", default: "7.2",
            choices: ["7.0", "7.1", "7.2", "all"]),
        .value(
            "platform", help: "Platform(s) to resolve for.", default: "ios", choices: ["ios", "android", "all"]),
        .value(
            "android-sdk", "version",
            help: "Android (pushwoosh-inbox-ui) SDK profile: 6.11 (legacy row only), 6.12, 6.13, 6.15 (6.13's cards, "
                + "6.15's taps); all = one card per profile.", default: AndroidProfile.latest.rawValue,
            choices: AndroidProfile.allCases.map(\.rawValue) + ["all"]),
        .flag(
            "android-heuristic",
            help: "Model PushwooshInboxStyle.richCardsHeuristicEnabled = true (off in the SDK): Android picks a card "
                + "kind for messages without a displayType instead of the legacy row."),
        .value(
            "at", "date",
            help: "Judge expiry (feed rt, inbox_date, push inbox_params.rt) at this ISO 8601 date instead of now, "
                + "e.g. 2026-12-01 or 2026-12-01T12:00:00Z."),
    ]

    static let resolve = Command(
        "resolve",
        abstract: "Work out which InboxKit card every message becomes, and which degrade to classic.",
        discussion: """
            Reads createMessage requests, inbox feed dumps and push payloads (one object, an array, or NDJSON)
            and resolves every message per SDK profile (iOS InboxKit, Android inbox-ui), platform and language,
            without touching the network. Degraded cards carry the reason and the line the SDK logs; messages
            an inbox would not show (deleted, expired at --at, missing feed keys) get no card and say why.
            """,
        arguments: [
            Positional(
                "inputs", help: "Campaign files (createMessage, feed dump, push payloads); - reads standard input.",
                repeating: true)
        ],
        options: cardOptions + [
            .value(
                "force-kind", "kind",
                help: "Model InboxKit's forceCellKind (iOS only): this kind for every message, no degrade checks.",
                choices: ["banner", "captioned", "classic", "carousel", "video", "wallet"]),
            .value(
                "format", help: "Output format (ndjson: one JSON object per card, then a summary line).",
                default: "text", choices: ["text", "json", "ndjson"]),
            outputFile,
            failOn,
        ] + InputLimits.options)

    static let root = Command(
        "inbox-assets",
        abstract: "Pre-flight Pushwoosh InboxKit campaigns: cards, assets, passes.",
        discussion: """
            Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 an input is unreadable
            or invalid, or an output path unusable; 64 usage error; 70 internal error; 74 output could not be
            written; 141 standard output closed by its reader.
            """,
        subcommands: [
            CheckCommand.command, resolve, ProbeCommand.command, PassCommand.command, StoreCommand.command,
            PrefetchCommand.command, ExportCommand.command, ConfigCommand.command,
        ].map(ConfigCommand.withConfigOption))

    /// Runs a parsed command and returns its exit code.
    static func run(_ invocation: Invocation) async -> Int32 {
        do {
            let invocation = try ConfigCommand.applied(to: invocation)  // inbox-assets.json's option defaults
            switch invocation.path {
            case ["config"]: return try ConfigCommand.run(invocation)
            case ["resolve"]: return try ResolveCommand.run(invocation)
            case ["probe"]: return try await ProbeCommand.run(invocation)
            case ["check"]: return try await CheckCommand.run(invocation)
            case ["prefetch"]: return try await PrefetchCommand.run(invocation)
            case ["export"]: return try await ExportCommand.run(invocation)
            case let path where path.first == "store": return try StoreCommand.run(invocation)
            case let path where path.first == "pass": return try await PassCommand.run(invocation)
            default:
                Console.err("Error: no implementation for '\(invocation.path.joined(separator: " "))'\n")
                return ExitCode.internalError
            }
        } catch let failure as CommandFailure {
            Console.err("Error: \(ControlCharacters.escaped(failure.message))\n")
            return failure.status
        } catch let usage as UsageError {
            Console.err(usage.rendered)
            return ExitCode.usage
        } catch {
            Console.err("Error: internal error: \(error)\n")
            return ExitCode.internalError
        }
    }
}
