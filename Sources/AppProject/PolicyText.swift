public import MediaRules

extension ATSPolicy {
    /// The policy in a few words, for `inbox-assets config` and the report's `app.setting` lines.
    public var summary: String {
        if isDefault { return "ATS defaults (https only)" }
        var parts: [String] = []
        if allowsArbitraryLoads { parts.append("NSAllowsArbitraryLoads") }
        for (key, value) in [
            ("NSAllowsArbitraryLoadsForMedia", allowsArbitraryLoadsForMedia),
            ("NSAllowsArbitraryLoadsInWebContent", allowsArbitraryLoadsInWebContent),
            ("NSAllowsLocalNetworking", allowsLocalNetworking),
            ("NSRequiresCertificateTransparency", requiresCertificateTransparency),
        ] {
            if let value { parts.append("\(key)=\(value ? "YES" : "NO")") }
        }
        let domains = exceptionDomains.map { domain in
            var flags: [String] = []
            if domain.allowsInsecureHTTPLoads { flags.append("insecure HTTP") }
            if domain.includesSubdomains { flags.append("subdomains") }
            if let tls = domain.minimumTLSVersion { flags.append("min \(tls)") }
            return domain.domain + (flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))")
        }
        if !domains.isEmpty { parts.append("exception domains: " + domains.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

extension CleartextPolicy {
    /// The policy in a few words.
    public var summary: String {
        if isDefault { return "platform default (blocked from targetSdk 28)" }
        var parts: [String] = []
        if let base = basePermitted { parts.append("\(baseSetting) \(base ? "permits" : "forbids") cleartext") }
        let permitted = domains.filter { $0.permitted == true }.map(\.described)
        let forbidden = domains.filter { $0.permitted == false }.map(\.described)
        let inherited = domains.filter { $0.permitted == nil }.map(\.described)
        if !permitted.isEmpty { parts.append("permitted: " + permitted.joined(separator: ", ")) }
        if !forbidden.isEmpty { parts.append("forbidden: " + forbidden.joined(separator: ", ")) }
        if !inherited.isEmpty { parts.append("as base-config: " + inherited.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

extension CleartextPolicy.DomainRule {
    var described: String { domain + (includeSubdomains ? " (+subdomains)" : "") }
}
