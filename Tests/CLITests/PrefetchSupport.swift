import FixtureServer
import Foundation
import TestSupport

/// The fixture server on `Fixtures/www`, mapped to `https://cdn.example.com` with `--connect-to`, plus a store
/// directory and helpers to run `prefetch`/`export` as real child processes.
final class PrefetchFixture {
    let server: FixtureServer
    let directory: String
    let campaign = CLI.fixture("www/campaign.json")

    init() throws {
        server = try FixtureServer(root: CLI.fixture("www"))
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-prefetch-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var store: String { directory + "/store" }

    /// `--connect-to cdn.example.com:443:127.0.0.1:PORT --cacert CA --retries 0`.
    var network: [String] {
        [
            "--connect-to", "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!,
            "--retries", "0",
        ]
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> CLIResult {
        try await CLI.run(arguments + network, environment: environment)
    }

    /// Writes a campaign of banner cards, one per image URL, and returns its path.
    func campaign(images: [String], name: String = "generated.json") throws -> String {
        let notifications = images.enumerated().map { index, url in
            "{\"content\": \"m\(index)\", \"inbox_image\": \"\(url)\", \"inbox_days\": 1, \"data\": {\"displayType\": \"banner\"}}"
        }
        let path = directory + "/" + name
        try Data("{\"request\": {\"notifications\": [\(notifications.joined(separator: ","))]}}".utf8)
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Starts `inbox-assets ARGS` (network options added) without waiting; output is discarded.
    func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = CLI.productsDirectory.appendingPathComponent("inbox-assets")
        process.arguments = arguments + network
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try Spawning.run(process)
        return process
    }

    /// Files left in the store's `tmp/` (a finished run leaves none).
    func tempFiles(in store: String? = nil) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: (store ?? self.store) + "/tmp")) ?? []
    }
}

/// A small tmpfs mounted for one test (full-disk and read-only stores); needs root and a permitted `mount`.
struct TmpfsMount {
    let path: String

    /// Whether this machine lets tests mount a tmpfs (root in a container with CAP_SYS_ADMIN).
    static let isAvailable: Bool = {
        guard let mount = try? TmpfsMount(size: "64k") else { return false }
        mount.unmount()
        return true
    }()

    init(size: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("ia-tmpfs-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.command(["mount", "-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]) == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw CocoaError(.featureUnsupported)
        }
    }

    func remountReadOnly() -> Bool { Self.command(["mount", "-o", "remount,ro", path]) == 0 }

    func unmount() {
        _ = Self.command(["umount", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func command(_ arguments: [String]) -> Int32 { Child.quickStatus("/usr/bin/env", arguments) }
}
