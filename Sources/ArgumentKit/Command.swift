/// A hand-written command-line parser that follows swift-argument-parser's conventions (help layout,
/// `Error:` + usage on stderr, exit code 64 for usage errors) without depending on it: the package may
/// use no outside Swift package.
///
/// Commands are declared as values; parsing returns a value too (run, help, version or a usage error),
/// so the executable decides what to print and which exit code to use.
public struct Command: Sendable {
    /// The word that selects this command (`resolve`, `verify`), or the tool name for the root.
    public var name: String
    /// One sentence for OVERVIEW and the SUBCOMMANDS list.
    public var abstract: String
    /// More text printed after OVERVIEW (examples, exit codes).
    public var discussion: String?
    public var arguments: [Positional]
    public var options: [Option]
    public var subcommands: [Command]

    public init(
        _ name: String, abstract: String, discussion: String? = nil, arguments: [Positional] = [],
        options: [Option] = [], subcommands: [Command] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
    }
}

/// A positional argument such as `<inputs> ...`.
public struct Positional: Sendable {
    public var name: String
    public var help: String
    /// Takes every remaining word (`<inputs> ...`).
    public var repeating: Bool
    /// May be absent (`[<url> ...]`).
    public var optional: Bool

    public init(_ name: String, help: String, repeating: Bool = false, optional: Bool = false) {
        self.name = name
        self.help = help
        self.repeating = repeating
        self.optional = optional
    }
}

/// A named option (`--sdk <sdk>`) or flag (`--quiet`).
public struct Option: Sendable {
    public enum Kind: Sendable {
        /// Takes a value: `--name value` or `--name=value`.
        case value(valueName: String)
        /// Present or absent.
        case flag
    }

    public var name: String
    public var short: Character?
    public var kind: Kind
    public var help: String
    public var defaultValue: String?
    /// Allowed values (checked while parsing, listed in the error as swift-argument-parser does).
    public var choices: [String]?
    /// May be given several times (`--trust A --trust B`).
    public var repeating: Bool

    /// An option that takes a value.
    public static func value(
        _ name: String, _ valueName: String? = nil, short: Character? = nil, help: String,
        default defaultValue: String? = nil, choices: [String]? = nil, repeating: Bool = false
    ) -> Option {
        Option(
            name: name, short: short, kind: .value(valueName: valueName ?? name), help: help,
            defaultValue: defaultValue, choices: choices, repeating: repeating)
    }

    /// A flag.
    public static func flag(_ name: String, short: Character? = nil, help: String) -> Option {
        Option(name: name, short: short, kind: .flag, help: help, defaultValue: nil, choices: nil, repeating: false)
    }

    /// `--sdk <sdk>` or `--quiet`, as used in usage lines and errors.
    public var synopsis: String {
        switch kind {
        case .value(let valueName): "--\(name) <\(valueName)>"
        case .flag: "--\(name)"
        }
    }

    var takesValue: Bool {
        if case .value = kind { return true }
        return false
    }
}
