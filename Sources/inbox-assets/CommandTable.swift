import ArgumentKit

/// Every command the tool offers: its help, its options, and the function that runs it.
enum CommandTable {
    static let version = "inbox-assets 0.1.0"

    static let formatTextJSON = Option.value(
        "format", help: "Output format.", default: "text", choices: ["text", "json"])
    static let failOn = Option.value(
        "fail-on",
        help: "Exit 1 when a finding at or above this level exists (degrade: any card renders classic).",
        default: "error", choices: ["error", "warning", "degrade", "never"])

    static let resolve = Command(
        "resolve",
        abstract: "Work out which InboxKit card every message becomes, and which degrade to classic.",
        discussion: """
            Reads createMessage requests, inbox feed dumps and push payloads (one object, an array, or NDJSON)
            and resolves every message per SDK profile, platform and language, without touching the network.
            Degraded cards carry the reason and the WARN line the SDK logs.
            """,
        arguments: [
            Positional(
                "inputs", help: "Campaign files (createMessage, feed dump, push payloads); - reads standard input.",
                repeating: true)
        ],
        options: [
            .value(
                "sdk", help: "InboxKit SDK profile to model; all = one card per profile.", default: "7.2",
                choices: ["7.0", "7.1", "7.2", "all"]),
            .value(
                "platform", help: "Platform(s) to resolve for.", default: "ios", choices: ["ios", "android", "all"]),
            .value(
                "force-kind", "kind", help: "Model forceCellKind: this kind for every message, no degrade checks.",
                choices: ["banner", "captioned", "classic", "carousel", "video", "wallet"]),
            formatTextJSON,
            failOn,
        ])

    static let root = Command(
        "inbox-assets",
        abstract: "Pre-flight Pushwoosh InboxKit campaigns: cards, assets, passes.",
        discussion: """
            Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 an input is unreadable
            or invalid; 64 usage error; 70 internal error.
            """,
        subcommands: [
            CheckCommand.command, resolve, ProbeCommand.command, PassCommand.command, StoreCommand.command,
            PrefetchCommand.command, ExportCommand.command,
        ])

    /// Runs a parsed command and returns its exit code.
    static func run(_ invocation: Invocation) async -> Int32 {
        do {
            switch invocation.path {
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
            Console.err("Error: \(failure.message)\n")
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
