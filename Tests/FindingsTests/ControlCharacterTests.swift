import Findings
import Testing

/// Terminal escaping of campaign text (issue 17 item 6).
struct ControlCharacterTests {
    @Test(arguments: [
        ("plain title", "plain title"),
        ("\u{1B}[2J\u{1B}]0;pwned\u{07}", #"\x1b[2J\x1b]0;pwned\x07"#),
        ("a\u{0}b", #"a\x00b"#),
        ("tab\tnew\nline\r", #"tab\x09new\x0aline\x0d"#),
        ("del\u{7F}", #"del\x7f"#),
        ("c1 \u{9B}31m", #"c1 \xc2\x9b31m"#),
        ("Grüße ©é → ✓", "Grüße ©é → ✓"),
        ("\u{A0}nbsp", "\u{A0}nbsp"),
        ("", ""),
    ])
    func escapesControls(input: String, expected: String) {
        #expect(ControlCharacters.escaped(input) == expected)
    }

    @Test func newlinesCanBeKeptForBlocks() {
        #expect(ControlCharacters.escaped("a\n\u{1B}b\n", keepingNewlines: true) == "a\n\\x1bb\n")
    }

    @Test(
        arguments: [
            ("https://x/a\u{0}b", 11, 0x00), ("https://x/\u{1F}", 10, 0x1F), ("\u{7F}", 0, 0x7F), ("é\u{1}", 2, 0x01),
        ] as [(String, Int, UInt8)])
    func findsTheFirstControlByte(text: String, offset: Int, byte: UInt8) {
        let found = ControlCharacters.first(in: text)
        #expect(found?.offset == offset && found?.byte == byte)
    }

    @Test func cleanTextHasNoControlByte() {
        #expect(ControlCharacters.first(in: "https://cdn.example.com/ü/a.png?w=1") == nil)
        #expect(ControlCharacters.first(in: "c1 \u{9B}") == nil)  // a URL's C1 is UTF-8 curl sends as it is
        #expect(ControlCharacters.notation(0x1B) == #"\x1b"#)
    }
}
