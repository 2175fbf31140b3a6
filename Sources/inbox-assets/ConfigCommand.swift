import ArgumentKit
import Findings
import Foundation
import Preflight
import StrictJSON

/// `inbox-assets.json` for every command (`--config FILE`, else the nearest one in the current directory or its
/// parents), and `inbox-assets config`, which prints the effective configuration.
enum ConfigCommand {
    static let fileName = "inbox-assets.json"

    /// Options whose values are paths: a relative one in the config file is relative to that file.
    static let pathOptions: Set<String> = PlatformOptions.pathOptions

    static let option = Option.value(
        "config", "file",
        help: "Read option defaults and check rules from this file instead of the nearest inbox-assets.json in the "
            + "current directory or its parents.")

    static let command = Command(
        "config",
        abstract: "Print the effective configuration: the config file found, every option's value and its origin, "
            + "the rules (header values redacted).",
        discussion: """
            With --app DIR (or the app's files one by one), it also reads the app's settings, as check does, and
            shows each effective platform setting under "platformSettings" with where it comes from: a flag, the
            config file, an app file, or the default.
            """,
        options: [
            .value(
                "command", "name", help: "Whose options to show: check, resolve, probe, prefetch, export, …",
                default: "check")
        ] + PlatformOptions.options)

    /// Every command with `--config`, recursively.
    static func withConfigOption(_ command: Command) -> Command {
        var command = command
        if command.subcommands.isEmpty {
            if !command.options.contains(where: { $0.name == option.name }) { command.options.append(option) }
        } else {
            command.subcommands = command.subcommands.map(withConfigOption)
        }
        return command
    }

    /// Config key → option name for every option of every command (`hostConcurrency` → `host-concurrency`), and
    /// the command sections (`check`, `pass verify`).
    static func optionKeys(_ command: Command = CommandTable.root) -> [String: String] {
        var keys: [String: String] = [:]
        for option in command.options where option.name != self.option.name {
            keys[Invocation.configKey(option.name)] = option.name
        }
        for sub in command.subcommands { keys.merge(optionKeys(sub)) { first, _ in first } }
        return keys
    }

    /// The config keys of every command that runs (`"check"`, `"pass verify"`, …), for `commands` sections.
    static func commandKeys(_ command: Command = CommandTable.root, path: [String] = []) -> [String: Set<String>] {
        if command.subcommands.isEmpty, !path.isEmpty {
            return [path.joined(separator: " "): Set(command.options.map { Invocation.configKey($0.name) })]
        }
        var keys: [String: Set<String>] = [:]
        for sub in command.subcommands { keys.merge(commandKeys(sub, path: path + [sub.name])) { first, _ in first } }
        return keys
    }

    /// The config file of this invocation: `--config`, else the nearest `inbox-assets.json`; `nil` when none.
    static func path(_ invocation: Invocation) -> String? {
        if let given = invocation.value("config") { return given }
        var directory = FileManager.default.currentDirectoryPath
        while true {
            let candidate = (directory as NSString).appendingPathComponent(fileName)
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = (directory as NSString).deletingLastPathComponent
            if parent == directory || parent.isEmpty { return nil }
            directory = parent
        }
    }

    /// Reads and parses the config of this invocation (an empty one when there is none).
    static func load(_ invocation: Invocation) throws(CommandFailure) -> CheckConfig {
        guard let path = path(invocation) else { return CheckConfig() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(message: "cannot read the config file '\(path)'", status: ExitCode.invalidInput)
        }
        do {
            return try CheckConfig.parse(
                [UInt8](data), path: path, optionKeys: optionKeys(), commandKeys: commandKeys(),
                environment: ProcessInfo.processInfo.environment)
        } catch {
            throw CommandFailure(message: "\(error)", status: ExitCode.invalidInput)
        }
    }

    /// The invocation with the config's option defaults for options the command line did not give.
    static func applied(to invocation: Invocation) throws(CommandFailure) -> Invocation {
        var invocation = invocation
        let name = invocation.path.joined(separator: " ")
        let options = try load(invocation).options
        // A command's own section first: it wins over the top level (the command line wins over both).
        let ordered = options.filter { $0.command == name } + options.filter { $0.command == nil }
        // Paths in the config file are relative to the file, wherever the command runs.
        let folder = path(invocation).map { ($0 as NSString).deletingLastPathComponent } ?? ""
        for entry in ordered where invocation.optionTable.contains(where: { $0.name == entry.option }) {
            var values = entry.values
            if pathOptions.contains(entry.option), !folder.isEmpty {
                values = values.map { $0.hasPrefix("/") ? $0 : (folder as NSString).appendingPathComponent($0) }
            }
            do {
                try invocation.setDefault(entry.option, values: values, where: entry.origin)
            } catch {
                throw CommandFailure(message: error.message, status: ExitCode.invalidInput)
            }
        }
        return invocation
    }

    /// `inbox-assets config`: the effective configuration as JSON.
    static func run(_ invocation: Invocation) throws -> Int32 {
        let config = try load(invocation)
        let name = invocation.value("command") ?? "check"
        let path = name.split(separator: " ").map(String.init)
        var target: Command? = CommandTable.root
        for word in path { target = target?.subcommands.first { $0.name == word } }
        guard let command = target, command.subcommands.isEmpty else {
            throw invocation.invalid(name, for: "command", hint: "Expected a command such as check or \"pass verify\".")
        }
        let relevant = config.options.filter { $0.command == name } + config.options.filter { $0.command == nil }
        let fromFile = Dictionary(relevant.map { ($0.option, $0) }) { first, _ in first }
        var options: [(key: String, value: JSONValue)] = []
        for option in command.options where option.name != self.option.name {
            let key = Invocation.configKey(option.name)
            var value: JSONValue = option.defaultValue.map(JSONValue.string) ?? .null
            var origin = option.defaultValue == nil ? "unset" : "default"
            if let entry = fromFile[option.name] {
                origin = entry.origin
                if case .flag = option.kind {
                    value = .bool(true)
                } else if option.repeating {
                    value = .array(entry.values.map(JSONValue.string))
                } else {
                    value = entry.values.last.map(JSONValue.string) ?? .null
                }
            } else if case .flag = option.kind {
                value = .bool(false)
            }
            let shown = redacted(value, option: option.name)
            options.append((key, .object(JSONObject([("value", shown), ("from", .string(origin))]))))
        }
        var document = config.json(effective: options)
        if case .object(var object) = document {
            let platform = try PlatformOptions.resolve(invocation)
            object["platformSettings"] = .object(
                JSONObject(
                    platform.sources.map { source in
                        (
                            source.setting,
                            JSONValue.object(
                                JSONObject([("value", .string(source.value)), ("from", .string(source.source))]))
                        )
                    }))
            document = .object(object)
        }
        Console.out(document.serialized(pretty: true) + "\n")
        return ExitCode.success
    }

    /// An option's value as `config` shows it: header values (`--header`, `--remote-header`: tokens) become
    /// `Name: REDACTED`, URLs (`--remote-cache`, `--app-icon`) lose their userinfo and secret query values.
    static func redacted(_ value: JSONValue, option: String) -> JSONValue {
        switch value {
        case .array(let items): return .array(items.map { redacted($0, option: option) })
        case .string(let text):
            if option.hasSuffix("header") {
                guard let colon = text.firstIndex(of: ":") else { return .string("REDACTED") }
                return .string(text[..<colon] + ": REDACTED")
            }
            let lowered = text.lowercased()
            if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
                return .string(Redaction.redactURL(text))
            }
            return value
        default: return value
        }
    }
}
