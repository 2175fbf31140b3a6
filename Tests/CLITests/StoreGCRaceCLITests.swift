import Foundation
import Glibc
import StrictJSON
import TestSupport
import Testing

/// Issue 31 end to end: one store shared by the jobs of a CI runner while a cron job trims it with
/// `store gc --max-size`. Every round runs two prefetches of overlapping feeds, a `check`, an `export` and a
/// `pass verify --store` at once, as separate processes, beside a loop of `store gc --max-size 1K` — the tightest
/// budget, which evicts everything gc is allowed to — and then `store verify`. Housekeeping must never fail a job:
/// every run exits as it does on a quiet store, no asset is `asset.storeFailed` (or missing from the store it was
/// just written to), and the store verifies clean after every round.
@Suite(.serialized, .ownThread) struct StoreGCRaceCLITests {
    /// Rounds of the whole scenario; each takes about a second.
    static let rounds = 6
    /// URLs per feed: enough that the gc loop lands between many commits and their records.
    static let feedSize = 120

    /// A child started now whose output goes to files (a pipe would need draining while it runs).
    struct Started {
        let process: Process
        let name: String
        let output: String

        /// Waits for the child and returns its exit status with its standard output and error.
        func finish(timeout: Double = 120) async -> CLIResult {
            let ended = await Child.wait(for: process, timeout: timeout)
            if !ended {
                process.terminate()
                _ = await Child.wait(for: process, timeout: 10)
            }
            let stdout = (try? String(contentsOfFile: output + ".out", encoding: .utf8)) ?? ""
            let stderr = (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
            return CLIResult(status: ended ? process.terminationStatus : -1, stdout: stdout, stderr: stderr)
        }
    }

    /// The scenario's fixture: the fixture server, one store, the feeds and a pass.
    final class Scenario {
        let fixture: PrefetchFixture
        let feedA: String
        let feedB: String
        let checked: String
        let pass = CLI.fixture("www/passes/loyalty.pkpass")
        var store: String { fixture.store }
        var out: String { fixture.directory + "/export" }

        init() throws {
            fixture = try PrefetchFixture()
            let size = StoreGCRaceCLITests.feedSize
            // Generated bodies of distinct lengths: one blob each. Feed B overlaps half of feed A (both fetch those
            // URLs, so one run finds the other's blob already there), and names the other half of A's bodies under
            // other URLs (same bytes, another URL: the same blob again, recorded for a second URL).
            let a = (0..<size).map { "https://cdn.example.com/bytes/\(200 + $0)" }
            let b =
                (size / 2..<size + size / 2).map { "https://cdn.example.com/bytes/\(200 + $0)" }
                + (0..<size / 2).map { "https://cdn.example.com/delay/0/bytes/\(200 + $0)" }
            feedA = try fixture.campaign(images: a, name: "feed-a.json")
            feedB = try fixture.campaign(images: b, name: "feed-b.json")
            checked = try fixture.campaign(
                images: Array(a[size / 4..<size / 2] + b.suffix(size / 4)), name: "check.json")
        }

        /// Starts `inbox-assets ARGS` (with the fixture's network options unless `local`).
        func start(_ name: String, _ arguments: [String], local: Bool = false) throws -> Started {
            let output = fixture.directory + "/\(name)"
            _ = FileManager.default.createFile(atPath: output + ".out", contents: nil)
            _ = FileManager.default.createFile(atPath: output + ".err", contents: nil)
            let process = Process()
            process.executableURL = CLI.productsDirectory.appendingPathComponent("inbox-assets")
            process.arguments = arguments + (local ? [] : fixture.network)
            process.standardOutput = FileHandle(forWritingAtPath: output + ".out")
            process.standardError = FileHandle(forWritingAtPath: output + ".err")
            process.standardInput = FileHandle.nullDevice
            var environment = ProcessInfo.processInfo.environment
            environment.removeValue(forKey: "NO_COLOR")
            process.environment = environment
            try Spawning.run(process)
            return Started(process: process, name: name, output: output)
        }

        /// `store gc --max-size 1K` back to back until the file `stop` exists, as a shell loop (a cron job does not
        /// wait for anybody); it prints a line per gc: its exit status and how many URLs it evicted.
        func gcLoop(until stop: String) throws -> Started {
            let binary = CLI.productsDirectory.appendingPathComponent("inbox-assets").path
            let script = """
                while [ ! -e "$1" ]; do
                  report=$("$2" store gc --store "$3" --max-size 1K); status=$?
                  evicted=$(printf '%s\\n' "$report" | sed -n 's/^evicted \\([0-9]*\\) .*/\\1/p')
                  echo "$status ${evicted:-0}"
                done
                """
            let output = fixture.directory + "/gc"
            _ = FileManager.default.createFile(atPath: output + ".out", contents: nil)
            _ = FileManager.default.createFile(atPath: output + ".err", contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script, "gc-loop", stop, binary, store]
            process.standardOutput = FileHandle(forWritingAtPath: output + ".out")
            process.standardError = FileHandle(forWritingAtPath: output + ".err")
            process.standardInput = FileHandle.nullDevice
            try Spawning.run(process)
            return Started(process: process, name: "gc", output: output)
        }

        /// The jobs of one round, started at once.
        func startJobs() throws -> [Started] {
            try [
                start("prefetch-a", ["prefetch", feedA, "--store", store, "--format", "json"]),
                start("prefetch-b", ["prefetch", feedB, "--store", store, "--format", "json"]),
                start("check", ["check", checked, "--store", store, "--format", "json"]),
                start("export", ["export", feedA, "--store", store, "--out", out, "--format", "json"]),
                start("pass", ["pass", "verify", pass, "--store", store, "--format", "json"], local: true),
            ]
        }
    }

    /// What a run's output says about the store, beyond its exit status: how many of a check's assets have each
    /// status and finding code, how many assets an export wrote, a prefetch's totals, how many passes are valid.
    static func gist(_ name: String, _ result: CLIResult) -> String {
        guard let report = try? JSON.parse(result.stdout) else { return "unparsable output" }
        func int(_ value: JSONValue?) -> Int { value?.numberValue?.intValue ?? -1 }
        switch name {
        case "check":
            var counts: [String: Int] = [:]
            for card in report["cards"]?.arrayValue ?? [] {
                for asset in card["assets"]?.arrayValue ?? [] {
                    counts[asset["status"]?.stringValue ?? "?", default: 0] += 1
                    for finding in asset["findings"]?.arrayValue ?? [] {
                        counts[finding["code"]?.stringValue ?? "?", default: 0] += 1
                    }
                }
            }
            return counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        case "export": return "exported \(int(report["exported"]))"
        case "pass":
            // The verdict, read from the store's record area after the first run: the same report every time.
            let hash = String(UInt(bitPattern: result.stdout.hashValue), radix: 16)
            return "report of \(result.stdout.utf8.count) bytes, hash \(hash)"
        default:
            return "\(int(report["summary"]?["assets"])) assets, \(int(report["summary"]?["failed"])) failed"
        }
    }

    @Test func gcInALoopNeverFailsAConcurrentRun() async throws {
        let scenario = try Scenario()
        // The baseline: the same jobs one after another on a quiet store (which they fill for the first round).
        var expected: [String: (status: Int32, gist: String)] = [:]
        for job in try scenario.startJobs() {
            let result = await job.finish()
            expected[job.name] = (result.status, Self.gist(job.name, result))
            #expect(result.status != 2, "\(job.name) on a quiet store: \(result.stderr)")
        }
        #expect(expected["prefetch-a"]?.status == 0 && expected["prefetch-b"]?.status == 0)
        #expect(expected["export"]?.status == 0, "\(expected)")

        var failures: [String] = []
        var failedRounds = 0
        var gcRuns = 0
        var evicted = 0
        let started = Date()
        for round in 1...Self.rounds {
            // The cron job: gc with a 1 KiB budget, back to back, for as long as the round's jobs run.
            let stop = scenario.fixture.directory + "/stop"
            let loop = try scenario.gcLoop(until: stop)
            var roundFailures: [String] = []
            for job in try scenario.startJobs() {
                let result = await job.finish()
                let gist = Self.gist(job.name, result)
                let baseline = expected[job.name]
                if result.status != baseline?.status || gist != baseline?.gist {
                    roundFailures.append(
                        "\(job.name) exit \(result.status) (quiet store: \(baseline?.status ?? -1)), \(gist)"
                            + " (quiet store: \(baseline?.gist ?? "?"))")
                }
                let all = result.stdout + result.stderr
                if all.contains("asset.storeFailed") || all.contains("asset.storeMissing")
                    || all.contains("asset.notInStore")
                {
                    let count = all.components(separatedBy: "asset.store").count - 1
                    roundFailures.append("\(job.name): \(count) store findings: \(result.stderr.prefix(300))")
                }
            }
            _ = FileManager.default.createFile(atPath: stop, contents: nil)
            _ = await loop.finish()
            try FileManager.default.removeItem(atPath: stop)
            let runs = (try? String(contentsOfFile: loop.output + ".out", encoding: .utf8)) ?? ""
            for line in runs.split(separator: "\n") {
                let fields = line.split(separator: " ")
                gcRuns += 1
                evicted += fields.count == 2 ? Int(fields[1]) ?? 0 : 0
                if fields.first != "0" { roundFailures.append("gc exit \(fields.first ?? "?")") }
            }
            let verify = try await CLI.run(["store", "verify", "--store", scenario.store])
            if verify.status != 0 { roundFailures.append("store verify: \(verify.stdout)") }
            // Every job exited on its own: none left a lease behind to hold its blobs.
            let leases = (try? FileManager.default.contentsOfDirectory(atPath: scenario.store + "/leases")) ?? []
            if !leases.isEmpty { roundFailures.append("leases left behind: \(leases)") }
            if !roundFailures.isEmpty {
                failedRounds += 1
                failures += roundFailures.map { "round \(round): \($0)" }
            }
        }
        let seconds = Date().timeIntervalSince(started)
        let summary =
            "\(failedRounds) of \(Self.rounds) rounds failed (\(gcRuns) gc runs, \(Int(seconds)) s):\n"
            + failures.joined(separator: "\n")
        #expect(failedRounds == 0, "\(summary)")
        // A loop that never ran, or never evicted anything, would have tested nothing.
        #expect(gcRuns >= Self.rounds && evicted > 0, "the gc loop ran \(gcRuns) times and evicted \(evicted) URLs")
    }
}
