import AssetStore
import Foundation
import Glibc
import StrictJSON
import TestSupport
import Testing

/// Runs `inbox-assets` as an unprivileged user: `nobody` (through `setpriv`) when the tests run as root, as CI often
/// does — root ignores permission bits, so a `chmod 0555` store would not stop it — else as the current user.
enum Unprivileged {
    static let isRoot = getuid() == 0
    static let canDrop = isRoot && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    /// `nobody`'s ids when dropping privileges, else the current user's.
    static let uid: uid_t = canDrop ? 65_534 : getuid()
    static let gid: gid_t = canDrop ? 65_534 : getgid()
    /// Whether the tests can run the CLI as a user the permission bits apply to.
    static let isAvailable = !isRoot || canDrop

    static func run(_ arguments: [String]) async throws -> CLIResult {
        let binary = CLI.productsDirectory.appendingPathComponent("inbox-assets").path
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "NO_COLOR")
        let (executable, all) =
            canDrop
            ? ("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--", binary] + arguments)
            : (binary, arguments)
        let result = try await Child.run(executable, all, environment: environment, directory: "/")
        return CLIResult(status: result.status, stdout: result.output, stderr: result.errors)
    }

    /// A directory the unprivileged user owns (stores and exports it may write go in there).
    static func ownedDirectory(in parent: String, _ name: String) throws -> String {
        let path = parent + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(chown(path, uid, gid) == 0)
        return path
    }
}

/// A directory bound read-only onto itself for one test (root and a permitted `mount`); unmounted on deinit.
final class ReadOnlyBindMount {
    let path: String

    static let isAvailable: Bool = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-bind-\(UUID())").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return (try? ReadOnlyBindMount(directory)) != nil
    }()

    init(_ path: String) throws {
        self.path = path
        guard Self.command(["/bin/mount", "--bind", path, path]) == 0 else { throw CocoaError(.featureUnsupported) }
        guard Self.command(["/bin/mount", "-o", "remount,bind,ro", path]) == 0 else {
            _ = Self.command(["/bin/umount", path])
            throw CocoaError(.featureUnsupported)
        }
    }

    deinit { _ = Self.command(["/bin/umount", "-l", path]) }

    private static func command(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? Spawning.run(process)) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// How a store ends up impossible to write.
enum UnwritableStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Filled by root, used by `nobody`: a directory of another user.
    case anotherUsersStore
    /// Filled by the user, then `chmod -R a-w` (a `chmod 0555` store).
    case chmod0555
    /// A read-only bind mount of the store (root).
    case readOnlyMount

    var testDescription: String { rawValue }

    var isAvailable: Bool {
        switch self {
        case .anotherUsersStore: Unprivileged.canDrop
        case .chmod0555: Unprivileged.isAvailable
        case .readOnlyMount: Unprivileged.isRoot && ReadOnlyBindMount.isAvailable
        }
    }

    /// The reason the CLI gives.
    var reason: String { self == .readOnlyMount ? "Read-only file system" : "Permission denied" }

    /// Runs the CLI as whoever this case uses.
    func run(_ arguments: [String]) async throws -> CLIResult {
        self == .readOnlyMount ? try await CLI.run(arguments) : try await Unprivileged.run(arguments)
    }
}

/// The store and export parts of issue 17 end to end: a store that cannot be written degrades to one warning,
/// endless bodies are capped on the store path, and exports never replace what they must not and clean up after
/// killed runs.
@Suite(.serialized, .ownThread) struct StoreSafetyCLITests {
    static let stored = [
        "https://cdn.example.com/inbox/hero.png", "https://cdn.example.com/cache/max-age%3D3600/inbox/banner.jpg",
    ]
    static let new = "https://cdn.example.com/inbox/slide-1.jpg"

    /// A store holding `stored`, made unwritable the way `how` says; `work` is a directory the runner may write.
    final class Setup {
        let fixture: PrefetchFixture
        let work: String
        let store: String
        let campaign: String
        var mount: ReadOnlyBindMount?
        let logBefore: Data

        init(_ how: UnwritableStore) async throws {
            fixture = try PrefetchFixture()
            if let ca = fixture.server.caFilePath { Glibc.chmod(ca, 0o644) }
            work = try Unprivileged.ownedDirectory(in: fixture.directory, "work")
            store = work + "/store"
            let fill = try fixture.campaign(images: StoreSafetyCLITests.stored, name: "stored.json")
            campaign = try fixture.campaign(images: StoreSafetyCLITests.stored + [StoreSafetyCLITests.new])
            let prefetch = ["prefetch", fill, "--store", store] + fixture.network
            let filled = how == .chmod0555 ? try await Unprivileged.run(prefetch) : try await CLI.run(prefetch)
            #expect(filled.status == 0, "\(filled.stdout)\(filled.stderr)")
            switch how {
            case .anotherUsersStore: break  // root's store, 0755 directories: nobody can read, not write
            case .chmod0555: #expect(Self.chmodTree(["-R", "a-w", store]) == 0)
            case .readOnlyMount: mount = try ReadOnlyBindMount(store)
            }
            logBefore = try Data(contentsOf: URL(fileURLWithPath: store + "/index/records.log"))
            fixture.server.resetCounters()
        }

        deinit {
            mount = nil
            _ = Self.chmodTree(["-R", "u+w", work])
        }

        static func chmodTree(_ arguments: [String]) -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/chmod")
            process.arguments = arguments
            guard (try? Spawning.run(process)) != nil else { return -1 }
            process.waitUntilExit()
            return process.terminationStatus
        }

        func expectStoreUntouched() async throws {
            #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/index/records.log")) == logBefore)
            #expect(try FileManager.default.contentsOfDirectory(atPath: store + "/tmp").isEmpty)
            #expect(try await CLI.run(["store", "verify", "--store", store]).status == 0)
        }
    }

    @Test(arguments: UnwritableStore.allCases)
    func checkUsesTheStoredCopiesKeepsNewDownloadsInMemoryAndWarnsOnce(_ how: UnwritableStore) async throws {
        guard how.isAvailable else { return }
        let setup = try await Setup(how)
        let result = try await how.run(
            ["check", setup.campaign, "--store", setup.store, "--format", "json"] + setup.fixture.network)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = CheckReportJSON.flattened(try JSON.parse(result.stdout))
        #expect(report["summary"]?["broken"] == 0)
        #expect(report["summary"]?["errors"] == 0)
        let findings = try #require(report["findings"]?.arrayValue)
        #expect(findings.count == 1)
        #expect(findings.first?["code"] == "store.readOnly")
        #expect(findings.first?["severity"] == "warning")
        #expect(findings.first?["source"] == .string(setup.store))
        #expect(findings.first?["message"]?.stringValue?.contains(how.reason) == true)
        let assets = try #require(report["cards"]?.arrayValue).compactMap { $0["assets"]?[0] }
        #expect(assets.map { $0["status"] } == ["ok", "ok", "ok"])
        #expect(assets.map { $0["source"] } == ["revalidated", "store", "memory"])
        #expect(!result.stdout.contains("asset.storeFailed"))
        // The text report says it once too.
        let text = try await how.run(["check", setup.campaign, "--store", setup.store] + setup.fixture.network)
        #expect(text.status == 0)
        #expect(text.stdout.components(separatedBy: "store.readOnly").count == 2)
        #expect(!text.stdout.contains("BROKEN"))
        try await setup.expectStoreUntouched()
    }

    @Test(arguments: UnwritableStore.allCases)
    func prefetchExits2WithTheReasonAndDownloadsNothing(_ how: UnwritableStore) async throws {
        guard how.isAvailable else { return }
        let setup = try await Setup(how)
        let result = try await how.run(["prefetch", setup.campaign, "--store", setup.store] + setup.fixture.network)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: cannot write to the store \(setup.store): "), "\(result.stderr)")
        #expect(result.stderr.contains(how.reason))
        #expect(setup.fixture.server.stats.totalRequests == 0)
        try await setup.expectStoreUntouched()
    }

    @Test(arguments: UnwritableStore.allCases)
    func exportWritesStoredAndNewAssetsAndWarnsOnce(_ how: UnwritableStore) async throws {
        guard how.isAvailable else { return }
        let setup = try await Setup(how)
        let out = setup.work + "/out"
        let result = try await how.run(
            ["export", setup.campaign, "--store", setup.store, "--out", out] + setup.fixture.network)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("Exported 3 assets to \(out) (manifest.json)\n"))
        #expect(result.stdout.components(separatedBy: "warning store.readOnly: ").count == 2)
        #expect(result.stdout.contains("1 in memory only"))
        let manifest = try JSON.parse(String(contentsOfFile: out + "/manifest.json", encoding: .utf8))
        let assets = try #require(manifest["assets"]?.objectValue)
        #expect(Set(assets.keys) == Set(Self.stored + [Self.new]))
        for (url, entry) in assets {
            let file = out + "/" + (entry["path"]?.stringValue ?? "")
            #expect(try await Child.sha256sum(file) == entry["sha256"]?.stringValue, "\(url)")
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: file))
                    == (try Data(contentsOf: URL(fileURLWithPath: ExportCLITests.servedFile(url)))))
        }
        let json = try await how.run(
            ["export", setup.campaign, "--store", setup.store, "--out", out, "--format", "json"]
                + setup.fixture.network)
        #expect(json.status == 0)
        #expect(try JSON.parse(json.stdout)["findings"]?[0]?["code"] == "store.readOnly")
        try await setup.expectStoreUntouched()
    }

    // MARK: Endless bodies

    @Test(arguments: [
        (["prefetch"], [String](), 64 << 20),
        (["prefetch"], ["--max-size", "1M"], 1 << 20),
        (["check", "--quiet"], [], 64 << 20),
        (["export", "--out", "OUT"], [], 64 << 20),
    ])
    func anEndlessImageStopsAtItsLimitAndLeavesNothingOnDisk(command: [String], extra: [String], limit: Int)
        async throws
    {
        let fixture = try PrefetchFixture()
        let campaign = try fixture.campaign(images: [
            "https://cdn.example.com/endless", "https://cdn.example.com/inbox/hero.png",
        ])
        let arguments = command.map { $0 == "OUT" ? fixture.directory + "/out" : $0 }
        let result = try await fixture.run(arguments + [campaign, "--store", fixture.store] + extra)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("asset.tooLarge"))
        #expect(result.stdout.contains("larger than the \(limit)-byte limit"))
        #expect(fixture.tempFiles().isEmpty)
        let stats = try AssetStore(directory: fixture.store).stats()
        #expect(stats.entries == 1 && stats.blobs == 1, "only the hero image is stored")
        #expect(try await CLI.run(["store", "verify", "--store", fixture.store]).status == 0)
    }

    @Test func anEndlessVideoIsCappedOnlyByMaxSize() async throws {
        let fixture = try PrefetchFixture()
        let path = fixture.directory + "/video.json"
        let campaign = """
            {"request": {"notifications": [{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {
              "displayType": "video", "video": {"url": "https://cdn.example.com/endless"}}}]}}
            """
        try Data(campaign.utf8).write(to: URL(fileURLWithPath: path))
        let result = try await fixture.run(["prefetch", path, "--store", fixture.store, "--video", "--max-size", "3M"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("asset.tooLarge"))
        #expect(fixture.tempFiles().isEmpty)
        #expect(try AssetStore(directory: fixture.store).stats().bytes == 0)
    }

    // MARK: Export targets and killed exports

    @Test(arguments: ["fifo", "characterDevice", "regularFile", "symlinkToFIFO", "danglingSymlink"])
    func exportNeverReplacesSomethingThatIsNotADirectory(kind: String) async throws {
        let fixture = try PrefetchFixture()
        let target = fixture.directory + "/target"
        switch kind {
        case "fifo": #expect(mkfifo(target, 0o644) == 0)
        case "characterDevice": guard mknod(target, S_IFCHR | 0o666, dev_t(0x103)) == 0 else { return }
        case "regularFile": try Data("keep".utf8).write(to: URL(fileURLWithPath: target))
        case "symlinkToFIFO":
            #expect(mkfifo(fixture.directory + "/fifo", 0o644) == 0)
            #expect(symlink(fixture.directory + "/fifo", target) == 0)
        default: #expect(symlink(fixture.directory + "/nothing", target) == 0)
        }
        var before = stat()
        #expect(lstat(target, &before) == 0)
        try FileManager.default.createDirectory(atPath: fixture.store, withIntermediateDirectories: true)
        let result = try await CLI.run([
            "export", fixture.campaign, "--out", target, "--store", fixture.store, "--offline",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: cannot export to \(target): "), "\(result.stderr)")
        #expect(result.stderr.contains("not a directory") || result.stderr.contains("link to nothing"))
        var after = stat()
        #expect(lstat(target, &after) == 0)
        #expect(after.st_mode == before.st_mode && after.st_ino == before.st_ino && after.st_rdev == before.st_rdev)
        #expect(
            !(try FileManager.default.contentsOfDirectory(atPath: fixture.directory)).contains { $0.hasPrefix(".") })
    }

    /// Starts `export --offline` of a large stored video and kills it (`SIGKILL`) once its staging directory appears.
    /// - Returns: the staging directory it left, or `nil` when the export finished first.
    static func killExportWhileStaging(_ fixture: PrefetchFixture, campaign: String, out: String) async throws
        -> String?
    {
        let parent = FileSystemPath.parent(of: out)
        let process = try fixture.start([
            "export", campaign, "--out", out, "--store", fixture.store, "--offline", "--video",
        ])
        let pid = process.processIdentifier
        let staging: String? = await Child.offThePool {
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
                if let name = names.first(where: { $0.hasPrefix(".out.export-\(pid)-") }) {
                    kill(pid, SIGKILL)
                    return parent + "/" + name
                }
                usleep(200)
            }
            return nil
        }
        await Child.wait(for: process)
        return process.terminationReason == .uncaughtSignal ? staging : nil
    }

    @Test func aKilledExportLeavesItsStagingForGCAndTheNextExportToRemove() async throws {
        let fixture = try PrefetchFixture()
        let path = fixture.directory + "/video.json"
        let campaign = """
            {"request": {"notifications": [{"ios_title": "t", "content": "b", "inbox_days": 1, "data": {
              "displayType": "video", "video": {"url": "https://cdn.example.com/bytes/\(48 << 20)"}}}]}}
            """
        try Data(campaign.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await fixture.run(["prefetch", path, "--store", fixture.store, "--video"]).status == 0)
        let out = fixture.directory + "/out"
        let first = try await CLI.run(["export", path, "--out", out, "--store", fixture.store, "--offline", "--video"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let manifest = try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))

        var left: String?
        for _ in 0..<5 where left == nil {
            left = try await Self.killExportWhileStaging(fixture, campaign: path, out: out)
        }
        let staging = try #require(left, "no kill landed while the export was staging")
        #expect(FileManager.default.fileExists(atPath: staging), "kill -9 leaves the staging directory")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")) == manifest, "the export is intact")

        // store verify names it, store gc removes it.
        let verify = try await CLI.run(["store", "verify", "--store", fixture.store])
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("store.staleExport"))
        #expect(verify.stdout.contains(staging))
        let gc = try await CLI.run(["store", "gc", "--store", fixture.store])
        #expect(gc.stdout.contains("removed 1 staging directories of interrupted exports"), "\(gc.stdout)")
        #expect(!FileManager.default.fileExists(atPath: staging))

        // Killed again: the next export removes it itself.
        left = nil
        for _ in 0..<5 where left == nil {
            left = try await Self.killExportWhileStaging(fixture, campaign: path, out: out)
        }
        let again = try #require(left)
        let next = try await CLI.run(["export", path, "--out", out, "--store", fixture.store, "--offline", "--video"])
        #expect(next.status == 0)
        #expect(!FileManager.default.fileExists(atPath: again))
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.directory)
        #expect(!names.contains { $0.hasPrefix(".out.") }, "\(names)")
        #expect(try await CLI.run(["store", "verify", "--store", fixture.store]).status == 0)
    }

    // MARK: --redact-keys

    @Test func redactKeysKeysTheManifestBySHA256AndLeavesNoURLInTheExport() async throws {
        let fixture = try PrefetchFixture()
        let out = fixture.directory + "/out"
        let result = try await fixture.run([
            "export", fixture.campaign, "--out", out, "--store", fixture.store, "--video", "--redact-keys",
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let manifest = try JSON.parse(String(contentsOfFile: out + "/manifest.json", encoding: .utf8))
        #expect(manifest["keys"] == "sha256")
        let assets = try #require(manifest["assets"]?.objectValue)
        let urls = try AssetStore(directory: fixture.store).list().map(\.url)
        #expect(assets.count == 13 && urls.count == 13)
        for url in urls {
            let scratch = fixture.directory + "/url.txt"
            try Data(url.utf8).write(to: URL(fileURLWithPath: scratch))
            let key = try await Child.sha256sum(scratch)
            let entry = try #require(assets[key], "\(url)")
            let file = out + "/" + (entry["path"]?.stringValue ?? "")
            #expect(try await Child.sha256sum(file) == entry["sha256"]?.stringValue)
        }
        var everything = try String(contentsOfFile: out + "/manifest.json", encoding: .utf8)
        everything += try FileManager.default.subpathsOfDirectory(atPath: out).joined(separator: "\n")
        for text in ["PASSSECRET", "cdn.example.com", "loyalty", "token"] {
            #expect(!everything.contains(text), "\(text) reached the export")
        }
        let help = try await CLI.run(["export", "--help"])
        #expect(help.stdout.contains("--[no-]redact-keys"))
    }
}

enum FileSystemPath {
    static func parent(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }
}
