import FixtureServer
import Foundation
import StrictJSON
import TestSupport
import Testing

/// The app's own settings end to end: `check --app DIR` reads the Xcode project, Info.plist, Gradle file, manifest
/// and network security config of a repository written for the test, and must judge the campaign exactly as the
/// equivalent flags do; both differ from the defaults only where those settings say. `config` shows where each
/// setting came from; bad app files stop the run with exit 2 and an `Error:` line.
@Suite(.serialized) struct AppSettingsCLITests {
    // MARK: The campaign

    /// The plain-http host the app excepts (under `media.example.com`, subdomains included, on both platforms).
    static let exceptedHost = "img.media.example.com"
    static let exceptedDomain = "media.example.com"
    /// A plain-http host the app says nothing about.
    static let otherHost = "other.example.net"
    static let cdn = "https://cdn.example.com"

    /// Feed messages (`inbox_id` becomes the card's `code`) and their hero image.
    static let messages: [(id: String, image: String)] = [
        ("http-excepted", "http://\(exceptedHost)/m/plain.png"),
        ("http-other", "http://\(otherHost)/m/plain.png"),
        ("heic-hero", "\(cdn)/m/hero.heic"),
        ("avif-hero", "\(cdn)/m/hero.avif"),
    ]

    static var campaign: String {
        messages.enumerated().map { index, message in
            #"{"inbox_id": "\#(message.id)", "order": \#(index), "rt": 4102444800, "action_type": 0, "#
                + #""status": 1, "send_date": 1764400000, "title": "T", "text": "B", "image": "\#(message.image)", "#
                + #""action_params": "{\"displayType\": \"banner\"}"}"#
        }.joined(separator: "\n") + "\n"
    }

    // MARK: The app repository

    static let pbxproj = """
        // !$*UTF8*$!
        {
        \tarchiveVersion = 1;
        \tclasses = {
        \t};
        \tobjectVersion = 56;
        \tobjects = {

        /* Begin PBXNativeTarget section */
        \t\tA10000000000000000000001 /* Shop */ = {
        \t\t\tisa = PBXNativeTarget;
        \t\t\tbuildConfigurationList = A10000000000000000000010 /* Build configuration list for PBXNativeTarget "Shop" */;
        \t\t\tbuildPhases = (
        \t\t\t);
        \t\t\tname = Shop;
        \t\t\tproductName = Shop;
        \t\t\tproductReference = A10000000000000000000020 /* Shop.app */;
        \t\t\tproductType = "com.apple.product-type.application";
        \t\t};
        \t\tA10000000000000000000002 /* ShopTests */ = {
        \t\t\tisa = PBXNativeTarget;
        \t\t\tbuildConfigurationList = A10000000000000000000011 /* Build configuration list for PBXNativeTarget "ShopTests" */;
        \t\t\tname = ShopTests;
        \t\t\tproductType = "com.apple.product-type.bundle.unit-test";
        \t\t};
        /* End PBXNativeTarget section */

        /* Begin PBXProject section */
        \t\tA10000000000000000000003 /* Project object */ = {
        \t\t\tisa = PBXProject;
        \t\t\tbuildConfigurationList = A10000000000000000000012 /* Build configuration list for PBXProject "Shop" */;
        \t\t\tcompatibilityVersion = "Xcode 14.0";
        \t\t\ttargets = (
        \t\t\t\tA10000000000000000000001 /* Shop */,
        \t\t\t\tA10000000000000000000002 /* ShopTests */,
        \t\t\t);
        \t\t};
        /* End PBXProject section */

        /* Begin XCBuildConfiguration section */
        \t\tA10000000000000000000030 /* Debug */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t\tINFOPLIST_FILE = "$(SRCROOT)/Shop/Info.plist";
        \t\t\t\tIPHONEOS_DEPLOYMENT_TARGET = 15.0;
        \t\t\t\tPRODUCT_NAME = "$(TARGET_NAME)";
        \t\t\t};
        \t\t\tname = Debug;
        \t\t};
        \t\tA10000000000000000000031 /* Release */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t\tINFOPLIST_FILE = "$(SRCROOT)/Shop/Info.plist";
        \t\t\t\tIPHONEOS_DEPLOYMENT_TARGET = 15.0;
        \t\t\t\tPRODUCT_NAME = "$(TARGET_NAME)";
        \t\t\t};
        \t\t\tname = Release;
        \t\t};
        \t\tA10000000000000000000032 /* Debug */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t\tINFOPLIST_FILE = ShopTests/Info.plist;
        \t\t\t\tIPHONEOS_DEPLOYMENT_TARGET = 11.0;
        \t\t\t};
        \t\t\tname = Debug;
        \t\t};
        \t\tA10000000000000000000033 /* Debug */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t\tIPHONEOS_DEPLOYMENT_TARGET = 12.0;
        \t\t\t\tSDKROOT = iphoneos;
        \t\t\t};
        \t\t\tname = Debug;
        \t\t};
        \t\tA10000000000000000000034 /* Release */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t\tIPHONEOS_DEPLOYMENT_TARGET = 12.0;
        \t\t\t\tSDKROOT = iphoneos;
        \t\t\t};
        \t\t\tname = Release;
        \t\t};
        /* End XCBuildConfiguration section */

        /* Begin XCConfigurationList section */
        \t\tA10000000000000000000010 /* Build configuration list for PBXNativeTarget "Shop" */ = {
        \t\t\tisa = XCConfigurationList;
        \t\t\tbuildConfigurations = (
        \t\t\t\tA10000000000000000000030 /* Debug */,
        \t\t\t\tA10000000000000000000031 /* Release */,
        \t\t\t);
        \t\t\tdefaultConfigurationName = Release;
        \t\t};
        \t\tA10000000000000000000011 /* Build configuration list for PBXNativeTarget "ShopTests" */ = {
        \t\t\tisa = XCConfigurationList;
        \t\t\tbuildConfigurations = (
        \t\t\t\tA10000000000000000000032 /* Debug */,
        \t\t\t);
        \t\t};
        \t\tA10000000000000000000012 /* Build configuration list for PBXProject "Shop" */ = {
        \t\t\tisa = XCConfigurationList;
        \t\t\tbuildConfigurations = (
        \t\t\t\tA10000000000000000000033 /* Debug */,
        \t\t\t\tA10000000000000000000034 /* Release */,
        \t\t\t);
        \t\t};
        /* End XCConfigurationList section */
        \t};
        \trootObject = A10000000000000000000003 /* Project object */;
        }

        """

    static let infoPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
        \t<key>NSAppTransportSecurity</key>
        \t<dict>
        \t\t<key>NSExceptionDomains</key>
        \t\t<dict>
        \t\t\t<key>\(exceptedDomain)</key>
        \t\t\t<dict>
        \t\t\t\t<key>NSExceptionAllowsInsecureHTTPLoads</key>
        \t\t\t\t<true/>
        \t\t\t\t<key>NSIncludesSubdomains</key>
        \t\t\t\t<true/>
        \t\t\t</dict>
        \t\t</dict>
        \t</dict>
        </dict>
        </plist>

        """

    static func gradle(minSdk: String = "27") -> String {
        """
        plugins {
            id("com.android.application")
            id("org.jetbrains.kotlin.android")
        }

        android {
            namespace = "com.example.shop"
            compileSdk = 35

            defaultConfig {
                applicationId = "com.example.shop"
                minSdk = \(minSdk)
                targetSdk = 34
                versionCode = 7
            }
        }

        """
    }

    static let manifest = """
        <?xml version="1.0" encoding="utf-8"?>
        <manifest xmlns:android="http://schemas.android.com/apk/res/android">
            <uses-permission android:name="android.permission.INTERNET" />
            <application
                android:label="Shop"
                android:networkSecurityConfig="@xml/network_security_config">
                <activity android:name=".MainActivity" android:exported="true" />
            </application>
        </manifest>

        """

    static let networkSecurityConfig = """
        <?xml version="1.0" encoding="utf-8"?>
        <network-security-config>
            <domain-config cleartextTrafficPermitted="true">
                <domain includeSubdomains="true">\(exceptedDomain)</domain>
            </domain-config>
        </network-security-config>

        """

    /// The app's files under `root`, relative path → content.
    static func appFiles(gradleMinSdk: String = "27") -> [String: String] {
        [
            "ios/Shop.xcodeproj/project.pbxproj": pbxproj,
            "ios/Shop/Info.plist": infoPlist,
            "ios/ShopTests/Info.plist": "<plist version=\"1.0\"><dict/></plist>\n",
            "android/settings.gradle.kts": "include(\":app\")\n",
            "android/app/build.gradle.kts": gradle(minSdk: gradleMinSdk),
            "android/app/src/main/AndroidManifest.xml": manifest,
            "android/app/src/main/res/xml/network_security_config.xml": networkSecurityConfig,
        ]
    }

    static func write(_ files: [String: String], under root: String) throws {
        for (path, text) in files { try write(Array(text.utf8), to: "\(root)/\(path)") }
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func temporary(_ label: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ia-app-settings-\(label)-\(UUID())").path
    }

    // MARK: Runs

    /// The served media and the fixture server.
    final class Environment {
        let root: String
        let server: FixtureServer

        init() throws {
            root = AppSettingsCLITests.temporary("www")
            try FileManager.default.createDirectory(atPath: "\(root)/m", withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: CLI.fixture("media/image-64x36.heic"), toPath: "\(root)/m/hero.heic")
            try FileManager.default.copyItem(
                atPath: CLI.fixture("media/image-64x36.avif"), toPath: "\(root)/m/hero.avif")
            try Data(VerdictMedia.make(width: 1140, height: 600)).write(to: URL(fileURLWithPath: "\(root)/m/plain.png"))
            server = try FixtureServer(root: root)
        }

        deinit {
            server.stop()
            try? FileManager.default.removeItem(atPath: root)
        }

        /// `check --platform all --android-sdk all --format json` over the campaign, with `extra`.
        func check(_ extra: [String], directory: String? = nil) async throws -> CLIResult {
            let arguments =
                [
                    "check", "-", "--platform", "all", "--android-sdk", "all", "--format", "json", "--fail-on", "never",
                    "--no-store", "--quiet", "--retries", "0", "--timeout", "10",
                    "--connect-to", "cdn.example.com:443:127.0.0.1:\(try #require(server.httpsPort))",
                    "--connect-to", "\(AppSettingsCLITests.exceptedHost):80:127.0.0.1:\(server.httpPort)",
                    "--connect-to", "\(AppSettingsCLITests.otherHost):80:127.0.0.1:\(server.httpPort)",
                    "--cacert", try #require(server.caFilePath),
                ] + extra
            return try await CLI.run(arguments, stdin: AppSettingsCLITests.campaign, directory: directory)
        }
    }

    /// One asset's verdict as the report gives it.
    struct AssetVerdict: Hashable, CustomStringConvertible {
        var role: String
        var status: String
        var failure: String?
        /// `severity code platform`, sorted.
        var findings: [String]

        var description: String { "\(role) \(status)\(failure.map { " (\($0))" } ?? "") \(findings)" }
    }

    /// One card's verdict.
    struct CardVerdict: Hashable, CustomStringConvertible {
        var broken: Bool
        var assets: [AssetVerdict]

        var description: String { "broken=\(broken) \(assets)" }
    }

    /// Timing-dependent (Glide's 2.5 s): not compared.
    static let timing: Set<String> = ["image.android.slow"]

    /// `code platform sdk` → the card's verdict.
    static func verdicts(_ report: JSONValue) throws -> [String: CardVerdict] {
        var verdicts: [String: CardVerdict] = [:]
        for card in try #require(CheckReportJSON.flattened(report)["cards"]?.arrayValue) {
            let key = [card["code"], card["platform"], card["sdk"]].map { $0?.stringValue ?? "?" }.joined(
                separator: " ")
            let assets = (card["assets"]?.arrayValue ?? []).map { asset in
                AssetVerdict(
                    role: asset["role"]?.stringValue ?? "?", status: asset["status"]?.stringValue ?? "?",
                    failure: asset["failure"]?.stringValue,
                    findings: (asset["findings"]?.arrayValue ?? []).compactMap { finding -> String? in
                        guard let code = finding["code"]?.stringValue, !timing.contains(code) else { return nil }
                        return [finding["severity"], finding["code"], finding["platform"]]
                            .map { $0?.stringValue ?? "-" }.joined(separator: " ")
                    }.sorted())
            }
            #expect(verdicts[key] == nil, "two cards \(key)")
            verdicts[key] = CardVerdict(broken: card["broken"]?.boolValue ?? false, assets: assets)
        }
        return verdicts
    }

    /// Every finding message of the cards whose key starts with `prefix`.
    static func messages(_ report: JSONValue, card prefix: String) -> [String] {
        (CheckReportJSON.flattened(report)["cards"]?.arrayValue ?? []).filter {
            [$0["code"], $0["platform"]].map { $0?.stringValue ?? "" }.joined(separator: " ").hasPrefix(prefix)
        }.flatMap { card in
            (card["assets"]?.arrayValue ?? []).flatMap { $0["findings"]?.arrayValue ?? [] }
                .compactMap { $0["message"]?.stringValue }
        }
    }

    /// The flags that say what the app's files say.
    static let equivalentFlags = [
        "--ios-target", "15", "--android-min-sdk", "27", "--android-target-sdk", "34",
        "--ios-ats-exceptions", "*.\(exceptedDomain)", "--android-cleartext-hosts", "*.\(exceptedDomain)",
    ]

    // MARK: Tests

    @Test func theAppsFilesJudgeLikeTheEquivalentFlags() async throws {
        let env = try Environment()
        let app = Self.temporary("repo")
        defer { try? FileManager.default.removeItem(atPath: app) }
        try Self.write(Self.appFiles(), under: app)

        let defaults = try await env.check([])
        let fromApp = try await env.check(["--app", app])
        let fromFlags = try await env.check(Self.equivalentFlags)
        for (name, result) in [("defaults", defaults), ("--app", fromApp), ("flags", fromFlags)] {
            #expect(result.status == 0, "\(name): \(result.stderr)")
        }
        let appReport = try JSON.parse(fromApp.stdout)
        let byDefault = try Self.verdicts(try JSON.parse(defaults.stdout))
        let byApp = try Self.verdicts(appReport)
        let byFlags = try Self.verdicts(try JSON.parse(fromFlags.stdout))
        // Each message on iOS and on every Android SDK profile.
        for message in Self.messages {
            let cards = byApp.keys.filter { $0.hasPrefix(message.id + " ") }
            #expect(cards.contains("\(message.id) ios 7.2") && cards.contains("\(message.id) android 6.13"), "\(cards)")
        }
        #expect(Set(byApp.keys) == Set(byDefault.keys) && Set(byApp.keys) == Set(byFlags.keys))

        // The app's files and the flags: the same verdict on every card.
        for key in byApp.keys.sorted() {
            let app = byApp[key].map(\.description) ?? "none"
            let flags = byFlags[key].map(\.description) ?? "none"
            #expect(byApp[key] == byFlags[key], "\(key): --app \(app) vs flags \(flags)")
        }

        // Against the defaults, only where the settings say.
        for key in byDefault.keys.sorted() {
            guard let before = byDefault[key], let after = byApp[key] else { continue }
            let platform = key.split(separator: " ")[1]
            switch (key.split(separator: " ")[0], platform) {
            case ("http-excepted", "ios"):
                // The ATS exception: the warning becomes information.
                #expect(before.assets.map(\.findings) == [["warning image.ats ios"]], "\(key) defaults: \(before)")
                #expect(after.assets.map(\.findings) == [["info image.ats ios"]], "\(key) --app: \(after)")
                #expect(!before.broken && !after.broken)
            case ("http-excepted", "android"):
                // Cleartext permitted: still a warning (unencrypted), no longer blocked, the card no longer broken.
                #expect(before.assets.map(\.status) == ["failed"], "\(key) defaults: \(before)")
                #expect(before.assets.map(\.failure) == ["cleartext-blocked"])
                #expect(after.assets.map(\.status) == ["ok"], "\(key) --app: \(after)")
                #expect(after.assets.map(\.failure) == [nil])
                #expect(after.assets.map(\.findings) == [["warning image.android.cleartext android"]])
                #expect(!after.broken)
                if key.hasSuffix("6.11") {
                    #expect(before.assets.map(\.findings) == [["warning image.android.cleartext android"]])
                } else {
                    #expect(before.broken, "\(key): the default blocks the hero")
                    #expect(before.assets.map(\.findings) == [["error image.android.cleartext android"]])
                }
            case ("heic-hero", "android"):
                // minSdk 27: HEIF decodes on every supported level.
                let older = "warning image.android.requiresNewerAPI android"
                #expect(before.assets.first?.findings.contains(older) == true, "\(key) defaults: \(before)")
                #expect(after.assets.first?.findings.contains(older) == false, "\(key) --app: \(after)")
                var expected = before
                expected.assets = before.assets.map { asset in
                    var asset = asset
                    asset.findings.removeAll { $0 == older }
                    return asset
                }
                #expect(after == expected, "\(key): only the API warning goes")
            default:
                // The other host, AVIF (iOS 15 is still below 16; minSdk 27 below 31) and HEIC on iOS: unchanged.
                #expect(after == before, "\(key): defaults \(before) vs --app \(after)")
            }
        }
        for run in [byDefault, byApp, byFlags] {
            #expect(
                run["avif-hero ios 7.2"]?.assets.first?.findings.contains("warning image.requiresNewerOS ios") == true)
            #expect(run["http-other ios 7.2"]?.assets.map(\.findings) == [["warning image.ats ios"]])
            #expect(run["http-other android 6.13"]?.broken == true)
        }

        // The messages name the files that decided.
        let plist = "\(app)/ios/Shop/Info.plist"
        let config = "\(app)/android/app/src/main/res/xml/network_security_config.xml"
        let atsMessages = Self.messages(appReport, card: "http-excepted ios")
        #expect(
            atsMessages.contains { $0.contains("NSExceptionAllowsInsecureHTTPLoads in \(plist)") }, "\(atsMessages)")
        let cleartextMessages = Self.messages(appReport, card: "http-excepted android")
        #expect(cleartextMessages.contains { $0.contains("in \(config) permits cleartext") }, "\(cleartextMessages)")

        // The report's top-level findings: one app.setting information per setting, with its file.
        let findings = appReport["findings"]?.arrayValue ?? []
        let settings = findings.filter { $0["code"]?.stringValue == "app.setting" }
        for finding in settings { #expect(finding["severity"]?.stringValue == "info") }
        let lines = settings.map { "\($0["source"]?.stringValue ?? "?") | \($0["message"]?.stringValue ?? "?")" }
        let project = "\(app)/ios/Shop.xcodeproj/project.pbxproj"
        let gradle = "\(app)/android/app/build.gradle.kts"
        #expect(
            lines.sorted()
                == [
                    "\(config) | androidCleartext permitted: \(Self.exceptedDomain) (+subdomains), from \(config)",
                    "\(gradle) | androidMinSdk 27, from \(gradle):12 (minSdk)",
                    "\(gradle) | androidTargetSdk 34, from \(gradle):13 (targetSdk)",
                    "\(plist) | iosAppTransportSecurity exception domains: \(Self.exceptedDomain) (insecure HTTP, "
                        + "subdomains), from \(plist)",
                    "\(project) | iosTarget 15, from \(project) (IPHONEOS_DEPLOYMENT_TARGET of target Shop, Debug)",
                ].sorted(), "\(lines)")
        #expect(!findings.contains { $0["code"]?.stringValue == "app.settingUnreadable" })
        // Neither the defaults nor the flags read a file.
        for result in [defaults, fromFlags] {
            let top = (try JSON.parse(result.stdout))["findings"]?.arrayValue ?? []
            #expect(!top.contains { ($0["code"]?.stringValue ?? "").hasPrefix("app.") })
        }
    }

    /// `config`'s `platformSettings`: each setting's value and where it came from.
    static func platformSettings(_ result: CLIResult) throws -> [String: String] {
        #expect(result.status == 0, "\(result.stderr)")
        let settings = try #require(try JSON.parse(result.stdout)["platformSettings"]?.objectValue)
        var out: [String: String] = [:]
        for key in settings.keys {
            out[key] = "\(settings[key]?["value"]?.stringValue ?? "?") ← \(settings[key]?["from"]?.stringValue ?? "?")"
        }
        return out
    }

    @Test func configShowsWhereEachSettingComesFrom() async throws {
        let app = Self.temporary("repo")
        defer { try? FileManager.default.removeItem(atPath: app) }
        try Self.write(Self.appFiles(), under: app)
        let project = "\(app)/ios/Shop.xcodeproj/project.pbxproj"
        let gradle = "\(app)/android/app/build.gradle.kts"
        let plist = "\(app)/ios/Shop/Info.plist"
        let config = "\(app)/android/app/src/main/res/xml/network_security_config.xml"
        let ats = "exception domains: \(Self.exceptedDomain) (insecure HTTP, subdomains)"
        let cleartext = "permitted: \(Self.exceptedDomain) (+subdomains)"

        #expect(
            try Self.platformSettings(try await CLI.run(["config"])) == [
                "iosTarget": "13 ← default", "androidMinSdk": "23 ← default", "androidTargetSdk": "35 ← default",
                "iosAppTransportSecurity": "ATS defaults (https only) ← default",
                "androidCleartext": "platform default (blocked from targetSdk 28) ← default",
            ])
        let fromApp = [
            "iosTarget": "15 ← \(project) (IPHONEOS_DEPLOYMENT_TARGET of target Shop, Debug)",
            "androidMinSdk": "27 ← \(gradle):12 (minSdk)", "androidTargetSdk": "34 ← \(gradle):13 (targetSdk)",
            "iosAppTransportSecurity": "\(ats) ← \(plist)", "androidCleartext": "\(cleartext) ← \(config)",
        ]
        #expect(try Self.platformSettings(try await CLI.run(["config", "--app", app])) == fromApp)

        // A flag beats the app's file, and says so.
        var withFlags = fromApp
        withFlags["iosTarget"] = "16 ← --ios-target"
        withFlags["androidCleartext"] = "permitted: cdn.example.com ← --android-cleartext-hosts"
        #expect(
            try Self.platformSettings(
                try await CLI.run([
                    "config", "--app", app, "--ios-target", "16", "--android-cleartext-hosts", "cdn.example.com",
                ])) == withFlags)

        // The app's files one by one.
        let oneByOne = try Self.platformSettings(
            try await CLI.run([
                "config", "--ios-info-plist", plist, "--android-manifest",
                "\(app)/android/app/src/main/AndroidManifest.xml",
            ]))
        #expect(oneByOne["iosAppTransportSecurity"] == "\(ats) ← \(plist)")
        #expect(oneByOne["androidCleartext"] == "\(cleartext) ← \(config)")
        #expect(oneByOne["iosTarget"] == "13 ← default")
        let nsc = try Self.platformSettings(try await CLI.run(["config", "--android-network-security-config", config]))
        #expect(nsc["androidCleartext"] == "\(cleartext) ← \(config)")
    }

    @Test func aConfigFilesAppIsRelativeToTheFile() async throws {
        let folder = Self.temporary("config")
        let elsewhere = Self.temporary("cwd")
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: elsewhere)
        }
        try Self.write(Self.appFiles(), under: "\(folder)/apps/shop")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let file = "\(folder)/inbox-assets.json"
        try Self.write(Array("{\n  \"app\": \"apps/shop\",\n  \"androidTargetSdk\": 33\n}\n".utf8), to: file)
        let result = try await CLI.run(["config", "--config", file], directory: elsewhere)
        let settings = try Self.platformSettings(result)
        let app = "\(folder)/apps/shop"
        #expect(
            settings["iosTarget"]
                == "15 ← \(app)/ios/Shop.xcodeproj/project.pbxproj (IPHONEOS_DEPLOYMENT_TARGET of target Shop, Debug)")
        #expect(settings["androidMinSdk"] == "27 ← \(app)/android/app/build.gradle.kts:12 (minSdk)")
        #expect(settings["androidTargetSdk"] == "33 ← \(file):3:23")
        #expect(settings["iosAppTransportSecurity"]?.hasSuffix("← \(app)/ios/Shop/Info.plist") == true)
        #expect(
            settings["androidCleartext"]?.hasSuffix("← \(app)/android/app/src/main/res/xml/network_security_config.xml")
                == true)

        // --app relative to the working directory: files named as the user would type them.
        let relative = try Self.platformSettings(
            try await CLI.run(["config", "--app", "shop"], directory: "\(folder)/apps"))
        #expect(relative["androidMinSdk"] == "27 ← shop/android/app/build.gradle.kts:12 (minSdk)")
        #expect(relative["iosAppTransportSecurity"]?.hasSuffix("← shop/ios/Shop/Info.plist") == true)

        // check reads the same app from there: the excepted host is information on iOS.
        let env = try Environment()
        let check = try await env.check(["--config", file], directory: elsewhere)
        #expect(check.status == 0, "\(check.stderr)")
        let verdicts = try Self.verdicts(try JSON.parse(check.stdout))
        #expect(verdicts["http-excepted ios 7.2"]?.assets.map(\.findings) == [["info image.ats ios"]])
    }

    /// A bad app file: exit 2, an `Error:` line with what the text says, no report.
    struct BadApp: Sendable, CustomTestStringConvertible {
        var testDescription: String
        /// Files over the good app's (nil content: removed).
        var files: [String: String?] = [:]
        var binaryPlist = false
        /// The arguments after `check -`; `{app}` is the repository.
        var arguments: [String]
        var stderr: [String]
        /// 2 for a file that cannot be used; 64 for settings that contradict each other (a usage error).
        var status: Int32 = 2
    }

    static let secondTarget = pbxproj.replacingOccurrences(
        of: "\t\tA10000000000000000000002 /* ShopTests */ = {\n\t\t\tisa = PBXNativeTarget;",
        with: """
            \t\tA10000000000000000000004 /* Shop Lite */ = {
            \t\t\tisa = PBXNativeTarget;
            \t\t\tbuildConfigurationList = A10000000000000000000010;
            \t\t\tname = "Shop Lite";
            \t\t\tproductType = "com.apple.product-type.application";
            \t\t};
            \t\tA10000000000000000000002 /* ShopTests */ = {
            \t\t\tisa = PBXNativeTarget;
            """)

    static let badApps: [BadApp] = [
        BadApp(
            testDescription: "two app targets: both named, and --ios-info-plist",
            files: ["ios/Shop.xcodeproj/project.pbxproj": secondTarget], arguments: ["--app", "{app}"],
            stderr: [
                "Error: --app: {app}: 2 iOS app targets: Shop ({app}/ios/Shop.xcodeproj/project.pbxproj), Shop Lite "
                    + "({app}/ios/Shop.xcodeproj/project.pbxproj)", "--ios-info-plist FILE",
            ]),
        BadApp(
            testDescription: "a binary Info.plist via --ios-info-plist: the plutil hint", binaryPlist: true,
            arguments: ["--ios-info-plist", "{app}/ios/Shop/Info.plist"],
            stderr: [
                "Error: {app}/ios/Shop/Info.plist: a binary property list",
                "plutil -convert xml1 -o Info.xml.plist {app}/ios/Shop/Info.plist",
            ]),
        BadApp(
            testDescription: "a binary Info.plist found through --app", binaryPlist: true,
            arguments: ["--app", "{app}"],
            stderr: ["Error: --app: {app}/ios/Shop/Info.plist: a binary property list", "plutil -convert xml1"]),
        BadApp(
            testDescription: "an entity in the network security config",
            files: [
                "android/app/src/main/res/xml/network_security_config.xml":
                    "<?xml version=\"1.0\"?>\n<!DOCTYPE n [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n<network-security-config>&x;</network-security-config>\n"
            ],
            arguments: ["--app", "{app}"],
            stderr: [
                "Error: --app: {app}/android/app/src/main/res/xml/network_security_config.xml:2: declares an XML entity"
            ]),
        BadApp(
            testDescription: "a manifest naming a missing config, via --android-manifest",
            files: ["android/app/src/main/res/xml/network_security_config.xml": nil],
            arguments: ["--android-manifest", "{app}/android/app/src/main/AndroidManifest.xml"],
            stderr: [
                "Error: {app}/android/app/src/main/AndroidManifest.xml: android:networkSecurityConfig names "
                    + "@xml/network_security_config, but {app}/android/app/src/main/res/xml/network_security_config.xml "
                    + "does not exist"
            ]),
        BadApp(
            testDescription: "a missing --app directory", arguments: ["--app", "{app}/nowhere"],
            stderr: ["Error: --app: {app}/nowhere: not a directory"]),
        BadApp(
            testDescription: "the app's targetSdk below a --android-min-sdk flag",
            arguments: ["--app", "{app}", "--android-min-sdk", "35"],
            stderr: ["Error: the Android targetSdk 34 is below the minSdk 35"], status: 64),
    ]

    @Test(arguments: badApps)
    func aBadAppFileStopsTheRun(_ row: BadApp) async throws {
        let app = Self.temporary("bad")
        defer { try? FileManager.default.removeItem(atPath: app) }
        try Self.write(Self.appFiles(), under: app)
        for (path, text) in row.files {
            if let text {
                try Self.write(Array(text.utf8), to: "\(app)/\(path)")
            } else {
                try FileManager.default.removeItem(atPath: "\(app)/\(path)")
            }
        }
        if row.binaryPlist {
            try Self.write(
                Array("bplist00".utf8) + [0xD1, 0x01, 0x02, 0x51, 0x61, 0x09, 0x08, 0x0B],
                to: "\(app)/ios/Shop/Info.plist")
        }
        let arguments = row.arguments.map { $0.replacingOccurrences(of: "{app}", with: app) }
        // No server: the run must stop before any asset is fetched.
        let result = try await CLI.run(
            ["check", "-", "--format", "json", "--no-store", "--quiet", "--retries", "0"] + arguments,
            stdin: Self.campaign)
        #expect(result.status == row.status, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout.prefix(300))")
        for text in row.stderr {
            let expected = text.replacingOccurrences(of: "{app}", with: app)
            #expect(result.stderr.contains(expected), "'\(expected)' not in: \(result.stderr)")
        }
        #expect(!result.stderr.contains("root:x:0:0"))
        // config stops the same way.
        let config = try await CLI.run(["config"] + arguments)
        #expect(config.status == row.status, "\(config.stderr)")
    }

    @Test func anUnreadableGradleMinSdkWarnsAndTheDefaultIsUsed() async throws {
        let env = try Environment()
        let app = Self.temporary("gradle")
        defer { try? FileManager.default.removeItem(atPath: app) }
        try Self.write(Self.appFiles(gradleMinSdk: "libs.versions.minSdk.get().toInt()"), under: app)
        let gradle = "\(app)/android/app/build.gradle.kts"

        let result = try await env.check(["--app", app])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSON.parse(result.stdout)
        let findings = report["findings"]?.arrayValue ?? []
        let unreadable = findings.filter { $0["code"]?.stringValue == "app.settingUnreadable" }
        #expect(unreadable.count == 1)
        #expect(unreadable.first?["severity"]?.stringValue == "warning")
        #expect(unreadable.first?["source"]?.stringValue == gradle)
        #expect(
            unreadable.first?["message"]?.stringValue
                == "\(gradle):12: minSdk is 'libs.versions.minSdk.get().toInt()', an expression this tool cannot "
                + "evaluate; the default is used (--android-min-sdk N sets it)")
        // The default minSdk 23 judged HEIC; targetSdk still came from the file.
        let verdicts = try Self.verdicts(report)
        #expect(
            verdicts["heic-hero android 6.13"]?.assets.first?.findings.contains(
                "warning image.android.requiresNewerAPI android") == true)
        #expect(
            !findings.contains {
                $0["code"]?.stringValue == "app.setting"
                    && ($0["message"]?.stringValue ?? "").hasPrefix("androidMinSdk")
            })
        #expect(
            findings.contains { $0["message"]?.stringValue == "androidTargetSdk 34, from \(gradle):13 (targetSdk)" })

        let settings = try Self.platformSettings(try await CLI.run(["config", "--app", app]))
        #expect(settings["androidMinSdk"] == "23 ← default")
        #expect(settings["androidTargetSdk"] == "34 ← \(gradle):13 (targetSdk)")
        // The flag the warning names settles it.
        let flagged = try await env.check(["--app", app, "--android-min-sdk", "27"])
        let flaggedFindings = (try JSON.parse(flagged.stdout))["findings"]?.arrayValue ?? []
        #expect(!flaggedFindings.contains { $0["code"]?.stringValue == "app.settingUnreadable" })

    }
}
