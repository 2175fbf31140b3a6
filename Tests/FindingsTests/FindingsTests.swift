import Findings
import StrictJSON
import Testing

struct RedactionTests {
    @Test(arguments: [
        ("https://cdn.example.com/a.png?token=abc123", "https://cdn.example.com/a.png?token=REDACTED"),
        ("https://cdn.example.com/a.png?w=10&TOKEN=abc&h=2", "https://cdn.example.com/a.png?w=10&TOKEN=REDACTED&h=2"),
        ("https://x/y?sig=1&key=2#frag", "https://x/y?sig=REDACTED&key=REDACTED#frag"),
        ("https://user:hunter2@x/y", "https://REDACTED@x/y"),
        ("https://x/y?width=100", "https://x/y?width=100"),
        ("https://x/y?token", "https://x/y?token"),
        ("not a url", "not a url"),
        ("", ""),
    ])
    func redactsSecretQueryValues(input: String, expected: String) {
        #expect(Redaction.redactURL(input) == expected)
    }

    @Test func redactsURLsInsideText() {
        let text = "failed to fetch https://x/a?token=s3cret (404) and \"https://y/b?api_key=k\""
        #expect(
            Redaction.redactText(text)
                == "failed to fetch https://x/a?token=REDACTED (404) and \"https://y/b?api_key=REDACTED\"")
    }
}

struct SeverityTests {
    @Test func ordersInfoWarningError() {
        #expect(Severity.info < .warning && Severity.warning < .error)
        let findings = [Finding.info("a", "x"), .error("b", "y"), .warning("c", "z"), .warning("d", "w")]
        #expect(findings.maxSeverity == .error)
        #expect(findings.count(.warning) == 2)
        #expect([Finding]().maxSeverity == nil)
    }
}

struct FindingJSONTests {
    @Test func oneShapeRedactedOnceMore() {
        let finding = Finding.warning(
            "image.notImage", "https://x/a.png?token=abc served text/html", path: "https://x/a.png?sig=1")
        #expect(
            finding.json.serialized()
                == #"{"severity":"warning","code":"image.notImage","message":"https://x/a.png?token=REDACTED served text/html","path":"https://x/a.png?sig=REDACTED"}"#
        )
        #expect(Finding.info("a.b", "m").json["path"] == .null)
    }
}

/// The byte-scan fast paths of Redaction (no `://`, no `?`/`@`) must not skip anything the full rule redacts.
struct RedactionFastPathTests {
    @Test(arguments: [
        ("no url here", "no url here", "no url here"),
        ("a:/b", "a:/b", "a:/b"),
        ("::/", "::/", "::/"),
        ("", "", ""),
        ("token=abc", "token=abc", "token=abc"),
        ("https://cdn.example.com/a.png", "https://cdn.example.com/a.png", "https://cdn.example.com/a.png"),
        ("x://y?token=abc", "x://y?token=REDACTED", "x://y?token=REDACTED"),
        (":://?token=1", ":://?token=REDACTED", ":://?token=REDACTED"),
        ("ftp://u:pw@host/x", "ftp://REDACTED@host/x", "ftp://REDACTED@host/x"),
        (
            "see https://cdn.example.com/a.png?token=abc now", "see https://cdn.example.com/a.png?token=REDACTED now",
            "see https://cdn.example.com/a.png?token=REDACTED"
        ),
    ])
    func fastPathsAgreeWithTheRule(input: String, asText: String, asURL: String) {
        #expect(Redaction.redactText(input) == asText)
        #expect(Redaction.redactURL(input) == asURL)
    }
}
