import FixtureServer
import Foundation
import TestSupport
import Testing

/// A served directory with a few files. One is shared by every test (they only read it) and removed when
/// the test process exits, so no test can lose its files to an early release.
final class Site: Sendable {
    let root: String
    let image: [UInt8]

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("fixture-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/img", withIntermediateDirectories: true)
        image = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        try Data(image).write(to: URL(fileURLWithPath: root + "/img/hero.png"))
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: root + "/hello.txt"))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: root + "/pass.pkpass"))
    }
}

let sharedSite: Site = {
    let site = try! Site()
    atexit { try? FileManager.default.removeItem(atPath: sharedSite.root) }
    return site
}()

private func start(https: Bool = false) throws -> (Site, FixtureServer) {
    (sharedSite, try FixtureServer(root: sharedSite.root, httpsPort: https ? 0 : nil))
}

private func get(_ server: FixtureServer, _ target: String, _ method: String = "GET", headers: [String] = [])
    throws -> RawClient.Response
{
    let client = try RawClient(port: server.httpPort)
    client.request(method, target, headers: headers)
    return try client.response(head: method == "HEAD")
}

@Suite("Static files")
struct StaticFileTests {
    @Test("GET serves the file with type, length and validators")
    func getFile() throws {
        let (site, server) = try start()
        let response = try get(server, "/img/hero.png")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "image/png")
        #expect(response.headers["content-length"] == "100000")
        #expect(response.headers["etag"]?.hasPrefix("\"") == true)
        #expect(response.headers["last-modified"]?.hasSuffix(" GMT") == true)
        #expect(response.body == site.image)
        #expect(server.stats.bodyBytesSent == 100_000)
        #expect(server.requests(for: "/img/hero.png") == 1)
    }

    @Test(
        "Content-Type by extension",
        arguments: [("/hello.txt", "text/plain; charset=utf-8"), ("/pass.pkpass", "application/vnd.apple.pkpass")])
    func contentTypes(_ path: String, _ type: String) throws {
        let (_, server) = try start()
        #expect(try get(server, path).headers["content-type"] == type)
    }

    @Test("HEAD sends the headers only, and the connection stays usable")
    func head() throws {
        let (_, server) = try start()
        let client = try RawClient(port: server.httpPort)
        client.request("HEAD", "/img/hero.png")
        let head = try client.response(head: true)
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "100000")
        client.request("GET", "/hello.txt")
        #expect(try client.response().text == "hello\n")
        #expect(server.stats.totalConnections == 1)
        #expect(server.stats.bodyBytesSent == 6)
    }

    @Test("If-None-Match and If-Modified-Since answer 304 without a body")
    func notModified() throws {
        let (_, server) = try start()
        let first = try get(server, "/img/hero.png")
        let etag = try #require(first.headers["etag"])
        let modified = try #require(first.headers["last-modified"])
        #expect(try get(server, "/img/hero.png", headers: ["If-None-Match: \(etag)"]).status == 304)
        #expect(try get(server, "/img/hero.png", headers: ["If-None-Match: \"other\", \(etag)"]).status == 304)
        #expect(try get(server, "/img/hero.png", headers: ["If-Modified-Since: \(modified)"]).status == 304)
        #expect(try get(server, "/img/hero.png", headers: ["If-None-Match: \"other\""]).status == 200)
        let old = "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(try get(server, "/img/hero.png", headers: [old]).status == 200)
        #expect(server.stats.responsesByStatus[304] == 3)
    }

    @Test(
        "Range requests",
        arguments: [
            ("bytes=0-9", 206, "bytes 0-9/100000", 10), ("bytes=-5", 206, "bytes 99995-99999/100000", 5),
            ("bytes=99990-", 206, "bytes 99990-99999/100000", 10),
            ("bytes=99990-200000", 206, "bytes 99990-99999/100000", 10),
            ("bytes=100000-", 416, "bytes */100000", 0), ("bytes=0-1,5-6", 200, nil, 100_000),
            ("lines=1-2", 200, nil, 100_000),
        ] as [(String, Int, String?, Int)])
    func ranges(_ range: String, _ status: Int, _ contentRange: String?, _ length: Int) throws {
        let (site, server) = try start()
        let response = try get(server, "/img/hero.png", headers: ["Range: \(range)"])
        #expect(response.status == status)
        #expect(response.headers["content-range"] == contentRange)
        #expect(response.body.count == length)
        if status == 206,
            let start = contentRange?.split(separator: " ")[1].split(separator: "-").first.flatMap({ Int($0) })
        {
            #expect(response.body == Array(site.image[start..<(start + length)]))
        }
    }

    @Test(
        "Missing files, traversal and directories are refused",
        arguments: [
            ("/nope.png", 404), ("/img", 404), ("/", 404), ("/%2e%2e/etc/passwd", 403), ("/img/..%2Fhello.txt", 403),
        ])
    func refused(_ target: String, _ status: Int) throws {
        let (_, server) = try start()
        #expect(try get(server, target).status == status)
    }

    @Test("Generated bytes are deterministic and support ranges")
    func generatedBytes() throws {
        let (_, server) = try start()
        let whole = try get(server, "/bytes/300")
        #expect(whole.body == (0..<300).map { UInt8($0 % 251) })
        let part = try get(server, "/bytes/300", headers: ["Range: bytes=250-259"])
        #expect(part.body == (250..<260).map { UInt8($0 % 251) })
    }
}

@Suite("Protocol handling")
struct ProtocolTests {
    @Test("Pipelined requests on one connection are answered in order")
    func pipelining() throws {
        let (_, server) = try start()
        let client = try RawClient(port: server.httpPort)
        client.send("GET /hello.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.response().text == "hello\n")
        #expect(try client.response().body == [0, 1, 2])
        #expect(server.stats.totalConnections == 1)
        #expect(server.stats.totalRequests == 2)
    }

    @Test(
        "Malformed requests get 400 and a close",
        arguments: [
            "garbage\r\n\r\n", "GET\r\n\r\n", "GET nopath HTTP/1.1\r\n\r\n", "GET / SPDY/3\r\n\r\n",
            "GET / HTTP/1.1\r\nbad header\r\n\r\n",
        ])
    func malformed(_ request: String) throws {
        let (_, server) = try start()
        let client = try RawClient(port: server.httpPort)
        client.send(request)
        #expect(try client.response().status == 400)
        #expect(client.drain().error == 0)
    }

    @Test("A request head over 32 KiB gets 431")
    func hugeHead() throws {
        let (_, server) = try start()
        let client = try RawClient(port: server.httpPort)
        client.send("GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 40_000) + "\r\n\r\n")
        #expect(try client.response().status == 431)
    }

    @Test("Connection: close is honoured")
    func connectionClose() throws {
        let (_, server) = try start()
        let client = try RawClient(port: server.httpPort)
        client.request("GET", "/hello.txt", headers: ["Connection: close"])
        let response = try client.response()
        #expect(response.headers["connection"] == "close")
        #expect(client.drain() == (0, 0))
    }

    @Test("300 concurrent connections are all served")
    func manyConnections() throws {
        let (_, server) = try start()
        let clients = try (0..<300).map { _ in try RawClient(port: server.httpPort) }
        for (index, client) in clients.enumerated() { client.request("GET", "/bytes/10?c=\(index)") }
        for client in clients { #expect(try client.response().status == 200) }
        #expect(server.stats.maxConcurrentConnections == 300)
        #expect(server.stats.totalRequests == 300)
    }

    @Test("resetCounters zeroes the counts")
    func resetCounters() throws {
        let (_, server) = try start()
        _ = try get(server, "/hello.txt")
        server.resetCounters()
        #expect(server.stats.totalRequests == 0)
        #expect(server.stats.bodyBytesSent == 0)
        #expect(server.requests(for: "/hello.txt") == 0)
    }
}

@Suite("Fault routes")
struct FaultRouteTests {
    @Test(
        "Scripted answers",
        arguments: [
            ("/status/418", 418, "content-type", "text/plain; charset=utf-8"),
            ("/redirect/2/hello.txt", 302, "location", "/redirect/1/hello.txt"),
            ("/redirect/0/hello.txt", 200, "content-length", "6"),
            ("/redirect-loop?x=1", 302, "location", "/redirect-loop?x=1"),
            ("/redirect-to?url=file%3A%2F%2F%2Fetc%2Fpasswd", 302, "location", "file:///etc/passwd"),
            ("/redirect-to?url=http://10.0.0.1/&status=301", 301, "location", "http://10.0.0.1/"),
            ("/type/text/html/img/hero.png", 200, "content-type", "text/html"),
            ("/cache/max-age%3D60/hello.txt", 200, "cache-control", "max-age=60"),
            ("/chunked/hello.txt", 200, "transfer-encoding", "chunked"),
            ("/head-status/405/hello.txt", 200, "content-length", "6"),
            ("/status/x", 400, "content-type", "text/plain; charset=utf-8"),
        ])
    func scripted(_ target: String, _ status: Int, _ header: String, _ value: String) throws {
        let (_, server) = try start()
        let response = try get(server, target)
        #expect(response.status == status)
        #expect(response.headers[header] == value)
    }

    @Test("Chunked encoding carries the whole file")
    func chunkedBody() throws {
        let (site, server) = try start()
        let response = try get(server, "/chunked/img/hero.png")
        #expect(response.headers["content-length"] == nil)
        #expect(response.body == site.image)
    }

    @Test("retry: the first N requests fail with Retry-After, then REST answers")
    func retryRoute() throws {
        let (_, server) = try start()
        let route = "/retry/2/503/7/hello.txt"
        for _ in 0..<2 {
            let failure = try get(server, route)
            #expect(failure.status == 503)
            #expect(failure.headers["retry-after"] == "7")
        }
        #expect(try get(server, route).text == "hello\n")
        #expect(try get(server, "/retry/1/429/-/hello.txt").headers["retry-after"] == nil)
    }

    @Test("HEAD refusals: a status, or a dropped connection; GET still works")
    func headRefusals() throws {
        let (_, server) = try start()
        #expect(try get(server, "/head-status/405/hello.txt", "HEAD").status == 405)
        let client = try RawClient(port: server.httpPort)
        client.request("HEAD", "/head-drop/hello.txt")
        #expect(client.drain() == (0, 0), "closed without a byte")
        #expect(try get(server, "/head-drop/hello.txt").text == "hello\n")
    }

    @Test("short: declares more than it sends, then closes cleanly")
    func shortBody() throws {
        let (_, server) = try start()
        let client = try RawClient(port: server.httpPort)
        client.request("GET", "/short/100/10")
        let head = try client.response(head: true)
        #expect(head.headers["content-length"] == "100")
        #expect(client.drain() == (10, 0))
    }

    @Test("reset: sends some bytes, then a TCP reset")
    func resetBody() throws {
        let (_, server) = try start()
        let client = try RawClient(port: server.httpPort)
        client.request("GET", "/reset/1000")
        _ = try client.response(head: true)
        let (_, error) = client.drain()
        #expect(error == ECONNRESET)
    }

    @Test("drip and delay take their time")
    func slowRoutes() throws {
        let (_, server) = try start()
        let started = Date()
        #expect(try get(server, "/drip/3/100").body == [0, 1, 2])
        #expect(try get(server, "/delay/200/hello.txt").text == "hello\n")
        #expect(Date().timeIntervalSince(started) >= 0.5)
    }

    @Test("endless keeps sending until the client leaves")
    func endless() throws {
        let (_, server) = try start()
        let client = try RawClient(port: server.httpPort)
        client.request("GET", "/endless")
        _ = try client.response(head: true)
        var received = 0
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while received < 1_000_000 {
            let count = chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += count
        }
        #expect(received >= 1_000_000)
    }
}

@Suite("Lifecycle")
struct LifecycleTests {
    @Test("Port 0 picks free ports; HTTPS listeners and the CA file exist")
    func ports() throws {
        let (_, first) = try start(https: true)
        let (_, second) = try start(https: true)
        #expect(first.httpPort != second.httpPort)
        #expect(Set(first.tlsPorts.keys) == Set(FixtureCertificate.allCases))
        #expect(Set(first.tlsPorts.values).count == FixtureCertificate.allCases.count)
        let pem = try String(contentsOfFile: try #require(first.caFilePath), encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(pem == first.caPEM)
        #expect(first.url("/x", tls: .valid) == "https://127.0.0.1:\(first.httpsPort!)/x")
    }

    @Test("stop() closes idle connections, frees the port and removes its temporary CA file")
    func stop() throws {
        let (_, server) = try start(https: true)
        let client = try RawClient(port: server.httpPort)
        client.request("GET", "/hello.txt")
        _ = try client.response()
        let busy = try RawClient(port: server.httpPort)
        busy.request("GET", "/endless")
        _ = try busy.response(head: true)
        let caFile = try #require(server.caFilePath)
        server.stop()
        #expect(client.drain().bytes == 0)
        _ = busy.drain()
        #expect(throws: RawClient.ClientError.self) { _ = try RawClient(port: server.httpPort) }
        #expect(!FileManager.default.fileExists(atPath: caFile))
        server.stop()  // idempotent
    }

    @Test("A given CA path is written and kept")
    func caFile() throws {
        let path = sharedSite.root + "/ca-\(UUID().uuidString).pem"
        let server = try FixtureServer(root: sharedSite.root, caFile: path)
        server.stop()
        #expect(FileManager.default.fileExists(atPath: path))
        try FileManager.default.removeItem(atPath: path)
    }

    @Test("Binding a port in use throws")
    func portInUse() throws {
        let (site, server) = try start()
        #expect(throws: FixtureServerError.self) {
            _ = try FixtureServer(root: site.root, httpPort: server.httpPort, httpsPort: nil)
        }
    }
}

@Suite("Hostile clients")
struct HostileClientTests {
    @Test("Random bytes as requests: each gets 400 or a close, and the server keeps serving")
    func garbage() throws {
        let (_, server) = try start()
        var generator = SeededGenerator(seed: 0x5eed)
        for round in 0..<100 {
            let client = try RawClient(port: server.httpPort)
            let length = Int.random(in: 1...2000, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if round % 2 == 0 { bytes += Array("\r\n\r\n".utf8) }  // half of them end like a head
            _ = bytes.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if round % 2 == 0, let response = try? client.response() { #expect(response.status == 400) }
        }
        #expect(try get(server, "/hello.txt").status == 200)
    }

    @Test("A client that connects and says nothing does not block others")
    func silentClient() throws {
        let (_, server) = try start()
        let silent = try RawClient(port: server.httpPort)
        #expect(try get(server, "/hello.txt").text == "hello\n")
        withExtendedLifetime(silent) {}
    }
}

@Suite("Bodiless statuses")
struct BodilessStatusTests {
    @Test("/status/204 and /status/304 send no body, so the connection stays in sync", arguments: [204, 304])
    func noBody(_ status: Int) throws {
        let (_, server) = try start()
        let client = try RawClient(port: server.httpPort)
        client.request("GET", "/status/\(status)")
        #expect(try client.response().status == status)
        client.request("GET", "/hello.txt")
        #expect(try client.response().text == "hello\n")
    }
}
