/// The `app.*` codes: what `check` learned from the app's own files (`--app`, `--ios-info-plist`,
/// `--android-manifest`, `--android-network-security-config`). People grep and suppress these; never rename one.
public enum AppFindingCode {
    /// A setting read from the app's files, with the file and the key that set it (info, once per run).
    public static let setting = "app.setting"
    /// A setting the app's files set in a way the tool cannot read (a Gradle `minSdk` that is an expression): the
    /// default is used, and the message says which flag sets it (warning, once per run).
    public static let settingUnreadable = "app.settingUnreadable"
}
