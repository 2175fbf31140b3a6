import Foundation
import TestSupport
import Testing

/// The `fixture-server` executable, as `make demo` and the benchmarks run it.
@Suite("fixture-server executable")
struct ExecutableTests {
    /// The built binary: the test bundle sits in (a subdirectory of) the products directory.
    static let binary: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("fixture-server").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    private func launch(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.binary, "build fixture-server first"))
        process.arguments = arguments
        process.standardOutput = Spawning.pipe()
        process.standardError = Spawning.pipe()
        try Spawning.run(process)
        return process
    }

    /// Waits up to 10 s for the process to end.
    private func waitForExit(_ process: Process) async -> Bool { await Child.wait(for: process, timeout: 10) }

    @Test("Serves until SIGTERM or SIGINT, announcing its ports in the ready file", arguments: [SIGTERM, SIGINT])
    func servesUntilSignalled(_ signal: Int32) async throws {
        let ready = sharedSite.root + "/ready-\(UUID().uuidString)"
        let ca = sharedSite.root + "/ca-\(UUID().uuidString).pem"
        let process = try launch(["--root", sharedSite.root, "--ready-file", ready, "--ca-out", ca])
        var text = ""
        for _ in 0..<1000 where text.isEmpty {
            await Child.pause(seconds: 0.01)
            text = (try? String(contentsOfFile: ready, encoding: .utf8)) ?? ""
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        let port = try #require(values["http_port"].flatMap { Int($0) })
        #expect(values["https_port"].flatMap { Int($0) } != nil)
        #expect(values["https_expired_port"] != nil && values["ca_file"] == ca)
        #expect((try? String(contentsOfFile: ca, encoding: .utf8))?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
        let client = try RawClient(port: port)
        client.request("GET", "/hello.txt")
        #expect(try client.response().text == "hello\n")
        kill(process.processIdentifier, signal)
        #expect(await waitForExit(process))
        #expect(process.terminationStatus == 0)
        try? FileManager.default.removeItem(atPath: ready)
        try? FileManager.default.removeItem(atPath: ca)
    }

    @Test(
        "Usage errors exit 64",
        arguments: [[], ["--root"], ["--root", "/tmp", "--port", "70000"], ["--bogus"]] as [[String]])
    func usageErrors(_ arguments: [String]) async throws {
        let process = try launch(arguments)
        #expect(await waitForExit(process))
        #expect(process.terminationStatus == 64)
    }
}
