import Foundation

/// nginx (Debian `nginx-light`) on a loopback port, as this user, in the foreground: a directory over HTTPS with
/// HTTP/2 (the fixture server speaks HTTP/1.1 only, and multiplexed HTTP/2 on reused easy handles is where libcurl
/// 7.88 once refused every transfer but the first), or a plain-HTTP WebDAV store (`dav_methods PUT DELETE`), the
/// Bazel remote-cache protocol as nginx speaks it. `make test` and `.ci/run` install nginx-light and openssl, so CI
/// always runs these tests.
public final class Nginx: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// How nginx serves its root.
    public enum Mode: Sendable {
        /// HTTPS with HTTP/2, read-only.
        case http2
        /// WebDAV PUT and DELETE (`create_full_put_path on`, no body size limit) over plain HTTP, or HTTPS with
        /// `tls` (the certificate in ``Nginx/certificate``), plus extra server directives (e.g.
        /// `location / { limit_except GET { deny all; } }`).
        case webDAV(extra: String, tls: Bool = false)
    }

    /// The site's root directory (files go here), next to nginx's config, logs and certificate.
    public let root: String
    /// The PEM certificate nginx presents over HTTPS (self-signed for 127.0.0.1): the client's CA file.
    public let certificate: String
    public let port: Int
    private let directory: String
    private let process: Process
    private let scheme: String

    public static let binary: String? = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Writes `files` (path relative to the root → bytes), makes a certificate with `openssl req -x509` (HTTP/2
    /// only) and starts nginx; returns once the port accepts connections.
    public init(files: [String: [UInt8]] = [:], mode: Mode = .http2) async throws {
        guard let binary = Self.binary else {
            throw Failure(description: "nginx is not installed (make test installs nginx-light)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)").path
        root = directory + "/www"
        certificate = directory + "/cert.pem"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (path, bytes) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
        var tls = false
        switch mode {
        case .http2: tls = true
        case .webDAV(_, let secure): tls = secure
        }
        scheme = tls ? "https" : "http"
        if tls {
            let made = try await Child.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days",
                    "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", directory + "/key.pem", "-out", certificate,
                ])
            guard made.status == 0 else { throw Failure(description: "openssl req -x509 failed: \(made.errors)") }
        }
        let certificates = """
            ssl_certificate \(certificate);
                    ssl_certificate_key \(directory)/key.pem;
            """
        let secure = tls
        func listen(on port: Int) -> String {
            switch mode {
            case .http2:
                return """
                    listen 127.0.0.1:\(port) ssl http2;
                            \(certificates)
                    """
            case .webDAV(let extra, _):
                return """
                    listen 127.0.0.1:\(port)\(secure ? " ssl" : "");
                            \(secure ? certificates : "")
                            dav_methods PUT DELETE;
                            create_full_put_path on;
                            client_max_body_size 0;
                            \(extra)
                    """
            }
        }
        let temporary = directory + "/tmp"
        let (site, siteRoot) = (directory, root)
        func configuration(port: Int) -> String {
            """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(site)/nginx.pid;
            error_log \(site)/error.log;
            events { worker_connections 512; }
            http {
                include /etc/nginx/mime.types;
                default_type application/octet-stream;
                log_format protocol '$server_protocol $status $request_method $uri';
                access_log \(site)/access.log protocol;
                client_body_temp_path \(temporary); proxy_temp_path \(temporary); fastcgi_temp_path \(temporary);
                uwsgi_temp_path \(temporary); scgi_temp_path \(temporary);
                server {
                    \(listen(on: port))
                    root \(siteRoot);
                }
            }
            """
        }
        (process, port) = try await Self.launch(binary: binary, in: site, configuration: configuration(port:))
    }

    /// Starts nginx on a port nothing listened on a moment ago and returns once nginx itself holds it: nginx writes
    /// its pid file only after it has bound every listening socket, so a port taken in between by another test's
    /// server (which would answer the probe connection in nginx's place) shows as nginx exiting with "bind() …
    /// failed", and the next attempt takes another port. CI once saw every request of a test go to such a stranger.
    private static func launch(
        binary: String, in directory: String, configuration: (Int) -> String
    ) async throws -> (Process, Int) {
        var failures: [String] = []
        for _ in 1...5 {
            let port = closedPort()
            try? FileManager.default.removeItem(atPath: directory + "/nginx.pid")
            try Data(configuration(port).utf8).write(to: URL(fileURLWithPath: directory + "/nginx.conf"))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["-p", directory, "-e", directory + "/error.log", "-c", directory + "/nginx.conf"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try Spawning.run(process)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline {
                if ownsPort(process, directory: directory) && accepts(port: port) { return (process, port) }
                await Child.pause(seconds: 0.02)
            }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
            failures.append("port \(port): \(log.split(separator: "\n").last ?? "no error logged")")
        }
        throw Failure(description: "nginx did not start: \(failures.joined(separator: "; "))")
    }

    /// Whether nginx's pid file names `process`: written once its listening sockets are bound.
    private static func ownsPort(_ process: Process, directory: String) -> Bool {
        let text = (try? String(contentsOfFile: directory + "/nginx.pid", encoding: .utf8)) ?? ""
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) == process.processIdentifier
    }

    deinit {
        stop()
        removeFiles()
    }

    public func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)/\(path)" }

    /// The access log so far: one `PROTOCOL STATUS METHOD URI` line per request (nginx writes it per request).
    public func accessLog() throws -> [String] {
        try String(contentsOfFile: directory + "/access.log", encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// The access log once it holds at least `count` lines, or as it is after `seconds`: nginx writes a request's
    /// line when it finalizes the request, which can be just after the client has read the whole response (an
    /// HTTP/2 stream's last line came 1 in 120 times after the engine had shut down).
    public func accessLog(atLeast count: Int, within seconds: Double = 5) throws -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        var log = try accessLog()
        while log.count < count && Date() < deadline {
            usleep(20_000)
            log = try accessLog()
        }
        return log
    }

    /// Stops nginx now (a remote that goes down mid-run); idempotent.
    public func stop() {
        // SIGKILL, not SIGTERM: nginx started by Foundation's Process keeps the spawning thread's blocked signal
        // mask, and in single-process mode it never unblocks SIGTERM. It holds nothing worth shutting down.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Removes nginx's directory (after ``stop()``; the deinit does both).
    private func removeFiles() { try? FileManager.default.removeItem(atPath: directory) }

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

/// 127.0.0.1:`port` as a socket address (port 0: any free port, for `bind`).
public func loopbackAddress(port: Int = 0) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
    return address
}

/// A port nothing listens on (bound, then closed).
public func closedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopbackAddress()
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
