import AssetStore
import Findings
import Foundation
import Glibc
import HTTPFetch
import InboxCards
import Preflight
import TestSupport
import Testing
import WalletPass

/// A store that cannot be written, bodies that never end, and stores damaged in every way a fetch must repair —
/// against the real fixture server and a real store.
@Suite(.serialized) struct RetrievalDegradeTests {
    static let fresh = "/cache/max-age%3D3600/inbox/hero.png"

    /// A store holding a fresh entry and a stale one (with validators), for the read-only tests.
    static func filledStore(_ harness: RetrievalHarness) async throws -> (fresh: String, stale: String) {
        let fresh = harness.url(Self.fresh)
        let stale = harness.url("/inbox/banner.jpg")
        let assets = try await harness.retriever().retrieveAll([fresh, stale])
        #expect(assets.map(\.source) == [.network, .network])
        return (fresh, stale)
    }

    @Test(.enabled(if: ReadOnlyBind.isAvailable, "needs root and a permitted bind mount"))
    func aReadOnlyStoreIsReadAndNewDownloadsStayInMemory() async throws {
        let harness = try RetrievalHarness()
        let (fresh, stale) = try await Self.filledStore(harness)
        let new = harness.url("/inbox/slide-1.jpg")
        let noStore = harness.url("/cache/no-store/inbox/slide-2.png")
        let logBefore = try Data(contentsOf: URL(fileURLWithPath: harness.storeDirectory + "/index/records.log"))
        let mount = try ReadOnlyBind(harness.storeDirectory)
        withExtendedLifetime(mount) {}

        let retriever = try harness.retriever()
        let run = await harness.counting { await retriever.retrieveAll([fresh, stale, new, noStore]) }
        #expect(run.result.map(\.source) == [.store, .revalidated, .memory, .memory])
        #expect(run.result.map(\.isOK) == [true, true, true, true])
        #expect(run.result.map { $0.findings.map(\.code) } == [[], [], [], ["asset.noStore"]])
        #expect(run.requests == 3, "the fresh copy needs no request")
        #expect(run.result[2].body(limit: 1 << 20) == (try harness.fileBytes("inbox/slide-1.jpg")))
        #expect(run.result[1].body(limit: 1 << 20) == (try harness.fileBytes("inbox/banner.jpg")))
        #expect(retriever.storeUnwritable?.code == .readOnly)
        let finding = try #require(retriever.storeFinding)
        #expect(finding.code == "store.readOnly" && finding.severity == .warning)
        #expect(finding.message.contains(harness.storeDirectory) && finding.message.contains("Read-only file system"))
        let logAfter = try Data(contentsOf: URL(fileURLWithPath: harness.storeDirectory + "/index/records.log"))
        #expect(logAfter == logBefore, "nothing is written")
        #expect(try FileManager.default.contentsOfDirectory(atPath: harness.storeDirectory + "/tmp").isEmpty)
    }

    @Test(.enabled(if: ReadOnlyBind.isAvailable, "needs root and a permitted bind mount"))
    func aReadOnlyStoreFailsEveryNewAssetWhenWritingIsTheJob() async throws {
        let harness = try RetrievalHarness()
        let (fresh, _) = try await Self.filledStore(harness)
        let mount = try ReadOnlyBind(harness.storeDirectory)
        withExtendedLifetime(mount) {}
        let retriever = try harness.retriever(unwritableStore: .fail)
        #expect(throws: StoreError(.readOnly, "")) { try retriever.checkStoreWritable() }
        let assets = await retriever.retrieveAll([fresh, harness.url("/inbox/slide-1.jpg")])
        #expect(assets[0].source == .store && assets[0].isOK)
        #expect(assets[1].findings.map(\.code) == ["asset.storeFailed"])
        #expect(assets[1].storeError?.code == .readOnly)
        #expect(retriever.storeFinding == nil)
    }

    @Test(.enabled(if: ReadOnlyBind.isAvailable, "needs root and a permitted bind mount"))
    func checkOnAReadOnlyStoreReportsOneWarningAndNoBrokenCard() async throws {
        let harness = try RetrievalHarness()
        _ = try await Self.filledStore(harness)
        let images = [Self.fresh, "/inbox/banner.jpg", "/inbox/slide-1.jpg", "/inbox/slide-2.png", "/inbox/poster.jpg"]
        let notifications = images.map {
            #"{"content": "m", "inbox_image": "\#(harness.url($0))", "inbox_days": 1, "#
                + #""data": {"displayType": "banner"}}"#
        }
        let campaign = Array(#"{"request": {"notifications": [\#(notifications.joined(separator: ","))]}}"#.utf8)
        let mount = try ReadOnlyBind(harness.storeDirectory)
        withExtendedLifetime(mount) {}
        let pipeline = CheckPipeline(
            options: CheckOptions(), retriever: try harness.retriever(), passVerifier: try PassVerifier())
        let outcome = await pipeline.run([(name: "campaign.json", bytes: campaign)])
        let report = outcome.report
        #expect(report.summary.cards == 5 && report.summary.broken == 0 && report.summary.errors == 0)
        let codes = report.allFindings.map(\.code)
        #expect(codes.filter { $0 == "store.readOnly" }.count == 1, "one warning for the run, not one per asset")
        #expect(!codes.contains("asset.storeFailed"))
        #expect(report.inputFindings.map(\.source) == [harness.storeDirectory])
        let sources = report.cards.flatMap(\.assets).map { $0.source ?? "-" }
        #expect(sources == ["store", "revalidated", "memory", "memory", "memory"])
        #expect(
            outcome.body(for: harness.url("/inbox/poster.jpg"))?.bytes == (try harness.fileBytes("inbox/poster.jpg")))
        #expect(report.summary.bytesFetched > 0, "bytes kept in memory were fetched all the same")
    }

    @Test(.enabled(if: TmpfsStore.isAvailable, "needs root and a permitted mount -t tmpfs"))
    func aDiskThatFillsMidRunKeepsTheDownloadInMemory() async throws {
        let mount = try TmpfsStore(size: "256k")
        let harness = try RetrievalHarness(storeDirectory: mount.path + "/store")
        let retriever = try harness.retriever()
        let small = await retriever.retrieve(harness.url("/bytes/1000"))
        #expect(small.source == .network, "the store takes what fits")
        // The probe passes (an empty file fits); the body's bytes do not.
        let large = await harness.counting { await retriever.retrieve(harness.url("/bytes/400000")) }
        #expect(large.result.source == .memory)
        #expect(large.result.isOK && large.result.size == 400_000)
        #expect(large.requests == 2, "fetched again into memory after the store refused the bytes")
        #expect(retriever.storeUnwritable?.code == .noSpace)
        #expect(retriever.storeFinding?.message.contains("No space left on device") == true)
        let later = await harness.counting { await retriever.retrieve(harness.url("/bytes/2000")) }
        #expect(later.result.source == .memory && later.requests == 1, "the rest of the run goes to memory at once")
        #expect(try FileManager.default.contentsOfDirectory(atPath: mount.path + "/store/tmp").isEmpty)
        #expect(try harness.store().verify().isSpotless)
    }

    // MARK: Body limits

    struct RoleCase: Sendable, CustomTestStringConvertible {
        var roles: Set<AssetReference.Role>
        var limit: Int?
        var testDescription: String { roles.map(\.rawValue).sorted().joined(separator: "+") }
    }

    static let roleCases: [RoleCase] = [
        RoleCase(roles: [.heroImage], limit: 64 << 20),
        RoleCase(roles: [.walletPass], limit: 10 << 20),
        RoleCase(roles: [.walletPass, .heroImage], limit: 64 << 20),
        RoleCase(roles: [.avatar, .buttonLink], limit: 64 << 20),
        RoleCase(roles: [.video], limit: nil),
        RoleCase(roles: [.video, .videoPoster], limit: nil),
    ]

    @Test(arguments: roleCases)
    func eachRoleHasItsLimit(_ testCase: RoleCase) {
        #expect(BodyLimits().limit(for: testCase.roles) == testCase.limit)
        #expect(BodyLimits(maxSize: 5_000).limit(for: testCase.roles) == 5_000, "--max-size caps every body")
    }

    struct LimitCase: Sendable, CustomTestStringConvertible {
        var path: String
        var maxBytes: Int?
        var memoryOnly = false
        var ok: Bool
        var testDescription: String {
            "\(path) max \(maxBytes.map(String.init) ?? "none")\(memoryOnly ? " memory" : "")"
        }
    }

    @Test(arguments: [
        LimitCase(path: "/endless", maxBytes: 1 << 20, ok: false),
        LimitCase(path: "/endless", maxBytes: 64 << 20, ok: false),
        LimitCase(path: "/endless", maxBytes: 10 << 20, memoryOnly: true, ok: false),
        LimitCase(path: "/chunked/bytes/300000", maxBytes: 100_000, ok: false),
        LimitCase(path: "/bytes/5000", maxBytes: 1_000, ok: false),
        LimitCase(path: "/bytes/5000", maxBytes: 5_000, ok: true),
        LimitCase(path: "/bytes/300000", maxBytes: nil, ok: true),
    ])
    func aBodyOverItsLimitIsTooLargeInTheStoreAsInMemory(_ testCase: LimitCase) async throws {
        let harness = try RetrievalHarness()
        let retriever = try harness.retriever(memoryOnly: testCase.memoryOnly)
        let url = harness.url(testCase.path)
        let started = ContinuousClock.now
        let asset = await retriever.retrieve(AssetRequest(url: url, maxBytes: testCase.maxBytes))
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(asset.isOK == testCase.ok, "\(asset.findings)")
        guard !testCase.ok else { return }
        #expect(asset.findings.map(\.code) == ["asset.tooLarge"])
        #expect(asset.findings[0].message.contains("larger than the \(testCase.maxBytes!)-byte limit"))
        guard !testCase.memoryOnly else { return }
        #expect(try harness.store().lookup(url) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: harness.storeDirectory + "/tmp").isEmpty)
        let stats = try harness.store().stats()
        #expect(stats.blobs == 0 && stats.bytes == 0, "nothing of the body stays on disk")
    }

    @Test func theDefaultRetrieveCapsAnEndlessBodyAtTheImageLimit() async throws {
        let harness = try RetrievalHarness()
        let asset = try await harness.retriever().retrieve(harness.url("/endless"))
        #expect(asset.findings.map(\.code) == ["asset.tooLarge"])
        #expect(asset.findings[0].message.contains("larger than the \(64 << 20)-byte limit"))
        #expect(try harness.store().stats().blobs == 0)
    }

    // MARK: Repairs

    enum Damage: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case flipByte, truncate, delete, emptyDirectory, directoryWithFiles, fifo, symlink
        var testDescription: String { rawValue }

        func apply(to path: String, scratch: String) throws {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            try FileManager.default.removeItem(atPath: path)
            switch self {
            case .flipByte:
                bytes[bytes.count / 2] ^= 0x01
                try Data(bytes).write(to: URL(fileURLWithPath: path))
            case .truncate: try Data(bytes.prefix(10)).write(to: URL(fileURLWithPath: path))
            case .delete: break
            case .emptyDirectory:
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            case .directoryWithFiles:
                try FileManager.default.createDirectory(atPath: path + "/a/b", withIntermediateDirectories: true)
                try Data([1]).write(to: URL(fileURLWithPath: path + "/a/b/c"))
            case .fifo: #expect(mkfifo(path, 0o644) == 0)
            case .symlink:
                try Data("decoy".utf8).write(to: URL(fileURLWithPath: scratch + "/decoy"))
                try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: scratch + "/decoy")
            }
        }
    }

    struct RepairCase: Sendable, CustomTestStringConvertible {
        var damage: Damage
        var batched: Bool
        /// Refetch under another URL with the same content (no read of the damaged copy first).
        var mirror: Bool
        var testDescription: String { "\(damage)\(batched ? " batched" : "")\(mirror ? " via a mirror URL" : "")" }
    }

    static let repairCases = Damage.allCases.flatMap { damage in
        [false, true].flatMap { batched in
            [false, true].map { RepairCase(damage: damage, batched: batched, mirror: $0) }
        }
    }

    @Test(arguments: repairCases)
    func aFetchThatReplacesADamagedBlobLeavesTheStoreClean(_ testCase: RepairCase) async throws {
        let harness = try RetrievalHarness()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ia-scratch-\(UUID())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let url = harness.url(Self.fresh)
        let first = try await harness.retriever().retrieve(url)
        let blob = try #require(first.entry?.blob)
        try testCase.damage.apply(to: try harness.store().blobPath(blob.sha256), scratch: scratch)

        let store = try AssetStore(
            directory: harness.storeDirectory, batching: testCase.batched ? .run : .immediate)
        let retriever = AssetRetriever(fetcher: harness.engine, store: store)
        let again = await retriever.retrieveAll([testCase.mirror ? harness.url("/inbox/hero.png?mirror=1") : url])
        #expect(again[0].isOK, "\(again[0].findings)")
        #expect(again[0].source == .network)
        #expect(again[0].entry?.blob == blob)
        #expect(retriever.storeFinding == nil)
        let verify = try store.verify()
        #expect(verify.isClean, "\(verify.problems.map(\.message))")
        #expect(verify.problems.allSatisfy { $0.kind == .strayTempFile }, "only debris gc removes")
        _ = try store.gc(orphanGrace: .zero)
        #expect(try store.verify().isSpotless)
        #expect(try store.read(blob) == .intact(try harness.fileBytes("inbox/hero.png")))
        withExtendedLifetime(store) {}
    }
}

/// A small tmpfs for one test (a disk that fills), unmounted when the value goes away; needs root.
final class TmpfsStore {
    let path: String

    static let isAvailable: Bool = (try? TmpfsStore(size: "64k")) != nil

    init(size: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("ia-tmpfs-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/mount")
        process.arguments = ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]
        process.standardError = FileHandle.nullDevice
        try Spawning.run(process)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw CocoaError(.featureUnsupported)
        }
    }

    deinit {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/umount")
        process.arguments = ["-l", path]
        try? Spawning.run(process)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: path)
    }
}
