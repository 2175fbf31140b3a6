import Testing

@testable import ArgumentKit

let sample = Command(
    "tool", abstract: "Does things.",
    subcommands: [
        Command(
            "run", abstract: "Runs inputs.",
            arguments: [Positional("inputs", help: "Files to read; - reads standard input.", repeating: true)],
            options: [
                .value("sdk", help: "Profile.", default: "7.2", choices: ["7.0", "7.1", "7.2", "all"]),
                .value("trust", "file", help: "Extra anchors.", repeating: true),
                .value("concurrency", "n", help: "Parallel transfers.", default: "8"),
                .flag("quiet", short: "q", help: "No progress."),
            ]),
        Command(
            "pass", abstract: "Wallet passes.",
            subcommands: [
                Command("verify", abstract: "Verifies passes.", arguments: [Positional("path", help: "A pass.")])
            ]),
    ])
let parser = ArgumentParser(root: sample, version: "1.2.3")

func run(_ words: [String]) -> Invocation? {
    if case .run(let invocation) = parser.parse(words) { return invocation }
    return nil
}

func failure(_ words: [String]) -> String? {
    if case .failure(let error) = parser.parse(words) { return error.message }
    return nil
}

struct ParsingTests {
    @Test func valuesFlagsAndPositionals() throws {
        let invocation = try #require(
            run(["run", "a.json", "--sdk", "all", "-", "--trust=x.pem", "-q", "--trust", "y.pem", "b.json"]))
        #expect(invocation.path == ["run"])
        #expect(invocation.positional("inputs") == ["a.json", "-", "b.json"])
        #expect(invocation.value("sdk") == "all")
        #expect(invocation.values("trust") == ["x.pem", "y.pem"])
        #expect(invocation.flag("quiet"))
        #expect(try invocation.int("concurrency", in: 1...100) == 8)
    }

    @Test func defaultsAndLastValueWins() throws {
        let invocation = try #require(run(["run", "a", "--sdk", "7.0", "--sdk", "7.1"]))
        #expect(invocation.value("sdk") == "7.1")
        #expect(run(["run", "a"])?.value("sdk") == "7.2")
        #expect(run(["run", "a"])?.flag("quiet") == false)
    }

    @Test func doubleDashEndsOptions() throws {
        let invocation = try #require(run(["run", "--", "--sdk", "-q"]))
        #expect(invocation.positional("inputs") == ["--sdk", "-q"])
    }

    @Test func nestedSubcommands() throws {
        #expect(run(["pass", "verify", "x.pkpass"])?.path == ["pass", "verify"])
        #expect(run(["pass", "verify", "x.pkpass"])?.positional("path") == ["x.pkpass"])
    }

    @Test(arguments: [
        (["run"], "Missing expected argument '<inputs> ...'"),
        (["run", "a", "--sdk"], "Missing value for '--sdk <sdk>'"),
        (
            ["run", "a", "--sdk", "8"],
            "The value '8' is invalid for '--sdk <sdk>'. Please provide one of '7.0', '7.1', '7.2' and 'all'."
        ),
        (["run", "a", "--bogus"], "Unknown option '--bogus'"),
        (["run", "a", "-z"], "Unknown option '-z'"),
        (["run", "a", "--quiet=yes"], "The flag '--quiet' does not take a value"),
        (["nope"], "Unknown subcommand 'nope'"),
        (["--bogus"], "Unknown option '--bogus'"),
        (["pass", "verify", "a", "b"], "Unexpected argument 'b'"),
        (["help", "nope"], "Unknown subcommand 'nope'"),
        (["rnu", "a"], "Unknown subcommand 'rnu'. Did you mean 'run'?"),
        (["help", "rn"], "Unknown subcommand 'rn'. Did you mean 'run'?"),
        (["pass", "verfy", "a"], "Unknown subcommand 'verfy'. Did you mean 'verify'?"),
        (["run", "a", "--sdl", "7.0"], "Unknown option '--sdl'. Did you mean '--sdk'?"),
        (["run", "a", "--concurency=4"], "Unknown option '--concurency=4'. Did you mean '--concurrency'?"),
        (["run", "a", "--quite"], "Unknown option '--quite'. Did you mean '--quiet'?"),
        (["run", "a", "--conc", "4"], "Unknown option '--conc'. Did you mean '--concurrency'?"),
        (["run", "a", "--hepl"], "Unknown option '--hepl'. Did you mean '--help'?"),
        (["run", "a", "--zzzzzz"], "Unknown option '--zzzzzz'"),
        (
            ["run", "a", "--sdk", "7.3"],
            "The value '7.3' is invalid for '--sdk <sdk>'. Please provide one of '7.0', '7.1', '7.2' and 'all'."
        ),
        (
            ["run", "a", "--sdk", "al"],
            "The value 'al' is invalid for '--sdk <sdk>'. Did you mean 'all'? Please provide one of '7.0', '7.1', "
                + "'7.2' and 'all'."
        ),
        (["--verison"], "Unknown option '--verison'. Did you mean '--version'?"),
    ])
    func usageErrors(words: [String], message: String) {
        #expect(failure(words) == message)
    }

    @Test func usageErrorRendering() {
        guard case .failure(let error) = parser.parse(["run"]) else {
            Issue.record("expected a usage error")
            return
        }
        #expect(
            error.rendered == """
                Error: Missing expected argument '<inputs> ...'
                Usage: tool run [<options>] <inputs> ...
                  See 'tool help run' for more information.

                """)
    }

    /// A synopsis that fits in 80 columns is printed whole; a longer one collapses to `[<options>]`.
    @Test func shortSynopsisStaysWhole() {
        guard case .failure(let error) = parser.parse(["pass", "verify"]) else {
            Issue.record("expected a usage error")
            return
        }
        #expect(
            error.rendered == """
                Error: Missing expected argument '<path>'
                Usage: tool pass verify <path>
                  See 'tool help pass verify' for more information.

                """)
    }

    @Test(arguments: [
        ("chek", ["check", "probe", "pass"], ["check"]),
        ("formt", ["format", "fail-on"], ["format"]),
        ("stats", ["stats", "ls"], []),
        ("x", ["ls", "gc"], []),
        ("lss", ["ls", "gc"], ["ls"]),
        ("offlnie", ["offline", "output"], ["offline"]),
        ("sotre", ["store", "sdk"], ["store"]),
        ("plat", ["platform", "pass"], ["platform"]),
        ("pa", ["platform", "pass"], []),
    ])
    func suggestions(word: String, candidates: [String], expected: [String]) {
        #expect(Suggestion.closest(to: word, among: candidates) == expected)
    }

    @Test func integerValidation() throws {
        let invocation = try #require(run(["run", "a", "--concurrency", "0"]))
        #expect(throws: UsageError.self) { try invocation.int("concurrency", in: 1...100) }
        do {
            _ = try invocation.int("concurrency", in: 1...100)
        } catch {
            #expect(
                error.message == "The value '0' is invalid for '--concurrency <n>'. Expected an integer from 1 to 100.")
        }
    }

    @Test func helpAndVersion() {
        guard case .version = parser.parse(["--version"]) else { return #expect(Bool(false)) }
        for words in [["--help"], ["-h"], [], ["help"]] {
            guard case .help(let text) = parser.parse(words) else { return #expect(Bool(false), "\(words)") }
            #expect(text.hasPrefix("OVERVIEW: Does things."))
        }
        guard case .help(let a) = parser.parse(["run", "--help"]), case .help(let b) = parser.parse(["help", "run"])
        else { return #expect(Bool(false)) }
        #expect(a == b)
        guard case .help(let nested) = parser.parse(["pass", "verify", "-h"]) else { return #expect(Bool(false)) }
        #expect(nested.contains("USAGE: tool pass verify <path>"))
    }

    @Test func helpLayout() {
        guard case .help(let text) = parser.parse(["run", "--help"]) else { return #expect(Bool(false)) }
        #expect(
            text == """
                OVERVIEW: Runs inputs.

                USAGE: tool run [<options>] <inputs> ...

                ARGUMENTS:
                  <inputs>                Files to read; - reads standard input.

                OPTIONS:
                  --sdk <sdk>             Profile. (values: 7.0, 7.1, 7.2, all; default: 7.2)
                  --trust <file>          Extra anchors.
                  --concurrency <n>       Parallel transfers. (default: 8)
                  -q, --[no-]quiet        No progress.
                  -h, --help              Show help information.

                """)
        guard case .help(let root) = parser.parse([]) else { return #expect(Bool(false)) }
        #expect(
            root.contains(
                "SUBCOMMANDS:\n  run                     Runs inputs.\n  pass                    Wallet passes.\n"))
        #expect(root.contains("  --version               Show the version.\n"))
        #expect(root.hasSuffix("  See 'tool help <subcommand>' for detailed help.\n"))
    }
}

/// `--no-NAME` turns a flag off, the config file's value included (swift-argument-parser's `.prefixedNo`
/// inversion): the last word wins; an option really named `no-NAME` stays itself.
struct FlagInversionTests {
    static let tool = Command(
        "tool", abstract: "Does things.",
        subcommands: [
            Command(
                "run", abstract: "Runs.",
                options: [
                    .flag("offline", help: "No network."), .flag("no-store", help: "Keep nothing."),
                    .value("format", help: "Output format.", default: "text"),
                ])
        ])

    struct Row: Sendable, CustomTestStringConvertible {
        var words: [String]
        /// `nil`: a usage error containing `error`.
        var offline: Bool?
        var fromConfig = false
        var error = ""
        var testDescription: String { words.joined(separator: " ") + (fromConfig ? " (config: offline)" : "") }
    }

    static let rows: [Row] = [
        Row(words: ["run"], offline: false),
        Row(words: ["run"], offline: true, fromConfig: true),
        Row(words: ["run", "--offline"], offline: true),
        Row(words: ["run", "--no-offline"], offline: false),
        Row(words: ["run", "--no-offline"], offline: false, fromConfig: true),
        Row(words: ["run", "--offline", "--no-offline"], offline: false),
        Row(words: ["run", "--no-offline", "--offline"], offline: true, fromConfig: true),
        Row(words: ["run", "--no-offline=yes"], offline: nil, error: "The flag '--no-offline' does not take a value"),
        Row(words: ["run", "--no-format"], offline: nil, error: "Unknown option '--no-format'"),
        Row(words: ["run", "--no-no-store"], offline: nil, error: "Unknown option '--no-no-store'"),
        Row(words: ["run", "--no-bogus"], offline: nil, error: "Unknown option '--no-bogus'"),
    ]

    @Test(arguments: rows)
    func inversion(row: Row) throws {
        let parser = ArgumentParser(root: Self.tool, version: "1")
        switch parser.parse(row.words) {
        case .run(var invocation):
            if row.fromConfig { try invocation.setDefault("offline", values: [], where: "inbox-assets.json:1:2") }
            #expect(invocation.flag("offline") == row.offline)
        case .failure(let error):
            #expect(row.offline == nil)
            #expect(error.message.hasPrefix(row.error), "\(error.message)")
        default:
            Issue.record("unexpected parse result")
        }
    }

    @Test func theRealNoFlagIsItsOwnFlag() throws {
        guard case .run(let invocation) = ArgumentParser(root: Self.tool, version: "1").parse(["run", "--no-store"])
        else { throw ParseFailure() }
        #expect(invocation.flag("no-store"))
        #expect(!invocation.flag("offline"))
    }

    @Test func helpListsTheInversion() {
        let help = HelpFormatter.help(for: Self.tool.subcommands[0], path: ["tool", "run"])
        #expect(help.contains("  --[no-]offline "))
        #expect(help.contains("  --no-store "))
        #expect(!help.contains("[no-]no-store") && !help.contains("[no-]format"))
    }

    struct ParseFailure: Error {}
}
