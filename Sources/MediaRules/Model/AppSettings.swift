/// Host names an app lets load over plain `http://` (iOS `NSExceptionDomains` with `NSExceptionAllowsInsecureHTTPLoads`,
/// Android `domain-config cleartextTrafficPermitted`): `cdn.example.com` is that host, `*.example.com` the domain and
/// every subdomain (as `NSIncludesSubdomains` and `includeSubdomains` do), `*` every host.
public struct HostPatterns: Sendable, Hashable {
    /// The patterns, lowercased, in the order given.
    public private(set) var patterns: [String]
    /// Where they came from, named in findings ("--android-cleartext-hosts", "config androidCleartextHosts").
    public var origin: String

    /// No host.
    public static let none = HostPatterns(validated: [], origin: "")

    private init(validated: [String], origin: String) {
        self.patterns = validated
        self.origin = origin
    }

    /// Parses `HOST,…` patterns.
    /// - Throws: ``HostPatternError`` for an empty entry, a `*` inside a name (`cdn*.example.com`), or a character
    ///   no host name has.
    public init(_ list: [String], origin: String) throws(HostPatternError) {
        var patterns: [String] = []
        for raw in list {
            // Spaces around a name are forgiven ("a.com, b.com"); inside one they make it no host name.
            let words = raw.split(whereSeparator: \.isWhitespace)
            guard let word = words.first else { throw HostPatternError(pattern: raw, reason: "an empty host") }
            guard words.count == 1 else { throw HostPatternError(pattern: raw, reason: "a host name has no spaces") }
            let pattern = word.lowercased()
            if pattern == "*" {
                patterns.append(pattern)
                continue
            }
            if pattern.contains(":") {
                // An IPv6 literal, bare or as URLs write it (`[::1]`); hosts are compared without the brackets. A
                // colon anywhere else is a port, which a host pattern has not.
                let bracketed = pattern.hasPrefix("[") && pattern.hasSuffix("]")
                let address = bracketed ? pattern.dropFirst().dropLast() : Substring(pattern)
                guard address.utf8.allSatisfy({ Self.isHex($0) || $0 == 0x3A || $0 == 0x2E }),
                    address.utf8.filter({ $0 == 0x3A }).count >= 2
                else {
                    throw HostPatternError(pattern: raw, reason: "not a host name (no scheme, port or path)")
                }
                patterns.append(String(address))
                continue
            }
            let name = pattern.hasPrefix("*.") ? String(pattern.dropFirst(2)) : pattern
            guard !name.isEmpty, !name.contains("*") else {
                throw HostPatternError(pattern: raw, reason: "'*' stands only for a whole host or as '*.' first")
            }
            let allowed = name.utf8.allSatisfy {
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E || $0 == 0x5F
            }
            guard allowed, !name.hasPrefix("."), !name.hasSuffix(".") else {
                throw HostPatternError(pattern: raw, reason: "not a host name (no scheme, port or path)")
            }
            patterns.append(pattern)
        }
        self.patterns = patterns
        self.origin = origin
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
    }

    /// The pattern that admits `host` (case-insensitive), nil when none does.
    public func match(_ host: String) -> String? {
        let host = host.lowercased()
        for pattern in patterns {
            if pattern == "*" || pattern == host { return pattern }
            if pattern.hasPrefix("*.") {
                let domain = pattern.dropFirst(2)
                if host == domain || host.hasSuffix("." + domain) { return pattern }
            }
        }
        return nil
    }

    /// True when no pattern is set.
    public var isEmpty: Bool { patterns.isEmpty }
}

/// A host pattern that cannot be used.
public struct HostPatternError: Error, Sendable, Hashable, CustomStringConvertible {
    public var pattern: String
    public var reason: String
    public var description: String { "'\(pattern)' is not a host pattern: \(reason)" }
}

/// The iOS app's settings the rules depend on.
public struct IOSAppSettings: Sendable, Hashable {
    /// The deployment target's major version (`--ios-target`, default 13).
    public var deploymentTarget: Int
    /// App Transport Security as far as plain http goes (the app's Info.plist, or `--ios-ats-exceptions`).
    public var ats: ATSPolicy

    public init(deploymentTarget: Int = 13, ats: ATSPolicy = .none) {
        self.deploymentTarget = deploymentTarget
        self.ats = ats
    }

    /// Settings whose only ATS keys are the exception domains `--ios-ats-exceptions` names.
    public init(deploymentTarget: Int = 13, atsExceptions: HostPatterns) {
        self.init(deploymentTarget: deploymentTarget, ats: ATSPolicy(exceptions: atsExceptions))
    }
}

/// The Android app's settings the rules depend on.
public struct AndroidAppSettings: Sendable, Hashable {
    /// The app's minSdk (`--android-min-sdk`, default 23: the inbox UI library's own minSdk,
    /// `pushwoosh.android-library.gradle`, android-assets.md §1).
    public var minSdk: Int
    /// The app's targetSdk (`--android-target-sdk`, default 35: Google Play's requirement for new apps and updates
    /// since 31 Aug 2025). From 28 on, cleartext traffic is blocked unless the app permits it.
    public var targetSdk: Int
    /// The cleartext policy (the app's network security config or manifest, or `--android-cleartext-hosts`).
    public var cleartext: CleartextPolicy

    public init(minSdk: Int = 23, targetSdk: Int = 35, cleartext: CleartextPolicy = .none) {
        self.minSdk = minSdk
        self.targetSdk = targetSdk
        self.cleartext = cleartext
    }

    /// Settings whose only cleartext rules are the hosts `--android-cleartext-hosts` permits.
    public init(minSdk: Int = 23, targetSdk: Int = 35, cleartextHosts: HostPatterns) {
        self.init(minSdk: minSdk, targetSdk: targetSdk, cleartext: CleartextPolicy(permittedHosts: cleartextHosts))
    }
}

/// Both apps' settings: what decides each platform's verdict beyond the bytes.
public struct AppSettings: Sendable, Hashable {
    public var ios: IOSAppSettings
    public var android: AndroidAppSettings

    public init(ios: IOSAppSettings = .init(), android: AndroidAppSettings = .init()) {
        self.ios = ios
        self.android = android
    }
}

/// Android's marketing name of an API level, for messages ("Android 12 (API 31)").
public enum AndroidVersion {
    /// "Android 8.1 (API 27)"; the bare "API N" for levels this table does not name.
    public static func name(api: Int) -> String {
        let names: [Int: String] = [
            23: "6.0", 24: "7.0", 25: "7.1", 26: "8.0", 27: "8.1", 28: "9", 29: "10", 30: "11", 31: "12", 32: "12L",
            33: "13", 34: "14", 35: "15", 36: "16",
        ]
        return names[api].map { "Android \($0) (API \(api))" } ?? "API \(api)"
    }
}
