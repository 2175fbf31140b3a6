import Foundation
import HTTPFetch
import TestSupport
import Testing

/// nginx (Debian `nginx-light`) serving a directory over HTTPS with HTTP/2 on a loopback port, as this user:
/// the fixture server speaks HTTP/1.1 only, and multiplexed HTTP/2 on reused easy handles is where libcurl 7.88
/// once refused every transfer but the first (`CURLOPT_BUFFERSIZE`, found by `make bench`). `make test` and
/// `.ci/run` install nginx-light and openssl, so CI always runs these tests.
final class NginxHTTP2: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The site's root directory (files go here), next to nginx's config, logs and certificate.
    let root: String
    /// The PEM certificate nginx presents (self-signed for 127.0.0.1): the engine's CA file.
    let certificate: String
    let port: Int
    private let directory: String
    private let process: Process

    static let binary: String? = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Writes `files` (path relative to the root → bytes), makes a certificate with `openssl req -x509` and
    /// starts nginx in the foreground; returns once the port accepts connections.
    init(files: [String: [UInt8]]) async throws {
        guard let binary = Self.binary else {
            throw Failure(description: "nginx is not installed (make test installs nginx-light)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-h2-\(UUID().uuidString)").path
        root = directory + "/www"
        certificate = directory + "/cert.pem"
        for (path, bytes) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
        let made = try await Child.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", directory + "/key.pem", "-out", certificate,
            ])
        guard made.status == 0 else { throw Failure(description: "openssl req -x509 failed: \(made.errors)") }
        port = closedPort()
        let temporary = directory + "/tmp"
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log;
            events { worker_connections 512; }
            http {
                include /etc/nginx/mime.types;
                default_type application/octet-stream;
                log_format protocol '$server_protocol $status $request_method $uri';
                access_log \(directory)/access.log protocol;
                client_body_temp_path \(temporary); proxy_temp_path \(temporary); fastcgi_temp_path \(temporary);
                uwsgi_temp_path \(temporary); scgi_temp_path \(temporary);
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(directory)/key.pem;
                    root \(root);
                }
            }
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: directory + "/nginx.conf"))
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", directory, "-e", directory + "/error.log", "-c", directory + "/nginx.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
                stop()
                throw Failure(description: "nginx did not start on port \(port): \(log)")
            }
            await Child.pause(seconds: 0.02)
        }
    }

    deinit { stop() }

    func url(_ path: String) -> String { "https://127.0.0.1:\(port)/\(path)" }

    /// The access log so far: one `PROTOCOL STATUS METHOD URI` line per request (nginx writes it per request).
    func accessLog() throws -> [String] {
        try String(contentsOfFile: directory + "/access.log", encoding: .utf8).split(separator: "\n").map(String.init)
    }

    private func stop() {
        // SIGKILL, not SIGTERM: nginx started by Foundation's Process keeps the spawning thread's blocked signal
        // mask, and in single-process mode it never unblocks SIGTERM. It holds nothing worth shutting down.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopbackAddress(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

@Suite("HTTP/2 against nginx", .ownThread)
struct HTTP2Tests {
    /// 120 files of 1–24 KB with their SHA-256 (by coreutils' sha256sum, not the engine's OpenSSL).
    private static func site() async throws -> (server: NginxHTTP2, hashes: [String: String]) {
        var generator = SystemRandomNumberGenerator()
        var files: [String: [UInt8]] = [:]
        for index in 0..<120 {
            let size = Int.random(in: 1_024...24_576, using: &generator)
            files["img/f-\(index).png"] = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        let server = try await NginxHTTP2(files: files)
        let paths = files.keys.sorted()
        let output = try await Child.run("/usr/bin/sha256sum", paths.map { server.root + "/" + $0 }).output
        var hashes: [String: String] = [:]
        for (path, line) in zip(paths, output.split(separator: "\n")) { hashes[path] = String(line.prefix(64)) }
        return (server, hashes)
    }

    @Test(
        "Multiplexed GETs on reused handles: every transfer is HTTP/2, ok, and hashes like sha256sum",
        arguments: [1, 16])
    func multiplexedGets(concurrency: Int) async throws {
        let (server, hashes) = try await Self.site()
        let engine = try FetchEngine(
            options: FetchOptions(
                concurrency: concurrency, hostConcurrency: concurrency, timeout: 10, retries: 0,
                caFile: server.certificate))
        // Two rounds on one engine: the second runs entirely on easy handles and a connection already used.
        for round in 1...2 {
            let outcomes = await withTaskGroup(of: (String, FetchOutcome).self) { group in
                for path in hashes.keys { group.addTask { (path, await engine.get(server.url(path))) } }
                var outcomes: [String: FetchOutcome] = [:]
                for await (path, outcome) in group { outcomes[path] = outcome }
                return outcomes
            }
            for (path, outcome) in outcomes {
                #expect(outcome.status == .ok, "round \(round) \(path): \(outcome.errorText ?? "")")
                #expect(outcome.httpVersion == "2", "round \(round) \(path)")
                #expect(outcome.sha256 == hashes[path], "round \(round) \(path)")
            }
            #expect(outcomes.count == hashes.count)
        }
        await engine.shutdown()
        let log = try server.accessLog()
        #expect(log.count == 2 * hashes.count)
        #expect(log.allSatisfy { $0.hasPrefix("HTTP/2.0 200 GET /img/") }, "\(log.prefix(3))")
    }

    @Test("Probes over HTTP/2 are HEAD requests with status, type and length, and no body")
    func multiplexedProbes() async throws {
        let (server, hashes) = try await Self.site()
        let engine = try FetchEngine(
            options: FetchOptions(
                concurrency: 16, hostConcurrency: 16, timeout: 10, retries: 0, caFile: server.certificate))
        let outcomes = await withTaskGroup(of: FetchOutcome.self) { group in
            for path in hashes.keys { group.addTask { await engine.probe(server.url(path)) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        await engine.shutdown()
        #expect(outcomes.count == hashes.count)
        for outcome in outcomes {
            #expect(outcome.status == .ok, "\(outcome.url): \(outcome.errorText ?? "")")
            #expect(outcome.httpVersion == "2")
            #expect(outcome.httpStatus == 200)
            #expect(outcome.contentType == "image/png")
            #expect((outcome.contentLength ?? 0) >= 1_024)
            #expect(outcome.sha256 == nil)
        }
        let log = try server.accessLog()
        #expect(log.count == hashes.count)
        #expect(log.allSatisfy { $0.hasPrefix("HTTP/2.0 200 HEAD /img/") }, "\(log.prefix(3))")
    }
}
