/// What the command line asks for.
public enum ParseResult: Sendable {
    /// Run the command at `invocation.path` with these values.
    case run(Invocation)
    /// Print this help text on stdout and exit 0.
    case help(String)
    /// Print the version on stdout and exit 0.
    case version
    /// Print ``UsageError/rendered`` on stderr and exit 64.
    case failure(UsageError)
}

/// A usage mistake: the message plus the usage of the command it concerns, rendered as
/// swift-argument-parser does.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// `Error: …`, `Usage: …` and the hint where to find help, newline-terminated.
    public var rendered: String

    public var description: String { message }
}

/// The parsed values of one command.
public struct Invocation: Sendable {
    /// Command names from the root's first subcommand down, e.g. `["pass", "verify"]`.
    public var path: [String]
    let command: Command
    let toolName: String
    var optionValues: [String: [String]] = [:]
    /// Where a value that did not come from the command line came from (``setDefault(_:values:where:)``).
    var defaultOrigins: [String: String] = [:]
    var flags: Set<String> = []
    /// Flags turned off with `--no-NAME`: neither set nor taken from a config file.
    var negatedFlags: Set<String> = []
    var positionalValues: [String: [String]] = [:]

    /// The value of a non-repeating option: the last one given, else its default.
    public func value(_ name: String) -> String? {
        optionValues[name]?.last ?? command.options.first(where: { $0.name == name })?.defaultValue
    }

    /// Every value given for a repeatable option, in order.
    public func values(_ name: String) -> [String] { optionValues[name] ?? [] }

    /// Whether a flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The words given for a positional argument.
    public func positional(_ name: String) -> [String] { positionalValues[name] ?? [] }

    /// An integer option within `range`, or its default; a usage error names the option otherwise.
    public func int(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw invalid(text, for: name, hint: "Expected an integer from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    /// A usage error saying `text` is not a valid value for option `name`.
    public func invalid(_ text: String, for name: String, hint: String) -> UsageError {
        let synopsis = command.options.first(where: { $0.name == name })?.synopsis ?? "--\(name)"
        return HelpFormatter.usageError(
            "The value '\(text)' is invalid for '\(synopsis)'. \(hint)", command: command,
            path: [toolName] + path)
    }

    /// A usage error about this command, with its usage line.
    public func usageError(_ message: String) -> UsageError {
        HelpFormatter.usageError(message, command: command, path: [toolName] + path)
    }
}

/// Parses `argv` against a root command.
public struct ArgumentParser: Sendable {
    public let root: Command
    public let version: String

    public init(root: Command, version: String) {
        self.root = root
        self.version = version
    }

    /// Parses the words after the executable name.
    public func parse(_ arguments: [String]) -> ParseResult {
        var words = arguments[...]
        var command = root
        var path: [String] = []

        // `help [subcommand ...]` shows the help of that subcommand.
        if words.first == "help" && !root.subcommands.contains(where: { $0.name == "help" }) {
            var target = root
            var targetPath: [String] = []
            for word in words.dropFirst() {
                guard let sub = target.subcommands.first(where: { $0.name == word }) else {
                    return .failure(
                        HelpFormatter.usageError(
                            "Unknown subcommand '\(word)'" + subcommandHint(word, in: target), command: target,
                            path: [root.name] + targetPath))
                }
                target = sub
                targetPath.append(word)
            }
            return .help(HelpFormatter.help(for: target, path: [root.name] + targetPath))
        }

        while let word = words.first, let sub = command.subcommands.first(where: { $0.name == word }) {
            command = sub
            path.append(word)
            words = words.dropFirst()
        }
        let fullPath = [root.name] + path

        if path.isEmpty && words.contains("--version") { return .version }
        let terminator = words.firstIndex(of: "--") ?? words.endIndex
        if words[..<terminator].contains(where: { $0 == "--help" || $0 == "-h" }) {
            return .help(HelpFormatter.help(for: command, path: fullPath))
        }
        if !command.subcommands.isEmpty {
            guard let word = words.first else { return .help(HelpFormatter.help(for: command, path: fullPath)) }
            let message =
                word.hasPrefix("-")
                ? "Unknown option '\(word)'" + optionHint(word, in: command)
                : "Unknown subcommand '\(word)'" + subcommandHint(word, in: command)
            return .failure(HelpFormatter.usageError(message, command: command, path: fullPath))
        }

        var invocation = Invocation(path: path, command: command, toolName: root.name)
        var loose: [String] = []
        var onlyPositionals = false
        while let word = words.first {
            words = words.dropFirst()
            if onlyPositionals || word == "-" || !word.hasPrefix("-") {
                loose.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            var name: Substring
            var inlineValue: String? = nil
            if word.hasPrefix("--") {
                name = word.dropFirst(2)
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = name[..<equals]
                }
            } else {
                guard word.count == 2, let option = command.options.first(where: { $0.short == word.last }) else {
                    return .failure(
                        HelpFormatter.usageError("Unknown option '\(word)'", command: command, path: fullPath))
                }
                name = Substring(option.name)
            }
            // `--no-NAME` turns the flag NAME off, a config file's value included; the last word wins.
            let negated = word.hasPrefix("--") ? Self.negatedFlag(name, in: command) : nil
            guard let option = negated ?? command.options.first(where: { $0.name == name }) else {
                return .failure(
                    HelpFormatter.usageError(
                        "Unknown option '\(word)'" + optionHint(word, in: command), command: command,
                        path: fullPath))
            }
            guard option.takesValue else {
                if inlineValue != nil {
                    let spelled = negated == nil ? option.synopsis : "--no-\(option.name)"
                    return .failure(
                        HelpFormatter.usageError(
                            "The flag '\(spelled)' does not take a value", command: command, path: fullPath))
                }
                if negated == nil {
                    invocation.flags.insert(option.name)
                    invocation.negatedFlags.remove(option.name)
                } else {
                    invocation.flags.remove(option.name)
                    invocation.negatedFlags.insert(option.name)
                }
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if let next = words.first {
                value = next
                words = words.dropFirst()
            } else {
                return .failure(
                    HelpFormatter.usageError(
                        "Missing value for '\(option.synopsis)'", command: command, path: fullPath))
            }
            if let choices = option.choices, !choices.contains(value) {
                return .failure(
                    HelpFormatter.usageError(
                        "The value '\(value)' is invalid for '\(option.synopsis)'"
                            // Words only: `8.0` is no typo of `7.0`.
                            + Self.ending(
                                value.contains(where: \.isLetter) ? Suggestion.sentence(for: value, among: choices) : ""
                            )
                            + " Please provide one of "
                            + HelpFormatter.list(choices.map { "'\($0)'" }) + ".",
                        command: command, path: fullPath))
            }
            invocation.optionValues[option.name, default: []].append(value)
        }

        for positional in command.arguments {
            if positional.repeating {
                invocation.positionalValues[positional.name] = loose
                loose = []
            } else if !loose.isEmpty {
                invocation.positionalValues[positional.name] = [loose.removeFirst()]
            }
            if !positional.optional && invocation.positional(positional.name).isEmpty {
                return .failure(
                    HelpFormatter.usageError(
                        "Missing expected argument '\(HelpFormatter.label(positional))'", command: command,
                        path: fullPath))
            }
        }
        if let extra = loose.first {
            return .failure(
                HelpFormatter.usageError("Unexpected argument '\(extra)'", command: command, path: fullPath))
        }
        return .run(invocation)
    }

    /// The flag `--no-NAME` turns off: `NAME` is a flag of `command` and no option is itself called `no-NAME`
    /// (`--no-store` stays the flag it is).
    static func negatedFlag(_ name: Substring, in command: Command) -> Option? {
        guard name.hasPrefix("no-"), !command.options.contains(where: { $0.name == name }) else { return nil }
        let base = name.dropFirst(3)
        guard !base.hasPrefix("no-") else { return nil }
        return command.options.first { $0.name == base && !$0.takesValue }
    }

    /// `. Did you mean 'x'?`, or `.` when nothing is close: the end of a sentence followed by another.
    private static func ending(_ suggestion: String) -> String { suggestion.isEmpty ? "." : suggestion }

    /// `. Did you mean 'check'?` for a mistyped subcommand of `command` (`help` included at the root).
    private func subcommandHint(_ word: String, in command: Command) -> String {
        var names = command.subcommands.map(\.name)
        if command.name == root.name { names.append("help") }
        return Suggestion.sentence(for: word, among: names)
    }

    /// `. Did you mean '--format'?` for a mistyped long option of `command` (`--formt`, `--formt=json`).
    private func optionHint(_ word: String, in command: Command) -> String {
        guard word.hasPrefix("--") else { return "" }
        let name = String(word.dropFirst(2).prefix(while: { $0 != "=" }))
        var names = command.options.map(\.name) + ["help"]
        if command.name == root.name { names.append("version") }
        return Suggestion.sentence(for: name, among: names, prefix: "--")
    }
}
