/// Option defaults from elsewhere (a config file): keyed generically by option name, so every option a command
/// declares — today's and those added later — has a key with no extra code.
extension Invocation {
    /// The options of the command this invocation runs, as declared.
    public var optionTable: [Option] { command.options }

    /// Whether the command line gave this option or flag (a default from elsewhere must not override it).
    public func isGiven(_ name: String) -> Bool {
        optionValues[name] != nil || flags.contains(name) || negatedFlags.contains(name)
    }

    /// The config key of an option: its long name in lower camel case (`host-concurrency` → `hostConcurrency`).
    public static func configKey(_ optionName: String) -> String {
        var key = ""
        var upper = false
        for character in optionName {
            if character == "-" {
                upper = true
            } else {
                key += upper ? character.uppercased() : String(character)
                upper = false
            }
        }
        return key
    }

    /// Uses `values` for option `name` as if given on the command line, unless the command line gave it. A flag
    /// takes no values (`values` empty sets it). Choices are checked as the parser checks them.
    /// - Throws: a usage error naming the option and the allowed values; `where` prefixes it (`inbox-assets.json:3:5`).
    public mutating func setDefault(_ name: String, values: [String], where origin: String) throws(UsageError) {
        guard !isGiven(name), let option = command.options.first(where: { $0.name == name }) else { return }
        guard option.takesValue else {
            flags.insert(name)
            defaultOrigins[name] = origin
            return
        }
        if let choices = option.choices, let bad = values.first(where: { !choices.contains($0) }) {
            throw usageError(
                "\(origin): the value '\(bad)' is invalid for '\(option.synopsis)'. Please provide one of "
                    + HelpFormatter.list(choices.map { "'\($0)'" }) + ".")
        }
        guard !values.isEmpty else { return }
        optionValues[name] = option.repeating ? values : [values[values.count - 1]]
        defaultOrigins[name] = origin
    }

    /// Where an option's value comes from: `--NAME` (the command line), the origin given to
    /// ``setDefault(_:values:where:)`` (`inbox-assets.json:3:5`), or nil (its declared default, or unset).
    public func origin(of name: String) -> String? {
        if let origin = defaultOrigins[name] { return origin }
        return optionValues[name] != nil || flags.contains(name) ? "--\(name)" : nil
    }
}
