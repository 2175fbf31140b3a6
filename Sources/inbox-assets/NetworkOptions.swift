import ArgumentKit
import HTTPFetch

/// The network options shared by every command that fetches (DESIGN.md "CLI contract").
enum NetworkOptions {
    static let options: [Option] = [
        .value("concurrency", "n", help: "Transfers at once, all hosts together.", default: "16"),
        .value("host-concurrency", "n", help: "Transfers at once per scheme+host+port.", default: "6"),
        .value("host-rate", "n", help: "Requests started per second per scheme+host+port (default: no limit)."),
        .value(
            "timeout", "sec",
            help: "Connect timeout, and the stall window: a transfer that moves no bytes this long fails.",
            default: "30"),
        .value("retries", "n", help: "Extra attempts after a timeout, 408, 429, 5xx or reset.", default: "2"),
        .value(
            "connect-to", "host:port:host2:port2",
            help: "Connect to HOST2:PORT2 for requests to HOST:PORT, as curl's --connect-to (repeatable).",
            repeating: true),
        .value("cacert", "file", help: "Trust the CAs in this PEM file instead of the system's."),
        .flag("deny-private", help: "Refuse loopback and private addresses, checked on every connection."),
        .value("user-agent", "ua", help: "User-Agent header.", default: "inbox-assets/1"),
        .value("max-size", "size", help: "Largest body accepted, e.g. 10M (powers of 1024)."),
    ]

    static let quiet = Option.flag("quiet", short: "q", help: "No progress bar on stderr.")

    /// The engine options the command line asks for.
    static func fetchOptions(_ invocation: Invocation) throws(UsageError) -> FetchOptions {
        var options = FetchOptions()
        options.concurrency = try invocation.int("concurrency", in: 1...1024) ?? options.concurrency
        options.hostConcurrency = try invocation.int("host-concurrency", in: 1...1024) ?? options.hostConcurrency
        options.retries = try invocation.int("retries", in: 0...10) ?? options.retries
        if let text = invocation.value("host-rate") {
            guard let rate = Double(text), rate >= 0.01, rate <= 10_000 else {
                throw invocation.invalid(
                    text, for: "host-rate", hint: "Expected requests per second from 0.01 to 10000.")
            }
            options.hostRate = rate
        }
        if let text = invocation.value("timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
                throw invocation.invalid(text, for: "timeout", hint: "Expected seconds from 0 to 3600.")
            }
            options.timeout = seconds
        }
        for mapping in invocation.values("connect-to") {
            do throws(ConnectToError) {
                _ = try ConnectTo(parsing: mapping)
            } catch {
                throw invocation.invalid(mapping, for: "connect-to", hint: Self.hint(error))
            }
        }
        options.connectTo = invocation.values("connect-to")
        options.caFile = invocation.value("cacert")
        options.denyPrivate = invocation.flag("deny-private")
        options.userAgent = invocation.value("user-agent") ?? options.userAgent
        options.maxSize = try invocation.byteSize("max-size")
        return options
    }

    /// The usage error's hint for a malformed `--connect-to`: the parser's reason, as a sentence.
    static func hint(_ error: ConnectToError) -> String {
        let reason = error.reason
        return (reason.first.map { $0.uppercased() + reason.dropFirst() } ?? reason)
            + "; expected HOST:PORT:HOST2:PORT2, IPv6 addresses in brackets ([::1]:443:[::1]:8443)."
    }

    /// Starts the engine; a bad CA file or option is exit 2 with the engine's reason.
    static func engine(_ invocation: Invocation) throws -> FetchEngine {
        var options = try fetchOptions(invocation)
        options.hostHeaders = try ConfigCommand.load(invocation).headers
        do {
            return try FetchEngine(options: options)
        } catch {
            throw CommandFailure(message: error.description, status: ExitCode.invalidInput)
        }
    }
}
