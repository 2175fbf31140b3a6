/// What an `AndroidManifest.xml` says about transport and SDK levels.
public struct AndroidManifestSettings: Sendable, Hashable {
    /// `<application android:usesCleartextTraffic>`.
    public var usesCleartextTraffic: Bool?
    /// `<application android:networkSecurityConfig="@xml/NAME">`: NAME.
    public var networkSecurityConfig: String?
    /// `<uses-sdk android:minSdkVersion>` / `android:targetSdkVersion` (Gradle's values win when both exist).
    public var minSdk: Int?
    public var targetSdk: Int?

    public static func read(_ bytes: [UInt8], file: String) throws(AppFileError) -> AndroidManifestSettings {
        let root = try XMLTreeReader.parse(bytes, file: file)
        guard root.name == "manifest" else {
            throw AppFileError(
                file: file, line: root.line, reason: "the root element is <\(root.name)>, not <manifest>")
        }
        var settings = AndroidManifestSettings()
        if let application = root.children(named: "application").first {
            settings.usesCleartextTraffic = try NetworkSecurityConfigReader.flag(
                application.attribute("usesCleartextTraffic"), "android:usesCleartextTraffic", application, file: file)
            if let reference = application.attribute("networkSecurityConfig")?.trimmingWhitespace() {
                // aapt's resource names: lowercase letters, digits, underscores (so never `..` or `/`).
                let name = reference.dropFirst(5)
                guard reference.hasPrefix("@xml/"), !name.isEmpty,
                    name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
                    )
                else {
                    throw AppFileError(
                        file: file, line: application.line,
                        reason: "android:networkSecurityConfig=\"\(reference)\" is not an @xml/NAME resource "
                            + "(NAME of a-z, 0-9 and _)")
                }
                settings.networkSecurityConfig = String(reference.dropFirst(5))
            }
        }
        if let sdk = root.children(named: "uses-sdk").first {
            settings.minSdk = sdk.attribute("minSdkVersion").flatMap { Int($0.trimmingWhitespace()) }
            settings.targetSdk = sdk.attribute("targetSdkVersion").flatMap { Int($0.trimmingWhitespace()) }
        }
        return settings
    }
}
