import AppProject
import MediaRules
import Testing

/// `ATSPolicy.decision` and `CleartextPolicy.decision` as tables against Apple's and Android's documented
/// precedence.
@Suite struct TransportPolicyTests {
    enum Verdict: Sendable, Equatable, CustomStringConvertible {
        case allowed
        case blocked

        var description: String { self == .allowed ? "allowed" : "blocked" }
    }

    static func split(_ decision: TransportDecision) -> (Verdict, String) {
        switch decision {
        case .allowed(let reason): (.allowed, reason)
        case .blocked(let reason): (.blocked, reason)
        }
    }

    // MARK: ATS

    struct ATSRow: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var policy: ATSPolicy
        var host: String
        var media: Bool = false
        var verdict: Verdict
        /// Text the reason holds ("" for the default's empty reason).
        var reason: String
    }

    static func exception(_ domain: String, subdomains: Bool = false, insecure: Bool = true)
        -> ATSPolicy.ExceptionDomain
    {
        .init(domain: domain, includesSubdomains: subdomains, allowsInsecureHTTPLoads: insecure)
    }

    static let plist = "ios/Shop/Info.plist"

    static let atsRows: [ATSRow] = [
        ATSRow(
            testDescription: "no settings: blocked, the default's empty reason", policy: .none,
            host: "cdn.example.com", verdict: .blocked, reason: ""),
        ATSRow(
            testDescription: "an exact exception domain with NSExceptionAllowsInsecureHTTPLoads",
            policy: ATSPolicy(exceptionDomains: [exception("cdn.example.com")], source: plist), host: "cdn.example.com",
            verdict: .allowed,
            reason: "cdn.example.com is an ATS exception domain with NSExceptionAllowsInsecureHTTPLoads in \(plist)"),
        ATSRow(
            testDescription: "the exception's host in capitals",
            policy: ATSPolicy(exceptionDomains: [exception("cdn.example.com")]), host: "CDN.Example.COM",
            verdict: .allowed, reason: "cdn.example.com is an ATS exception domain"),
        ATSRow(
            testDescription: "a subdomain of an exception with NSIncludesSubdomains",
            policy: ATSPolicy(exceptionDomains: [exception("example.com", subdomains: true)], source: plist),
            host: "img.cdn.example.com", verdict: .allowed,
            reason: "img.cdn.example.com (under example.com, NSIncludesSubdomains) is an ATS exception domain"),
        ATSRow(
            testDescription: "a subdomain of an exception without NSIncludesSubdomains",
            policy: ATSPolicy(exceptionDomains: [exception("example.com")]), host: "img.example.com",
            verdict: .blocked, reason: ""),
        ATSRow(
            testDescription: "a look-alike domain is no subdomain (badexample.com)",
            policy: ATSPolicy(exceptionDomains: [exception("example.com", subdomains: true)]),
            host: "badexample.com", verdict: .blocked, reason: ""),
        ATSRow(
            testDescription: "an exception without NSExceptionAllowsInsecureHTTPLoads beats NSAllowsArbitraryLoads",
            policy: ATSPolicy(
                allowsArbitraryLoads: true, exceptionDomains: [exception("cdn.example.com", insecure: false)],
                source: plist),
            host: "cdn.example.com", verdict: .blocked,
            reason: "cdn.example.com is an ATS exception domain in \(plist) without NSExceptionAllowsInsecureHTTPLoads"),
        ATSRow(
            testDescription: "…and covers its subdomains too",
            policy: ATSPolicy(
                allowsArbitraryLoads: true,
                exceptionDomains: [exception("example.com", subdomains: true, insecure: false)]),
            host: "img.example.com", verdict: .blocked, reason: "without NSExceptionAllowsInsecureHTTPLoads"),
        ATSRow(
            testDescription: "…while NSAllowsArbitraryLoads still opens every other host",
            policy: ATSPolicy(
                allowsArbitraryLoads: true, exceptionDomains: [exception("cdn.example.com", insecure: false)],
                source: plist),
            host: "other.example.net", verdict: .allowed,
            reason: "NSAllowsArbitraryLoads in \(plist) lifts ATS for every host"),
        ATSRow(
            testDescription: "the closest parent exception governs (cdn.example.com over example.com)",
            policy: ATSPolicy(exceptionDomains: [
                exception("example.com", subdomains: true),
                exception("cdn.example.com", subdomains: true, insecure: false),
            ]),
            host: "img.cdn.example.com", verdict: .blocked, reason: "under cdn.example.com"),
        ATSRow(
            testDescription: "the host's own entry beats a parent's",
            policy: ATSPolicy(exceptionDomains: [
                exception("example.com", subdomains: true, insecure: false), exception("img.example.com"),
            ]),
            host: "img.example.com", verdict: .allowed, reason: "img.example.com is an ATS exception domain"),
        ATSRow(
            testDescription: "NSAllowsArbitraryLoads ignored because NSAllowsArbitraryLoadsForMedia is present (image)",
            policy: ATSPolicy(allowsArbitraryLoads: true, allowsArbitraryLoadsForMedia: true), host: "cdn.example.com",
            verdict: .blocked,
            reason: "NSAllowsArbitraryLoads is ignored from iOS 10 because NSAllowsArbitraryLoadsForMedia is present"),
        ATSRow(
            testDescription: "NSAllowsArbitraryLoadsForMedia=NO still makes NSAllowsArbitraryLoads ignored (video)",
            policy: ATSPolicy(allowsArbitraryLoads: true, allowsArbitraryLoadsForMedia: false),
            host: "cdn.example.com", media: true, verdict: .blocked,
            reason: "because NSAllowsArbitraryLoadsForMedia is present"),
        ATSRow(
            testDescription: "NSAllowsArbitraryLoads ignored because NSAllowsArbitraryLoadsInWebContent is present",
            policy: ATSPolicy(allowsArbitraryLoads: true, allowsArbitraryLoadsInWebContent: true),
            host: "cdn.example.com", verdict: .blocked,
            reason: "because NSAllowsArbitraryLoadsInWebContent is present"),
        ATSRow(
            testDescription: "NSAllowsArbitraryLoads ignored because NSAllowsLocalNetworking is present",
            policy: ATSPolicy(allowsArbitraryLoads: true, allowsLocalNetworking: false), host: "cdn.example.com",
            verdict: .blocked, reason: "because NSAllowsLocalNetworking is present"),
        ATSRow(
            testDescription: "NSAllowsArbitraryLoads ignored because NSRequiresCertificateTransparency is present",
            policy: ATSPolicy(allowsArbitraryLoads: true, requiresCertificateTransparency: true),
            host: "cdn.example.com", verdict: .blocked,
            reason: "because NSRequiresCertificateTransparency is present"),
        ATSRow(
            testDescription: "NSAllowsArbitraryLoadsForMedia lifts ATS for a video",
            policy: ATSPolicy(allowsArbitraryLoadsForMedia: true, source: plist), host: "video.example.com",
            media: true,
            verdict: .allowed, reason: "NSAllowsArbitraryLoadsForMedia in \(plist) lifts ATS for AVFoundation loads"),
        ATSRow(
            testDescription: "NSAllowsArbitraryLoadsForMedia does nothing for an image",
            policy: ATSPolicy(allowsArbitraryLoadsForMedia: true), host: "video.example.com", verdict: .blocked,
            reason: ""),
        ATSRow(
            testDescription: "NSAllowsArbitraryLoadsForMedia does not reach an exception domain without insecure loads",
            policy: ATSPolicy(
                allowsArbitraryLoadsForMedia: true, exceptionDomains: [exception("video.example.com", insecure: false)]),
            host: "video.example.com", media: true, verdict: .blocked,
            reason: "without NSExceptionAllowsInsecureHTTPLoads"),
        ATSRow(
            testDescription: "NSAllowsArbitraryLoadsInWebContent does nothing for an image",
            policy: ATSPolicy(allowsArbitraryLoadsInWebContent: true), host: "cdn.example.com", verdict: .blocked,
            reason: ""),
        ATSRow(
            testDescription: "NSAllowsLocalNetworking: a .local name",
            policy: ATSPolicy(allowsLocalNetworking: true), host: "printer.local", verdict: .allowed,
            reason: "NSAllowsLocalNetworking allows printer.local (a local name or address)"),
        ATSRow(
            testDescription: "NSAllowsLocalNetworking: an unqualified name (localhost)",
            policy: ATSPolicy(allowsLocalNetworking: true), host: "localhost", verdict: .allowed,
            reason: "allows localhost"),
        ATSRow(
            testDescription: "NSAllowsLocalNetworking: an IPv4 address",
            policy: ATSPolicy(allowsLocalNetworking: true), host: "192.168.0.10", verdict: .allowed,
            reason: "allows 192.168.0.10"),
        ATSRow(
            testDescription: "NSAllowsLocalNetworking: an IPv6 address",
            policy: ATSPolicy(allowsLocalNetworking: true), host: "::1", verdict: .allowed, reason: "allows ::1"),
        ATSRow(
            testDescription: "NSAllowsLocalNetworking: not a public name",
            policy: ATSPolicy(allowsLocalNetworking: true), host: "cdn.example.com", verdict: .blocked, reason: ""),
        ATSRow(
            testDescription: "NSAllowsLocalNetworking: a name of four numeric-looking labels that is not an address",
            policy: ATSPolicy(allowsLocalNetworking: true), host: "1.2.3.example", verdict: .blocked, reason: ""),
        ATSRow(
            testDescription: "NSAllowsLocalNetworking=NO allows nothing local",
            policy: ATSPolicy(allowsLocalNetworking: false), host: "printer.local", verdict: .blocked, reason: ""),
        ATSRow(
            testDescription: "--ios-ats-exceptions '*.example.com' covers the domain itself",
            policy: ATSPolicy(exceptions: try! HostPatterns(["*.example.com"], origin: "--ios-ats-exceptions")),
            host: "example.com", verdict: .allowed,
            reason:
                "example.com is an ATS exception domain with NSExceptionAllowsInsecureHTTPLoads in --ios-ats-exceptions"
        ),
        ATSRow(
            testDescription: "--ios-ats-exceptions '*' is NSAllowsArbitraryLoads",
            policy: ATSPolicy(exceptions: try! HostPatterns(["*"], origin: "--ios-ats-exceptions")),
            host: "anything.example", verdict: .allowed,
            reason: "NSAllowsArbitraryLoads in --ios-ats-exceptions lifts ATS for every host"),
    ]

    @Test(arguments: atsRows)
    func ats(_ row: ATSRow) {
        let (verdict, reason) = Self.split(row.policy.decision(host: row.host, media: row.media))
        #expect(verdict == row.verdict)
        if row.reason.isEmpty {
            #expect(reason.isEmpty, "\(reason)")
        } else {
            #expect(reason.contains(row.reason), "\(reason)")
        }
    }

    // MARK: Android cleartext

    struct CleartextRow: Sendable, CustomTestStringConvertible {
        var testDescription: String
        /// A network security config (XML), or nil: `policy` as given.
        var config: String?
        var policy: CleartextPolicy = .none
        var host: String
        var targetSdk: Int = 35
        var verdict: Verdict
        var reason: String
    }

    static let nsc = "app/src/main/res/xml/network_security_config.xml"

    static let nested = """
        <?xml version="1.0" encoding="utf-8"?>
        <network-security-config>
            <base-config cleartextTrafficPermitted="false"/>
            <domain-config cleartextTrafficPermitted="true">
                <domain includeSubdomains="true">example.com</domain>
                <domain-config cleartextTrafficPermitted="false">
                    <domain includeSubdomains="true">secure.example.com</domain>
                    <domain-config>
                        <domain>inherits.secure.example.com</domain>
                    </domain-config>
                </domain-config>
                <domain-config>
                    <domain>plain.example.com</domain>
                </domain-config>
            </domain-config>
            <domain-config>
                <domain includeSubdomains="true">base.example.org</domain>
            </domain-config>
        </network-security-config>
        """

    static let cleartextRows: [CleartextRow] = [
        CleartextRow(
            testDescription: "the platform default at targetSdk 35: blocked", host: "cdn.example.com",
            verdict: .blocked, reason: ""),
        CleartextRow(
            testDescription: "the platform default at targetSdk 27: permitted", host: "cdn.example.com", targetSdk: 27,
            verdict: .allowed, reason: "the app targets API 27, below 28"),
        CleartextRow(
            testDescription: "the platform default at targetSdk 28: blocked", host: "cdn.example.com", targetSdk: 28,
            verdict: .blocked, reason: ""),
        CleartextRow(
            testDescription: "a config without base-config at targetSdk 27: an unnamed host is permitted",
            config:
                "<network-security-config><domain-config cleartextTrafficPermitted=\"false\"><domain>a.example</domain></domain-config></network-security-config>",
            host: "b.example", targetSdk: 27, verdict: .allowed, reason: "below 28"),
        CleartextRow(
            testDescription: "a config without base-config at targetSdk 28: an unnamed host is blocked",
            config:
                "<network-security-config><domain-config cleartextTrafficPermitted=\"true\"><domain>a.example</domain></domain-config></network-security-config>",
            host: "b.example", targetSdk: 28, verdict: .blocked, reason: ""),
        CleartextRow(
            testDescription: "a domain-config without the attribute at targetSdk 27 inherits the platform default",
            config:
                "<network-security-config><domain-config><domain>a.example</domain></domain-config></network-security-config>",
            host: "a.example", targetSdk: 27, verdict: .allowed, reason: "below 28"),
        CleartextRow(
            testDescription: "nested: the outer domain-config permits example.com", config: nested, host: "example.com",
            verdict: .allowed, reason: "the domain-config for example.com in \(nsc) permits cleartext"),
        CleartextRow(
            testDescription: "nested: a subdomain under the outer includeSubdomains", config: nested,
            host: "img.example.com", verdict: .allowed,
            reason: "img.example.com (under example.com, includeSubdomains)"),
        CleartextRow(
            testDescription: "nested: the most specific domain-config wins (secure.example.com forbids)",
            config: nested,
            host: "secure.example.com", verdict: .blocked,
            reason: "the domain-config for secure.example.com in \(nsc) forbids cleartext"),
        CleartextRow(
            testDescription: "nested: a subdomain of the inner config takes the inner one", config: nested,
            host: "api.secure.example.com", verdict: .blocked, reason: "(under secure.example.com, includeSubdomains)"),
        CleartextRow(
            testDescription: "nested: a config without the attribute inherits its parent's (false)", config: nested,
            host: "inherits.secure.example.com", verdict: .blocked,
            reason: "the domain-config for inherits.secure.example.com"),
        CleartextRow(
            testDescription: "nested: a config without the attribute inherits its parent's (true)", config: nested,
            host: "plain.example.com", verdict: .allowed, reason: "the domain-config for plain.example.com"),
        CleartextRow(
            testDescription: "nested: a top-level config without the attribute takes base-config's", config: nested,
            host: "base.example.org", verdict: .blocked, reason: "base-config in \(nsc) forbids cleartext"),
        CleartextRow(
            testDescription: "nested: a host no config names takes base-config's", config: nested,
            host: "other.example.net", verdict: .blocked, reason: "base-config in \(nsc) forbids cleartext"),
        CleartextRow(
            testDescription: "base-config permits, at targetSdk 35",
            config:
                "<network-security-config><base-config cleartextTrafficPermitted=\"true\"/></network-security-config>",
            host: "cdn.example.com", verdict: .allowed, reason: "base-config in \(nsc) permits cleartext"),
        CleartextRow(
            testDescription: "base-config forbids, at targetSdk 27",
            config:
                "<network-security-config><base-config cleartextTrafficPermitted=\"false\"/></network-security-config>",
            host: "cdn.example.com", targetSdk: 27, verdict: .blocked, reason: "base-config in \(nsc) forbids cleartext"
        ),
        CleartextRow(
            testDescription: "a domain without includeSubdomains does not cover its subdomains",
            config:
                "<network-security-config><domain-config cleartextTrafficPermitted=\"true\"><domain>example.com</domain></domain-config></network-security-config>",
            host: "img.example.com", verdict: .blocked, reason: ""),
        CleartextRow(
            testDescription: "the domain's text is trimmed and matched case-insensitively",
            config:
                "<network-security-config><domain-config cleartextTrafficPermitted=\"true\"><domain>\n  CDN.Example.com\n</domain></domain-config></network-security-config>",
            host: "cdn.EXAMPLE.com", verdict: .allowed, reason: "the domain-config for cdn.example.com"),
        CleartextRow(
            testDescription: "attribute values with spaces and capitals",
            config:
                "<network-security-config><domain-config cleartextTrafficPermitted=\" TRUE \"><domain includeSubdomains=\"True\">example.com</domain></domain-config></network-security-config>",
            host: "a.example.com", verdict: .allowed, reason: "under example.com"),
        CleartextRow(
            testDescription: "android:usesCleartextTraffic=true (no config)",
            policy: CleartextPolicy(basePermitted: true, baseSetting: "android:usesCleartextTraffic", source: "m.xml"),
            host: "cdn.example.com", verdict: .allowed,
            reason: "android:usesCleartextTraffic in m.xml permits cleartext"),
        CleartextRow(
            testDescription: "--android-cleartext-hosts '*.example.com' covers the domain and subdomains",
            policy: CleartextPolicy(
                permittedHosts: try! HostPatterns(["*.example.com"], origin: "--android-cleartext-hosts")),
            host: "img.example.com", verdict: .allowed, reason: "in --android-cleartext-hosts permits cleartext"),
    ]

    @Test(arguments: cleartextRows)
    func cleartext(_ row: CleartextRow) throws {
        let policy =
            try row.config.map { try NetworkSecurityConfigReader.policy($0.bytes, file: Self.nsc) } ?? row.policy
        let (verdict, reason) = Self.split(policy.decision(host: row.host, targetSdk: row.targetSdk))
        #expect(verdict == row.verdict)
        if row.reason.isEmpty {
            #expect(reason.isEmpty, "\(reason)")
        } else {
            #expect(reason.contains(row.reason), "\(reason)")
        }
    }

    @Test func nestedConfigsResolveInheritance() throws {
        let policy = try NetworkSecurityConfigReader.policy(Self.nested.bytes, file: Self.nsc)
        #expect(policy.basePermitted == false)
        #expect(policy.source == Self.nsc)
        let rules = policy.domains.map {
            "\($0.domain) \($0.includeSubdomains) \($0.permitted.map(String.init) ?? "nil")"
        }
        #expect(
            rules == [
                "example.com true true", "secure.example.com true false", "inherits.secure.example.com false false",
                "plain.example.com false true", "base.example.org true nil",
            ])
    }

    struct BadConfig: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var config: String
        var refusal: Refusal
    }

    static let badConfigs: [BadConfig] = [
        BadConfig(
            testDescription: "cleartextTrafficPermitted=\"yes\"",
            config:
                "<network-security-config>\n<domain-config cleartextTrafficPermitted=\"yes\">\n<domain>a.example</domain>\n</domain-config>\n</network-security-config>",
            refusal: Refusal(
                reason: ["cleartextTrafficPermitted=\"yes\" on <domain-config> is not true or false"], line: .at(2))),
        BadConfig(
            testDescription: "base-config cleartextTrafficPermitted=\"1\"",
            config:
                "<network-security-config>\n\n<base-config cleartextTrafficPermitted=\"1\"/>\n</network-security-config>",
            refusal: Refusal(
                reason: ["cleartextTrafficPermitted=\"1\" on <base-config> is not true or false"], line: .at(3))),
        BadConfig(
            testDescription: "includeSubdomains=\"on\"",
            config:
                "<network-security-config><domain-config>\n<domain includeSubdomains=\"on\">a.example</domain></domain-config></network-security-config>",
            refusal: Refusal(reason: ["includeSubdomains=\"on\" on <domain> is not true or false"], line: .at(2))),
        BadConfig(
            testDescription: "a domain-config without a domain",
            config:
                "<network-security-config>\n<domain-config cleartextTrafficPermitted=\"true\">\n</domain-config>\n</network-security-config>",
            refusal: Refusal(reason: ["a <domain-config> without a <domain>"], line: .at(2))),
        BadConfig(
            testDescription: "a nested domain-config without a domain",
            config:
                "<network-security-config><domain-config><domain>a.example</domain>\n\n<domain-config/></domain-config></network-security-config>",
            refusal: Refusal(reason: ["a <domain-config> without a <domain>"], line: .at(3))),
        BadConfig(
            testDescription: "an empty domain",
            config:
                "<network-security-config><domain-config>\n<domain>  </domain>\n</domain-config></network-security-config>",
            refusal: Refusal(reason: ["an empty <domain>"], line: .at(2))),
        BadConfig(
            testDescription: "two base-configs",
            config: "<network-security-config>\n<base-config/>\n<base-config/>\n</network-security-config>",
            refusal: Refusal(reason: ["more than one <base-config>"], line: .at(3))),
        BadConfig(
            testDescription: "another root element",
            config: "<?xml version=\"1.0\"?>\n<manifest/>",
            refusal: Refusal(reason: ["the root element is <manifest>, not <network-security-config>"], line: .at(2))),
        BadConfig(
            testDescription: "an entity declaration",
            config: "<!DOCTYPE network-security-config [<!ENTITY t \"true\">]>\n<network-security-config/>",
            refusal: Refusal(reason: ["declares an XML entity"], line: .at(1))),
    ]

    @Test(arguments: badConfigs)
    func badConfigsAreRefused(_ row: BadConfig) {
        let error = appFileError { () throws(AppFileError) in
            try NetworkSecurityConfigReader.policy(row.config.bytes, file: Self.nsc)
        }
        if let error { row.refusal.check(error, file: Self.nsc) }
    }

    @Test func debugOverridesAndTrustAnchorsAreNotCleartextRules() throws {
        let policy = try NetworkSecurityConfigReader.policy(
            """
            <network-security-config>
                <debug-overrides cleartextTrafficPermitted="true">
                    <trust-anchors><certificates src="user"/></trust-anchors>
                </debug-overrides>
                <domain-config>
                    <domain>pinned.example.com</domain>
                    <pin-set expiration="2030-01-01"><pin digest="SHA-256">AAAA</pin></pin-set>
                    <trust-anchors><certificates src="system"/></trust-anchors>
                </domain-config>
            </network-security-config>
            """.bytes, file: Self.nsc)
        #expect(policy.basePermitted == nil)
        #expect(policy.domains == [.init(domain: "pinned.example.com", includeSubdomains: false, permitted: nil)])
        guard case .blocked = policy.decision(host: "pinned.example.com", targetSdk: 35) else {
            Issue.record("debug-overrides must not permit cleartext in a release build")
            return
        }
    }
}
