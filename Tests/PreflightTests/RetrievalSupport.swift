import AssetStore
import FixtureServer
import Foundation
import HTTPFetch
import Preflight
import TestSupport

/// A fixture server on `Fixtures/www`, an engine and a fresh store directory, for retrieval tests.
final class RetrievalHarness {
    static let www = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/www").path

    let server: FixtureServer
    let engine: FetchEngine
    let storeDirectory: String

    init(root: String = RetrievalHarness.www, storeDirectory: String? = nil) throws {
        server = try FixtureServer(root: root, httpsPort: nil)
        engine = try FetchEngine(options: FetchOptions(timeout: 5, retries: 0))
        self.storeDirectory =
            storeDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("ia-retrieval-\(UUID())").path
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: storeDirectory)
    }

    func url(_ path: String) -> String { server.url(path) }

    func store() throws -> AssetStore { try AssetStore(directory: storeDirectory) }

    func retriever(
        offline: Bool = false, memoryOnly: Bool = false, memoryLimit: Int = 64 << 20,
        unwritableStore: UnwritableStorePolicy = .keepInMemory, now: @escaping @Sendable () -> Date = Date.init
    ) throws -> AssetRetriever {
        AssetRetriever(
            fetcher: engine, store: memoryOnly ? nil : try store(), offline: offline, memoryLimit: memoryLimit,
            unwritableStore: unwritableStore, now: now)
    }

    /// Requests and body bytes the server saw while `body` ran.
    func counting<T>(_ body: () async throws -> T) async rethrows -> (result: T, requests: Int, bodyBytes: Int) {
        let before = server.stats
        let result = try await body()
        let after = server.stats
        return (result, after.totalRequests - before.totalRequests, after.bodyBytesSent - before.bodyBytesSent)
    }

    func fileBytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.www + "/" + relative)))
    }
}

/// A directory made read-only for one test by binding it read-only onto itself (`mount --bind` + `remount,bind,ro`);
/// needs root and a permitted `mount`. Unmounted when the value goes away.
final class ReadOnlyBind {
    let path: String

    /// Whether this machine lets tests make bind mounts (checked once).
    static let isAvailable: Bool = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-bind-\(UUID())").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return (try? ReadOnlyBind(directory)) != nil
    }()

    init(_ path: String) throws {
        self.path = path
        guard Self.mount(["--bind", path, path]) == 0 else { throw CocoaError(.featureUnsupported) }
        guard Self.mount(["-o", "remount,bind,ro", path]) == 0 else {
            _ = Self.command("/bin/umount", [path])
            throw CocoaError(.featureUnsupported)
        }
    }

    deinit { _ = Self.command("/bin/umount", ["-l", path]) }

    private static func mount(_ arguments: [String]) -> Int32 { command("/bin/mount", arguments) }

    private static func command(_ executable: String, _ arguments: [String]) -> Int32 {
        Child.quickStatus(executable, arguments)
    }
}
