import AppProject
import MediaRules
import Testing

/// `PropertyListReader` and `InfoPlistReader.transportSecurity`: each ATS key of the right type becomes the
/// policy's field, each of the wrong type an error naming its key path; binary plists get the conversion hint.
@Suite struct InfoPlistReaderTests {
    static let file = "ios/Shop/Info.plist"

    /// An Info.plist whose top-level dictionary holds `body` (plist XML, keys and values).
    static func plist(_ body: String) -> [UInt8] {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>com.example.shop</string>
        \t<key>UILaunchStoryboardName</key>
        \t<string>LaunchScreen</string>
        \(body)
        </dict>
        </plist>
        """.bytes
    }

    /// `NSAppTransportSecurity` holding `ats`.
    static func ats(_ ats: String) -> [UInt8] { plist("<key>NSAppTransportSecurity</key>\n<dict>\n\(ats)\n</dict>") }

    static func domain(_ name: String, _ keys: String) -> String {
        "<key>NSExceptionDomains</key><dict><key>\(name)</key><dict>\(keys)</dict></dict>"
    }

    struct Reads: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var plist: [UInt8]
        var policy: ATSPolicy
    }

    static func policy(
        arbitrary: Bool = false, media: Bool? = nil, web: Bool? = nil, local: Bool? = nil, ct: Bool? = nil,
        domains: [ATSPolicy.ExceptionDomain] = []
    ) -> ATSPolicy {
        ATSPolicy(
            allowsArbitraryLoads: arbitrary, allowsArbitraryLoadsForMedia: media,
            allowsArbitraryLoadsInWebContent: web, allowsLocalNetworking: local,
            requiresCertificateTransparency: ct, exceptionDomains: domains, source: file)
    }

    static let readings: [Reads] = [
        Reads(testDescription: "no NSAppTransportSecurity: ATS defaults", plist: plist(""), policy: policy()),
        Reads(testDescription: "an empty NSAppTransportSecurity: ATS defaults", plist: ats(""), policy: policy()),
        Reads(
            testDescription: "NSAllowsArbitraryLoads true",
            plist: ats("<key>NSAllowsArbitraryLoads</key><true/>"), policy: policy(arbitrary: true)),
        Reads(
            testDescription: "NSAllowsArbitraryLoads false",
            plist: ats("<key>NSAllowsArbitraryLoads</key><false/>"), policy: policy()),
        Reads(
            testDescription: "NSAllowsArbitraryLoadsForMedia false is kept (its presence matters)",
            plist: ats("<key>NSAllowsArbitraryLoadsForMedia</key><false/>"), policy: policy(media: false)),
        Reads(
            testDescription: "NSAllowsArbitraryLoadsInWebContent true",
            plist: ats("<key>NSAllowsArbitraryLoadsInWebContent</key><true/>"), policy: policy(web: true)),
        Reads(
            testDescription: "NSAllowsLocalNetworking true",
            plist: ats("<key>NSAllowsLocalNetworking</key><true/>"), policy: policy(local: true)),
        Reads(
            testDescription: "NSRequiresCertificateTransparency false",
            plist: ats("<key>NSRequiresCertificateTransparency</key><false/>"), policy: policy(ct: false)),
        Reads(
            testDescription: "an exception domain with every key (domain lowercased)",
            plist: ats(
                domain(
                    "CDN.Example.com",
                    "<key>NSIncludesSubdomains</key><true/><key>NSExceptionAllowsInsecureHTTPLoads</key><true/>"
                        + "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.2</string>"
                        + "<key>NSExceptionRequiresForwardSecrecy</key><false/>")),
            policy: policy(domains: [
                .init(
                    domain: "cdn.example.com", includesSubdomains: true, allowsInsecureHTTPLoads: true,
                    minimumTLSVersion: "TLSv1.2")
            ])),
        Reads(
            testDescription: "an exception domain with no keys",
            plist: ats(domain("api.example.com", "")),
            policy: policy(domains: [
                .init(domain: "api.example.com", includesSubdomains: false, allowsInsecureHTTPLoads: false)
            ])),
        Reads(
            testDescription: "a duplicate key: the last one wins",
            plist: ats("<key>NSAllowsArbitraryLoads</key><true/>\n<key>NSAllowsArbitraryLoads</key><false/>"),
            policy: policy()),
        Reads(
            testDescription: "a duplicate NSAppTransportSecurity: the last one wins",
            plist: plist(
                "<key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><true/></dict>"
                    + "<key>NSAppTransportSecurity</key><dict><key>NSAllowsLocalNetworking</key><true/></dict>"),
            policy: policy(local: true)),
        Reads(
            testDescription: "comments and whitespace between keys and values",
            plist: ats("<!-- media --> <key>NSAllowsArbitraryLoadsForMedia</key>\n\n  <!-- yes --> <true/>"),
            policy: policy(media: true)),
        Reads(
            testDescription: "an Info.plist with arrays, integers and data besides ATS",
            plist: plist(
                "<key>UIRequiredDeviceCapabilities</key><array><string>armv7</string></array>"
                    + "<key>Version</key><integer>3</integer><key>Blob</key><data>AAEC</data>"
                    + "<key>When</key><date>2025-01-01T00:00:00Z</date><key>Scale</key><real>2.5</real>"
                    + "<key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><true/></dict>"),
            policy: policy(arbitrary: true)),
    ]

    @Test(arguments: readings)
    func reads(_ row: Reads) throws {
        let policy = try InfoPlistReader.transportSecurity(row.plist, file: Self.file)
        #expect(policy == row.policy)
        #expect(policy.source == Self.file)
    }

    @Test func aDuplicateExceptionDomainIsJudgedByTheLastEntry() throws {
        let policy = try InfoPlistReader.transportSecurity(
            Self.ats(
                "<key>NSExceptionDomains</key><dict>"
                    + "<key>cdn.example.com</key><dict><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict>"
                    + "<key>cdn.example.com</key><dict><key>NSExceptionAllowsInsecureHTTPLoads</key><false/></dict>"
                    + "</dict>"),
            file: Self.file)
        guard case .blocked = policy.decision(host: "cdn.example.com", media: false) else {
            Issue.record("the last entry forbids insecure loads: \(policy)")
            return
        }
    }

    struct WrongType: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var plist: [UInt8]
        /// The error's reason, whole.
        var reason: String
    }

    static let ns = "NSAppTransportSecurity"
    static let boolean = "expected a boolean (<true/> or <false/>)"

    static let wrongTypeCases: [WrongType] = [
        WrongType(
            testDescription: "NSAllowsArbitraryLoads as the string YES",
            plist: ats("<key>NSAllowsArbitraryLoads</key><string>YES</string>"),
            reason: "\(ns).NSAllowsArbitraryLoads is a string, \(boolean)"),
        WrongType(
            testDescription: "NSAllowsArbitraryLoadsForMedia as the integer 1",
            plist: ats("<key>NSAllowsArbitraryLoadsForMedia</key><integer>1</integer>"),
            reason: "\(ns).NSAllowsArbitraryLoadsForMedia is an integer, \(boolean)"),
        WrongType(
            testDescription: "NSAllowsArbitraryLoadsInWebContent as the string true",
            plist: ats("<key>NSAllowsArbitraryLoadsInWebContent</key><string>true</string>"),
            reason: "\(ns).NSAllowsArbitraryLoadsInWebContent is a string, \(boolean)"),
        WrongType(
            testDescription: "NSAllowsLocalNetworking as an array",
            plist: ats("<key>NSAllowsLocalNetworking</key><array><true/></array>"),
            reason: "\(ns).NSAllowsLocalNetworking is an array, \(boolean)"),
        WrongType(
            testDescription: "NSRequiresCertificateTransparency as a dictionary",
            plist: ats("<key>NSRequiresCertificateTransparency</key><dict/>"),
            reason: "\(ns).NSRequiresCertificateTransparency is a dictionary, \(boolean)"),
        WrongType(
            testDescription: "NSExceptionDomains as an array",
            plist: ats("<key>NSExceptionDomains</key><array><string>cdn.example.com</string></array>"),
            reason: "\(ns).NSExceptionDomains is an array, expected a dictionary"),
        WrongType(
            testDescription: "an exception domain's value as a string",
            plist: ats("<key>NSExceptionDomains</key><dict><key>cdn.example.com</key><string>YES</string></dict>"),
            reason: "\(ns).NSExceptionDomains.cdn.example.com is a string, expected a dictionary"),
        WrongType(
            testDescription: "NSIncludesSubdomains as the string YES",
            plist: ats(domain("cdn.example.com", "<key>NSIncludesSubdomains</key><string>YES</string>")),
            reason: "\(ns).NSExceptionDomains.cdn.example.com.NSIncludesSubdomains is a string, \(boolean)"),
        WrongType(
            testDescription: "NSExceptionAllowsInsecureHTTPLoads as the integer 1",
            plist: ats(domain("cdn.example.com", "<key>NSExceptionAllowsInsecureHTTPLoads</key><integer>1</integer>")),
            reason:
                "\(ns).NSExceptionDomains.cdn.example.com.NSExceptionAllowsInsecureHTTPLoads is an integer, \(boolean)"
        ),
        WrongType(
            testDescription: "NSExceptionMinimumTLSVersion as a real number",
            plist: ats(domain("cdn.example.com", "<key>NSExceptionMinimumTLSVersion</key><real>1.2</real>")),
            reason: "\(ns).NSExceptionDomains.cdn.example.com.NSExceptionMinimumTLSVersion is a real number, "
                + "expected a string"),
        WrongType(
            testDescription: "NSAppTransportSecurity as an array",
            plist: plist("<key>NSAppTransportSecurity</key><array/>"),
            reason: "\(ns) is an array, expected a dictionary"),
        WrongType(
            testDescription: "NSAppTransportSecurity as the string YES",
            plist: plist("<key>NSAppTransportSecurity</key><string>YES</string>"),
            reason: "\(ns) is a string, expected a dictionary"),
        WrongType(
            testDescription: "the property list's root is an array",
            plist: "<plist version=\"1.0\"><array><string>x</string></array></plist>".bytes,
            reason: "the property list is an array, not a dictionary"),
    ]

    @Test(arguments: wrongTypeCases)
    func aWrongTypeNamesItsKeyPath(_ row: WrongType) throws {
        let error = appFileError { () throws(AppFileError) in
            try InfoPlistReader.transportSecurity(row.plist, file: Self.file)
        }
        #expect(error?.reason == row.reason)
        #expect(error?.file == Self.file)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var bytes: [UInt8]
        var refusal: Refusal
    }

    static let malformedCases: [Malformed] = [
        Malformed(
            testDescription: "a binary plist (bplist00) gets the plutil hint",
            bytes: "bplist00".bytes + [0xD1, 0x01, 0x02, 0x51, 0x61, 0x09, 0x08, 0x0B, 0x0D],
            refusal: Refusal(
                reason: [
                    "a binary property list", "plutil -convert xml1 -o Info.xml.plist \(file)",
                    "plistutil -i \(file) -f xml",
                ],
                line: .none)),
        Malformed(
            testDescription: "the root element is not <plist>",
            bytes: "<?xml version=\"1.0\"?>\n<dict><key>a</key><true/></dict>".bytes,
            refusal: Refusal(reason: ["the root element is <dict>, not <plist>"], line: .at(2))),
        Malformed(
            testDescription: "<plist> holding two values",
            bytes: "<plist>\n<dict/>\n<dict/>\n</plist>".bytes,
            refusal: Refusal(reason: ["<plist> holds 2 values; a property list holds one"], line: .at(1))),
        Malformed(
            testDescription: "an empty <plist>",
            bytes: "<plist></plist>".bytes, refusal: Refusal(reason: ["<plist> holds 0 values"])),
        Malformed(
            testDescription: "a key without a value at the end of a dict",
            bytes: "<plist><dict>\n<key>NSAppTransportSecurity</key>\n</dict></plist>".bytes,
            refusal: Refusal(reason: ["<key>NSAppTransportSecurity</key> has no value"], line: .at(1))),
        Malformed(
            testDescription: "two keys in a row",
            bytes: "<plist><dict>\n<key>A</key>\n<key>B</key><true/>\n</dict></plist>".bytes,
            refusal: Refusal(reason: ["<key>A</key> has no value"], line: .at(3))),
        Malformed(
            testDescription: "a value without a key",
            bytes: "<plist><dict>\n<true/>\n</dict></plist>".bytes,
            refusal: Refusal(reason: ["a <true> in a <dict> without a <key> before it"], line: .at(2))),
        Malformed(
            testDescription: "an element that is no plist type",
            bytes: "<plist><dict><key>A</key>\n<bool>YES</bool></dict></plist>".bytes,
            refusal: Refusal(reason: ["<bool> is no property list type"], line: .at(2))),
        Malformed(
            testDescription: "an XML plist that is not well-formed",
            bytes: "<plist><dict><key>A</key><true/></plist>".bytes,
            refusal: Refusal(reason: ["not well-formed XML"])),
        Malformed(
            testDescription: "an old-style (OpenStep) plist",
            bytes: "{ NSAppTransportSecurity = { NSAllowsArbitraryLoads = YES; }; }".bytes,
            refusal: Refusal(reason: ["not well-formed XML"])),
    ]

    @Test(arguments: malformedCases)
    func malformedPlistsAreRefused(_ row: Malformed) throws {
        let error = appFileError { () throws(AppFileError) in
            try InfoPlistReader.transportSecurity(row.bytes, file: Self.file)
        }
        if let error { row.refusal.check(error, file: Self.file) }
    }

    @Test func propertyListValuesKeepTheirTypes() throws {
        let value = try PropertyListReader.parse(
            "<plist><dict><key>s</key><string> spaced </string><key>i</key><integer> 42 </integer>"
                .bytes + "<key>a</key><array><true/><false/></array><key>e</key><dict/></dict></plist>".bytes,
            file: "p.plist")
        #expect(value["s"] == .string(" spaced "))
        #expect(value["i"] == .integer("42"))
        #expect(value["a"] == .array([.bool(true), .bool(false)]))
        #expect(value["e"] == .dictionary([]))
        #expect(value["missing"] == nil)
        #expect(value["s"]?.typeName == "a string")
    }
}
