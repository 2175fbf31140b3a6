public import MediaRules

/// An Android network security config (`res/xml/NAME.xml`) as a ``CleartextPolicy``.
public enum NetworkSecurityConfigReader {
    public static func policy(_ bytes: [UInt8], file: String) throws(AppFileError) -> CleartextPolicy {
        let root = try XMLTreeReader.parse(bytes, file: file)
        guard root.name == "network-security-config" else {
            throw AppFileError(
                file: file, line: root.line, reason: "the root element is <\(root.name)>, not <network-security-config>"
            )
        }
        var policy = CleartextPolicy(source: file)
        let bases = root.children(named: "base-config")
        if bases.count > 1 {
            throw AppFileError(file: file, line: bases[1].line, reason: "more than one <base-config>")
        }
        if let base = bases.first { policy.basePermitted = try permitted(base, file: file) }
        for config in root.children(named: "domain-config") {
            try collect(config, inherited: nil, file: file, into: &policy.domains)
        }
        return policy
    }

    /// A `domain-config` and its nested ones: each `<domain>` with the permission in force there.
    static func collect(
        _ config: XMLTreeNode, inherited: Bool?, file: String, into rules: inout [CleartextPolicy.DomainRule]
    ) throws(AppFileError) {
        let here = try permitted(config, file: file) ?? inherited
        let domains = config.children(named: "domain")
        if domains.isEmpty {
            throw AppFileError(file: file, line: config.line, reason: "a <domain-config> without a <domain>")
        }
        for domain in domains {
            let name = domain.text.trimmingWhitespace()
            guard !name.isEmpty else {
                throw AppFileError(file: file, line: domain.line, reason: "an empty <domain>")
            }
            let include = try flag(domain.attribute("includeSubdomains"), "includeSubdomains", domain, file: file)
            rules.append(.init(domain: name, includeSubdomains: include ?? false, permitted: here))
        }
        for nested in config.children(named: "domain-config") {
            try collect(nested, inherited: here, file: file, into: &rules)
        }
    }

    static func permitted(_ element: XMLTreeNode, file: String) throws(AppFileError) -> Bool? {
        try flag(element.attribute("cleartextTrafficPermitted"), "cleartextTrafficPermitted", element, file: file)
    }

    static func flag(_ text: String?, _ name: String, _ element: XMLTreeNode, file: String) throws(AppFileError)
        -> Bool?
    {
        guard let text else { return nil }
        switch text.trimmingWhitespace().lowercased() {
        case "true": return true
        case "false": return false
        default:
            throw AppFileError(
                file: file, line: element.line, reason: "\(name)=\"\(text)\" on <\(element.name)> is not true or false")
        }
    }
}
