import Testing

@testable import InboxCards

/// The Foundation-free URL checks the decoders rely on.
@Suite struct URLCheckTests {
    struct Row: Sendable {
        var text: String
        var parses: Bool
        var scheme: String?
        var http: Bool = false
        var unsafe: String? = nil
    }

    static let rows: [Named<Row>] = [
        Named("https", Row(text: "https://cdn.example.com/a.png?x=1#top", parses: true, scheme: "https", http: true)),
        Named("uppercase scheme", Row(text: "HTTP://cdn.example.com/a", parses: true, scheme: "HTTP", http: true)),
        Named("custom scheme", Row(text: "myapp://product/1", parses: true, scheme: "myapp")),
        Named("scheme with + . -", Row(text: "x-app+v1.2:open", parses: true, scheme: "x-app+v1.2")),
        Named("relative", Row(text: "product/1", parses: true, scheme: nil)),
        Named("colon after slash is no scheme", Row(text: "a/b:c", parses: true, scheme: nil)),
        Named("digit first is no scheme", Row(text: "1ab:c", parses: true, scheme: nil)),
        Named("space", Row(text: "https://exa mple.com", parses: false, scheme: "https")),
        Named("non-ASCII", Row(text: "https://example.com/café", parses: false, scheme: "https")),
        Named("bad percent escape", Row(text: "https://example.com/%zz", parses: false, scheme: "https")),
        Named("cut percent escape", Row(text: "https://example.com/%4", parses: false, scheme: "https")),
        Named("good percent escape", Row(text: "https://example.com/a%20b", parses: true, scheme: "https", http: true)),
        Named("two fragments", Row(text: "https://example.com/#a#b", parses: false, scheme: "https")),
        Named("empty", Row(text: "", parses: false, scheme: nil)),
        Named("javascript", Row(text: "javascript:alert(1)", parses: true, scheme: "javascript", unsafe: "javascript")),
        Named("file", Row(text: "FILE:///etc/passwd", parses: true, scheme: "FILE", unsafe: "file")),
        Named(
            "facetime-audio",
            Row(text: "facetime-audio:+1555", parses: true, scheme: "facetime-audio", unsafe: "facetime-audio")),
        Named("http: without slashes", Row(text: "https:cdn.example.com", parses: true, scheme: "https", http: true)),
    ]

    @Test(arguments: rows)
    func check(_ row: Named<Row>) {
        let value = row.value
        #expect(URLCheck.parses(value.text) == value.parses)
        #expect(URLCheck.scheme(value.text).map(String.init) == value.scheme)
        #expect(URLCheck.isHTTP(value.text) == value.http)
        #expect(URLCheck.unsafeScheme(value.text) == value.unsafe)
    }

    @Test(arguments: [
        ("https://a", true), ("http://a", true), ("HTTPS://a", false), ("Http://a", false), ("https:/a", false),
        ("ftp://a", false),
    ])
    func heroPrefixIsCaseSensitive(_ text: String, _ expected: Bool) {
        #expect(URLCheck.hasHTTPPrefix(text) == expected)
    }
}
