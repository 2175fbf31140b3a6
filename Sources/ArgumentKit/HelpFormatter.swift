/// Renders help and usage errors in swift-argument-parser's layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS,
/// SUBCOMMANDS; labels in a 26-column gutter; text wrapped at 80 columns.
public enum HelpFormatter {
    static let gutter = 26
    static let width = 80

    /// The full help text of `command`, reached by `path` (tool name first).
    public static func help(for command: Command, path: [String]) -> String {
        var text = "OVERVIEW: \(command.abstract)\n\n"
        if let discussion = command.discussion {
            text += discussion + "\n\n"
        }
        text += "USAGE: \(usage(for: command, path: path))\n"
        if !command.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in command.arguments {
                text += row(label: "<\(argument.name)>", help: argument.help)
            }
        }
        text += "\nOPTIONS:\n"
        for option in command.options {
            var help = option.help
            var notes: [String] = []
            if let choices = option.choices { notes.append("values: " + choices.joined(separator: ", ")) }
            if let defaultValue = option.defaultValue { notes.append("default: \(defaultValue)") }
            if !notes.isEmpty { help += " (\(notes.joined(separator: "; ")))" }
            let short = option.short.map { "-\($0), " } ?? ""
            // A flag that `--no-NAME` turns off is listed as swift-argument-parser lists an inversion.
            let negatable = ArgumentParser.negatedFlag(Substring("no-" + option.name), in: command) != nil
            text += row(label: short + (negatable ? "--[no-]\(option.name)" : option.synopsis), help: help)
        }
        if path.count == 1 { text += row(label: "--version", help: "Show the version.") }
        text += row(label: "-h, --help", help: "Show help information.")
        if !command.subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n"
            for sub in command.subcommands {
                text += row(label: sub.name, help: sub.abstract)
            }
            text +=
                "\n  See '\(path[0]) help \(path.dropFirst().map { $0 + " " }.joined())<subcommand>' "
                + "for detailed help.\n"
        }
        return text
    }

    /// The one-line usage: `inbox-assets resolve <inputs> ... [--sdk <sdk>] …`, or, when naming every option
    /// would make it longer than 80 columns, `inbox-assets check [<options>] <inputs> ...` (as
    /// swift-argument-parser collapses a long synopsis; the options are listed under OPTIONS).
    public static func usage(for command: Command, path: [String]) -> String {
        var parts = [path.joined(separator: " ")]
        if !command.subcommands.isEmpty {
            parts.append("<subcommand>")
            return parts.joined(separator: " ")
        }
        let arguments = command.arguments.map { $0.optional ? "[\(label($0))]" : label($0) }
        let options = command.options.map { "[\($0.synopsis)\($0.repeating ? " ..." : "")]" }
        let full = (parts + arguments + options).joined(separator: " ")
        guard full.count > width else { return full }
        parts.append("[<options>]")
        return (parts + arguments).joined(separator: " ")
    }

    /// `Error: MESSAGE`, the short usage line and where the full help is (`See 'tool help run' …`).
    static func usageError(_ message: String, command: Command, path: [String]) -> UsageError {
        let helpCommand = ([path[0], "help"] + path.dropFirst()).joined(separator: " ")
        let rendered =
            "Error: \(message)\nUsage: \(usage(for: command, path: path))\n"
            + "  See '\(helpCommand)' for more information.\n"
        return UsageError(message: message, rendered: rendered)
    }

    static func label(_ argument: Positional) -> String {
        "<\(argument.name)>" + (argument.repeating ? " ..." : "")
    }

    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items.last!
    }

    /// `  label                   help…`, wrapping help at 80 columns under the gutter.
    static func row(label: String, help: String) -> String {
        let indent = String(repeating: " ", count: gutter)
        var lines: [String] = []
        var line = ""
        for word in help.split(separator: " ") {
            if !line.isEmpty && gutter + line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        let head = "  " + label
        var text: String
        if head.count < gutter - 1 {
            text = head + String(repeating: " ", count: gutter - head.count) + lines[0] + "\n"
        } else {
            text = head + "\n" + indent + lines[0] + "\n"
        }
        for rest in lines.dropFirst() { text += indent + rest + "\n" }
        return text
    }
}
