import AppProject
import ArgumentKit
import Findings
import InboxCards
import MediaRules

/// The app's settings each platform's asset rules read (assets-by-platform.md): OS levels and which plain-http
/// loads the app allows. Each comes from a flag or the config file (a config key per option, paths relative to the
/// file), else from the app's own files (`--app DIR`, or one file each), else the default; a flag beats the app's
/// file. `inbox-assets config` shows every effective setting and where it came from.
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
        .value(
            "app", "dir",
            help: "The app's repository: read the iOS deployment target and Info.plist (Xcode project, Podfile) and "
                + "the Android manifest, network security config and Gradle SDK levels from it."),
        .value(
            "ios-info-plist", "file",
            help: "The app's Info.plist (XML): its NSAppTransportSecurity keys decide which http:// loads iOS allows."),
        .value(
            "android-manifest", "file",
            help: "The app's AndroidManifest.xml: android:usesCleartextTraffic, and the network security config "
                + "android:networkSecurityConfig names (res/xml/NAME.xml beside it)."),
        .value(
            "android-network-security-config", "file",
            help: "The app's network security config (res/xml/…): which hosts may be reached over cleartext."),
    ]

    /// Options whose values are file or directory paths.
    static let pathOptions: Set<String> = [
        "app", "ios-info-plist", "android-manifest", "android-network-security-config",
    ]

    /// The effective settings, where each came from, and what the check should say about them.
    struct Resolved {
        var app: AppSettings
        var sources: [AppSettingSource]
        /// `app.setting` (read from an app file) and `app.settingUnreadable` findings, each with its file.
        var findings: [SourcedFinding]
    }

    /// The settings of this invocation.
    /// - Throws: a usage error for a bad flag value; a ``CommandFailure`` (exit 2) for an app file that cannot be
    ///   read or an app layout with two candidates where one is needed.
    static func settings(_ invocation: Invocation) throws -> AppSettings { try resolve(invocation).app }

    static func resolve(_ invocation: Invocation) throws -> Resolved {
        func origin(_ name: String) -> String? { invocation.origin(of: name) }
        let explicitATS = origin("ios-ats-exceptions") ?? origin("ios-info-plist")
        let explicitCleartext =
            origin("android-cleartext-hosts") ?? origin("android-network-security-config") ?? origin("android-manifest")
        var repository = AppRepositorySettings()
        do {
            if let directory = invocation.value("app") {
                let needs = AppRepository.Needs(
                    deploymentTarget: origin("ios-target") == nil, infoPlist: explicitATS == nil,
                    sdkLevels: origin("android-min-sdk") == nil || origin("android-target-sdk") == nil,
                    manifest: explicitCleartext == nil)
                repository = try AppRepository.read(directory, needs: needs)
            }
        } catch {
            throw CommandFailure(message: "--app: \(error)", status: ExitCode.invalidInput)
        }
        var sources: [AppSettingSource] = []
        var findings: [SourcedFinding] = []
        func record(_ setting: String, _ value: String, _ source: String, fromApp: Bool) {
            sources.append(AppSettingSource(setting: setting, value: value, source: source))
            guard fromApp else { return }
            // The finding's source is the file (for SARIF's location); the message keeps the line and the key.
            let file = source.components(separatedBy: " (").first ?? source
            findings.append(
                SourcedFinding(
                    source: file.split(separator: ":").first.map(String.init) ?? file,
                    finding: .info(AppFindingCode.setting, "\(setting) \(value), from \(source)")))
        }
        func level(_ name: String, range: ClosedRange<Int>, app: (Int, String)?, fallback: Int) throws -> Int {
            let key = Invocation.configKey(name)
            if let given = origin(name), let value = try invocation.int(name, in: range) {
                record(key, "\(value)", given, fromApp: false)
                return value
            }
            if let (value, source) = app {
                record(key, "\(value)", source, fromApp: true)
                return value
            }
            record(key, "\(fallback)", "default", fromApp: false)
            return fallback
        }
        let deploymentTarget = try level("ios-target", range: 2...99, app: repository.deploymentTarget, fallback: 13)
        let minSdk = try level("android-min-sdk", range: 1...99, app: repository.minSdk, fallback: 23)
        let targetSdk = try level("android-target-sdk", range: 1...99, app: repository.targetSdk, fallback: 35)
        guard targetSdk >= minSdk else {
            throw invocation.usageError(
                "the Android targetSdk \(targetSdk) is below the minSdk \(minSdk); an app targets at least the API "
                    + "level it supports")
        }

        var ats = ATSPolicy.none
        do {
            if let given = origin("ios-ats-exceptions") {
                ats = ATSPolicy(exceptions: try hosts(invocation, "ios-ats-exceptions"))
                record("iosAppTransportSecurity", ats.summary, given, fromApp: false)
            } else if let file = invocation.value("ios-info-plist") {
                ats = try InfoPlistReader.transportSecurity(try read(file), file: file)
                record("iosAppTransportSecurity", ats.summary, file, fromApp: true)
            } else if let policy = repository.ats {
                ats = policy
                record("iosAppTransportSecurity", ats.summary, policy.source, fromApp: true)
            } else {
                record("iosAppTransportSecurity", ats.summary, "default", fromApp: false)
            }
            var cleartext = CleartextPolicy.none
            if let given = origin("android-cleartext-hosts") {
                cleartext = CleartextPolicy(permittedHosts: try hosts(invocation, "android-cleartext-hosts"))
                record("androidCleartext", cleartext.summary, given, fromApp: false)
            } else if let file = invocation.value("android-network-security-config") {
                cleartext = try NetworkSecurityConfigReader.policy(try read(file), file: file)
                record("androidCleartext", cleartext.summary, file, fromApp: true)
            } else if let file = invocation.value("android-manifest") {
                cleartext = try AppRepository.readManifest(file).policy
                record("androidCleartext", cleartext.summary, cleartext.source, fromApp: true)
            } else if let policy = repository.cleartext {
                cleartext = policy
                record("androidCleartext", cleartext.summary, policy.source, fromApp: true)
            } else {
                record("androidCleartext", cleartext.summary, "default", fromApp: false)
            }
            // A setting a flag gives is not the default: its unreadable app value is no news.
            for (setting, message) in repository.warnings
            where origin(setting == "minSdk" ? "android-min-sdk" : "android-target-sdk") == nil {
                let file = String(message.prefix { $0 != ":" })
                findings.append(
                    SourcedFinding(source: file, finding: .warning(AppFindingCode.settingUnreadable, message)))
            }
            let app = AppSettings(
                ios: IOSAppSettings(deploymentTarget: deploymentTarget, ats: ats),
                android: AndroidAppSettings(minSdk: minSdk, targetSdk: targetSdk, cleartext: cleartext))
            return Resolved(app: app, sources: sources, findings: findings)
        } catch let error as AppFileError {
            throw CommandFailure(message: "\(error)", status: ExitCode.invalidInput)
        }
    }

    /// A settings file's bytes.
    static func read(_ path: String) throws(AppFileError) -> [UInt8] { try AppRepository.bytes("", path) }

    /// `HOST,…` given once or more, each split on commas.
    static func hosts(_ invocation: Invocation, _ name: String) throws(UsageError) -> HostPatterns {
        let list = invocation.values(name).flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map(String.init)
        do {
            return try HostPatterns(list, origin: invocation.origin(of: name) ?? "--\(name)")
        } catch {
            let hint = error.description.prefix(1).uppercased() + error.description.dropFirst() + "."
            throw invocation.invalid(invocation.values(name).joined(separator: ","), for: name, hint: hint)
        }
    }
}
