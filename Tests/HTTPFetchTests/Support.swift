import FixtureServer
import Foundation
import HTTPFetch
import TestSupport

/// A temporary directory of files for the fixture server, removed when the value is dropped.
final class TestSite: Sendable {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("httpfetch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/img", withIntermediateDirectories: true)
        try Data("hello, inbox\n".utf8).write(to: URL(fileURLWithPath: root + "/hello.txt"))
        var generator = SystemRandomNumberGenerator()
        let image = (0..<150_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(image).write(to: URL(fileURLWithPath: root + "/img/hero.png"))
        try Data().write(to: URL(fileURLWithPath: root + "/empty.txt"))
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// SHA-256 of a file, by coreutils (an independent implementation from the engine's OpenSSL one).
    func sha256(of path: String) async throws -> String { try await Child.sha256sum(root + "/" + path) }
}

/// A fixture server on a fresh site, plus the engine options that trust its CA.
struct Harness {
    let site: TestSite
    let server: FixtureServer

    /// - Parameter idleTimeout: the server's keep-alive idle limit (tests that count connections raise it).
    init(https: Bool = false, idleTimeout: Double = 30) throws {
        site = try TestSite()
        server = try FixtureServer(root: site.root, httpsPort: https ? 0 : nil, idleTimeout: idleTimeout)
    }

    func url(_ path: String, tls: FixtureCertificate? = nil) -> String { server.url(path, tls: tls) }

    /// Options for tests: short timeouts and backoff so every failure arrives within a few seconds.
    func options(_ change: (inout FetchOptions) -> Void = { _ in }) -> FetchOptions {
        var options = FetchOptions(timeout: 2, retries: 0, caFile: server.caFilePath, retryBaseDelay: 0.05)
        change(&options)
        return options
    }
}

/// This process's open TCP sockets (client or server side) whose local or remote port is `port`, listening
/// sockets excepted. Matching by port keeps the count exact while other tests run in parallel.
func openSockets(port: Int) -> Int {
    var inodes = Set<String>()
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        // /proc files report size 0, so read them to the end rather than by their stat size.
        guard let handle = FileHandle(forReadingAtPath: table) else { continue }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        try? handle.close()
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[3] != "0A" else { continue }  // 0A = LISTEN
            let ports = [fields[1], fields[2]].compactMap {
                $0.split(separator: ":").last.flatMap { Int($0, radix: 16) }
            }
            if ports.contains(port) { inodes.insert(String(fields[9])) }
        }
    }
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.filter { descriptor in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
            target.hasPrefix("socket:[")
        else { return false }
        return inodes.contains(String(target.dropFirst(8).dropLast()))
    }.count
}
