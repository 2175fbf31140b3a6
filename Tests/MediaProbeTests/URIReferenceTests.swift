import MediaProbe
import Testing

@Suite("RFC 3986 reference resolution")
struct URIReferenceTests {
    static let base = "http://a/b/c/d;p?q"

    /// RFC 3986 §5.4.1 "Normal Examples", verbatim.
    @Test(
        "normal examples (§5.4.1)",
        arguments: [
            ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
            ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
            ("../../g", "http://a/g"),
        ])
    func normal(_ reference: String, expected: String) {
        #expect(URIReference.resolve(reference, against: Self.base) == expected)
    }

    /// RFC 3986 §5.4.2 "Abnormal Examples", verbatim (strict parser: "http:g" stays "http:g").
    @Test(
        "abnormal examples (§5.4.2)",
        arguments: [
            ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
            ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."),
            ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"),
            ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
            ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
            ("g?y/../x", "http://a/b/c/g?y/../x"),
            ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
        ])
    func abnormal(_ reference: String, expected: String) {
        #expect(URIReference.resolve(reference, against: Self.base) == expected)
    }

    @Test(
        "HLS-shaped cases",
        arguments: [
            ("https://cdn.example.com/v/master.m3u8", "low/index.m3u8", "https://cdn.example.com/v/low/index.m3u8"),
            ("https://cdn.example.com/v/master.m3u8?token=t", "seg.ts", "https://cdn.example.com/v/seg.ts"),
            ("https://cdn.example.com", "a.m3u8", "https://cdn.example.com/a.m3u8"),
            ("https://cdn.example.com:8443/x/y.m3u8", "//other.example.com/z.ts", "https://other.example.com/z.ts"),
            ("https://cdn.example.com/x/y.m3u8", "HTTP://Other/./a/../b.ts", "HTTP://Other/b.ts"),
        ])
    func hls(base: String, reference: String, expected: String) {
        #expect(URIReference.resolve(reference, against: base) == expected)
    }

    @Test("a relative base cannot resolve a relative reference")
    func relativeBase() {
        #expect(URIReference.resolve("a.ts", against: "/local/playlist.m3u8") == nil)
        #expect(URIReference.resolve("https://x/a.ts", against: "not a url") == "https://x/a.ts")
    }

    @Test("components")
    func components() {
        let reference = URIReference("https://user@host:1/p/a?q=1#f")
        #expect(reference.scheme == "https")
        #expect(reference.authority == "user@host:1")
        #expect(reference.path == "/p/a")
        #expect(reference.query == "q=1")
        #expect(reference.fragment == "f")
        #expect(reference.text == "https://user@host:1/p/a?q=1#f")
        #expect(URIReference("1a:b").scheme == nil)  // a scheme starts with a letter
    }

    @Test("a path of 100,000 '..' segments resolves in linear time")
    func longPath() {
        let reference = Array(repeating: "..", count: 100_000).joined(separator: "/") + "/x"
        #expect(URIReference.resolve(reference, against: "https://h/a/b") == "https://h/x")
    }
}
