import Findings
import TestSupport
import Testing

/// One redaction case: a readable name, the input and what every output must show instead.
struct RedactionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var input: String
    var expected: String
    init(_ name: String, _ input: String, _ expected: String) {
        self.name = name
        self.input = input
        self.expected = expected
    }
    var testDescription: String { name }
}

/// Every credential form the README promises to redact (issue 17 item 7), and the look-alikes that must stay.
struct RedactionFormsTests {
    static let secretForms: [RedactionCase] = [
        // userinfo
        .init("user and password", "https://user:pass@cdn.example.com/a.png", "https://REDACTED@cdn.example.com/a.png"),
        .init(
            "a bare token as the user", "https://TOKEN@cdn.example.com/a.png", "https://REDACTED@cdn.example.com/a.png"),
        .init("an @ inside the password", "https://u:p@ss@host/x", "https://REDACTED@host/x"),
        .init("userinfo with ; and &", "https://u;a&b:p@host/x", "https://REDACTED@host/x"),
        .init("userinfo and a port", "http://u:p@host:8080/x?page=2", "http://REDACTED@host:8080/x?page=2"),
        .init("userinfo without a path", "https://u:p@host", "https://REDACTED@host"),
        .init("userinfo before a query", "https://u:p@host?page=1", "https://REDACTED@host?page=1"),
        .init("protocol-relative", "//u:p@cdn.example.com/a.png", "//REDACTED@cdn.example.com/a.png"),
        .init("https: without slashes (browsers read an authority)", "https:u:p@host/x", "https:REDACTED@host/x"),
        .init("HTTPS:/ with one slash, any case", "HTTPS:/u:p@host/x", "HTTPS:/REDACTED@host/x"),
        .init("backslashes after a special scheme", #"https:\\u:p@host/x"#, #"https:\\REDACTED@host/x"#),
        .init("another scheme", "ftp://u:pw@host/x", "ftp://REDACTED@host/x"),
        .init(
            "a URL nested in a query value", "https://a/cb?next=https://u:p@b/x&page=1",
            "https://a/cb?next=https://REDACTED@b/x&page=1"),
        .init(
            "a URL nested in the path", "https://proxy/fetch/https://u:p@b/x",
            "https://proxy/fetch/https://REDACTED@b/x"),
        // query
        .init("query token", "https://x/a.png?token=abc123", "https://x/a.png?token=REDACTED"),
        .init("upper-case name", "https://x/a.png?w=10&TOKEN=abc&h=2", "https://x/a.png?w=10&TOKEN=REDACTED&h=2"),
        .init("percent-encoded name", "https://x/a.png?to%6Ben=abc", "https://x/a.png?to%6Ben=REDACTED"),
        .init("fully percent-encoded name", "https://x/a?%74%6F%6B%65%6E=abc", "https://x/a?%74%6F%6B%65%6E=REDACTED"),
        .init("encoded upper-case name", "https://x/a?ACCESS%5FTOKEN=abc", "https://x/a?ACCESS%5FTOKEN=REDACTED"),
        .init(
            "Unicode case folding (Kelvin sign)", "https://x/a?to\u{212A}en=abc", "https://x/a?to\u{212A}en=REDACTED"),
        .init("several secrets", "https://x/y?sig=1&key=2#frag", "https://x/y?sig=REDACTED&key=REDACTED#frag"),
        .init("a value holding ? and =", "https://x/y?token=a?b=c&page=1", "https://x/y?token=REDACTED&page=1"),
        .init("; separates query parameters", "https://x/y?a=1;sig=2", "https://x/y?a=1;sig=REDACTED"),
        .init(
            "a nested query after ?", "https://a/cb?next=https://b/x?token=t&page=1",
            "https://a/cb?next=https://b/x?token=REDACTED&page=1"),
        .init(
            "S3 presigned", "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIA&X-Amz-Signature=ff&X-Amz-Date=1",
            "https://b.s3.amazonaws.com/k?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Date=1"),
        .init(
            "Azure SAS", "https://a.blob.core.windows.net/c/b?sv=2020&se=2030&sp=r&sig=abc",
            "https://a.blob.core.windows.net/c/b?sv=REDACTED&se=REDACTED&sp=REDACTED&sig=REDACTED"),
        // fragment
        .init(
            "OAuth fragment", "https://app/cb#access_token=abc&state=xyz&token_type=bearer",
            "https://app/cb#access_token=REDACTED&state=xyz&token_type=bearer"),
        .init("fragment id_token", "https://app/cb#id_token=eyJ.x.y", "https://app/cb#id_token=REDACTED"),
        .init(
            "single-page-app route in the fragment", "https://app/#/cb?access_token=abc&state=1",
            "https://app/#/cb?access_token=REDACTED&state=1"),
        .init("query and fragment", "https://x/a?token=q#token=f", "https://x/a?token=REDACTED#token=REDACTED"),
        .init("a ? after the # belongs to the fragment", "https://x/a#f?token=q", "https://x/a#f?token=REDACTED"),
        .init("encoded name in the fragment", "https://x/a#Access%5Ftoken=abc", "https://x/a#Access%5Ftoken=REDACTED"),
        // matrix
        .init("matrix parameter", "https://x/a;token=abc/b.png", "https://x/a;token=REDACTED/b.png"),
        .init(
            "matrix parameter at the end", "https://x/a.png;jsessionid=1;sig=abc",
            "https://x/a.png;jsessionid=REDACTED;sig=REDACTED"),
        .init("matrix before a query", "https://x/a;key=abc?page=2", "https://x/a;key=REDACTED?page=2"),
        .init("matrix name case and encoding", "https://x/a;TO%6BEN=abc/b", "https://x/a;TO%6BEN=REDACTED/b"),
        .init("matrix on the host segment", "https://x;sig=abc/a", "https://x;sig=REDACTED/a"),
        // all at once
        .init(
            "every form at once", "https://u:p@h/a;sig=1/b?token=2&page=3#access_token=4&state=5",
            "https://REDACTED@h/a;sig=REDACTED/b?token=REDACTED&page=3#access_token=REDACTED&state=5"),
    ]

    /// Ordinary parameters and URL parts that only look like secrets: never touched.
    static let lookAlikes: [String] = [
        "https://cdn.example.com/inbox/hero.png",
        "https://x/y?page=2&per_page=20&sort=desc",
        "https://x/y?width=100&height=50&fit=crop&q=80",
        "https://x/y?tokenizer=bpe&keyboard=de&signed=true&passive=1",
        "https://x/y?mytoken=1&token_type=bearer&key_id=7&sig_alg=rs256",
        "https://x/y?token",
        "https://x/y?token=",
        "https://x/y?=token",
        "https://x/token=abc/b.png",
        "https://x/a.png#section-2",
        "https://x/a.png#state=1&expires_in=3600",
        "https://x/a;v=2/b.png",
        "https://x/a.png?email=a@b.example",
        "https://x/path/a@b.png",
        "mailto:help@shop.example",
        "demo.json#request.notifications[3]",
        "file.json#[3]",
        "not a url",
        "",
        "https://x/a?to%6Bens=abc",
        "https://x/a?to%6=abc",
        "https://REDACTED@h/a?token=REDACTED",
    ]

    @Test(arguments: secretForms)
    func redactsEveryCredentialForm(_ row: RedactionCase) {
        #expect(Redaction.redactURL(row.input) == row.expected)
    }

    @Test(arguments: secretForms)
    func redactionIsIdempotent(_ row: RedactionCase) {
        let once = Redaction.redactURL(row.input)
        #expect(Redaction.redactURL(once) == once)
    }

    @Test(arguments: secretForms)
    func textRedactsTheSameFormsInsideSentences(_ row: RedactionCase) {
        guard row.input.contains("://") else { return }  // redactText looks only at words with a scheme separator
        #expect(Redaction.redactText("GET \(row.input) failed") == "GET \(row.expected) failed")
    }

    @Test(arguments: lookAlikes)
    func leavesLookAlikesAlone(_ url: String) {
        #expect(Redaction.redactURL(url) == url)
        #expect(Redaction.redactText("see \(url) now") == "see \(url) now")
    }

    @Test func everySecretNameIsRedactedInEveryPlace() {
        for name in Redaction.secretQueryNames {
            let url = "https://h/a;\(name)=M?x=1&\(name)=Q#\(name)=F"
            #expect(
                Redaction.redactURL(url) == "https://h/a;\(name)=REDACTED?x=1&\(name)=REDACTED#\(name)=REDACTED",
                "\(name)")
            #expect(
                Redaction.redactURL("https://h/a?\(name.uppercased())=Q") == "https://h/a?\(name.uppercased())=REDACTED"
            )
        }
    }

    /// Secrets planted at random in the four places, with random other parameters and percent-encoded names: none
    /// survives, and a second pass changes nothing (the fuzz target checks the same on libFuzzer's inputs).
    @Test func plantedSecretsNeverSurvive() {
        var random = SplitMix(seed: 17)
        let names = Redaction.secretQueryNames.sorted()
        for _ in 0..<2_000 {
            let secret = "S3CR3T" + String(random.next() % 1_000_000)
            let name = names[Int(random.next() % UInt64(names.count))]
            let spelled = random.next() % 2 == 0 ? name.uppercased() : percentEncodeFirstLetter(name)
            let other = "page=\(random.next() % 100)"
            let url: String
            switch random.next() % 5 {
            case 0: url = "https://\(secret)@cdn.example.com/a.png?\(other)"
            case 1: url = "https://user:\(secret)@cdn.example.com/a.png"
            case 2: url = "https://cdn.example.com/a.png?\(other)&\(spelled)=\(secret)&w=1"
            case 3: url = "https://app.example.com/cb#\(spelled)=\(secret)&state=1"
            default: url = "https://cdn.example.com/a;\(spelled)=\(secret)/b.png?\(other)"
            }
            let redacted = Redaction.redactURL(url)
            #expect(!redacted.contains(secret), "\(url) → \(redacted)")
            #expect(redacted.contains(other) || !url.contains(other), "\(url) → \(redacted)")
            #expect(Redaction.redactURL(redacted) == redacted)
        }
    }

    private func percentEncodeFirstLetter(_ name: String) -> String {
        guard let first = name.utf8.first else { return name }
        let hex = String(first, radix: 16, uppercase: true)
        return "%" + hex + name.dropFirst()
    }
}

/// A small deterministic generator (FindingsTests has no TestSupport dependency).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// ``Redaction/redactText(_:)`` returns a text untouched when no word could change (its fast path); it must agree
/// with the word-by-word rule everywhere, also where grapheme clusters join a separator to its neighbours.
@Suite struct RedactTextFastPathTests {
    /// The rule without the fast path: split at space, newline, tab and quote Characters, redact each word whose
    /// bytes hold `://`.
    static func wordByWord(_ text: String) -> String {
        func redacted(_ word: String) -> String {
            let bytes = Array(word.utf8)
            let url = bytes.indices.contains { bytes[$0...].starts(with: [0x3A, 0x2F, 0x2F]) }
            return url ? Redaction.redactURL(word) : word
        }
        var out = ""
        var word = ""
        for character in text {
            if character == " " || character == "\n" || character == "\t" || character == "\"" {
                out += redacted(word)
                out.append(character)
                word = ""
            } else {
                word.append(character)
            }
        }
        return out + redacted(word)
    }

    static let pieces = [
        "http://cdn.example.com/a.png", "https://x/?token=abc", "?sig=1", "@", "#access_token=z", ";", " ", "\n",
        "\r\n", "\r", "\t", "\"", "\u{301}", "é", "\u{600}", "—", "://", "x", "a=b", "token=q", "🇫🇷", "\u{200D}",
    ]

    @Test func agreesWithTheWordByWordRule() {
        var generator = SeededGenerator(seed: 0x5eed)
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...8, using: &generator)
            let text = (0..<count).map { _ in Self.pieces.randomElement(using: &generator)! }.joined()
            #expect(Redaction.redactText(text) == Self.wordByWord(text), "\(text.debugDescription)")
        }
    }

    @Test(arguments: [
        ("plain http://cdn.example.com/a.png; then more", false),
        ("see https://x/?token=abc now", true),
        ("https://x/\r\n?token=abc", true),
        ("https://x/ \u{301}?token=abc", true),
        // `://` then a combining mark: one grapheme short of "://", a URL all the same.
        ("https://\u{301}cdn.example.com/a.png?token=SECRET", true),
    ])
    func changesOnlyWhatHoldsASecret(text: String, changes: Bool) {
        #expect((Redaction.redactText(text) != text) == changes)
        #expect(Redaction.redactText(text) == Self.wordByWord(text))
    }
}
