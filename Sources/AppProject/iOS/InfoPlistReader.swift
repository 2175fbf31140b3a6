public import MediaRules

/// Info.plist's `NSAppTransportSecurity` as an ``ATSPolicy``.
public enum InfoPlistReader {
    /// - Throws: ``AppFileError`` for a binary plist, malformed XML, or a key of the wrong type (named with its
    ///   path, `NSAppTransportSecurity.NSExceptionDomains.cdn.example.com.NSIncludesSubdomains`).
    public static func transportSecurity(_ bytes: [UInt8], file: String) throws(AppFileError) -> ATSPolicy {
        let root = try PropertyListReader.parse(bytes, file: file)
        guard case .dictionary = root else {
            throw AppFileError(file: file, reason: "the property list is \(root.typeName), not a dictionary")
        }
        var policy = ATSPolicy(source: file)
        guard let ats = root["NSAppTransportSecurity"] else { return policy }
        let base = "NSAppTransportSecurity"
        guard case .dictionary = ats else {
            throw AppFileError(file: file, reason: "\(base) is \(ats.typeName), expected a dictionary")
        }
        func bool(_ value: PlistValue?, _ path: String) throws(AppFileError) -> Bool? {
            guard let value else { return nil }
            guard case .bool(let flag) = value else {
                throw AppFileError(
                    file: file, reason: "\(path) is \(value.typeName), expected a boolean (<true/> or <false/>)")
            }
            return flag
        }
        policy.allowsArbitraryLoads = try bool(ats["NSAllowsArbitraryLoads"], base + ".NSAllowsArbitraryLoads") ?? false
        policy.allowsArbitraryLoadsForMedia = try bool(
            ats["NSAllowsArbitraryLoadsForMedia"], base + ".NSAllowsArbitraryLoadsForMedia")
        policy.allowsArbitraryLoadsInWebContent = try bool(
            ats["NSAllowsArbitraryLoadsInWebContent"], base + ".NSAllowsArbitraryLoadsInWebContent")
        policy.allowsLocalNetworking = try bool(ats["NSAllowsLocalNetworking"], base + ".NSAllowsLocalNetworking")
        policy.requiresCertificateTransparency = try bool(
            ats["NSRequiresCertificateTransparency"], base + ".NSRequiresCertificateTransparency")
        if let domains = ats["NSExceptionDomains"] {
            guard case .dictionary(let entries) = domains else {
                throw AppFileError(
                    file: file, reason: "\(base).NSExceptionDomains is \(domains.typeName), expected a dictionary")
            }
            for (domain, settings) in entries {
                let path = "\(base).NSExceptionDomains.\(domain)"
                guard case .dictionary = settings else {
                    throw AppFileError(file: file, reason: "\(path) is \(settings.typeName), expected a dictionary")
                }
                var tls: String?
                if let version = settings["NSExceptionMinimumTLSVersion"] {
                    guard case .string(let text) = version else {
                        throw AppFileError(
                            file: file,
                            reason: "\(path).NSExceptionMinimumTLSVersion is \(version.typeName), expected a string")
                    }
                    tls = text
                }
                policy.exceptionDomains.append(
                    .init(
                        domain: domain.trimmingWhitespace(),
                        includesSubdomains: try bool(settings["NSIncludesSubdomains"], path + ".NSIncludesSubdomains")
                            ?? false,
                        allowsInsecureHTTPLoads: try bool(
                            settings["NSExceptionAllowsInsecureHTTPLoads"], path + ".NSExceptionAllowsInsecureHTTPLoads"
                        )
                            ?? false,
                        minimumTLSVersion: tls))
            }
        }
        return policy
    }
}
