public import Findings
import MediaProbe

/// What a URL's transfer was, platform-free: every URL the client requested on the way (the asset's, then each
/// redirect's target), and how long the server took.
public struct TransferFacts: Sendable, Hashable {
    /// The URL as in the card, then each redirect's `Location` (absolute), in order.
    public var hops: [String]
    /// Redirects followed.
    public var redirectCount: Int
    /// Seconds to the first response byte of the last hop, when the asset was fetched in this run.
    public var firstByteSeconds: Double?
    /// HLS: the URIs the playlists list (variants, renditions, segments, keys), fetched by the same player.
    public var listedURIs: [String]

    public init(
        hops: [String], redirectCount: Int? = nil, firstByteSeconds: Double? = nil, listedURIs: [String] = []
    ) {
        self.hops = hops
        self.redirectCount = redirectCount ?? max(0, hops.count - 1)
        self.firstByteSeconds = firstByteSeconds
        self.listedURIs = listedURIs
    }
}

/// Which loader fetches the URL: it decides the codes and Android's timeouts.
public enum TransferUse: Sendable, Hashable {
    /// An image (iOS: URLSession under ATS; Android: Glide's HttpURLConnection).
    case image
    /// A video, its poster-free stream or an HLS playlist URI (iOS: AVFoundation; Android: MediaPlayer).
    case media
}

/// Transport rules per platform: iOS App Transport Security, Android's cleartext policy and Glide's limits.
public enum TransportRules {
    /// Glide's connect and read timeout, each (`HttpGlideUrlLoader.TIMEOUT` = 2500 ms @ v4.16.0).
    public static let glideTimeoutSeconds = 2.5
    /// Glide's redirect cap (`HttpUrlFetcher`: "Too many (> 5) redirects!" @ v4.16.0).
    public static let glideMaxRedirects = 5

    /// The platform's findings for a transfer.
    public static func judge(
        _ facts: TransferFacts, use: TransferUse, on platform: RulePlatform, app: AppSettings
    ) -> [Finding] {
        var findings: [Finding] = []
        switch platform {
        case .ios:
            if let finding = ats(facts, use: use, app: app.ios) { findings.append(finding) }
        case .android:
            if let finding = cleartext(facts, use: use, app: app.android) { findings.append(finding) }
            if use == .image { findings += glide(facts) }
        }
        return findings.map { $0.on(platform) }
    }

    /// The first plain-http URL of a transfer, its host and where it was met (" (redirect 2)", " (listed in
    /// the playlist)"), or nil when every URL is https.
    static func firstPlainHTTP(_ facts: TransferFacts) -> (url: String, host: String, via: String)? {
        func isPlain(_ url: String) -> Bool { url.utf8.count >= 7 && url.prefix(7).lowercased() == "http://" }
        for (index, url) in facts.hops.enumerated() where isPlain(url) {
            return (url, host(of: url), index > 0 ? " (redirect \(index))" : "")
        }
        if let listed = facts.listedURIs.first(where: isPlain) {
            let count = facts.listedURIs.filter(isPlain).count
            return (
                listed, host(of: listed), " (listed in the playlist, \(count) plain-http URI\(count == 1 ? "" : "s"))"
            )
        }
        return nil
    }

    /// The host of an absolute http(s) URL, lowercased, without userinfo or port.
    public static func host(of url: String) -> String {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return "" }
        var authority = url[url.index(colon, offsetBy: 3)...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") {
            return String(authority.prefix { $0 != "]" }.dropFirst()).lowercased()
        }
        return String(authority.prefix { $0 != ":" }).lowercased()
    }

    /// Apple, "NSAppTransportSecurity": apps load only https unless the app's Info.plist says otherwise
    /// (``ATSPolicy`` and its precedence). Without the app's settings the default is a warning (the campaign author
    /// cannot see them); a load the app's settings allow is information naming the setting.
    static func ats(_ facts: TransferFacts, use: TransferUse, app: IOSAppSettings) -> Finding? {
        guard let plain = firstPlainHTTP(facts) else { return nil }
        let code = use == .image ? ImageFindingCode.appTransportSecurity : VideoFindingCode.appTransportSecurity
        let what = use == .image ? "image" : "media"
        let url = Redaction.redactURL(plain.url) + plain.via
        switch app.ats.decision(host: plain.host, media: use == .media) {
        case .allowed(let reason):
            return .info(
                code,
                "The \(what) URL \(url) uses plain http://; App Transport Security lets it load on iOS: \(reason).")
        case .blocked(let reason):
            let why = reason.isEmpty ? "unless the app declares an exception" : "(\(reason))"
            return .warning(
                code,
                "The \(what) URL \(url) uses plain http://; App Transport Security blocks it on iOS \(why). "
                    + "Serve it over https://.")
        }
    }

    /// A8: `NetworkSecurityConfig.createBaseConfig` permits cleartext only for apps targeting API 27 or lower;
    /// from targetSdk 28 the platform's HTTP stacks and MediaPlayer refuse it (NetworkSecurityPolicy docs) unless
    /// the app's config permits the host (``CleartextPolicy``). Glide follows redirects itself, so an http hop
    /// fails the same way. A permitted load is still a warning: the traffic is unencrypted.
    static func cleartext(_ facts: TransferFacts, use: TransferUse, app: AndroidAppSettings) -> Finding? {
        guard let plain = firstPlainHTTP(facts) else { return nil }
        let code = use == .image ? AndroidFindingCode.imageCleartext : AndroidFindingCode.videoCleartext
        let url = Redaction.redactURL(plain.url) + plain.via
        let what = use == .image ? "image" : "media"
        switch app.cleartext.decision(host: plain.host, targetSdk: app.targetSdk) {
        case .allowed(let reason) where app.targetSdk < 28 && app.cleartext.isDefault:
            return .warning(
                code,
                "The \(what) URL \(url) uses plain http://; \(reason), but Google Play requires targetSdk 35 "
                    + "(\(AndroidVersion.name(api: app.targetSdk)) is the app's).")
        case .allowed(let reason):
            return .warning(
                code,
                "The \(what) URL \(url) uses plain http://; Android permits it because the app allows cleartext to "
                    + "\(plain.host) (\(reason)), but the traffic is unencrypted.")
        case .blocked(let reason):
            let shows =
                use == .image ? "the image never loads" : "the player shows \"Couldn't play this video\" and closes"
            let why =
                reason.isEmpty
                ? "Android blocks cleartext for apps targeting API 28+ (this app: \(app.targetSdk)) on Android 9 and "
                    + "later" : "Android blocks it: \(reason) (this app targets \(app.targetSdk))"
            return .error(
                code,
                "The \(what) URL \(url) uses plain http://; \(why): \(shows). Serve it over https:// or permit the "
                    + "host in the app's network security config.")
        }
    }

    /// "3.2": seconds to one decimal (no Foundation formatter in this module).
    static func tenths(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 1e9 else { return ">1e9" }
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    static func glide(_ facts: TransferFacts) -> [Finding] {
        var findings: [Finding] = []
        if facts.redirectCount > glideMaxRedirects {
            findings.append(
                .error(
                    AndroidFindingCode.imageTooManyRedirects,
                    "\(facts.redirectCount) redirects: Glide on Android gives up after \(glideMaxRedirects) "
                        + "(\"Too many (> 5) redirects!\"), so the image never loads."))
        }
        if let seconds = facts.firstByteSeconds, seconds > glideTimeoutSeconds {
            findings.append(
                .warning(
                    AndroidFindingCode.imageSlow,
                    "The server took \(tenths(seconds)) s to the first byte; Glide on Android times "
                        + "out after \(glideTimeoutSeconds) s, so on a slow day the image does not load."))
        }
        return findings
    }
}
