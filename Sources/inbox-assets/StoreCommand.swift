import ArgumentKit
import AssetStore
import Foundation
import Preflight
import StrictJSON

/// `inbox-assets store stats|ls|verify|gc`: look after the content-addressed asset store.
enum StoreCommand {
    static let storeOption = Option.value(
        "store", "dir", help: "Store directory (default: $XDG_CACHE_HOME/inbox-assets, else ~/.cache/inbox-assets).")

    static let command = Command(
        "store", abstract: "Inspect and maintain the content-addressed asset store.",
        subcommands: [
            Command(
                "stats", abstract: "Count entries, blobs, bytes, orphans and temporary files.",
                options: [storeOption, CommandTable.formatTextJSON]),
            Command(
                "ls", abstract: "List stored URLs with size, content type, HTTP status and hash.",
                options: [storeOption, CommandTable.formatTextJSON]),
            Command(
                "verify",
                abstract: "Re-hash every blob and check every record; exit 1 when anything is lost or wrong.",
                options: [storeOption, CommandTable.formatTextJSON]),
            Command(
                "gc",
                abstract:
                    "Remove orphan blobs and temporary files; with --max-size, least-recently-used entries (never what "
                    + "a running job holds).",
                options: [
                    storeOption,
                    .value("max-size", "size", help: "Keep at most this many bytes of blobs (e.g. 500M, 2G)."),
                    CommandTable.formatTextJSON,
                ]),
        ])

    /// Refuses a store directory that does not exist, for the commands that only read the store (`store ls`,
    /// `stats`, `verify`, `check --offline`, `export --offline`): creating it would report an empty store for a
    /// typo. Only the writers (`prefetch`, `check`, `export`, `store gc`) create it.
    /// - Throws: ``CommandFailure`` (exit 2): `no store at DIR; run prefetch first or check --store`.
    static func requireExisting(_ invocation: Invocation) throws(CommandFailure) {
        // An offline run with a remote cache fills a fresh local store from the remote (the assembly step of a
        // sharded run on a new runner), so it writes the store and may create it.
        if invocation.flag("offline"), NetworkOptions.remoteURL(invocation) != nil { return }
        let directory: String
        do {
            directory = try invocation.value("store") ?? AssetStore.defaultDirectory()
        } catch {
            throw CommandFailure(message: "cannot open the store: \(error)", status: ExitCode.invalidInput)
        }
        var status = stat()
        guard stat(directory, &status) == 0 else {
            let reason = errno == ENOENT ? "" : " (\(SystemError.text(errno)))"
            throw CommandFailure(
                message: "no store at \(directory)\(reason); run prefetch first or check --store",
                status: ExitCode.invalidInput)
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw CommandFailure(
                message: "no store at \(directory) (not a directory); run prefetch first or check --store",
                status: ExitCode.invalidInput)
        }
    }

    static func run(_ invocation: Invocation) throws -> Int32 {
        if invocation.path.last != "gc" { try requireExisting(invocation) }
        let store: AssetStore
        do {
            store = try AssetStore(directory: invocation.value("store"))
        } catch {
            throw CommandFailure(message: "cannot open the store: \(error)", status: ExitCode.invalidInput)
        }
        let budget = try invocation.byteSize("max-size")
        let json = invocation.value("format") == "json"
        let style = TextStyle(color: Console.stdoutWantsColor)
        do {
            switch invocation.path.last {
            case "stats":
                let stats = try store.stats()
                Console.out(
                    json
                        ? stats.json.serialized(pretty: true) + "\n"
                        : StoreTextReport.stats(stats, directory: store.directory))
                return ExitCode.success
            case "ls":
                let entries = try store.list()
                Console.out(
                    json
                        ? JSONValue.array(entries.map(\.json)).serialized(pretty: true) + "\n"
                        : StoreTextReport.list(entries, style: style))
                return ExitCode.success
            case "verify":
                let report = try store.verify()
                Console.out(
                    json ? report.json.serialized(pretty: true) + "\n" : StoreTextReport.verify(report, style: style))
                return report.isClean ? ExitCode.success : ExitCode.findings
            default:
                let report = try store.gc(maxBytes: budget)
                var text = StoreTextReport.gc(report)
                if report.keptHeld > 0 {
                    // Why the budget may not be met yet: never a failure, the next gc after those runs takes the rest.
                    text += "kept \(report.keptHeld) blobs that running jobs hold; the next gc after them takes "
                    text += "the rest\n"
                }
                Console.out(json ? report.json.serialized(pretty: true) + "\n" : text)
                return ExitCode.success
            }
        } catch {
            throw CommandFailure(message: error.description, status: ExitCode.invalidInput)
        }
    }
}
