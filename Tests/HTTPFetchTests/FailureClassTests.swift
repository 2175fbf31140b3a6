import FixtureServer
import HTTPFetch
import TestSupport
import Testing

/// One fault and the failure class it must produce.
struct FaultCase: CustomTestStringConvertible, Sendable {
    let name: String
    let kind: FetchKind
    /// A route on the fixture server when it starts with "/", else a full URL (`CLOSED` = a port nobody
    /// listens on).
    let target: String
    var tls: FixtureCertificate?
    var trustCA = true
    var change: @Sendable (inout FetchOptions) -> Void = { _ in }
    let failure: FetchFailure
    var httpStatus: Int?

    var testDescription: String { "\(name) → \(failure.rawValue)" }
}

private let faults: [FaultCase] = [
    FaultCase(
        name: "404 (probe, after GET fallback)", kind: .probe, target: "/status/404", failure: .httpStatus,
        httpStatus: 404),
    FaultCase(name: "410", kind: .get, target: "/status/410", failure: .httpStatus, httpStatus: 410),
    FaultCase(name: "500", kind: .get, target: "/status/500", failure: .httpStatus, httpStatus: 500),
    FaultCase(name: "503", kind: .probe, target: "/status/503", failure: .httpStatus, httpStatus: 503),
    FaultCase(
        name: "429 for ever", kind: .get, target: "/retry/99/429/-/bytes/10", failure: .httpStatus,
        httpStatus: 429),
    FaultCase(
        name: "a 3xx without Location", kind: .get, target: "/status/302", failure: .httpStatus,
        httpStatus: 302),
    FaultCase(name: "redirect loop", kind: .probe, target: "/redirect-loop", failure: .tooManyRedirects),
    FaultCase(name: "11 redirects", kind: .get, target: "/redirect/11", failure: .tooManyRedirects),
    FaultCase(
        name: "3 redirects, limit 2", kind: .get, target: "/redirect/3", change: { $0.maxRedirects = 2 },
        failure: .tooManyRedirects),
    FaultCase(
        name: "redirect to file://", kind: .get, target: "/redirect-to?url=file:///etc/passwd",
        failure: .scheme),
    FaultCase(name: "redirect to ftp://", kind: .probe, target: "/redirect-to?url=ftp://127.0.0.1/x", failure: .scheme),
    FaultCase(name: "file:// URL", kind: .probe, target: "file:///etc/passwd", failure: .scheme),
    FaultCase(name: "not a URL", kind: .probe, target: "http://exa mple.com:99999/", failure: .invalidURL),
    FaultCase(name: "no scheme", kind: .get, target: "://nothing", failure: .invalidURL),
    FaultCase(name: "unresolvable host", kind: .probe, target: "http://no-such-host.invalid/x", failure: .dns),
    FaultCase(name: "refused connection", kind: .probe, target: "http://127.0.0.1:CLOSED/x", failure: .connect),
    FaultCase(name: "expired certificate", kind: .probe, target: "/bytes/10", tls: .expired, failure: .tls),
    FaultCase(
        name: "certificate for another host", kind: .probe, target: "/bytes/10", tls: .wrongHost,
        failure: .tls),
    FaultCase(name: "self-signed certificate", kind: .get, target: "/bytes/10", tls: .selfSigned, failure: .tls),
    FaultCase(
        name: "unknown CA (no --cacert)", kind: .probe, target: "/bytes/10", tls: .valid, trustCA: false,
        failure: .tls),
    FaultCase(
        name: "slow drip body", kind: .get, target: "/drip/20/1500", change: { $0.timeout = 1 },
        failure: .timeout),
    FaultCase(
        name: "no answer (delay)", kind: .probe, target: "/delay/5000/bytes/10", change: { $0.timeout = 1 },
        failure: .timeout),
    FaultCase(name: "reset mid-body", kind: .get, target: "/reset/5000", failure: .reset),
    FaultCase(
        name: "short body (Content-Length mismatch)", kind: .get, target: "/short/1000/10",
        failure: .truncated),
    FaultCase(
        name: "endless body + max size", kind: .get, target: "/endless", change: { $0.maxSize = 200_000 },
        failure: .tooLarge),
    FaultCase(
        name: "declared size over max (GET)", kind: .get, target: "/bytes/200000",
        change: { $0.maxSize = 1000 }, failure: .tooLarge),
    FaultCase(
        name: "declared size over max (probe)", kind: .probe, target: "/bytes/200000",
        change: { $0.maxSize = 1000 }, failure: .tooLarge),
    FaultCase(
        name: "counted size over max (chunked, no length)", kind: .get, target: "/chunked/bytes/200000",
        change: { $0.maxSize = 1000 }, failure: .tooLarge),
    FaultCase(
        name: "deny-private on loopback", kind: .probe, target: "/bytes/10", change: { $0.denyPrivate = true },
        failure: .privateAddress),
    FaultCase(
        name: "deny-private on an unroutable private address (refused before connecting)", kind: .probe,
        target: "http://10.255.255.1:9/x", change: { $0.denyPrivate = true }, failure: .privateAddress),
    FaultCase(
        name: "deny-private on a cloud metadata address", kind: .get, target: "http://169.254.169.254/latest/",
        change: { $0.denyPrivate = true }, failure: .privateAddress),
]

@Suite("Every fault has its own failure class", .ownThread)
struct FailureClassTests {
    @Test(arguments: faults)
    func faultProducesItsFailure(_ fault: FaultCase) async throws {
        let harness = try Harness(https: fault.tls != nil)
        var options = harness.options(fault.change)
        if !fault.trustCA { options.caFile = nil }
        let engine = try FetchEngine(options: options)
        let url: String
        if fault.target.hasPrefix("/") {
            url = harness.url(fault.target, tls: fault.tls)
        } else {
            url = fault.target.replacing("CLOSED", with: "\(closedPort())")
        }
        let outcome =
            fault.kind == .probe ? await engine.probe(url) : await engine.get(url, into: MemorySink())
        await engine.shutdown()
        withExtendedLifetime(harness) {}  // the server must outlive the request
        #expect(outcome.status == .failed)
        #expect(outcome.failure == fault.failure, "\(outcome.errorText ?? "")")
        if let status = fault.httpStatus { #expect(outcome.httpStatus == status) }
        #expect(outcome.sha256 == nil)
        #expect(outcome.errorText?.isEmpty == false)
        #expect(outcome.finding?.code == fault.failure.findingCode)
        #expect(outcome.finding?.severity == .error)
    }

    @Test("A fault on HTTPS is classified like on HTTP", arguments: ["/reset/5000", "/short/1000/10"])
    func faultsOverTLS(_ route: String) async throws {
        let harness = try Harness(https: true)
        let engine = try FetchEngine(options: harness.options())
        let outcome = await engine.get(harness.url(route, tls: .valid))
        await engine.shutdown()
        #expect(outcome.status == .failed)
        #expect(outcome.failure == .reset || outcome.failure == .truncated)
        #expect(outcome.tlsVersion?.hasPrefix("TLSv1.") == true)
    }
}

@Suite("Bad URLs", .ownThread)
struct BadURLTests {
    @Test(
        "Every malformed or unsupported URL fails with a clear class, at once",
        arguments: [
            ("", FetchFailure.invalidURL), ("   ", .invalidURL), ("http://", .invalidURL), ("http://[::1", .invalidURL),
            ("https://:80/", .invalidURL), ("http://exa mple.com/", .invalidURL), ("//cdn.example/a.png", .invalidURL),
            ("cdn.example/a.png", .invalidURL), ("data:image/png;base64,AAAA", .invalidURL),
            ("ftp://example.com/a", .scheme),
            ("gopher://example.com/", .scheme), ("javascript:alert(1)", .invalidURL), ("file:///etc/passwd", .scheme),
            ("http://example.com/" + String(repeating: "a", count: 9_000_000), .invalidURL),
        ])
    func badURL(_ url: String, _ failure: FetchFailure) async throws {
        let engine = try FetchEngine(options: FetchOptions(timeout: 2, retries: 0))
        let outcome = await engine.probe(url)
        await engine.shutdown()
        #expect(outcome.failure == failure, "\(outcome.errorText ?? "")")
        #expect(outcome.timings.elapsed == 0, "refused before any network activity")
    }
}
