import ArgumentKit
import AssetStore
import Foundation
import InboxCards
import Preflight
import WalletPass

/// `inbox-assets check`: the main job — which cards degrade to classic, which render broken, and why.
enum CheckCommand {
    static let command = Command(
        "check",
        abstract:
            "Pre-flight a campaign: resolve cards, fetch and inspect every asset, report degraded and broken cards.",
        discussion: """
            Resolves every message (as resolve does), fetches each distinct asset URL once (images and passes are
            downloaded into the store and revalidated on later runs; videos are probed: a byte-range request, or
            the HLS playlists, the first, middle and last segment of each, their init segments and AES-128 keys),
            inspects the bytes (image format and size, pass
            signature and chain, video container) and reports per card whether it degrades to classic or renders
            broken. Exit codes as for resolve: 1 when a finding is at or above --fail-on.
            """,
        arguments: [
            Positional(
                "inputs", help: "Campaign files (createMessage, feed dump, push payloads); - reads standard input.",
                repeating: true)
        ],
        options: [
            .value(
                "format", help: "Output format.", default: "text",
                choices: ["text", "json", "ndjson", "junit", "html", "sarif", "markdown"]),
            CommandTable.outputFile,
            CommandTable.failOn,
        ] + CICommand.checkOptions + CommandTable.cardOptions + [
            StoreCommand.storeOption,
            .flag("no-store", help: "Fetch into memory only; read and write no store."),
            .flag("offline", help: "Use only what the store holds; report what is missing. No network."),
            PassCommand.trust,
            .value(
                "hls-segments", "N",
                help: "HLS segments fetched per VOD media playlist, spread from the first to the last (default 3: "
                    + "first, middle, last; a larger N finds a missing segment anywhere, at N requests a playlist)."),
            NetworkOptions.quiet,
        ] + AppIdentityOptions.options + InputLimits.options + NetworkOptions.options + NetworkOptions.remoteOptions
            + [ShardOption.option])

    static func run(_ invocation: Invocation) async throws -> Int32 {
        if invocation.flag("no-store") && invocation.value("store") != nil {
            throw invocation.usageError("--store and --no-store cannot be used together")
        }
        if invocation.flag("no-store") && invocation.flag("offline") {
            throw invocation.usageError("--offline needs the store; it cannot be used with --no-store")
        }
        if invocation.flag("no-store") && NetworkOptions.remoteURL(invocation) != nil {
            throw invocation.usageError("--remote-cache needs the store; it cannot be used with --no-store")
        }
        let resolveOptions = try ResolveCommand.resolveOptions(invocation)
        let platform = try PlatformOptions.resolve(invocation)
        let limits = try InputLimits.parse(invocation)
        // The report's destination is checked before any input is read or asset fetched.
        let output = try OutputTarget.prepare(invocation.value("output"))
        if invocation.flag("offline") { try StoreCommand.requireExisting(invocation) }
        let iconFile = try AppIdentityOptions.readIconFile(invocation, limits: limits)
        let verdict = try CICommand.verdict(invocation)
        let (inputs, unreadable) = try ResolveCommand.openInputs(invocation, limits: limits)

        let store: AssetStore?
        do {
            store = invocation.flag("no-store") ? nil : try AssetStore(directory: invocation.value("store"))
        } catch {
            throw CommandFailure(message: "cannot open the store: \(error)", status: ExitCode.invalidInput)
        }
        let verifier: PassVerifier
        do {
            verifier = try PassVerifier(extraTrustFiles: invocation.values("trust"))
        } catch {
            throw CommandFailure(message: "\(error)", status: ExitCode.invalidInput)
        }
        let engine = try NetworkOptions.engine(invocation)
        let remote = try NetworkOptions.remote(invocation)
        let retriever = try AssetRetriever.forCommand(
            invocation, fetcher: engine, store: store, offline: invocation.flag("offline"), remote: remote)
        var checkOptions = CheckOptions(
            resolve: resolveOptions, reader: limits.readerOptions,
            hlsSegments: try invocation.int("hls-segments", in: 1...100_000) ?? 3,
            shard: try ShardOption.parse(invocation))
        checkOptions.app = platform.app
        let pipeline = CheckPipeline(
            options: checkOptions,
            retriever: retriever,
            passVerifier: verifier)
        let progress = ProgressLine(label: "assets", quiet: invocation.flag("quiet"))
        // Judged once, below, at this run's --fail-on and with every input finding in.
        var prepared = await pipeline.prepare(inputs) { snapshot in
            progress.update(done: snapshot.done, total: snapshot.total, bytes: snapshot.bytes, failed: snapshot.failed)
        }
        let format = invocation.value("format")
        let app =
            format == "html" ? await AppIdentityOptions.identity(invocation, file: iconFile, engine: engine) : .init()
        await engine.shutdown()
        if let finding = await NetworkOptions.finishRemote(remote) {
            prepared.inputFindings.append(SourcedFinding(source: remote?.cache.redactedURL ?? "", finding: finding))
        }
        progress.finish()
        prepared.inputFindings += platform.findings + unreadable.map(\.finding)

        // JSON, NDJSON, JUnit, SARIF and Markdown are written as the cards are resolved again, checked and judged:
        // no card is held beyond the one being written; text too (three walks: the table's widths, its rows, the
        // findings). HTML renders the whole judged report (it caps the cards it draws: HTMLReport.PreviewLimits).
        let keepingEntries = invocation.value("write-baseline") != nil
        var streamed: CheckReportStream.Result?
        switch format {
        case "json", "ndjson":
            try JSONReportStream.write(to: output, lines: format == "ndjson") { writer in
                streamed = CheckReportStream.write(
                    prepared, verdict: verdict, keepingBaselineEntries: keepingEntries, lines: format == "ndjson",
                    to: &writer)
            }
        case "junit":
            let stream = try output.stream()
            streamed = JUnitReport.write(prepared, verdict: verdict, keepingBaselineEntries: keepingEntries) {
                stream.write($0)
            }
            try stream.finish()
        case "sarif":
            try JSONReportStream.write(to: output) { writer in
                streamed = SarifReport.write(
                    prepared, verdict: verdict, keepingBaselineEntries: keepingEntries,
                    version: CICommand.sarifVersion,
                    source: { name in inputs.first { $0.name == name }.flatMap { try? $0.positionBytes() } },
                    to: &writer)
            }
        case "text":
            let color = output.isStandardOutput && Console.stdoutWantsColor
            let width = output.isStandardOutput ? Console.width(of: STDOUT_FILENO) : nil
            let stream = try output.stream()
            streamed = CheckTextReport.write(
                prepared, verdict: verdict, keepingBaselineEntries: keepingEntries, style: TextStyle(color: color),
                width: width
            ) { bytes in bytes.withUnsafeBytes(stream.write) }
            try stream.finish()
        case "markdown":
            let page = MarkdownReport.render(prepared, verdict: verdict, keepingBaselineEntries: keepingEntries)
            try output.write(page.text)
            streamed = page.result
        default:
            break
        }
        let failing: Bool
        if let streamed {
            try CICommand.writeBaseline(invocation, Baseline(entries: streamed.baselineEntries ?? []))
            failing = streamed.summary.failing
        } else {
            var report = prepared.report()
            verdict.apply(to: &report)
            try CICommand.writeBaseline(invocation, Baseline.of(report))
            try output.write(HTMLReport.render(report, image: prepared.body(for:), app: app))
            failing = report.failing
        }
        // A file that changed (or could not be read again) while the report resolved its cards again: the report is
        // incomplete.
        let changed = prepared.cards.failure.map { [$0] } ?? []
        return ResolveCommand.exitCode(
            unreadable: unreadable, unusable: prepared.unusableInputs + changed, failing: failing)
    }
}
