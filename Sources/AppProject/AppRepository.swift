import Foundation
public import MediaRules

/// One effective app setting and where it came from, for `inbox-assets config` and the check's report.
public struct AppSettingSource: Sendable, Hashable {
    /// `iosTarget`, `iosAppTransportSecurity`, `androidMinSdk`, `androidTargetSdk`, `androidCleartext`.
    public var setting: String
    /// The value as text (`15`, `NSAllowsArbitraryLoads, 1 exception domain`).
    public var value: String
    /// `ios/Shop.xcodeproj/project.pbxproj (target Shop, configuration Debug)`, `--ios-target`, `default`.
    public var source: String

    public init(setting: String, value: String, source: String) {
        self.setting = setting
        self.value = value
        self.source = source
    }
}

/// What an app repository says (``AppRepository/read(_:)``): each part nil when the repository does not say.
public struct AppRepositorySettings: Sendable {
    public var deploymentTarget: (major: Int, source: String)?
    /// The Info.plist the app target uses, and its ATS policy.
    public var infoPlist: String?
    public var ats: ATSPolicy?
    public var manifest: String?
    public var minSdk: (level: Int, source: String)?
    public var targetSdk: (level: Int, source: String)?
    public var cleartext: CleartextPolicy?
    /// What could not be read and was left at its default: the setting (`minSdk`, `targetSdk`) and a sentence
    /// naming the file and line.
    public var warnings: [(setting: String, message: String)] = []

    public init() {}
}

/// Finds an app's settings in its repository (`--app DIR`): the Xcode project's app target (its
/// `IPHONEOS_DEPLOYMENT_TARGET`, the lowest of its configurations, and the `INFOPLIST_FILE` it names), a Podfile's
/// `platform :ios`, the Android application module (the `build.gradle(.kts)` that applies
/// `com.android.application`: `minSdk`, `targetSdk`), its `src/main/AndroidManifest.xml` and the network security
/// config the manifest names. Two candidates where one is needed is an error naming them and the flag that picks one.
public enum AppRepository {
    /// Folders never searched: dependencies and build products.
    static let skipped: Set<String> = [
        ".git", ".build", ".gradle", ".idea", "Pods", "Carthage", "node_modules", "build", "DerivedData", ".swiftpm",
    ]
    /// Files looked at before the walk stops.
    static let maxEntries = 50_000

    /// The files of the repository that matter, by kind.
    struct Inventory {
        var projects: [String] = []
        var plists: [String] = []
        var podfiles: [String] = []
        var manifests: [String] = []
        var gradleFiles: [String] = []
    }

    /// What the caller still needs from the repository: a part a flag already decides is neither read nor
    /// reported ambiguous.
    public struct Needs: Sendable, Hashable {
        public var deploymentTarget = true
        public var infoPlist = true
        public var sdkLevels = true
        public var manifest = true

        public init(
            deploymentTarget: Bool = true, infoPlist: Bool = true, sdkLevels: Bool = true, manifest: Bool = true
        ) {
            self.deploymentTarget = deploymentTarget
            self.infoPlist = infoPlist
            self.sdkLevels = sdkLevels
            self.manifest = manifest
        }
    }

    /// Reads `directory`.
    /// - Throws: ``AppFileError`` for a missing directory, a file that cannot be read, or an ambiguity.
    public static func read(_ directory: String, needs: Needs = Needs()) throws(AppFileError) -> AppRepositorySettings {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw AppFileError(file: directory, reason: "not a directory")
        }
        let inventory = scan(directory)
        var settings = AppRepositorySettings()
        // Files are named as the user would type them: under the directory given (nothing before them for ".").
        if needs.deploymentTarget || needs.infoPlist {
            try readIOS(directory, inventory, needs: needs, into: &settings)
        }
        if needs.sdkLevels || needs.manifest { try readAndroid(directory, inventory, needs: needs, into: &settings) }
        return settings
    }

    static func scan(_ directory: String) -> Inventory {
        var inventory = Inventory()
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return inventory }
        var seen = 0
        while let relative = walker.nextObject() as? String {
            seen += 1
            if seen > maxEntries { break }
            let name = (relative as NSString).lastPathComponent
            if skipped.contains(name) || (name.hasPrefix(".") && name != ".") {
                walker.skipDescendants()
                continue
            }
            if name == "project.pbxproj", relative.contains(".xcodeproj/") {
                inventory.projects.append(relative)
            } else if name == "Info.plist" || (name.hasSuffix("-Info.plist") && name != "GoogleService-Info.plist") {
                // (Firebase's GoogleService-Info.plist is configuration, not an app's Info.plist.)
                inventory.plists.append(relative)
            } else if name == "Podfile" {
                inventory.podfiles.append(relative)
            } else if name == "AndroidManifest.xml", relative.contains("src/main/") {
                inventory.manifests.append(relative)
            } else if name == "build.gradle" || name == "build.gradle.kts" {
                inventory.gradleFiles.append(relative)
            }
        }
        for key in [\Inventory.projects, \.plists, \.podfiles, \.manifests, \.gradleFiles] {
            inventory[keyPath: key].sort()
        }
        return inventory
    }

    public static func bytes(_ directory: String, _ relative: String) throws(AppFileError) -> [UInt8] {
        let path = shown(directory, relative)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: path)
        else {
            throw AppFileError(file: path, reason: "cannot be read (missing, a directory, or no permission)")
        }
        guard data.count <= XMLTreeReader.maxBytes else {
            throw AppFileError(file: path, reason: "larger than \(XMLTreeReader.maxBytes >> 20) MiB")
        }
        return [UInt8](data)
    }

    /// `relative` as the user names it: under `directory` (absolute paths and "." as they are).
    static func shown(_ directory: String, _ relative: String) -> String {
        if relative.hasPrefix("/") || directory.isEmpty || directory == "." { return relative }
        return (directory as NSString).appendingPathComponent(relative)
    }

    static func readIOS(
        _ directory: String, _ inventory: Inventory, needs: Needs, into settings: inout AppRepositorySettings
    ) throws(AppFileError) {
        var targets: [(project: String, target: XcodeProjectSettings.AppTarget)] = []
        for project in inventory.projects {
            let text = String(decoding: try bytes(directory, project), as: UTF8.self)
            for target in try XcodeProjectSettings.read(text, file: shown(directory, project)).appTargets {
                targets.append((shown(directory, project), target))
            }
        }
        if targets.count > 1, needs.deploymentTarget || needs.infoPlist {
            let names = targets.map { "\($0.target.name) (\($0.project))" }.joined(separator: ", ")
            throw AppFileError(
                file: directory,
                reason: "\(targets.count) iOS app targets: \(names); pass --ios-info-plist FILE and --ios-target N to "
                    + "say which app the campaign is for")
        }
        var plist: String?
        if targets.count == 1, let (project, target) = targets.first {
            if let major = target.deploymentTarget {
                settings.deploymentTarget = (
                    major,
                    "\(project) (IPHONEOS_DEPLOYMENT_TARGET of target \(target.name), "
                        + "\(target.deploymentTargetConfiguration ?? "?"))"
                )
            }
            if let named = target.infoPlist {
                // INFOPLIST_FILE is relative to SRCROOT, the folder that holds the .xcodeproj.
                let projectFolder = ((project as NSString).deletingLastPathComponent as NSString)
                    .deletingLastPathComponent
                let found = (projectFolder as NSString).appendingPathComponent(named)
                guard !needs.infoPlist || FileManager.default.fileExists(atPath: found) else {
                    throw AppFileError(
                        file: project, reason: "target \(target.name)'s INFOPLIST_FILE \(named) does not exist")
                }
                plist = found
            }
        }
        if settings.deploymentTarget == nil, let podfile = inventory.podfiles.first {
            let text = String(decoding: try bytes(directory, podfile), as: UTF8.self)
            if let found = PodfileReader.deploymentTarget(text) {
                settings.deploymentTarget = (found.major, "\(shown(directory, podfile)):\(found.line) (platform :ios)")
            }
        }
        guard needs.infoPlist else { return }
        if plist == nil, targets.isEmpty {
            let candidates = inventory.plists.filter { !$0.contains("Tests/") && !$0.contains("Tests-Info") }
            if candidates.count > 1 {
                throw AppFileError(
                    file: directory,
                    reason: "\(candidates.count) Info.plist files and no Xcode project to say which the app uses: "
                        + candidates.map { shown(directory, $0) }.joined(separator: ", ")
                        + "; pass --ios-info-plist FILE")
            }
            plist = candidates.first.map { shown(directory, $0) }
        }
        if let plist {
            settings.infoPlist = plist
            settings.ats = try InfoPlistReader.transportSecurity(try bytes("", plist), file: plist)
        }
    }

    static func readAndroid(
        _ directory: String, _ inventory: Inventory, needs: Needs, into settings: inout AppRepositorySettings
    ) throws(AppFileError) {
        var applications: [(file: String, gradle: GradleSettings)] = []
        for file in inventory.gradleFiles {
            let gradle = GradleSettings.read(String(decoding: try bytes(directory, file), as: UTF8.self))
            if gradle.isApplication { applications.append((file, gradle)) }
        }
        if applications.count > 1, needs.sdkLevels || needs.manifest {
            throw AppFileError(
                file: directory,
                reason: "\(applications.count) Android application modules: "
                    + applications.map { shown(directory, $0.file) }.joined(separator: ", ")
                    + "; pass --android-manifest FILE, --android-min-sdk N and --android-target-sdk N")
        }
        var manifest: String?
        if applications.count == 1, let (relative, gradle) = applications.first {
            let file = shown(directory, relative)
            if let level = gradle.minSdk { settings.minSdk = (level, "\(file):\(gradle.minSdkLine ?? 0) (minSdk)") }
            if let level = gradle.targetSdk {
                settings.targetSdk = (level, "\(file):\(gradle.targetSdkLine ?? 0) (targetSdk)")
            }
            for (setting, line, expression) in gradle.unreadable
            where setting == "minSdk" ? gradle.minSdk == nil : gradle.targetSdk == nil {
                settings.warnings.append(
                    (
                        setting,
                        "\(file):\(line): \(setting) is '\(expression)', an expression this tool cannot evaluate; the "
                            + "default is used (--android-\(setting == "minSdk" ? "min" : "target")-sdk N sets it)"
                    ))
            }
            let module = (relative as NSString).deletingLastPathComponent
            let candidate = (module as NSString).appendingPathComponent("src/main/AndroidManifest.xml")
            if inventory.manifests.contains(candidate) { manifest = candidate }
        }
        if manifest == nil {
            if inventory.manifests.count > 1, applications.isEmpty {
                throw AppFileError(
                    file: directory,
                    reason: "\(inventory.manifests.count) AndroidManifest.xml files and no application module to say "
                        + "which is the app's: "
                        + inventory.manifests.map { shown(directory, $0) }.joined(separator: ", ")
                        + "; pass --android-manifest FILE")
            }
            if applications.isEmpty { manifest = inventory.manifests.first }
        }
        guard needs.manifest, let relative = manifest else { return }
        let path = shown(directory, relative)
        settings.manifest = path
        let read = try readManifest(path)
        settings.cleartext = read.policy
        if settings.minSdk == nil, let level = read.manifest.minSdk {
            settings.minSdk = (level, "\(path) (uses-sdk android:minSdkVersion)")
        }
        if settings.targetSdk == nil, let level = read.manifest.targetSdk {
            settings.targetSdk = (level, "\(path) (uses-sdk android:targetSdkVersion)")
        }
    }

    /// A manifest and the network security config it names (`@xml/NAME` → `res/xml/NAME.xml` beside it), as a
    /// cleartext policy: the config when there is one (the manifest's `usesCleartextTraffic` is then ignored, as
    /// from API 24), else `usesCleartextTraffic`.
    /// - Parameter manifest: its path, as the user names it.
    public static func readManifest(_ manifest: String) throws(AppFileError)
        -> (manifest: AndroidManifestSettings, policy: CleartextPolicy)
    {
        let directory = ""
        let settings = try AndroidManifestSettings.read(try bytes(directory, manifest), file: manifest)
        if let name = settings.networkSecurityConfig {
            let folder = (manifest as NSString).deletingLastPathComponent
            let config = ((folder as NSString).appendingPathComponent("res/xml") as NSString)
                .appendingPathComponent(name + ".xml")
            guard FileManager.default.fileExists(atPath: config) else {
                throw AppFileError(
                    file: manifest,
                    reason: "android:networkSecurityConfig names @xml/\(name), but \(config) does not exist")
            }
            return (settings, try NetworkSecurityConfigReader.policy(try bytes(directory, config), file: config))
        }
        if let uses = settings.usesCleartextTraffic {
            return (
                settings,
                CleartextPolicy(basePermitted: uses, baseSetting: "android:usesCleartextTraffic", source: manifest)
            )
        }
        return (settings, CleartextPolicy(source: manifest))
    }
}
