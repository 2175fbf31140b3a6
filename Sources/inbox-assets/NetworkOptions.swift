import ArgumentKit
import Findings
import Glibc
import HTTPFetch
import Preflight

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

    /// The shared remote store (check, prefetch, export).
    static let remoteOptions: [Option] = [
        .value(
            "remote-cache", "url",
            help: "Share the store through a Bazel HTTP remote cache (GET/PUT URL/ac/KEY and URL/cas/SHA256: "
                + "bazel-remote, nginx WebDAV); basic auth from user:password@ in the URL. A trusted endpoint: "
                + "--deny-private does not apply to it. A remote that fails costs one warning, never the check."),
        .value(
            "remote-header", "'name: value'",
            help: "A header on every remote cache request, ${VAR} taken from the environment (repeatable).",
            repeating: true),
        .value(
            "remote-timeout", "sec",
            help: "Remote cache connect timeout and stall window; a remote that misses it is not used again this run.",
            default: "5"),
        .flag("no-remote-upload", help: "Read the remote cache, never write it (read-only runners)."),
        .flag("no-remote", help: "Ignore --remote-cache (e.g. to force --offline onto the local store only)."),
    ]

    /// How long a run waits at its end for background uploads to the remote cache.
    static let uploadDeadline = 30.0

    /// The `--remote-cache` URL unless `--no-remote` turns it off.
    static func remoteURL(_ invocation: Invocation) -> String? {
        invocation.flag("no-remote") ? nil : invocation.value("remote-cache")
    }

    /// The remote tier the command line asks for, or `nil`; exit 2 for a malformed URL, header or timeout.
    static func remote(_ invocation: Invocation) throws(UsageError) -> RemoteTier? {
        guard let url = remoteURL(invocation) else { return nil }
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), url.count > 8,
            !url.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7f } ?? false })
        else {
            throw invocation.invalid(
                Redaction.redactURL(url), for: "remote-cache", hint: "Expected an http:// or https:// URL.")
        }
        var headers: [String] = []
        for header in invocation.values("remote-header") {
            let expanded = try expand(header, invocation: invocation)
            guard let colon = expanded.firstIndex(of: ":"), colon != expanded.startIndex,
                !expanded.contains(where: \.isNewline)
            else {
                throw invocation.invalid(
                    String(header.prefix(while: { $0 != ":" })), for: "remote-header",
                    hint: "Expected 'Name: value' on one line.")
            }
            headers.append(expanded)
        }
        var timeout = 5.0
        if let text = invocation.value("remote-timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
                throw invocation.invalid(text, for: "remote-timeout", hint: "Expected seconds from 0 to 3600.")
            }
            timeout = seconds
        }
        // Reads as many at once as the origin transfers (`--concurrency`): a warm remote serves every asset.
        let readers = try invocation.int("concurrency", in: 1...1024) ?? 16
        let options = RemoteCacheOptions(
            url: url, headers: headers, caFile: invocation.value("cacert"), timeout: timeout,
            readConnections: readers, uploads: !invocation.flag("no-remote-upload"),
            userAgent: invocation.value("user-agent") ?? "inbox-assets/1")
        return RemoteTier(cache: RemoteCache(options: options))
    }

    /// `${NAME}` replaced by the environment variable's value; an unset variable is a usage error (a header
    /// silently sent without its token would only fail later, as a refusing remote).
    static func expand(_ text: String, invocation: Invocation) throws(UsageError) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            result += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                result += rest[start.lowerBound...]
                return result
            }
            let name = String(rest[start.upperBound..<end])
            guard let value = getenv(name).map({ String(cString: $0) }) else {
                throw invocation.usageError("--remote-header names ${\(name)}, which is not set in the environment")
            }
            result += value
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    /// Waits for the run's uploads (at most ``uploadDeadline``) and returns the remote's one warning, if any.
    static func finishRemote(_ remote: RemoteTier?) async -> Finding? {
        guard let remote else { return nil }
        await remote.cache.finishUploads(within: uploadDeadline)
        return remote.finding
    }

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
