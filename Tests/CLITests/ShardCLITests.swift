import FixtureServer
import Foundation
import StrictJSON
import TestSupport
import Testing

/// `--shard I/N`: N workers split a run by URL digest with no coordinator; with a shared remote cache a final
/// un-sharded `check --offline` assembles the whole report without touching the origin.
@Suite(.serialized, .ownThread) struct ShardCLITests {
    /// 30 distinct image URLs (the fixture server's generated bodies: ETag and Last-Modified, no max-age).
    private static let images = (0..<30).map { "https://cdn.example.com/bytes/\(500 + $0 * 11)" }

    private static func assetSources(_ report: JSONValue) -> [(url: String, source: String)] {
        (CheckReportJSON.flattened(report)["cards"]?.arrayValue ?? []).flatMap { $0["assets"]?.arrayValue ?? [] }
            .compactMap { asset in
                guard let url = asset["url"]?.stringValue, let source = asset["source"]?.stringValue else { return nil }
                return (url, source)
            }
    }

    @Test(arguments: [2, 3, 7])
    func prefetchShardsCoverEveryAssetExactlyOnce(count: Int) async throws {
        let fixture = try PrefetchFixture()
        let campaign = try fixture.campaign(images: Self.images)
        var seen: [String: Int] = [:]
        for index in 1...count {
            let result = try await fixture.run([
                "prefetch", campaign, "--store", fixture.directory + "/store-\(index)", "--shard", "\(index)/\(count)",
                "--format", "json",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let report = try JSON.parse(result.stdout)
            for asset in report["assets"]?.arrayValue ?? [] {
                seen[asset["url"]?.stringValue ?? "", default: 0] += 1
            }
        }
        #expect(Set(seen.keys) == Set(Self.images))
        #expect(seen.values.allSatisfy { $0 == 1 }, "\(seen.filter { $0.value != 1 })")
        // Deterministic: the same shard twice is the same slice.
        let again = try await fixture.run([
            "prefetch", campaign, "--store", fixture.directory + "/store-again", "--shard", "1/\(count)", "--format",
            "json",
        ])
        let first = try await fixture.run([
            "prefetch", campaign, "--store", fixture.directory + "/store-1", "--shard", "1/\(count)", "--format",
            "json",
        ])
        let urls = { (text: String) throws -> Set<String> in
            Set((try JSON.parse(text)["assets"]?.arrayValue ?? []).compactMap { $0["url"]?.stringValue })
        }
        #expect(try urls(again.stdout) == urls(first.stdout))
    }

    @Test func shardedChecksThenAnOfflineCheckAssembleTheFullReportFromTheRemote() async throws {
        let fixture = try PrefetchFixture()
        let nginx = try await Nginx(mode: .webDAV(extra: ""))
        let remote = nginx.url("cache")
        let campaign = try fixture.campaign(images: Self.images)
        var checkedBy: [String: Int] = [:]
        for index in 1...3 {
            let result = try await fixture.run([
                "check", campaign, "--store", fixture.directory + "/worker-\(index)", "--remote-cache", remote,
                "--shard", "\(index)/3", "--format", "json",
            ])
            // Generated bodies are no images: each shard's own assets are reported as such (exit 1).
            #expect(result.status == 1, "\(result.stderr)")
            let sources = Self.assetSources(try JSON.parse(result.stdout))
            #expect(sources.count == Self.images.count, "every card resolved and listed by every shard")
            for (url, source) in sources {
                if source == "network" { checkedBy[url, default: 0] += 1 } else { #expect(source == "other-shard") }
            }
        }
        #expect(checkedBy.count == Self.images.count)
        #expect(checkedBy.values.allSatisfy { $0 == 1 })

        fixture.server.resetCounters()
        let final = try await fixture.run([
            "check", campaign, "--store", fixture.directory + "/final", "--remote-cache", remote, "--offline",
            "--format", "json",
        ])
        #expect(final.status == 1, "\(final.stderr)")
        #expect(fixture.server.stats.totalRequests == 0, "no origin traffic")
        let report = try JSON.parse(final.stdout)
        let sources = Self.assetSources(report)
        #expect(sources.count == Self.images.count)
        #expect(sources.allSatisfy { $0.source == "remote" }, "\(sources.filter { $0.source != "remote" })")
        // The same verdicts as one un-sharded online check (every body inspected: 30 not-an-image failures).
        let plain = try await fixture.run([
            "check", campaign, "--store", fixture.directory + "/plain", "--format", "json",
        ])
        #expect(plain.status == final.status)
        let expected = try JSON.parse(plain.stdout)["summary"]
        #expect(report["summary"]?["assetsFailed"] == 30)
        for key in ["cards", "assets", "assetsFailed", "broken", "degraded", "errors", "warnings"] {
            #expect(report["summary"]?[key] == expected?[key], "\(key)")
        }
    }

    @Test(arguments: ["0/2", "3/2", "1/0", "a/2", "1/2/3", "1/", "/2", " 1/2"])
    func malformedShardsAreUsageErrors(value: String) async throws {
        let result = try await CLI.run(["prefetch", CLI.fixture("www/campaign.json"), "--shard", value])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--shard"))
    }
}
