import AppProject
import Foundation
import MediaRules
import Testing

/// `AppRepository.read` over app repositories laid out on disk: what it finds, what it skips, and the errors that
/// name the candidates and the flag that picks one.
@Suite struct AppRepositoryTests {
    static let infoPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleExecutable</key>
        \t<string>$(EXECUTABLE_NAME)</string>
        \t<key>NSAppTransportSecurity</key>
        \t<dict>
        \t\t<key>NSExceptionDomains</key>
        \t\t<dict>
        \t\t\t<key>media.example.com</key>
        \t\t\t<dict>
        \t\t\t\t<key>NSIncludesSubdomains</key>
        \t\t\t\t<true/>
        \t\t\t\t<key>NSExceptionAllowsInsecureHTTPLoads</key>
        \t\t\t\t<true/>
        \t\t\t</dict>
        \t\t</dict>
        \t</dict>
        </dict>
        </plist>
        """

    static let plainPlist = "<plist version=\"1.0\"><dict><key>CFBundleName</key><string>X</string></dict></plist>"

    static let appGradle = """
        plugins {
            id("com.android.application")
            id("org.jetbrains.kotlin.android")
        }

        android {
            namespace = "com.example.shop"
            compileSdk = 35

            defaultConfig {
                applicationId = "com.example.shop"
                minSdk = 26
                targetSdk = 34
            }
        }
        """

    static let libraryGradle =
        "plugins {\n    id(\"com.android.library\")\n}\nandroid {\n    defaultConfig { minSdk = 21 }\n}\n"

    static let rootGradle = """
        buildscript {
            repositories { google(); mavenCentral() }
            dependencies { classpath("com.android.tools.build:gradle:8.5.0") }
        }
        """

    static let manifest = """
        <?xml version="1.0" encoding="utf-8"?>
        <manifest xmlns:android="http://schemas.android.com/apk/res/android">
            <application android:usesCleartextTraffic="false"
                android:networkSecurityConfig="@xml/network_security_config" />
        </manifest>
        """

    static let libraryManifest = "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\"/>"

    static let networkSecurityConfig = """
        <network-security-config>
            <domain-config cleartextTrafficPermitted="true">
                <domain includeSubdomains="true">media.example.com</domain>
            </domain-config>
        </network-security-config>
        """

    /// An iOS app with tests and an extension, CocoaPods, an Android app module and a library module; dependencies
    /// and build products that would be ambiguous if they were searched.
    static func writeFullLayout(_ tree: TempTree) throws {
        try tree.write("ios/Shop.xcodeproj/project.pbxproj", PBXProj.typical())
        try tree.write("ios/Shop/Info.plist", infoPlist)
        try tree.write("ios/ShopTests/Info.plist", plainPlist)
        try tree.write("ios/NotificationService/Info.plist", plainPlist)
        try tree.write("ios/Podfile", "platform :ios, '12.0'\ntarget 'Shop' do\nend\n")
        // CocoaPods' own project has application-like targets and Info.plists: never searched.
        try tree.write(
            "ios/Pods/Pods.xcodeproj/project.pbxproj",
            PBXProj.text(
                project: [.init(name: "Release", deploymentTarget: "9.0")],
                targets: [.init(name: "PodsApp", configurations: [.init(name: "Release", infoPlist: "Info.plist")])]))
        try tree.write("ios/Pods/Target Support Files/Alamofire/Alamofire-Info.plist", plainPlist)
        try tree.write("ios/build/Shop.app/Info.plist", plainPlist)
        try tree.write("ios/DerivedData/Shop/Info.plist", plainPlist)
        try tree.write("android/settings.gradle.kts", "include(\":app\", \":core\")\n")
        try tree.write("android/build.gradle.kts", rootGradle)
        try tree.write("android/app/build.gradle.kts", appGradle)
        try tree.write("android/app/src/main/AndroidManifest.xml", manifest)
        try tree.write("android/app/src/main/res/xml/network_security_config.xml", networkSecurityConfig)
        try tree.write("android/app/build/generated/src/main/AndroidManifest.xml", libraryManifest)
        try tree.write("android/core/build.gradle.kts", libraryGradle)
        try tree.write("android/core/src/main/AndroidManifest.xml", libraryManifest)
        // A React Native dependency's application module, and a hidden folder's.
        try tree.write(
            "node_modules/rn-lib/android/build.gradle", "apply plugin: 'com.android.application'\nminSdk 16\n")
        try tree.write("node_modules/rn-lib/android/src/main/AndroidManifest.xml", libraryManifest)
        try tree.write(".idea/build.gradle", "apply plugin: 'com.android.application'\n")
        try tree.write(".git/Info.plist", plainPlist)
    }

    @Test func aFullLayout() throws {
        let tree = try TempTree("full")
        defer { tree.remove() }
        try Self.writeFullLayout(tree)
        let settings = try AppRepository.read(tree.root)
        let project = tree.path("ios/Shop.xcodeproj/project.pbxproj")
        #expect(settings.deploymentTarget?.major == 15)
        #expect(
            settings.deploymentTarget?.source == "\(project) (IPHONEOS_DEPLOYMENT_TARGET of target Shop, Debug)")
        #expect(settings.infoPlist == tree.path("ios/Shop/Info.plist"))
        #expect(settings.ats?.source == tree.path("ios/Shop/Info.plist"))
        #expect(
            settings.ats?.exceptionDomains == [
                .init(domain: "media.example.com", includesSubdomains: true, allowsInsecureHTTPLoads: true)
            ])
        #expect(settings.manifest == tree.path("android/app/src/main/AndroidManifest.xml"))
        #expect(settings.minSdk?.level == 26)
        #expect(settings.minSdk?.source == tree.path("android/app/build.gradle.kts") + ":12 (minSdk)")
        #expect(settings.targetSdk?.level == 34)
        #expect(settings.targetSdk?.source == tree.path("android/app/build.gradle.kts") + ":13 (targetSdk)")
        let config = tree.path("android/app/src/main/res/xml/network_security_config.xml")
        #expect(settings.cleartext?.source == config)
        #expect(
            settings.cleartext?.domains == [
                .init(domain: "media.example.com", includeSubdomains: true, permitted: true)
            ])
        #expect(settings.warnings.isEmpty)
    }

    /// A layout on disk and what reading it says.
    struct Layout: Sendable, CustomTestStringConvertible {
        var testDescription: String
        /// Relative path → content.
        var files: [String: String]
        var needs: AppRepository.Needs = .init()
        /// The error's reason must hold each (each `{root}` replaced by the directory); empty: no error.
        var error: [String] = []
        var check: @Sendable (AppRepositorySettings, TempTree) -> Void = { _, _ in }
    }

    static let twoTargets = PBXProj.text(
        project: [.init(name: "Release", deploymentTarget: "15.0")],
        targets: [
            .init(name: "Shop", configurations: [.init(name: "Release", infoPlist: "Shop/Info.plist")]),
            .init(name: "Shop Lite", configurations: [.init(name: "Release", infoPlist: "Lite/Info.plist")]),
        ])

    static let layouts: [Layout] = [
        Layout(
            testDescription: "two app targets in one project: an error naming both and --ios-info-plist",
            files: [
                "ios/Shop.xcodeproj/project.pbxproj": twoTargets, "ios/Shop/Info.plist": plainPlist,
                "ios/Lite/Info.plist": plainPlist,
            ],
            error: [
                "2 iOS app targets: Shop ({root}/ios/Shop.xcodeproj/project.pbxproj), Shop Lite "
                    + "({root}/ios/Shop.xcodeproj/project.pbxproj)",
                "pass --ios-info-plist FILE and --ios-target N",
            ]),
        Layout(
            testDescription: "two projects with an app target each",
            files: [
                "ios/Shop.xcodeproj/project.pbxproj": PBXProj.typical(), "ios/Shop/Info.plist": plainPlist,
                "ios/Admin/Admin.xcodeproj/project.pbxproj": PBXProj.typical(), "ios/Admin/Shop/Info.plist": plainPlist,
            ],
            error: [
                "2 iOS app targets: Shop ({root}/ios/Admin/Admin.xcodeproj/project.pbxproj), Shop "
                    + "({root}/ios/Shop.xcodeproj/project.pbxproj)", "--ios-info-plist",
            ]),
        Layout(
            testDescription: "two app targets, but the flags decide both iOS settings: no error",
            files: [
                "ios/Shop.xcodeproj/project.pbxproj": twoTargets, "android/src/main/AndroidManifest.xml": manifest,
                "android/src/main/res/xml/network_security_config.xml": networkSecurityConfig,
            ],
            needs: .init(deploymentTarget: false, infoPlist: false),
            check: { settings, tree in
                #expect(settings.deploymentTarget == nil && settings.ats == nil)
                #expect(settings.manifest == tree.path("android/src/main/AndroidManifest.xml"))
            }),
        Layout(
            testDescription: "two application modules: an error naming both and --android-manifest",
            files: [
                "android/app/build.gradle.kts": appGradle,
                "android/wear/build.gradle": "apply plugin: 'com.android.application'\n",
                "android/app/src/main/AndroidManifest.xml": manifest,
            ],
            error: [
                "2 Android application modules: {root}/android/app/build.gradle.kts, {root}/android/wear/build.gradle",
                "pass --android-manifest FILE, --android-min-sdk N and --android-target-sdk N",
            ]),
        Layout(
            testDescription: "two application modules, but the flags decide every Android setting: no error",
            files: [
                "android/app/build.gradle.kts": appGradle,
                "android/wear/build.gradle": "apply plugin: 'com.android.application'\n",
                "ios/Shop.xcodeproj/project.pbxproj": PBXProj.typical(), "ios/Shop/Info.plist": infoPlist,
            ],
            needs: .init(sdkLevels: false, manifest: false),
            check: { settings, _ in
                #expect(settings.minSdk == nil && settings.cleartext == nil && settings.manifest == nil)
                #expect(settings.deploymentTarget?.major == 15)
            }),
        Layout(
            testDescription: "several Info.plist files and no Xcode project: an error naming them",
            files: [
                "Shop/Info.plist": plainPlist, "Widget/Info.plist": plainPlist, "ShopTests/Info.plist": plainPlist,
            ],
            error: [
                "2 Info.plist files and no Xcode project to say which the app uses: {root}/Shop/Info.plist, "
                    + "{root}/Widget/Info.plist; pass --ios-info-plist FILE"
            ]),
        Layout(
            testDescription: "one Info.plist besides tests' and no project: that one",
            files: ["Shop/Info.plist": infoPlist, "ShopTests/Info.plist": plainPlist, "Shop/Shop-Info.plist.bak": ""],
            check: { settings, tree in
                #expect(settings.infoPlist == tree.path("Shop/Info.plist"))
                #expect(settings.ats?.exceptionDomains.count == 1)
                #expect(settings.deploymentTarget == nil)
            }),
        Layout(
            testDescription: "a Podfile without a project gives the deployment target",
            files: ["ios/Podfile": "# comment\nplatform :ios, '14.0'\n", "ios/App/Info.plist": plainPlist],
            check: { settings, tree in
                #expect(settings.deploymentTarget?.major == 14)
                #expect(settings.deploymentTarget?.source == tree.path("ios/Podfile") + ":2 (platform :ios)")
            }),
        Layout(
            testDescription: "the project's deployment target wins over the Podfile's",
            files: [
                "ios/Shop.xcodeproj/project.pbxproj": PBXProj.typical(), "ios/Shop/Info.plist": plainPlist,
                "ios/Podfile": "platform :ios, '11.0'\n",
            ],
            check: { settings, _ in #expect(settings.deploymentTarget?.major == 15) }),
        Layout(
            testDescription: "an app target whose INFOPLIST_FILE does not exist",
            files: ["ios/Shop.xcodeproj/project.pbxproj": PBXProj.typical()],
            error: ["target Shop's INFOPLIST_FILE Shop/Info.plist does not exist"]),
        Layout(
            testDescription: "an app target without INFOPLIST_FILE (GENERATE_INFOPLIST_FILE): no plist, no guess",
            files: [
                "ios/Shop.xcodeproj/project.pbxproj": PBXProj.typical(app: [.init(name: "Release")]),
                "ios/Shop/Info.plist": infoPlist,
            ],
            check: { settings, _ in
                #expect(settings.infoPlist == nil && settings.ats == nil)
                #expect(settings.deploymentTarget?.major == 15)
            }),
        Layout(
            testDescription: "a binary Info.plist: the plutil hint",
            files: ["ios/Shop.xcodeproj/project.pbxproj": PBXProj.typical(), "ios/Shop/Info.plist": "bplist00\u{1}"],
            error: ["a binary property list", "plutil -convert xml1"]),
        Layout(
            testDescription: "Gradle expressions: warnings naming the file, line and flag",
            files: [
                "android/app/build.gradle": """
                apply plugin: "com.android.application"
                android {
                    defaultConfig {
                        minSdkVersion rootProject.ext.minSdkVersion
                        targetSdkVersion 34
                    }
                }
                """,
                "android/app/src/main/AndroidManifest.xml": libraryManifest,
            ],
            check: { settings, tree in
                #expect(settings.minSdk == nil && settings.targetSdk?.level == 34)
                #expect(
                    settings.warnings.map(\.message) == [
                        tree.path("android/app/build.gradle") + ":4: minSdk is 'rootProject.ext.minSdkVersion', an "
                            + "expression this tool cannot evaluate; the default is used (--android-min-sdk N sets it)"
                    ])
                #expect(settings.warnings.map(\.setting) == ["minSdk"])
            }),
        Layout(
            testDescription: "the manifest's uses-sdk where Gradle says nothing",
            files: [
                "app/build.gradle": "apply plugin: 'com.android.application'\n",
                "app/src/main/AndroidManifest.xml":
                    "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\"><uses-sdk android:minSdkVersion=\"24\" android:targetSdkVersion=\"30\"/></manifest>",
            ],
            check: { settings, tree in
                let manifest = tree.path("app/src/main/AndroidManifest.xml")
                #expect(settings.minSdk?.level == 24)
                #expect(settings.minSdk?.source == "\(manifest) (uses-sdk android:minSdkVersion)")
                #expect(settings.targetSdk?.source == "\(manifest) (uses-sdk android:targetSdkVersion)")
                #expect(settings.cleartext?.isDefault == true && settings.cleartext?.source == manifest)
            }),
        Layout(
            testDescription: "several manifests and no application module: an error naming them",
            files: [
                "a/src/main/AndroidManifest.xml": libraryManifest, "b/src/main/AndroidManifest.xml": libraryManifest,
            ],
            error: [
                "2 AndroidManifest.xml files and no application module to say which is the app's: "
                    + "{root}/a/src/main/AndroidManifest.xml, {root}/b/src/main/AndroidManifest.xml; pass --android-manifest FILE"
            ]),
        Layout(
            testDescription: "a manifest outside src/main (a test fixture) is not the app's",
            files: ["app/src/androidTest/AndroidManifest.xml": manifest],
            check: { settings, _ in #expect(settings.manifest == nil && settings.cleartext == nil) }),
        Layout(
            testDescription: "a manifest naming a config that is missing: an error naming both",
            files: [
                "app/build.gradle.kts": appGradle, "app/src/main/AndroidManifest.xml": manifest,
            ],
            error: [
                "android:networkSecurityConfig names @xml/network_security_config, but {root}/app/src/main/res/xml/network_security_config.xml does not exist"
            ]),
        Layout(
            testDescription: "an empty repository: nothing found, nothing guessed",
            files: ["README.md": "# Shop\n"],
            check: { settings, _ in
                #expect(settings.deploymentTarget == nil && settings.ats == nil && settings.minSdk == nil)
                #expect(settings.targetSdk == nil && settings.cleartext == nil && settings.warnings.isEmpty)
            }),
    ]

    @Test(arguments: layouts)
    func layout(_ row: Layout) throws {
        let tree = try TempTree("layout")
        defer { tree.remove() }
        for (path, text) in row.files { try tree.write(path, text) }
        if row.error.isEmpty {
            let settings = try AppRepository.read(tree.root, needs: row.needs)
            row.check(settings, tree)
        } else {
            let error = appFileError { () throws(AppFileError) in try AppRepository.read(tree.root, needs: row.needs) }
            for text in row.error {
                let expected = text.replacingOccurrences(of: "{root}", with: tree.root)
                #expect(
                    error?.reason.contains(expected) == true, "'\(expected)' not in \(error.map(\.description) ?? "")")
            }
        }
    }

    @Test func googleServiceInfoPlistIsNoAppInfoPlist() throws {
        let tree = try TempTree("firebase")
        defer { tree.remove() }
        try tree.write("Shop/Info.plist", Self.infoPlist)
        try tree.write("Shop/GoogleService-Info.plist", Self.plainPlist)
        let settings = try AppRepository.read(tree.root)
        #expect(settings.infoPlist == tree.path("Shop/Info.plist"))

    }

    @Test func aMissingDirectory() {
        let error = appFileError { () throws(AppFileError) in try AppRepository.read("/nonexistent/app") }
        #expect(error?.description == "/nonexistent/app: not a directory")
    }

    @Test func aFileInsteadOfADirectory() throws {
        let tree = try TempTree("file")
        defer { tree.remove() }
        try tree.write("Info.plist", Self.plainPlist)
        let error = appFileError { () throws(AppFileError) in try AppRepository.read(tree.path("Info.plist")) }
        #expect(error?.reason == "not a directory")
    }

    @Test func symlinkLoopsAndDevicesAreNotFollowed() throws {
        let tree = try TempTree("links")
        defer { tree.remove() }
        try tree.write("ios/App/Info.plist", Self.plainPlist)
        let files = FileManager.default
        try files.createSymbolicLink(atPath: tree.path("ios/App/loop"), withDestinationPath: "..")
        try files.createSymbolicLink(atPath: tree.path("root"), withDestinationPath: "/")
        let started = Date()
        let settings = try AppRepository.read(tree.root)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(settings.infoPlist == tree.path("ios/App/Info.plist"))
    }

    @Test func anInfoPlistThatIsADeviceIsRefusedNotRead() throws {
        let tree = try TempTree("device")
        defer { tree.remove() }
        try FileManager.default.createDirectory(atPath: tree.path("App"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: tree.path("App/Info.plist"), withDestinationPath: "/dev/zero")
        let error = appFileError { () throws(AppFileError) in try AppRepository.read(tree.root) }
        #expect(error?.file == tree.path("App/Info.plist"))
        #expect(error?.reason.contains("cannot be read") == true)
    }

    @Test func anUnresolvableInfoPlistIsNoErrorWhenTheFlagGivesOne() throws {
        // `--ios-info-plist` given (Needs.infoPlist false): the target's INFOPLIST_FILE is not needed, so a path
        // this tool cannot resolve ("$(TARGET_NAME)/Info.plist") should not stop the run.
        let tree = try TempTree("needs")
        defer { tree.remove() }
        try tree.write(
            "ios/Shop.xcodeproj/project.pbxproj",
            PBXProj.typical(app: [.init(name: "Release", infoPlist: "$(TARGET_NAME)/Info.plist")]))
        try tree.write("ios/Shop/Info.plist", Self.plainPlist)
        let settings = try AppRepository.read(tree.root, needs: .init(infoPlist: false))
        #expect(settings.deploymentTarget?.major == 15)

    }

    @Test func androidStudioTemplateLayouts() throws {
        // The root build file declares the plugin with `apply false` (Giraffe's template), or the app module
        // applies it through the version catalog (Hedgehog's and later): either way one app module.
        for (root, app) in [
            (
                "plugins {\n    id(\"com.android.application\") version \"8.1.1\" apply false\n}\n",
                "plugins {\n    id(\"com.android.application\")\n}\nandroid { defaultConfig { minSdk = 26 } }\n"
            ),
            (
                "plugins {\n    alias(libs.plugins.android.application) apply false\n}\n",
                "plugins {\n    alias(libs.plugins.android.application)\n}\nandroid { defaultConfig { minSdk = 26 } }\n"
            ),
        ] {
            let tree = try TempTree("studio")
            defer { tree.remove() }
            try tree.write("build.gradle.kts", root)
            try tree.write("app/build.gradle.kts", app)
            try tree.write("app/src/main/AndroidManifest.xml", Self.libraryManifest)
            try tree.write("core/src/main/AndroidManifest.xml", Self.libraryManifest)
            let settings = try AppRepository.read(tree.root)
            #expect(settings.minSdk?.level == 26)
            #expect(settings.manifest == tree.path("app/src/main/AndroidManifest.xml"))

        }
    }
}
