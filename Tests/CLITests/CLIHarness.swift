import Foundation
import TestSupport

/// Runs the built `inbox-assets` binary the way a user or CI does, capturing stdout, stderr and the exit code.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CLI {
    /// The directory holding the package's built products: the test bundle sits next to them.
    static let productsDirectory = Products.directory

    /// The package root (for Fixtures/).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func fixture(_ relative: String) -> String {
        packageRoot.appendingPathComponent("Fixtures/" + relative).path
    }

    /// Runs `inbox-assets ARGS` with optional standard input and extra environment; the test task suspends
    /// while the child runs (``Child/run(_:_:stdin:environment:directory:timeout:)``).
    static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], directory: String? = nil
    ) async throws -> CLIResult {
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        env.removeValue(forKey: "COLUMNS")  // the report fits COLUMNS when set; tests that want a width give one
        for (key, value) in environment { env[key] = value }
        let result = try await Child.run(
            productsDirectory.appendingPathComponent("inbox-assets").path, arguments,
            stdin: stdin.map { Data($0.utf8) },
            environment: env, directory: directory ?? packageRoot.path)
        return CLIResult(status: result.status, stdout: result.output, stderr: result.errors)
    }
}
