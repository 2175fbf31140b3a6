import ArgumentKit
import Findings
import Foundation
import HTTPFetch
import Preflight
import WalletPass

/// One input of `pass verify`/`pass audit` once operands are expanded (directories walked), in input order.
enum PassInput: Sendable {
    /// A path named on the command line: when it cannot be read the run stops with exit 2.
    case operand(String)
    /// A file found by a directory walk: when it cannot be read that is the pass's finding.
    case found(String)
    /// An http(s) URL, downloaded through the engine.
    case url(String)

    /// The operands in order, directories replaced by the passes and bundles under them (sorted); with `--shard
    /// I/N`, only the inputs whose path or URL (as given, or as the walk found it) falls in shard I — the same
    /// split on every worker that runs the command in the same layout.
    static func expand(_ operands: [String], shard: Shard) -> [PassInput] {
        let all = expand(operands)
        guard shard != .all else { return all }
        return all.filter { shard.contains($0.name) }
    }

    /// The path or URL.
    var name: String {
        switch self {
        case .operand(let name), .found(let name), .url(let name): name
        }
    }

    /// The operands in order, directories replaced by the passes and bundles under them (sorted).
    static func expand(_ operands: [String]) -> [PassInput] {
        var inputs: [PassInput] = []
        for operand in operands {
            var isDirectory: ObjCBool = false
            if operand.hasPrefix("http://") || operand.hasPrefix("https://") {
                inputs.append(.url(operand))
            } else if FileManager.default.fileExists(atPath: operand, isDirectory: &isDirectory), isDirectory.boolValue
            {
                inputs += PassVerifier.passFiles(under: operand).map(PassInput.found)
            } else {
                inputs.append(.operand(operand))
            }
        }
        return inputs
    }
}

/// What one input gave: a verdict, or an operand that cannot be read (exit 2, reported on standard error).
enum PassOutcome: Sendable {
    case result(PassResult)
    case unreadable(CommandFailure)
}

/// Verifies inputs on `jobs` cores at once and hands each verdict over as soon as it may be printed: in input
/// order (a verdict waits only for the ones before it), or with `unordered` as it completes. At most `window`
/// inputs are started and not yet handed over, so memory stays flat in the number of inputs.
struct PassRunner: Sendable {
    let verifier: PassVerifier
    let limits: InputLimits
    let engine: FetchEngine?
    let jobs: Int
    let unordered: Bool
    /// `--quiet`: no progress line (shown on a terminal while URLs download).
    var quiet = false
    /// `pass audit --web-service`: each pass's update web service is asked too (its findings join the pass's).
    var webService: PassWebServiceCheck? = nil

    /// `--jobs N` (default: the cores this process may use) and `--unordered`.
    static let options: [Option] = [
        .value(
            "jobs", "n", help: "Passes verified at once (default: the number of cores).",
            default: String(ProcessInfo.processInfo.activeProcessorCount)),
        .flag("unordered", help: "Print each verdict as it completes instead of in input order."),
    ]

    /// Runs every input; `emit` is called once per input, from one task at a time.
    func run(_ inputs: [PassInput], emit: (Int, PassOutcome) -> Void) async {
        let progress = engine.map { _ in ProgressLine(label: "passes", quiet: quiet) }
        var done = 0
        await verifyAll(inputs) { index, outcome in
            done += 1
            progress?.update(done: done, total: inputs.count)
            emit(index, outcome)
        }
        progress?.finish()
        await engine?.shutdown()
    }

    private func verifyAll(_ inputs: [PassInput], emit: (Int, PassOutcome) -> Void) async {
        // Files only: as many tasks as --jobs, each reading and verifying, with no gate (an actor hop before and
        // after every pass cost more than it saved). Downloads wait on the network, not a core: enough tasks for
        // the engine's --concurrency, with --jobs slots for the verification.
        // In input order, a window of only --jobs passes left a task idle whenever it finished before the pass
        // ahead of it (head-of-line blocking); a few outcomes held back cost nothing and keep every core busy.
        let slots = VerifySlots(jobs, gated: engine != nil)
        let window = engine == nil ? max(jobs * 8, 1) : max(jobs * 4, (engine?.options.concurrency ?? 0) * 2, 1)
        await withTaskGroup(of: (Int, PassOutcome).self) { group in
            var next = 0
            var emitted = 0
            var running = 0
            var pending: [Int: PassOutcome] = [:]
            func startMore() {
                while next < inputs.count, unordered ? running < window : next < emitted + window {
                    let index = next
                    let input = inputs[index]
                    group.addTask { (index, await self.outcome(input, slots: slots)) }
                    next += 1
                    running += 1
                }
            }
            startMore()
            while let (index, outcome) = await group.next() {
                running -= 1
                if unordered {
                    emit(index, outcome)
                    emitted += 1
                } else {
                    pending[index] = outcome
                    while let ready = pending.removeValue(forKey: emitted) {
                        emit(emitted, ready)
                        emitted += 1
                    }
                }
                startMore()
            }
        }
    }

    private func outcome(_ input: PassInput, slots: VerifySlots) async -> PassOutcome {
        let path: String
        switch input {
        case .url(let url): return .result(await download(url, slots: slots))
        case .operand(let operand): path = operand
        case .found(let found): path = found
        }
        let bytes: [UInt8]
        do {
            bytes = try read(path)
        } catch {
            guard case .found = input else { return .unreadable(error) }
            let finding = Finding.error(PassFindingCode.fileUnreadable, error.message)
            return .result(.pass(PassVerification(source: path, findings: [finding])))
        }
        let result = await slots.run {
            verifier.verifyPassOrBundle(bytes: bytes, source: path, bundle: bundle(path))
        }
        return .result(await checkWebService(result, bytes: bytes))
    }

    /// With `--web-service`, each pass with a web service (a bundle's too) gets its `pass.webService.*` findings.
    private func checkWebService(_ result: PassResult, bytes: [UInt8]) async -> PassResult {
        guard let webService else { return result }
        switch result {
        case .pass(var pass):
            guard pass.facts?.webServiceURL != nil, let credentials = verifier.webServiceCredentials(bytes: bytes)
            else { return result }
            pass.findings += await webService.check(credentials)
            return .pass(pass)
        case .bundle(var bundle):
            guard bundle.passes.contains(where: { $0.facts?.webServiceURL != nil }) else { return result }
            let credentials = verifier.bundleWebServiceCredentials(bytes: bytes)
            for index in bundle.passes.indices {
                let entry = String(bundle.passes[index].source.split(separator: "#").last ?? "")
                guard bundle.passes[index].facts?.webServiceURL != nil, let found = credentials[entry] else { continue }
                bundle.passes[index].findings += await webService.check(found)
            }
            return .bundle(bundle)
        }
    }

    private func bundle(_ path: String) -> Bool { PassVerifier.isBundleName(path) }

    /// A pass file's bytes through the one input reader: at most one byte past the archive (or bundle) limit, so
    /// the verifier reports the size, and a FIFO or device that sends nothing gives up after `--input-timeout`.
    private func read(_ path: String) throws(CommandFailure) -> [UInt8] {
        var limits = self.limits
        limits.maxBytes = bundle(path) ? verifier.limits.maxBundleBytes : verifier.limits.maxArchiveBytes
        return try PassCommand.read(path, limits: limits)
    }

    /// Downloads a pass or bundle (at most the archive limit, the bundle limit for a `*.pkpasses` path) and
    /// verifies the bytes; a failed download is an invalid pass whose finding says why.
    private func download(_ url: String, slots: VerifySlots) async -> PassResult {
        guard let engine else {  // the runner makes an engine whenever an input is a URL: never valid by default
            let finding = Finding.error(
                PassFindingCode.fileUnreadable, "\(Redaction.redactURL(url)) was not downloaded")
            return .pass(PassVerification(source: url, findings: [finding]))
        }
        let path = String(url.prefix { $0 != "?" && $0 != "#" })
        let namedBundle = bundle(path)
        let sink = MemorySink(
            capacity: namedBundle ? verifier.limits.maxBundleBytes : verifier.limits.maxArchiveBytes)
        let outcome = await engine.get(url, into: sink)
        guard outcome.isOK else {
            return .pass(PassVerification(source: url, findings: outcome.finding.map { [$0] } ?? []))
        }
        let servedType = outcome.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        let servedBundle = servedType?.lowercased() == "application/vnd.apple.pkpasses"
        let bytes = sink.bytes
        let result = await slots.run {
            verifier.verifyPassOrBundle(bytes: bytes, source: url, bundle: namedBundle || servedBundle)
        }
        switch await checkWebService(result, bytes: bytes) {
        case .pass(var pass):
            if let finding = PassVerifier.checkContentType(outcome.contentType) { pass.findings.append(finding) }
            return .pass(pass)
        case .bundle(var bundle):
            if let finding = PassVerifier.checkContentType(outcome.contentType, bundle: true) {
                bundle.findings.append(finding)
            }
            return .bundle(bundle)
        }
    }
}

/// At most `count` verifications at once (`--jobs`), whatever the number of downloads in flight.
actor VerifySlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// `false`: every caller runs at once (the caller already bounds how many run).
    private let gated: Bool

    init(_ count: Int, gated: Bool = true) {
        free = max(1, count)
        self.gated = gated
    }

    /// Runs `work` (synchronous CPU work) once a slot is free.
    nonisolated func run<T: Sendable>(_ work: @Sendable () -> T) async -> T {
        guard gated else { return work() }
        await acquire()
        let value = work()
        await release()
        return value
    }

    private func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
