import AssetStore
import FixtureServer
import Foundation
import HTTPFetch
import Preflight

/// A fixture server on `Fixtures/www`, an engine and a fresh store directory, for retrieval tests.
final class RetrievalHarness {
    static let www = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/www").path

    let server: FixtureServer
    let engine: FetchEngine
    let storeDirectory: String

    init(root: String = RetrievalHarness.www) throws {
        server = try FixtureServer(root: root, httpsPort: nil)
        engine = try FetchEngine(options: FetchOptions(timeout: 5, retries: 0))
        storeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-retrieval-\(UUID())").path
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: storeDirectory)
    }

    func url(_ path: String) -> String { server.url(path) }

    func store() throws -> AssetStore { try AssetStore(directory: storeDirectory) }

    func retriever(
        offline: Bool = false, memoryOnly: Bool = false, memoryLimit: Int = 64 << 20,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws -> AssetRetriever {
        AssetRetriever(
            fetcher: engine, store: memoryOnly ? nil : try store(), offline: offline, memoryLimit: memoryLimit,
            now: now)
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
