import AssetStore
import Foundation
import StrictJSON
import TestSupport
import Testing

/// `inbox-assets export` as a child process: the files and manifest an app embeds for an offline inbox.
@Suite(.serialized) struct ExportCLITests {
    /// The served file behind a campaign URL (`https://cdn.example.com/cache/max-age%3D3600/inbox/hero.png` →
    /// `Fixtures/www/inbox/hero.png`).
    static func servedFile(_ url: String) -> String {
        var path = String(url.dropFirst("https://cdn.example.com/".count))
        if path.hasPrefix("cache/") { path = path.split(separator: "/").dropFirst(2).joined(separator: "/") }
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        return CLI.fixture("www/" + path)
    }

    @Test func theManifestListsEveryAssetAndEveryFileMatchesItsHash() async throws {
        let fixture = try PrefetchFixture()
        let out = fixture.directory + "/out"
        let result = try await fixture.run([
            "export", fixture.campaign, "--out", out, "--store", fixture.store, "--video",
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("Exported 13 assets to \(out) (manifest.json)\n"))
        let manifest = try JSON.parse(String(contentsOfFile: out + "/manifest.json", encoding: .utf8))
        #expect(manifest["schemaVersion"] == 1)
        let assets = try #require(manifest["assets"]?.objectValue)
        #expect(assets.count == 13)
        for (url, entry) in assets {
            let path = try #require(entry["path"]?.stringValue)
            #expect(path.hasPrefix("assets/"))
            let file = out + "/" + path
            #expect(try await Child.sha256sum(file) == entry["sha256"]?.stringValue, "\(url)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(entry["bytes"] == .int(bytes.count))
            #expect(bytes == (try Data(contentsOf: URL(fileURLWithPath: Self.servedFile(url)))), "\(url)")
        }
        #expect(assets["https://cdn.example.com/video/clip.mp4"]?["contentType"] == "video/mp4")
        #expect(assets["https://cdn.example.com/video/hls/seg2.ts"] != nil, "HLS segments are exported too")
    }

    @Test func offlineExportWorksFromTheStoreAloneAndListsWhatIsMissing() async throws {
        let fixture = try PrefetchFixture()
        #expect(try await fixture.run(["prefetch", fixture.campaign, "--store", fixture.store]).status == 0)
        fixture.server.stop()
        let out = fixture.directory + "/offline"
        let result = try await CLI.run([
            "export", fixture.campaign, "--out", out, "--store", fixture.store, "--offline", "--video",
        ])
        #expect(result.status == 1)
        #expect(
            result.stdout
                == """
                Exported 6 assets to \(out) (manifest.json)
                Missing 2:
                  https://cdn.example.com/video/clip.mp4  asset.notInStore: https://cdn.example.com/video/clip.mp4 is not in the store; prefetch it first
                  https://cdn.example.com/video/hls/master.m3u8  asset.notInStore: https://cdn.example.com/video/hls/master.m3u8 is not in the store; prefetch it first
                Summary: 8 assets: 0 fetched (0 B), 0 revalidated, 6 from store, 2 failed

                """)
        let manifest = try JSON.parse(String(contentsOfFile: out + "/manifest.json", encoding: .utf8))
        #expect(manifest["assets"]?.objectValue?.count == 6)
        #expect(manifest["assets"]?["https://cdn.example.com/video/clip.mp4"] == nil)
    }

    @Test func offlineWithAnEmptyStoreExportsNothingAndSaysSo() async throws {
        let fixture = try PrefetchFixture()
        let out = fixture.directory + "/empty"
        try FileManager.default.createDirectory(atPath: fixture.store, withIntermediateDirectories: true)
        let result = try await CLI.run([
            "export", fixture.campaign, "--out", out, "--store", fixture.store, "--offline", "--format", "json",
        ])
        #expect(result.status == 1)
        let report = try JSON.parse(result.stdout)
        #expect(report["exported"] == 0)
        #expect(report["missing"]?.arrayValue?.count == 6)
        #expect(report["missing"]?[0]?["findings"]?[0]?["code"] == "asset.notInStore")
        #expect(!result.stdout.contains("PASSSECRET"))
        #expect(fixture.server.stats.totalRequests == 0)
    }

    @Test func aFailedDownloadIsMissingWithItsReasonAndTheRestIsExported() async throws {
        let fixture = try PrefetchFixture()
        let campaign = try fixture.campaign(images: [
            "https://cdn.example.com/inbox/hero.png", "https://cdn.example.com/status/500",
            "https://cdn.example.com/cache/no-store/inbox/banner.jpg",
        ])
        let out = fixture.directory + "/out"
        let result = try await fixture.run(["export", campaign, "--out", out, "--store", fixture.store])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("Exported 1 asset to \(out) (manifest.json)\nMissing 2:\n"))
        #expect(result.stdout.contains("https://cdn.example.com/status/500  asset.httpStatus: "))
        #expect(result.stdout.contains("https://cdn.example.com/cache/no-store/inbox/banner.jpg  asset.noStore: "))
    }

    @Test func aSecondExportReplacesTheFirst() async throws {
        let fixture = try PrefetchFixture()
        let out = fixture.directory + "/out"
        #expect(
            try await fixture.run(["export", fixture.campaign, "--out", out, "--store", fixture.store]).status == 0)
        let small = try fixture.campaign(images: ["https://cdn.example.com/inbox/hero.png"])
        #expect(try await fixture.run(["export", small, "--out", out, "--store", fixture.store]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: out + "/assets")
        #expect(files == ["hero-f235ea458390.png"])
    }

    @Test(arguments: [
        (["export", "Fixtures/www/campaign.json"], 64, "Error: Missing expected option '--out <dir>'"),
        (
            ["export", "Fixtures/www/campaign.json", "--out", "Fixtures", "--offline"], 2,
            "Error: cannot export to Fixtures: "
        ),
    ])
    func badCommandLines(arguments: [String], status: Int32, message: String) async throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("ia-export-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let result = try await CLI.run(arguments + ["--store", store])
        #expect(result.status == status)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }
}
