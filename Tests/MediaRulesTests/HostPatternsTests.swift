import MediaRules
import Testing

/// `--ios-ats-exceptions` / `--android-cleartext-hosts` patterns: what parses, what is refused and why, and what
/// each accepted pattern admits.
@Suite struct HostPatternsTests {
    struct Accepted: CustomTestStringConvertible, Sendable {
        var input: String
        /// The stored (trimmed, lowercased) pattern.
        var pattern: String
        var matches: [String]
        var rejects: [String]
        /// URLs whose host (`TransportRules.host(of:)`, what the transport rules compare) the pattern admits.
        var urls: [String] = []
        var testDescription: String { "'\(input)' admits \(matches + urls), not \(rejects)" }
    }

    @Test(arguments: [
        Accepted(
            input: "cdn.example.com", pattern: "cdn.example.com", matches: ["cdn.example.com", "CDN.EXAMPLE.COM"],
            rejects: ["example.com", "a.cdn.example.com", "cdn.example.com.evil.test", "cdn-example.com", ""]),
        Accepted(
            input: "*.example.com", pattern: "*.example.com",
            matches: ["example.com", "a.example.com", "a.b.example.com", "A.Example.Com"],
            rejects: ["badexample.com", "example.com.evil.test", "example.co", "xexample.com", ""]),
        Accepted(input: "*", pattern: "*", matches: ["anything.test", "127.0.0.1", "::1", ""], rejects: []),
        Accepted(input: "  CDN.Example.com\t", pattern: "cdn.example.com", matches: ["cdn.example.com"], rejects: []),
        Accepted(input: " * ", pattern: "*", matches: ["x.test"], rejects: []),
        Accepted(input: "localhost", pattern: "localhost", matches: ["localhost"], rejects: ["localhost.test"]),
        Accepted(input: "10.0.0.2", pattern: "10.0.0.2", matches: ["10.0.0.2"], rejects: ["10.0.0.20"]),
        Accepted(
            input: "img_cdn.example.com", pattern: "img_cdn.example.com", matches: ["img_cdn.example.com"], rejects: []),
        Accepted(input: "xn--bcher-kva.de", pattern: "xn--bcher-kva.de", matches: ["xn--bcher-kva.de"], rejects: []),
        // An IPv6 literal, bare or bracketed as URLs write it, is stored bare: the host host(of:) gives for
        // `http://[::1]:8080/x`.
        Accepted(
            input: "::1", pattern: "::1", matches: ["::1"], rejects: ["[::1]", "::2", "::10"],
            urls: ["http://[::1]:8080/x", "http://[::1]/"]),
        Accepted(
            input: "[::1]", pattern: "::1", matches: ["::1"], rejects: ["[::1]", "::2"],
            urls: ["http://[::1]:8080/x", "https://user@[::1]/a"]),
        Accepted(input: " [::1]\t", pattern: "::1", matches: ["::1"], rejects: [], urls: ["http://[::1]:8080/x"]),
        Accepted(
            input: "2001:DB8::1", pattern: "2001:db8::1", matches: ["2001:db8::1", "2001:DB8::1"],
            rejects: ["2001:db8::2", "2001:db8::"], urls: ["http://[2001:DB8::1]:8080/a"]),
        Accepted(
            input: "[2001:db8::a:1]", pattern: "2001:db8::a:1", matches: ["2001:db8::a:1"], rejects: [],
            urls: ["http://[2001:db8::a:1]/a"]),
        Accepted(
            input: "::ffff:10.0.0.2", pattern: "::ffff:10.0.0.2", matches: ["::ffff:10.0.0.2"], rejects: ["10.0.0.2"],
            urls: ["http://[::ffff:10.0.0.2]:80/a"]),
    ])
    func accepted(_ testCase: Accepted) throws {
        let patterns = try HostPatterns([testCase.input], origin: "--ios-ats-exceptions")
        #expect(patterns.patterns == [testCase.pattern])
        #expect(!patterns.isEmpty)
        #expect(patterns.origin == "--ios-ats-exceptions")
        for host in testCase.matches { #expect(patterns.match(host) == testCase.pattern, "\(host)") }
        for host in testCase.rejects { #expect(patterns.match(host) == nil, "\(host)") }
        for url in testCase.urls {
            #expect(patterns.match(TransportRules.host(of: url)) == testCase.pattern, "\(url)")
        }
    }

    struct Refused: CustomTestStringConvertible, Sendable {
        var input: String
        var reason: String
        var testDescription: String { "'\(input)' is refused: \(reason)" }
    }

    static let empty = "an empty host"
    static let star = "'*' stands only for a whole host or as '*.' first"
    static let notHost = "not a host name (no scheme, port or path)"
    static let spaces = "a host name has no spaces"

    @Test(arguments: [
        Refused(input: "", reason: empty),
        Refused(input: "   ", reason: empty),
        Refused(input: "\t\n", reason: empty),
        Refused(input: "cdn*.x.com", reason: star),
        Refused(input: "*x.com", reason: star),
        Refused(input: "*.", reason: star),
        Refused(input: "*.*.x.com", reason: star),
        Refused(input: "x.*", reason: star),
        Refused(input: "**", reason: star),
        Refused(input: "http://x.com", reason: notHost),
        Refused(input: "x.com/path", reason: notHost),
        Refused(input: "x.com/", reason: notHost),
        Refused(input: "user@x.com", reason: notHost),
        Refused(input: "x.com?q", reason: notHost),
        // A colon is an IPv6 literal's only: a port (or a lone colon) is refused.
        Refused(input: "x.com:80", reason: notHost),
        Refused(input: "cdn.example.com:8080", reason: notHost),
        Refused(input: "10.0.0.2:80", reason: notHost),
        Refused(input: ":80", reason: notHost),
        Refused(input: ":", reason: notHost),
        Refused(input: "[::1]:8080", reason: notHost),
        Refused(input: "[::1", reason: notHost),
        Refused(input: "::1]", reason: notHost),
        Refused(input: "[[::1]]", reason: notHost),
        Refused(input: "[:1]", reason: notHost),
        Refused(input: "::g", reason: notHost),
        Refused(input: "fe80::1%eth0", reason: notHost),
        Refused(input: "x com", reason: spaces),
        Refused(input: " cdn.example.com  img.example.com ", reason: spaces),
        Refused(input: "x.com :80", reason: spaces),
        Refused(input: ":: 1", reason: spaces),
        Refused(input: "bücher.de", reason: notHost),
        Refused(input: ".x.com", reason: notHost),
        Refused(input: "x.com.", reason: notHost),
        Refused(input: "*..x.com", reason: notHost),
        Refused(input: ".", reason: notHost),
    ])
    func refused(_ testCase: Refused) {
        let error = #expect(throws: HostPatternError.self) {
            try HostPatterns(["cdn.example.com", testCase.input], origin: "--android-cleartext-hosts")
        }
        #expect(error?.pattern == testCase.input)
        #expect(error?.reason == testCase.reason)
        #expect(error?.description == "'\(testCase.input)' is not a host pattern: \(testCase.reason)")
    }

    @Test func oneBadEntrySpoilsTheList() {
        let error = #expect(throws: HostPatternError.self) {
            try HostPatterns(["cdn.example.com", "", "*.example.org"], origin: "o")
        }
        #expect(error?.reason == Self.empty)
    }

    @Test func firstMatchingPatternIsNamed() throws {
        let patterns = try HostPatterns(["cdn.example.com", "*.example.com", "*"], origin: "config iosAtsExceptions")
        #expect(patterns.patterns == ["cdn.example.com", "*.example.com", "*"])
        #expect(patterns.match("cdn.example.com") == "cdn.example.com")
        #expect(patterns.match("img.example.com") == "*.example.com")
        #expect(patterns.match("other.test") == "*")
    }

    @Test func noPatterns() throws {
        #expect(HostPatterns.none.isEmpty)
        #expect(HostPatterns.none.match("cdn.example.com") == nil)
        let empty = try HostPatterns([], origin: "o")
        #expect(empty.isEmpty && empty.match("") == nil)
    }
}
