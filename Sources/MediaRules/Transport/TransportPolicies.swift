/// An iOS app's App Transport Security settings (`NSAppTransportSecurity` in its Info.plist), as far as plain
/// `http://` loads go, and Apple's precedence over them ("NSAppTransportSecurity", "NSExceptionDomains",
/// "NSAllowsArbitraryLoads", "NSAllowsArbitraryLoadsForMedia", "NSAllowsLocalNetworking" at developer.apple.com):
/// - a domain in `NSExceptionDomains` is judged by its own keys only: "Domains you specify in that dictionary aren't
///   affected by" the global keys; its `NSIncludesSubdomains` extends it to every subdomain;
/// - `NSAllowsArbitraryLoadsForMedia` lifts ATS for loads through AVFoundation (video), not URLSession (images);
/// - `NSAllowsLocalNetworking` allows unqualified names, `.local` names and IP addresses;
/// - "In iOS 10 and later …, if you include [NSAllowsArbitraryLoadsForMedia, NSAllowsArbitraryLoadsInWebContent,
///   NSAllowsLocalNetworking or NSRequiresCertificateTransparency] with any value, then App Transport Security
///   ignores the value of the NSAllowsArbitraryLoads key."
public struct ATSPolicy: Sendable, Hashable {
    /// One `NSExceptionDomains` entry.
    public struct ExceptionDomain: Sendable, Hashable {
        public var domain: String
        public var includesSubdomains: Bool
        public var allowsInsecureHTTPLoads: Bool
        /// `NSExceptionMinimumTLSVersion` (`TLSv1.2`…), reported, not judged: the check does not see the TLS
        /// version the app would negotiate.
        public var minimumTLSVersion: String?

        public init(
            domain: String, includesSubdomains: Bool, allowsInsecureHTTPLoads: Bool, minimumTLSVersion: String? = nil
        ) {
            self.domain = domain.lowercased()
            self.includesSubdomains = includesSubdomains
            self.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads
            self.minimumTLSVersion = minimumTLSVersion
        }
    }

    public var allowsArbitraryLoads: Bool
    /// nil when the key is absent (its presence matters, see the type's doc).
    public var allowsArbitraryLoadsForMedia: Bool?
    public var allowsArbitraryLoadsInWebContent: Bool?
    public var allowsLocalNetworking: Bool?
    public var requiresCertificateTransparency: Bool?
    public var exceptionDomains: [ExceptionDomain]
    /// Where the settings come from, named in findings (`ios/Shop/Info.plist`, `--ios-ats-exceptions`).
    public var source: String

    public init(
        allowsArbitraryLoads: Bool = false, allowsArbitraryLoadsForMedia: Bool? = nil,
        allowsArbitraryLoadsInWebContent: Bool? = nil, allowsLocalNetworking: Bool? = nil,
        requiresCertificateTransparency: Bool? = nil, exceptionDomains: [ExceptionDomain] = [], source: String = ""
    ) {
        self.allowsArbitraryLoads = allowsArbitraryLoads
        self.allowsArbitraryLoadsForMedia = allowsArbitraryLoadsForMedia
        self.allowsArbitraryLoadsInWebContent = allowsArbitraryLoadsInWebContent
        self.allowsLocalNetworking = allowsLocalNetworking
        self.requiresCertificateTransparency = requiresCertificateTransparency
        self.exceptionDomains = exceptionDomains
        self.source = source
    }

    /// ATS's defaults: https only.
    public static let none = ATSPolicy()

    /// The policy `--ios-ats-exceptions` describes: each host an exception domain that allows insecure loads
    /// (`*.example.com`: the domain and its subdomains), `*` as `NSAllowsArbitraryLoads`.
    public init(exceptions: HostPatterns) {
        self.init(source: exceptions.origin)
        for pattern in exceptions.patterns {
            if pattern == "*" {
                allowsArbitraryLoads = true
            } else if pattern.hasPrefix("*.") {
                exceptionDomains.append(
                    ExceptionDomain(
                        domain: String(pattern.dropFirst(2)), includesSubdomains: true, allowsInsecureHTTPLoads: true))
            } else {
                exceptionDomains.append(
                    ExceptionDomain(domain: pattern, includesSubdomains: false, allowsInsecureHTTPLoads: true))
            }
        }
    }

    /// True when nothing is set: ATS's defaults.
    public var isDefault: Bool {
        !allowsArbitraryLoads && allowsArbitraryLoadsForMedia == nil && allowsArbitraryLoadsInWebContent == nil
            && allowsLocalNetworking == nil && requiresCertificateTransparency == nil && exceptionDomains.isEmpty
    }

    /// Whether a plain-http load of `host` goes through (`media`: through AVFoundation), and the setting that
    /// decides it, for the finding's message.
    public func decision(host: String, media: Bool) -> TransportDecision {
        let host = host.lowercased()
        let from = source.isEmpty ? "" : " in \(source)"
        if let exception = exceptionDomain(for: host) {
            let which = exception.domain == host ? host : "\(host) (under \(exception.domain), NSIncludesSubdomains)"
            return exception.allowsInsecureHTTPLoads
                ? .allowed("\(which) is an ATS exception domain with NSExceptionAllowsInsecureHTTPLoads\(from)")
                : .blocked("\(which) is an ATS exception domain\(from) without NSExceptionAllowsInsecureHTTPLoads")
        }
        if allowsLocalNetworking == true, TransportHosts.isLocal(host) {
            return .allowed("NSAllowsLocalNetworking\(from) allows \(host) (a local name or address)")
        }
        if media, allowsArbitraryLoadsForMedia == true {
            return .allowed("NSAllowsArbitraryLoadsForMedia\(from) lifts ATS for AVFoundation loads")
        }
        if allowsArbitraryLoads {
            let ignoring = [
                ("NSAllowsArbitraryLoadsForMedia", allowsArbitraryLoadsForMedia),
                ("NSAllowsArbitraryLoadsInWebContent", allowsArbitraryLoadsInWebContent),
                ("NSAllowsLocalNetworking", allowsLocalNetworking),
                ("NSRequiresCertificateTransparency", requiresCertificateTransparency),
            ].first { $0.1 != nil }
            if let (key, _) = ignoring {
                return .blocked(
                    "NSAllowsArbitraryLoads\(from) is ignored from iOS 10 because \(key) is present")
            }
            return .allowed("NSAllowsArbitraryLoads\(from) lifts ATS for every host")
        }
        return .blocked("")
    }

    /// The exception domain that governs `host`: its own entry, else the closest parent that includes subdomains.
    func exceptionDomain(for host: String) -> ExceptionDomain? {
        governingEntry(exceptionDomains, host: host, domain: \.domain, includesSubdomains: \.includesSubdomains)
    }
}

/// The entry of a per-domain table that governs `host`, as both ATS and Android's network security config pick it:
/// the last entry naming the host itself, else the longest parent domain whose entry includes subdomains.
func governingEntry<Entry>(
    _ entries: [Entry], host: String, domain: (Entry) -> String, includesSubdomains: (Entry) -> Bool
) -> Entry? {
    if let exact = entries.last(where: { domain($0) == host }) { return exact }
    return entries.filter { includesSubdomains($0) && host.hasSuffix("." + domain($0)) }
        .max { domain($0).count < domain($1).count }
}

/// An Android app's cleartext policy for plain `http://` (`res/xml/…` network security config, or the manifest's
/// `android:usesCleartextTraffic`), and the platform's precedence (developer.android.com "Network security
/// configuration"): the most specific `domain-config` that names the host wins (its own `<domain>`, else the closest
/// parent with `includeSubdomains="true"`), a `domain-config` without `cleartextTrafficPermitted` inherits its
/// enclosing one's, then `base-config`'s, then the platform default (permitted only for targetSdk ≤ 27,
/// `NetworkSecurityConfig.createBaseConfig`). `usesCleartextTraffic` is ignored from API 24 when a config exists.
public struct CleartextPolicy: Sendable, Hashable {
    /// One `<domain>` of a `domain-config`, with the permission it ends up with (inherited values resolved).
    public struct DomainRule: Sendable, Hashable {
        public var domain: String
        public var includeSubdomains: Bool
        /// nil: neither the `domain-config` nor any enclosing one says, so `base-config` decides.
        public var permitted: Bool?

        public init(domain: String, includeSubdomains: Bool, permitted: Bool?) {
            self.domain = domain.lowercased()
            self.includeSubdomains = includeSubdomains
            self.permitted = permitted
        }
    }

    /// `base-config cleartextTrafficPermitted`, or the manifest's `usesCleartextTraffic` when no config exists;
    /// nil: the platform default.
    public var basePermitted: Bool?
    /// What sets ``basePermitted`` (`base-config`, `android:usesCleartextTraffic`).
    public var baseSetting: String
    public var domains: [DomainRule]
    /// Where the settings come from (`android/app/src/main/res/xml/network_security_config.xml`,
    /// `--android-cleartext-hosts`).
    public var source: String

    public init(
        basePermitted: Bool? = nil, baseSetting: String = "base-config", domains: [DomainRule] = [], source: String = ""
    ) {
        self.basePermitted = basePermitted
        self.baseSetting = baseSetting
        self.domains = domains
        self.source = source
    }

    /// The platform default.
    public static let none = CleartextPolicy()

    /// The policy `--android-cleartext-hosts` describes: each host a permitted `domain-config`, `*` as
    /// `base-config cleartextTrafficPermitted="true"`.
    public init(permittedHosts: HostPatterns) {
        self.init(source: permittedHosts.origin)
        for pattern in permittedHosts.patterns {
            if pattern == "*" {
                basePermitted = true
            } else if pattern.hasPrefix("*.") {
                domains.append(
                    DomainRule(domain: String(pattern.dropFirst(2)), includeSubdomains: true, permitted: true))
            } else {
                domains.append(DomainRule(domain: pattern, includeSubdomains: false, permitted: true))
            }
        }
    }

    public var isDefault: Bool { basePermitted == nil && domains.isEmpty }

    /// Whether cleartext to `host` is permitted for an app targeting `targetSdk`, and why.
    public func decision(host: String, targetSdk: Int) -> TransportDecision {
        let host = host.lowercased()
        let from = source.isEmpty ? "" : " in \(source)"
        let rule = governingEntry(domains, host: host, domain: \.domain, includesSubdomains: \.includeSubdomains)
        if let rule, let permitted = rule.permitted {
            let which = rule.domain == host ? host : "\(host) (under \(rule.domain), includeSubdomains)"
            let verb = permitted ? "permits" : "forbids"
            return permitted
                ? .allowed("the domain-config for \(which)\(from) \(verb) cleartext")
                : .blocked("the domain-config for \(which)\(from) \(verb) cleartext")
        }
        if let base = basePermitted {
            return base
                ? .allowed("\(baseSetting)\(from) permits cleartext")
                : .blocked("\(baseSetting)\(from) forbids cleartext")
        }
        return targetSdk < 28
            ? .allowed("the app targets API \(targetSdk), below 28, where cleartext is permitted by default")
            : .blocked("")
    }
}

/// What an app's transport settings make of one plain-http load. The text names the setting that decided it;
/// empty for the platform's default.
public enum TransportDecision: Sendable, Hashable {
    case allowed(String)
    case blocked(String)
}

/// Host classes the transport rules need.
public enum TransportHosts {
    /// An unqualified name (no dot), a `.local` name, or an IPv4/IPv6 address: what `NSAllowsLocalNetworking`
    /// covers.
    public static func isLocal(_ host: String) -> Bool {
        if host.contains(":") { return true }  // IPv6 literal (brackets removed)
        if host.hasSuffix(".local") || !host.contains(".") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                part.count <= 3 && !part.isEmpty && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
            }
    }
}
