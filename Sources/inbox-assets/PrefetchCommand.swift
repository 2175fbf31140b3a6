import ArgumentKit
import AssetStore
import Findings
import Foundation
import HTTPFetch
import InboxCards
import Preflight

/// `inbox-assets prefetch INPUT...`: resolve the campaign, then fill the store with every asset its cards use.
enum PrefetchCommand {
    static let video = Option.flag(
        "video", help: "Also download videos: the file, or the HLS playlists, all their segments and AES-128 keys.")

    static let command = Command(
        "prefetch", abstract: "Download every asset the campaign's cards use into the content-addressed store.",
        discussion: """
            Hero, avatar and icon images, carousel slides, posters and passes; videos only with --video.
            Fresh stored copies (Cache-Control max-age) are not requested, stale ones are revalidated
            (If-None-Match / If-Modified-Since), damaged ones are fetched again. Exit 1 when any asset
            failed, 2 when an input or the store is unusable.
            """,
        arguments: [
            Positional(
                "inputs", help: "Campaign files (createMessage, feed dump, push payloads); - reads standard input.",
                repeating: true)
        ],
        options: [StoreCommand.storeOption, video] + CommandTable.cardOptions + [
            CommandTable.formatTextJSON, NetworkOptions.quiet,
        ] + InputLimits.options + NetworkOptions.options + NetworkOptions.remoteOptions + [ShardOption.option])

    static func run(_ invocation: Invocation) async throws -> Int32 {
        let run = try await Prefetch.run(invocation, offline: false, label: "prefetch", requireWritableStore: true)
        if let finding = run.remoteFinding {
            Console.err(
                "warning \(finding.code): \(ControlCharacters.escaped(Redaction.redactText(finding.message)))\n")
        }
        let style = TextStyle(color: Console.stdoutWantsColor)
        if invocation.value("format") == "json" {
            let report = RetrievalReport.json(
                run.assets, summary: run.summary, store: run.store.directory, roles: run.plan.roles)
            Console.out(report.serialized(pretty: true) + "\n")
        } else {
            Console.out(
                RetrievalReport.text(run.assets, summary: run.summary, store: run.store.directory, style: style))
        }
        let status = try run.finish()
        // Everything is written (stdout is unbuffered). Exiting here, with the run still alive, skips freeing every
        // asset, card and message one by one (as `resolve` does): memory the process gives back anyway.
        withExtendedLifetime(run) { exit(status) }
    }
}

/// The part `prefetch` and `export` share: read and resolve the inputs, plan, retrieve.
struct Prefetch {
    var plan: AssetPlan
    var store: AssetStore
    var assets: [RetrievedAsset]
    var summary: RetrievalSummary
    /// Messages about inputs that could not be read or used (exit 2).
    var inputErrors: [String]
    /// The `store.readOnly` warning when the store could not be written (export only: prefetch stops instead).
    var storeFinding: Finding?
    /// The `store.remoteUnavailable` warning when the remote cache could not be used.
    var remoteFinding: Finding?
    /// The resolved run with its messages, kept for as long as this value lives: a caller that exits when done
    /// never pays for tearing them down, and the retrieval does not wait for that either.
    var resolved: ResolveJob.Outcome

    /// Runs the retrieval. Offline, only the store is read and nothing is requested.
    /// - Parameter requireWritableStore: `true` for `prefetch`, whose whole job is writing: a store that cannot be
    ///   written is exit 2 before any download. `false` for `export`: the run goes on with what the store holds and
    ///   keeps new downloads in memory (``storeFinding``).
    /// - Throws: ``CommandFailure`` (exit 2) when the store cannot be opened (or, for prefetch, written),
    ///   ``UsageError`` for a bad command line.
    static func run(_ invocation: Invocation, offline: Bool, label: String, requireWritableStore: Bool) async throws
        -> Prefetch
    {
        let operands = invocation.positional("inputs")
        if operands.filter({ $0 == "-" }).count > 1 {
            throw invocation.usageError("Standard input ('-') can be given only once")
        }
        let options = try ResolveCommand.resolveOptions(invocation)
        let limits = try InputLimits.parse(invocation)
        let shard = try ShardOption.parse(invocation)
        if offline { try StoreCommand.requireExisting(invocation) }
        var inputs: [(name: String, bytes: [UInt8])] = []
        var inputErrors: [String] = []
        for operand in operands {
            do {
                inputs.append((operand, try InputFiles.read(operand, limits: limits)))
            } catch {
                inputErrors.append(error.message)
            }
        }
        let store: AssetStore
        do {
            // Batched index records: one lock, directory fsync and log append per batch instead of per asset;
            // `retrieveAll` flushes them when it ends.
            store = try AssetStore(directory: invocation.value("store"), batching: .run)
        } catch {
            throw CommandFailure(message: "cannot open the store: \(error.message)", status: ExitCode.invalidInput)
        }
        let engine = try NetworkOptions.engine(invocation)
        let remote = try NetworkOptions.remote(invocation)
        let retriever = try AssetRetriever.forCommand(
            invocation, fetcher: engine, store: store, offline: offline,
            unwritableStore: requireWritableStore ? .fail : .keepInMemory, remote: remote)
        if requireWritableStore {
            do {
                try retriever.checkStoreWritable()
            } catch {
                await engine.shutdown()
                throw CommandFailure(
                    message: "cannot write to the store \(store.directory): \(error.message)",
                    status: ExitCode.invalidInput)
            }
        }
        let outcome = ResolveJob(options: options, readerOptions: limits.readerOptions).run(
            inputs, keepingMessages: true, readingAheadWith: retriever, shard: shard)
        inputErrors += outcome.unusableInputs.map(\.description)
        let plan = AssetPlan.make(outcome.run.cards).sharded(shard)
        let progress = ProgressLine(label: label, quiet: invocation.flag("quiet"))
        let downloads = plan.downloadRequests(retriever.limits)
        var assets = await retriever.retrieveAll(downloads) { snapshot in
            progress.update(done: snapshot.done, total: snapshot.total, bytes: snapshot.bytes, failed: snapshot.failed)
        }
        assets += plan.refusedAssets()  // URLs with a control character: never requested, reported failed
        let videos = plan.urls(.video)
        if invocation.flag("video") {
            for url in videos {
                let base = assets.count
                let bytesSoFar = assets.reduce(0) { $0 + $1.bytesFetched }
                let failedSoFar = assets.filter { !$0.isOK }.count
                assets += await retriever.downloadVideo(url) { snapshot in
                    progress.update(
                        done: base + snapshot.done, total: base + snapshot.total, bytes: bytesSoFar + snapshot.bytes,
                        failed: failedSoFar + snapshot.failed)
                }
            }
        }
        await engine.shutdown()
        let remoteFinding = await NetworkOptions.finishRemote(remote)
        progress.finish()
        if invocation.flag("video") { assets = Self.unique(assets) }
        let summary = RetrievalSummary(assets, skippedVideos: invocation.flag("video") ? 0 : videos.count)
        return Prefetch(
            plan: plan, store: store, assets: assets, summary: summary, inputErrors: inputErrors,
            storeFinding: retriever.storeFinding, remoteFinding: remoteFinding, resolved: outcome)
    }

    /// Prints the input and store errors and maps the run to its exit code: 2 for an unusable input or a store
    /// that failed mid-run, 1 when any asset failed, else 0.
    func finish() throws -> Int32 {
        for message in inputErrors { Console.err("Error: \(message)\n") }
        if let failure = assets.indices.lazy.compactMap({ assets[$0].storeError }).first {
            throw CommandFailure(
                message: "the store \(store.directory) failed: \(failure.message); nothing half-written was kept",
                status: ExitCode.invalidInput)
        }
        if !inputErrors.isEmpty { return ExitCode.invalidInput }
        return summary.failed > 0 ? ExitCode.findings : ExitCode.success
    }

    /// Two videos sharing segments list them twice; keep the first.
    private static func unique(_ assets: [RetrievedAsset]) -> [RetrievedAsset] {
        var seen: Set<String> = []
        return assets.filter { seen.insert($0.url).inserted }
    }
}

extension AssetPlan {
    /// Roles by URL, for the JSON report.
    var roles: [String: Set<AssetReference.Role>] {
        Dictionary(items.map { ($0.url, $0.roles) }, uniquingKeysWith: { $0.union($1) })
    }
}

extension AssetRetriever {
    /// The retriever `check`, `prefetch` and `export` use: every body capped by `--max-size` when it is given, else by
    /// what it is for (``BodyLimits``: 64 MiB for images, 10 MiB for passes, none for `--video` bodies, which stream),
    /// in the store as in memory.
    /// - Parameters:
    ///   - unwritableStore: `.keepInMemory` (check, export) or `.fail` (prefetch).
    ///   - remote: the shared remote store (`--remote-cache`), if any.
    static func forCommand(
        _ invocation: Invocation, fetcher: FetchEngine, store: AssetStore?, offline: Bool,
        unwritableStore: UnwritableStorePolicy = .keepInMemory, remote: RemoteTier? = nil
    ) throws -> AssetRetriever {
        let maxSize = try invocation.byteSize("max-size")
        return AssetRetriever(
            fetcher: fetcher, store: store, offline: offline, memoryLimit: maxSize ?? (64 << 20),
            limits: BodyLimits(maxSize: maxSize), unwritableStore: unwritableStore, remote: remote)
    }
}
