import AssetStore
import Foundation
import StrictJSON
import TestSupport
import Testing

/// `inbox-assets prefetch` as a child process against the fixture server (campaign URLs mapped onto it with
/// `--connect-to`), checked through the server's counters and the store itself.
@Suite(.serialized, .ownThread) struct PrefetchCLITests {
    @Test func theCampaignIsStoredAndASecondRunTransfersNoBodyBytes() async throws {
        let fixture = try PrefetchFixture()
        let first = try await fixture.run([
            "prefetch", fixture.campaign, "--store", fixture.store, "--video", "--format", "json",
        ])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let report = try JSON.parse(first.stdout)
        #expect(report["summary"]?["assets"] == 13)
        #expect(report["summary"]?["fetched"] == 13)
        #expect(report["summary"]?["failed"] == 0)
        #expect(!first.stdout.contains("PASSSECRET"))
        #expect(first.stdout.contains("loyalty.pkpass?token=REDACTED"))
        #expect(fixture.server.stats.bodyBytesSent > 0)
        let stored = try AssetStore(directory: fixture.store).list()
        #expect(stored.count == 13)
        #expect(stored.contains { $0.url == "https://cdn.example.com/passes/loyalty.pkpass?token=PASSSECRET" })

        fixture.server.resetCounters()
        let second = try await fixture.run([
            "prefetch", fixture.campaign, "--store", fixture.store, "--video", "--format", "json",
        ])
        #expect(second.status == 0)
        #expect(fixture.server.stats.bodyBytesSent == 0, "every asset fresh or answered 304")
        #expect(fixture.server.stats.responsesByStatus[200] == nil)
        let again = try JSON.parse(second.stdout)
        #expect(again["summary"]?["fetched"] == 0)
        #expect(again["summary"]?["fromStore"] == 1, "the max-age hero image is not even requested")
        #expect(again["summary"]?["revalidated"] == 12)
        #expect(fixture.server.requests(for: "/cache/max-age%3D3600/inbox/hero.png") == 0)
        #expect(try await CLI.run(["store", "verify", "--store", fixture.store]).status == 0)
    }

    @Test func textSummaryWithoutVideos() async throws {
        let fixture = try PrefetchFixture()
        let result = try await fixture.run(["prefetch", fixture.campaign, "--store", fixture.store])
        #expect(result.status == 0)
        #expect(
            result.stdout
                == """
                inbox-assets prefetch — 6 assets (store \(fixture.store))
                Summary: 6 assets: 6 fetched (6.9 KiB), 0 revalidated, 0 from store, 0 failed; 2 videos not downloaded (use --video)

                """)
        #expect(result.stderr.isEmpty, "no progress line when stderr is not a terminal")
        #expect(fixture.server.requests(for: "/video/clip.mp4") == 0)
    }

    @Test func aFailedAssetIsExit1WithItsCode() async throws {
        let fixture = try PrefetchFixture()
        let campaign = try fixture.campaign(images: [
            "https://cdn.example.com/inbox/hero.png", "https://cdn.example.com/status/404?token=SECRET",
        ])
        let result = try await fixture.run(["prefetch", campaign, "--store", fixture.store])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "  FAILED  https://cdn.example.com/status/404?token=REDACTED  asset.httpStatus: download of "
                    + "https://cdn.example.com/status/404?token=REDACTED failed: http-status 404"))
        #expect(
            result.stdout.hasSuffix("Summary: 2 assets: 1 fetched (384 B), 0 revalidated, 0 from store, 1 failed\n"))
        #expect(!result.stdout.contains("SECRET"))
    }

    @Test(arguments: [
        (["prefetch"], 64, "Error: Missing expected argument '<inputs> ...'"),
        (["prefetch", "x.json", "--sdk", "9"], 64, "Error: The value '9' is invalid for '--sdk <sdk>'"),
        (["prefetch", "-", "-"], 64, "Error: Standard input ('-') can be given only once"),
        (
            ["prefetch", "/nonexistent/c.json", "--store", "/tmp/ia-unused-store"], 2,
            "Error: cannot read '/nonexistent/c.json'"
        ),
        (["prefetch", "Fixtures/www/campaign.json", "--store", "/dev/null/store"], 2, "Error: cannot open the store"),
        (["prefetch", "Fixtures/www/campaign.json", "--cacert", "/nonexistent.pem"], 2, "Error: CA file"),
    ])
    func badCommandLinesAndInputs(arguments: [String], status: Int32, message: String) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == status)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }

    @Test func killedAtRandomMomentsTheStoreStaysConsistentAndARerunCompletes() async throws {
        let fixture = try PrefetchFixture()
        var generator = SeededGenerator(seed: 20_261_129)
        var allURLs: [String] = []
        var killedMidRun = 0
        for round in 0..<24 {
            // Fresh URLs every round so that each kill lands in downloads, commits or records, not only 304s.
            // With two transfers at once and 50 ms before each answer, a run lasts about 350 ms.
            let urls = (0..<12).map {
                "https://cdn.example.com/delay/50/bytes/\(100_000 + $0 * 7_919)?round=\(round)&n=\($0)"
            }
            allURLs += urls
            let campaign = try fixture.campaign(images: urls, name: "round-\(round).json")
            let delay = Double(generator.next() % 300) / 1000
            let process = try fixture.start(["prefetch", campaign, "--store", fixture.store, "--concurrency", "2"])
            // The kill is timed on Dispatch, not on the test task, so a busy test pool cannot delay it.
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { kill(pid, SIGKILL) }
            await Child.wait(for: process)
            if process.terminationReason == .uncaughtSignal { killedMidRun += 1 }
            let verify = try await CLI.run(["store", "verify", "--store", fixture.store])
            #expect(verify.status == 0, "round \(round), killed after \(delay) s: \(verify.stdout)")
        }
        #expect(killedMidRun >= 20, "most kills must land while the prefetch runs")
        let everything = try fixture.campaign(images: allURLs, name: "all.json")
        let rerun = try await fixture.run(["prefetch", everything, "--store", fixture.store, "--format", "json"])
        #expect(rerun.status == 0, "\(rerun.stdout)")
        #expect(try JSON.parse(rerun.stdout)["summary"]?["failed"] == 0)
        #expect(try AssetStore(directory: fixture.store).list().count == allURLs.count)
        #expect(try await CLI.run(["store", "verify", "--store", fixture.store]).status == 0)
        let gc = try await CLI.run(["store", "gc", "--store", fixture.store])
        #expect(gc.status == 0)
        #expect(fixture.tempFiles().isEmpty, "gc removes what killed writers left")
    }

    @Test func twoPrefetchesOnOneStoreAtOnceAgree() async throws {
        let fixture = try PrefetchFixture()
        let urls = (0..<30).map { "https://cdn.example.com/bytes/\(20_000 + $0 * 1_013)?n=\($0)" }
        let campaign = try fixture.campaign(images: urls)
        let processes = try (0..<2).map { _ in
            try fixture.start(["prefetch", campaign, fixture.campaign, "--store", fixture.store, "--video"])
        }
        for process in processes { await Child.wait(for: process) }
        #expect(processes.map(\.terminationStatus) == [0, 0])
        #expect(try await CLI.run(["store", "verify", "--store", fixture.store]).status == 0)
        let stored = Set(try AssetStore(directory: fixture.store).list().map(\.url))
        #expect(stored.isSuperset(of: urls))
        #expect(stored.count == urls.count + 13)
        #expect(fixture.tempFiles().isEmpty)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time for max RSS"))
    func aLargeVideoStreamsIntoTheStoreInBoundedMemory() async throws {
        let fixture = try PrefetchFixture()
        let size = 1 << 30
        let path = fixture.directory + "/video.json"
        let campaign = """
            {"request": {"notifications": [{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {
              "displayType": "video", "video": {"url": "https://cdn.example.com/bytes/\(size)"}}}]}}
            """
        try Data(campaign.utf8).write(to: URL(fileURLWithPath: path))
        /// The child's own peak resident set in KiB, as GNU time reports it on the last line of stderr.
        func maxRSS(_ arguments: [String]) async throws -> (status: Int32, kib: Int) {
            let result = try await Child.run(
                "/usr/bin/time",
                ["-f", "maxrss=%M", CLI.productsDirectory.appendingPathComponent("inbox-assets").path] + arguments
                    + fixture.network)
            let line = result.errors.split(separator: "\n").last { $0.hasPrefix("maxrss=") } ?? ""
            return (result.status, Int(line.dropFirst("maxrss=".count)) ?? Int.max)
        }
        let baseline = try await maxRSS(["prefetch", path, "--store", fixture.store])
        let download = try await maxRSS(["prefetch", path, "--store", fixture.store, "--video"])
        #expect(baseline.status == 0)
        #expect(download.status == 0)
        #expect(try AssetStore(directory: fixture.store).list().first?.entry.blob.size == size)
        // 1 GiB went through; the process grew by its buffers, not by the body (DESIGN.md: peak RSS < 64 MB).
        #expect(download.kib < baseline.kib + 32 * 1024, "baseline \(baseline.kib) KiB, download \(download.kib) KiB")
        #expect(download.kib < 64 * 1000, "peak RSS \(download.kib) KiB")
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root and a permitted mount -t tmpfs"))
    func aReadOnlyStoreIsAClearErrorBeforeAnyDownload() async throws {
        let fixture = try PrefetchFixture()
        let mount = try TmpfsMount(size: "1m")
        defer { mount.unmount() }
        let store = mount.path + "/store"
        _ = try AssetStore(directory: store)
        #expect(mount.remountReadOnly())
        let result = try await fixture.run(["prefetch", fixture.campaign, "--store", store])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: cannot write to the store \(store): "))
        #expect(result.stderr.contains("Read-only file system"))
        #expect(fixture.server.stats.totalRequests == 0)
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root and a permitted mount -t tmpfs"))
    func aFullDiskIsAClearErrorAndLeavesNothingHalfWritten() async throws {
        let fixture = try PrefetchFixture()
        let mount = try TmpfsMount(size: "256k")
        defer { mount.unmount() }
        let store = mount.path + "/store"
        let campaign = try fixture.campaign(images: [
            "https://cdn.example.com/bytes/100000", "https://cdn.example.com/bytes/400000",
            "https://cdn.example.com/bytes/20000",
        ])
        let result = try await fixture.run(["prefetch", campaign, "--store", store])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: the store \(store) failed: "), "\(result.stderr)")
        #expect(result.stderr.contains("No space left on device"))
        #expect(result.stdout.contains("asset.storeFailed"))
        #expect(fixture.tempFiles(in: store).isEmpty)
        let verify = try await CLI.run(["store", "verify", "--store", store])
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(try AssetStore(directory: store).lookup("https://cdn.example.com/bytes/400000") == nil)
    }
}
