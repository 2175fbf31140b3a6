import ArgumentKit
import MediaRules

/// The app's settings each platform's asset rules read (assets-by-platform.md): OS levels and the hosts the app
/// lets load over plain http. Each is also a config key (`iosTarget`, `androidMinSdk`, `androidTargetSdk`,
/// `iosAtsExceptions`, `androidCleartextHosts`), shown by `inbox-assets config`.
enum PlatformOptions {
    static let options: [Option] = [
        .value(
            "ios-target", "major",
            help: "The app's iOS deployment target: image formats older iOS cannot decode (HEIC < 11, WebP < 14, "
                + "AVIF < 16, JPEG XL < 17) are findings below it.", default: "13"),
        .value(
            "android-min-sdk", "N",
            help: "The app's Android minSdk: formats that decode only on newer Android (HEIF < 27, AVIF < 31/34) "
                + "and AV1 video (< 34) are findings below it; 23 is the inbox SDK's own minSdk.", default: "23"),
        .value(
            "android-target-sdk", "N",
            help: "The app's Android targetSdk: from 28 on, Android blocks plain http:// unless the app permits "
                + "the host; 35 is Google Play's requirement.", default: "35"),
        .value(
            "ios-ats-exceptions", "HOST,…",
            help: "Hosts the app's App Transport Security lets load over plain http (NSExceptionDomains): "
                + "cdn.example.com, *.example.com for the domain and its subdomains, * for every host.",
            repeating: true),
        .value(
            "android-cleartext-hosts", "HOST,…",
            help: "Hosts the app's network security config permits cleartext to (cleartextTrafficPermitted): "
                + "cdn.example.com, *.example.com for the domain and its subdomains, * for every host.",
            repeating: true),
    ]

    /// The settings of this invocation.
    static func settings(_ invocation: Invocation) throws(UsageError) -> AppSettings {
        let ios = IOSAppSettings(
            deploymentTarget: try invocation.int("ios-target", in: 2...99) ?? 13,
            atsExceptions: try hosts(invocation, "ios-ats-exceptions"))
        let minSdk = try invocation.int("android-min-sdk", in: 1...99) ?? 23
        let targetSdk = try invocation.int("android-target-sdk", in: 1...99) ?? 35
        guard targetSdk >= minSdk else {
            throw invocation.usageError(
                "--android-target-sdk \(targetSdk) is below --android-min-sdk \(minSdk); an app targets at least "
                    + "the API level it supports")
        }
        let android = AndroidAppSettings(
            minSdk: minSdk, targetSdk: targetSdk, cleartextHosts: try hosts(invocation, "android-cleartext-hosts"))
        return AppSettings(ios: ios, android: android)
    }

    /// `HOST,…` given once or more, each split on commas.
    static func hosts(_ invocation: Invocation, _ name: String) throws(UsageError) -> HostPatterns {
        let list = invocation.values(name).flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map(String.init)
        do {
            return try HostPatterns(list, origin: "--\(name)")
        } catch {
            let hint = error.description.prefix(1).uppercased() + error.description.dropFirst() + "."
            throw invocation.invalid(invocation.values(name).joined(separator: ","), for: name, hint: hint)
        }
    }
}
