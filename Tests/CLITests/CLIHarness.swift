import Foundation

/// Runs the built `inbox-assets` binary the way a user or CI does, capturing stdout, stderr and the exit code.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CLI {
    /// The directory holding the package's built products: the test bundle sits next to them.
    static let productsDirectory: URL = {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("inbox-assets").path) {
            let parent = directory.deletingLastPathComponent()
            precondition(parent.path != directory.path, "inbox-assets binary not found near \(executable.path)")
            directory = parent
        }
        return directory
    }()

    /// The package root (for Fixtures/).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func fixture(_ relative: String) -> String {
        packageRoot.appendingPathComponent("Fixtures/" + relative).path
    }

    /// Runs `inbox-assets ARGS` with optional standard input and extra environment.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws
        -> CLIResult
    {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent("inbox-assets")
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Drain both pipes concurrently so a large report cannot fill one pipe and deadlock the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        group.wait()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
