import AssetStore
import Findings
import Foundation
import HTTPFetch
import MediaRules
import Preflight
import Testing
import WalletPass

/// Video probes (check) and video downloads (prefetch --video) against the fixture server.
@Suite(.serialized) struct RetrievalVideoTests {
    @Test func aServerAnsweringRangesIsPlayableProgressively() async throws {
        let harness = try RetrievalHarness()
        let probe = try await harness.counting {
            try await harness.retriever().probeVideo(harness.url("/video/clip.mp4"))
        }
        #expect(probe.requests == 1)
        let result = probe.result
        #expect(!result.isHLS)
        #expect(result.outcome?.httpStatus == 206)
        #expect(result.range?.supportsByteRanges == true)
        #expect(result.totalBytes == (try harness.fileBytes("video/clip.mp4").count))
        #expect(result.format == "mp4")
        #expect(result.width == 64)
        #expect(result.height == 48)
        #expect(result.video?.moovBeforeMdat == true)
        #expect(result.findings.filter { $0.severity >= .warning }.isEmpty, "\(result.findings)")
        // The loopback server speaks plain http://, which App Transport Security would block on iOS: the only
        // warning iOS's rules add.
        let onIOS = VideoRules.judge(result.facts, on: .ios, app: AppSettings())
        #expect(onIOS.filter { $0.severity >= .warning }.map(\.code) == ["video.ats"], "\(onIOS)")
        #expect(result.json["range"]?["byteRanges"] == true)
        #expect(try harness.store().list().isEmpty, "a probe stores nothing")
    }

    @Test(arguments: [
        ("/chunked/video/clip.mp4", ["video.noRangeSupport"]),
        ("/video/slow-start.mp4", ["video.moovAfterMdat"]),
        ("/type/text/html/video/clip.mp4", ["video.contentType"]),
        ("/status/404", ["video.httpStatus"]),
    ])
    func badServersAndFilesGetVideoFindings(path: String, codes: [String]) async throws {
        let harness = try RetrievalHarness()
        let result = try await harness.retriever().probeVideo(harness.url(path))
        let serious = result.findings.filter { $0.severity >= .warning }.map(\.code)
        for code in codes { #expect(serious.contains(code), "\(result.findings)") }
    }

    /// One fixture per class of issue 16, served by the fixture server and probed as `check` does: the findings at
    /// warning level or above ("severity code") an iOS card gets from the probe (the transport rules, which would
    /// flag the loopback server's plain http, are MediaRules', not the probe's).
    @Test(arguments: [
        ("/video/classes/hev1-moov-at-end.mp4", ["error video.codec", "warning video.moovAfterMdat"]),
        ("/video/classes/empty.mp4", ["error video.empty"]),
        ("/video/classes/middle-404.m3u8", ["error video.hls.unreachable"]),
        ("/video/classes/last-404.m3u8", ["error video.hls.unreachable"]),
        ("/video/classes/key-404.m3u8", ["error video.hls.key"]),
        ("/video/classes/key-ok.m3u8", []),
        ("/video/classes/hevc-ts.m3u8", ["error video.hls.hevcInTS"]),
        ("/video/classes/hev1-fmp4.m3u8", ["error video.codec"]),
        ("/video/classes/hev1-only.m3u8", ["error video.codec"]),
        ("/video/classes/iframe-404.m3u8", ["warning video.hls.unreachable"]),
        ("/video/classes/partial.m3u8", ["error video.hls.unreachable"]),
        ("/video/classes/bom.m3u8", ["error video.hls.byteOrderMark"]),
        ("/video/classes/live-dangling.m3u8", ["warning video.hls.malformed"]),
        ("/video/classes/ok.m3u8", []),
    ])
    func eachClassGetsThePlayersVerdict(path: String, expected: [String]) async throws {
        let harness = try RetrievalHarness()
        let result = try await harness.retriever().probeVideo(harness.url(path))
        #expect(!result.findings.contains { $0.code == "video.ats" }, "\(result.findings)")
        let serious = result.findings(on: .ios).filter { $0.severity >= .warning }
            .map { "\($0.severity.rawValue) \($0.code)" }
        #expect(serious == expected, "\(result.findings.map(\.message))")
    }

    @Test func moovAfterALongMdatIsReadFromTheTail() async throws {
        let harness = try RetrievalHarness()
        let run = try await harness.counting {
            try await harness.retriever().probeVideo(harness.url("/video/classes/hev1-moov-at-end.mp4"))
        }
        let result = run.result
        #expect(run.requests == 2, "the first 64 KiB, then the tail from the end of mdat")
        #expect(result.codec == "hev1")
        #expect(result.width == 64 && result.height == 48)
        #expect(abs((result.durationSeconds ?? 0) - 1) < 0.05)
        #expect(result.moovBeforeMdat == false)
        #expect(result.extraBytes > 0)
        // A fast-start file needs no second request.
        let clip = try await harness.counting {
            try await harness.retriever().probeVideo(harness.url("/video/clip.mp4"))
        }
        #expect(clip.requests == 1)
        #expect(clip.result.codec == "avc1" && clip.result.moovBeforeMdat == true)
    }

    /// `check` end to end: the video asset's JSON carries what the probe learnt, and validates against the schema.
    @Test func theCheckReportCarriesTheVideoDetails() async throws {
        let harness = try RetrievalHarness()
        let pipeline = CheckPipeline(
            options: CheckOptions(), retriever: try harness.retriever(memoryOnly: true),
            passVerifier: try PassVerifier())
        func card(_ path: String) -> String {
            #"{"ios_title": "Watch", "content": "Play", "inbox_days": 1, "data": {"displayType": "video", "video": "#
                + #"{"url": "\#(harness.url(path))"}}}"#
        }
        let input = HostileURLTests.campaign([
            card("/video/classes/hev1-moov-at-end.mp4"), card("/video/clip.mp4"), card("/video/classes/partial.m3u8"),
        ])
        let outcome = await pipeline.run([("c.json", input)])
        await harness.engine.shutdown()
        let assets = outcome.report.cards.flatMap(\.assets).filter { $0.role == .video }
        #expect(assets.count == 3)
        let hev1 = try #require(assets.first { $0.url.hasSuffix("hev1-moov-at-end.mp4") })
        #expect(hev1.codec == "hev1")
        #expect(hev1.width == 64 && hev1.height == 48)
        #expect(hev1.moovBeforeMdat == false)
        #expect(abs((hev1.durationSeconds ?? 0) - 1) < 0.05)
        #expect(hev1.status == .failed, "hev1 does not play in AVPlayer")
        let clip = try #require(assets.first { $0.url.hasSuffix("clip.mp4") })
        #expect(clip.codec == "avc1" && clip.moovBeforeMdat == true && clip.status == .ok)
        let hls = try #require(assets.first { $0.url.hasSuffix("partial.m3u8") })
        #expect(hls.codec == "avc1.42e00a" && hls.width == 320 && hls.durationSeconds == nil)
        let validator = try #require(SchemaTests.validator)
        #expect(validator.validate(try SchemaTests.printed(outcome.report)) == [])
    }

    @Test func aMasterWhoseVariantsPartlyFailReportsTheWorkingOnes() async throws {
        let harness = try RetrievalHarness()
        let result = try await harness.retriever().probeVideo(harness.url("/video/classes/partial.m3u8"))
        // The 1920x1080 variant is a 404: AVPlayer plays the 320x240 one.
        #expect(result.width == 320 && result.height == 240)
        #expect(result.codec == "avc1.42e00a")
    }

    @Test func aVariantWithoutResolutionIsSizedByItsFirstSegment() async throws {
        let harness = try RetrievalHarness()
        let result = try await harness.retriever().probeVideo(harness.url("/video/classes/no-resolution.m3u8"))
        // 320x180 by RESOLUTION; the other variant has none, and its TS segment's SPS says 640x360: the larger one
        // is what the player picks when the network allows, so its size and codecs are reported.
        #expect(result.width == 640 && result.height == 360)
        #expect(result.codec == "avc1.42c01e")
        #expect(!result.findings.contains { $0.severity == .error }, "\(result.findings)")
    }

    @Test func hlsSegmentsWidensTheSample() async throws {
        let harness = try RetrievalHarness()
        // middle-404 lists seg, seg, missing, seg, seg: sampling one segment misses it, five find it.
        let one = try await harness.retriever().probeVideo(
            harness.url("/video/classes/middle-404.m3u8"), hlsSegments: 1)
        #expect(!one.findings.contains { $0.severity == .error }, "\(one.findings)")
        let all = try await harness.retriever().probeVideo(
            harness.url("/video/classes/middle-404.m3u8"), hlsSegments: 5)
        #expect(all.findings.contains { $0.code == "video.hls.unreachable" })
    }

    @Test func anUnreachableVideoIsAnAssetFailure() async throws {
        let harness = try RetrievalHarness()
        let result = try await harness.retriever().probeVideo("http://127.0.0.1:1/v.mp4")
        #expect(result.findings.map(\.code) == ["asset.connect"])
        #expect(VideoRules.judge(result.facts, on: .ios, app: AppSettings()).map(\.code) == ["video.ats"])
    }

    @Test func anHLSStreamIsCrawledPlaylistsAndFirstSegments() async throws {
        let harness = try RetrievalHarness()
        let run = try await harness.counting {
            try await harness.retriever().probeVideo(harness.url("/video/hls/master.m3u8"))
        }
        let result = run.result
        #expect(result.isHLS)
        #expect(result.variantCount == 2)
        #expect(result.width == 640)
        #expect(result.playlists.map(\.purpose) == [.rootPlaylist, .variantPlaylist, .variantPlaylist])
        // Each variant's first, middle and last segment (two each here: both), each URL once.
        #expect(harness.server.requests(for: "/video/hls/seg0.ts") == 1)
        #expect(harness.server.requests(for: "/video/hls/seg1.ts") == 1)
        #expect(harness.server.requests(for: "/video/hls/seg2.ts") == 1)
        #expect(run.requests == 6)
        #expect(result.codec == "avc1.42e00a")
        #expect(!result.findings.contains { $0.severity == .error }, "\(result.findings)")
    }

    @Test func aPlaylistLoopIsReportedNotFollowed() async throws {
        let harness = try RetrievalHarness()
        let result = try await harness.retriever().probeVideo(harness.url("/video/hls/loop.m3u8"))
        #expect(result.findings.map(\.code).contains("video.hls.loop"))
        #expect(harness.server.requests(for: "/video/hls/loop.m3u8") == 1)
    }

    @Test func aPlaylistWithoutM3U8InItsPathIsRecognisedByItsBytes() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ia-hls-\(UUID())").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let media = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg.ts\n#EXT-X-ENDLIST\n"
        try Data(media.utf8).write(to: URL(fileURLWithPath: root + "/stream"))
        try Data(try RetrievalHarness().fileBytes("video/hls/seg0.ts")).write(
            to: URL(fileURLWithPath: root + "/seg.ts"))
        let harness = try RetrievalHarness(root: root)
        let probe = try await harness.retriever().probeVideo(harness.url("/stream"))
        #expect(probe.isHLS)
        #expect(probe.playlists.count == 1)
        #expect(harness.server.requests(for: "/seg.ts") == 1)
        let download = try await harness.retriever().downloadVideo(harness.url("/stream"))
        #expect(download.map(\.url) == [harness.url("/stream"), harness.url("/seg.ts")])
    }

    @Test func downloadingAnHLSStreamStoresEveryPlaylistAndSegmentOnce() async throws {
        let harness = try RetrievalHarness()
        let run = try await harness.counting {
            try await harness.retriever().downloadVideo(harness.url("/video/hls/master.m3u8"))
        }
        let urls = run.result.map(\.url)
        #expect(
            urls
                == [
                    "/video/hls/master.m3u8", "/video/hls/low/index.m3u8", "/video/hls/high/index.m3u8",
                    "/video/hls/seg0.ts", "/video/hls/seg1.ts", "/video/hls/seg2.ts",
                ].map(harness.url))
        #expect(run.result.allSatisfy { $0.isOK })
        #expect(run.requests == 6)
        #expect(Set(try harness.store().list().map(\.url)) == Set(urls))
        // A second download of the unchanged stream revalidates everything: no body bytes.
        let again = try await harness.counting {
            try await harness.retriever().downloadVideo(harness.url("/video/hls/master.m3u8"))
        }
        #expect(again.bodyBytes == 0)
        #expect(again.result.map(\.source) == Array(repeating: .revalidated, count: 6))
        // And offline it comes from the store alone.
        let offline = try await harness.counting {
            try await harness.retriever(offline: true).downloadVideo(harness.url("/video/hls/master.m3u8"))
        }
        #expect(offline.requests == 0)
        #expect(offline.result.count == 6)
        #expect(offline.result.allSatisfy { $0.source == .store })
    }

    /// `prefetch --video` keeps what an offline player needs: the AES-128 key of encrypted segments too, once.
    @Test func downloadingAnEncryptedStreamStoresItsKey() async throws {
        let harness = try RetrievalHarness()
        let run = try await harness.counting {
            try await harness.retriever().downloadVideo(harness.url("/video/classes/key-ok.m3u8"))
        }
        #expect(
            run.result.map(\.url)
                == ["/video/classes/key-ok.m3u8", "/video/classes/seg.ts", "/video/classes/aes.key"].map(harness.url))
        #expect(run.result.allSatisfy { $0.isOK })
        #expect(harness.server.requests(for: "/video/classes/aes.key") == 1)
        #expect(Set(try harness.store().list().map(\.url)).contains(harness.url("/video/classes/aes.key")))
    }

    @Test func downloadingAFileStreamsItIntoTheStore() async throws {
        let harness = try RetrievalHarness()
        let result = try await harness.retriever().downloadVideo(harness.url("/bytes/3000000"))
        #expect(result.count == 1)
        #expect(result[0].source == .network)
        #expect(result[0].size == 3_000_000)
        let file = try #require(result[0].file())
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int
        #expect(size == 3_000_000)
    }

    @Test func aBrokenVariantFailsOnlyThatPlaylist() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ia-hls-\(UUID())").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let master =
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nmissing.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\nnot-a-playlist.m3u8\n"
        try Data(master.utf8).write(to: URL(fileURLWithPath: root + "/m.m3u8"))
        try Data("<html>oops</html>".utf8).write(to: URL(fileURLWithPath: root + "/not-a-playlist.m3u8"))
        let harness = try RetrievalHarness(root: root)
        let result = try await harness.retriever().downloadVideo(harness.url("/m.m3u8"))
        #expect(result.count == 3)
        #expect(result[0].isOK)
        #expect(result[1].findings.map(\.code) == ["asset.httpStatus"])
        #expect(result[2].findings.map(\.code).contains("video.hls.notPlaylist"))
        #expect(!result[2].isOK)
    }
}
