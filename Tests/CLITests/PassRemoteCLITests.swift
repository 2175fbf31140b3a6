import Foundation
import StrictJSON
import TestSupport
import Testing

/// `pass verify|audit --remote-cache` and `--shard` (issue 15 items 1–3 for the pass commands): verdicts shared
/// through a real nginx WebDAV remote's `/ac/`, so a fleet verified on one runner is not verified again on the next,
/// and shards that split a fleet between workers.
@Suite(.serialized, .ownThread) struct PassRemoteCLITests {
    static let corpus = "Fixtures/passes/corpus"

    /// Every verdict record under a store's `records/` area.
    private static func records(_ store: String) -> Set<String> {
        let root = store + "/records"
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return Set(
            folders.flatMap { folder in
                ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []).filter {
                    !$0.hasPrefix(".")
                }
            })
    }

    private static func temporaryDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-passremote-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aSecondRunnerReadsEveryVerdictFromTheRemote() async throws {
        let nginx = try await Nginx(mode: .webDAV(extra: ""))
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let remote = "http://runner:REMOTESECRET@127.0.0.1:\(nginx.port)/cache"
        let first = try await CLI.run([
            "pass", "verify", Self.corpus, "--store", directory + "/a", "--remote-cache", remote, "--format", "json",
        ])
        #expect(first.status == 1, "the corpus holds broken passes on purpose")
        #expect(first.stderr.isEmpty, "no remote warning: \(first.stderr)")
        let local = Self.records(directory + "/a")
        let uploaded = Set((try? FileManager.default.contentsOfDirectory(atPath: nginx.root + "/cache/ac")) ?? [])
        #expect(local.count == 24, "one verdict per pass")
        #expect(uploaded == local, "every new verdict was uploaded under its key")
        let putsAfterFirst = try nginx.accessLog().filter { $0.contains(" PUT /cache/ac/") }.count

        let second = try await CLI.run([
            "pass", "verify", Self.corpus, "--store", directory + "/b", "--remote-cache", remote, "--format", "json",
        ])
        #expect(second.status == 1)
        #expect(second.stdout == first.stdout, "the same verdicts, from the remote's records")
        #expect(Self.records(directory + "/b") == local, "remote hits are kept in the local store too")
        let log = try nginx.accessLog()
        #expect(log.filter { $0.contains(" 200 GET /cache/ac/") }.count == local.count, "\(log)")
        #expect(log.filter { $0.contains(" PUT /cache/ac/") }.count == putsAfterFirst, "nothing new to upload")
        for output in [first, second] { #expect(!(output.stdout + output.stderr).contains("REMOTESECRET")) }

        // A remote-only runner (no --store) reads the same records; --no-remote verifies from the bytes alone.
        let remoteOnly = try await CLI.run([
            "pass", "verify", Self.corpus, "--remote-cache", remote, "--format", "json",
        ])
        #expect(remoteOnly.stdout == first.stdout)
        let independent = try await CLI.run([
            "pass", "verify", Self.corpus, "--remote-cache", remote, "--no-remote", "--format", "json",
        ])
        #expect(independent.stdout == first.stdout)
        #expect(try nginx.accessLog().count == log.count + local.count, "--no-remote sends nothing to the remote")
    }

    @Test func aRemoteThatIsDownCostsOneWarningAndNoVerdict() async throws {
        let result = try await CLI.run([
            "pass", "audit", Self.corpus, "--remote-cache", "http://127.0.0.1:\(closedPort())/cache",
            "--remote-timeout", "1", "--format", "json", "--at", "2026-12-01T00:00:00Z",
        ])
        let plain = try await CLI.run([
            "pass", "audit", Self.corpus, "--format", "json", "--at", "2026-12-01T00:00:00Z",
        ])
        #expect(result.status == plain.status)
        #expect(result.stdout == plain.stdout)
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("store.remoteUnavailable") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("verdicts were computed here"))
    }

    @Test(arguments: [2, 3])
    func shardsSplitAFleetExactlyOnce(count: Int) async throws {
        var seen: [String] = []
        for index in 1...count {
            let result = try await CLI.run([
                "pass", "verify", Self.corpus, "--shard", "\(index)/\(count)", "--format", "json",
            ])
            #expect([0, 1].contains(result.status))
            let passes = try JSON.parse(result.stdout)["passes"]?.arrayValue ?? []
            seen += passes.compactMap { $0["path"]?.stringValue }
        }
        #expect(seen.count == 24, "every pass in exactly one shard")
        #expect(Set(seen).count == 24)
        let bad = try await CLI.run(["pass", "audit", Self.corpus, "--shard", "3/2"])
        #expect(bad.status == 64)
    }
}
