import Foundation

/// Where the package's built products are: the test bundle sits next to them.
public enum Products {
    /// The directory holding `inbox-assets` and `fixture-server`.
    public static let directory: URL = {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("inbox-assets").path) {
            let parent = directory.deletingLastPathComponent()
            precondition(parent.path != directory.path, "inbox-assets binary not found near \(executable.path)")
            directory = parent
        }
        return directory
    }()

    /// The built `inbox-assets` binary.
    public static var inboxAssets: String { directory.appendingPathComponent("inbox-assets").path }
}
