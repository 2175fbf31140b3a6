import FixtureServer
import Foundation
import HTTPFetch
import Testing

/// `--connect-to` as curl reads it, IPv6 in brackets on both sides (issue 17 item 6).
@Suite("Connect-to mappings")
struct ConnectToTests {
    struct Valid: Sendable, CustomTestStringConvertible {
        var text: String
        var host: String?
        var port: Int?
        var targetHost: String?
        var targetPort: Int?
        /// What curl is handed.
        var curl: String
        var testDescription: String { text }
    }

    static let valid: [Valid] = [
        Valid(
            text: "cdn.example.com:443:127.0.0.1:8443", host: "cdn.example.com", port: 443, targetHost: "127.0.0.1",
            targetPort: 8443, curl: "cdn.example.com:443:127.0.0.1:8443"),
        Valid(
            text: "[::1]:443:[::1]:8443", host: "::1", port: 443, targetHost: "::1", targetPort: 8443,
            curl: "[::1]:443:[::1]:8443"),
        Valid(text: "h:80:[::1]:9", host: "h", port: 80, targetHost: "::1", targetPort: 9, curl: "h:80:[::1]:9"),
        Valid(
            text: "[0:0::1]:80:[2001:DB8::1]:8080", host: "::1", port: 80, targetHost: "2001:db8::1", targetPort: 8080,
            curl: "[::1]:80:[2001:db8::1]:8080"),
        Valid(
            text: "[::ffff:127.0.0.1]:80:h:1", host: "::ffff:127.0.0.1", port: 80, targetHost: "h", targetPort: 1,
            curl: "[::ffff:127.0.0.1]:80:h:1"),
        Valid(text: "::h2:", host: nil, port: nil, targetHost: "h2", targetPort: nil, curl: "::h2:"),
        Valid(text: ":::", host: nil, port: nil, targetHost: nil, targetPort: nil, curl: ":::"),
        Valid(text: "h:080::65535", host: "h", port: 80, targetHost: nil, targetPort: 65535, curl: "h:80::65535"),
    ]

    static let malformed: [(String, String)] = [
        ("::1:443:h:80", "too many colons"),
        ("h:80:::1:8443", "too many colons"),
        ("[::1:443:h:80", "never closed"),
        ("h:80:[::1:8443", "never closed"),
        ("[::1]443:h:80", "must be followed by :PORT"),
        ("h:80:[::1]8443", "must be followed by :PORT"),
        ("h:80:[zz]:1", "not an IPv6 address"),
        ("[127.0.0.1]:80:h:1", "not an IPv6 address"),
        ("h:80:[fe80::1%eth0]:1", "zone ids"),
        ("h:99999:h2:1", "PORT \"99999\""),
        ("h:80:h2:0", "PORT2 \"0\""),
        ("h:x:h2:1", "PORT \"x\""),
        ("h:80:h2:1x", "PORT2 \"1x\""),
        ("h:80:h2", "HOST2 and its port are missing"),
        ("h:80", "not followed by :HOST2:PORT2"),
        ("nonsense", "HOST and its port are missing"),
        ("", "HOST and its port are missing"),
        ("a b:1:c:2", "holds"),
        ("h:1:c/d:2", "holds"),
    ]

    @Test(arguments: valid)
    func parsesAsCurlDoes(_ row: Valid) throws {
        let mapping = try ConnectTo(parsing: row.text)
        #expect(mapping.host == row.host)
        #expect(mapping.port == row.port)
        #expect(mapping.targetHost == row.targetHost)
        #expect(mapping.targetPort == row.targetPort)
        #expect(mapping.description == row.curl)
        #expect(throws: Never.self) { _ = try FetchEngine(options: FetchOptions(connectTo: [row.text])) }
    }

    @Test(arguments: malformed)
    func refusesMalformedMappings(text: String, reason: String) {
        #expect {
            _ = try ConnectTo(parsing: text)
        } throws: { error in
            (error as? ConnectToError)?.reason.contains(reason) == true
        }
        #expect(throws: FetchEngineError.self) { _ = try FetchEngine(options: FetchOptions(connectTo: [text])) }
    }

    /// Whether this machine can listen on ::1 (containers without IPv6 cannot: the test below is skipped there).
    static let hasIPv6Loopback: Bool = {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
            }
        }
    }()

    @Test(
        "A request reaches the fixture server on ::1 through an IPv6 mapping on either side",
        .enabled(if: hasIPv6Loopback, "no IPv6 loopback on this machine"))
    func connectsToIPv6Loopback() async throws {
        let server = try FixtureServer(
            root: FileManager.default.temporaryDirectory.path, httpsPort: nil, address: .ipv6)
        defer { server.stop() }
        let port = server.httpPort
        for (mapping, url) in [
            ("cdn.example.com:80:[::1]:\(port)", "http://cdn.example.com/bytes/5"),
            ("[::1]:80:[::1]:\(port)", "http://[::1]/bytes/6"),
            ("[0:0::1]:80:[0::1]:\(port)", "http://[::1]/bytes/7"),
            ("other.example::127.0.0.2:1", "http://[::1]:\(port)/bytes/8"),  // a mapping for another host: unused
        ] {
            let engine = try FetchEngine(options: FetchOptions(timeout: 5, retries: 0, connectTo: [mapping]))
            let outcome = await engine.get(url)
            await engine.shutdown()
            #expect(outcome.isOK, "\(mapping) \(url): \(outcome.errorText ?? "")")
            #expect(outcome.remoteAddress == "::1", "\(mapping)")
        }
        #expect(server.requests(for: "/bytes/5") == 1 && server.requests(for: "/bytes/6") == 1)
        #expect(server.requests(for: "/bytes/7") == 1)
    }
}
