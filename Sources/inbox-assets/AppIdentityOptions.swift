import ArgumentKit
import Findings
import HTTPFetch
import MediaProbe
import Preflight

/// `--app-name` and `--app-icon` (check): the app whose inbox the HTML preview draws, so a classic card's avatar is
/// the app's icon, else its initial, as the SDK draws it, instead of the input file's initial.
enum AppIdentityOptions {
    static let options: [Option] = [
        .value(
            "app-name", "name",
            help: "The app's name: the HTML preview draws the classic card's avatar with its initial."),
        .value(
            "app-icon", "file-or-url",
            help: "The app's icon (a PNG, JPEG, GIF or WebP file, or an http(s) URL fetched with the network "
                + "options): the HTML preview's classic avatar."),
    ]

    /// The largest icon read (the preview embeds at most this much of one image).
    static let maxIconBytes = HTMLReport.maxImageBytes

    /// Checks `--app-icon` before any work: a file that cannot be read is exit 2.
    /// - Returns: the icon file's bytes, or `nil` (no icon, or a URL: fetched by ``icon(_:bytes:engine:)``).
    static func readIconFile(_ invocation: Invocation, limits: InputLimits) throws(CommandFailure) -> [UInt8]? {
        guard let source = invocation.value("app-icon"), !isURL(source) else { return nil }
        var limits = limits
        limits.maxBytes = maxIconBytes
        let bytes = try PassCommand.read(source, limits: limits)
        guard bytes.count <= maxIconBytes else {
            throw .invalidInput("--app-icon '\(source)' is larger than \(maxIconBytes / 1024) KiB")
        }
        guard MediaSniffer.sniff(bytes).isWebImage else {
            throw .invalidInput("--app-icon '\(source)' is not a PNG, JPEG, GIF or WebP image")
        }
        return bytes
    }

    /// The identity for the preview: the name, and the icon from the file read before or the URL fetched now (a URL
    /// that fails is reported on stderr and the initial is drawn).
    static func identity(_ invocation: Invocation, file: [UInt8]?, engine: FetchEngine) async -> HTMLReport.AppIdentity
    {
        var identity = HTMLReport.AppIdentity(name: invocation.value("app-name"))
        var bytes = file
        if let source = invocation.value("app-icon"), isURL(source), invocation.flag("offline") {
            Console.err(
                "warning: --app-icon \(Redaction.redactURL(source)) is not fetched offline; the initial is drawn\n")
        } else if let source = invocation.value("app-icon"), isURL(source) {
            let sink = MemorySink(capacity: maxIconBytes)
            let outcome = await engine.get(source, into: sink)
            if outcome.isOK, MediaSniffer.sniff(sink.bytes).isWebImage {
                bytes = sink.bytes
            } else {
                let why = outcome.isOK ? "not a PNG, JPEG, GIF or WebP image" : outcome.failure?.rawValue ?? "failed"
                Console.err("warning: --app-icon \(Redaction.redactURL(source)): \(why); the initial is drawn\n")
            }
        }
        if let bytes { identity.icon = (bytes, "image/" + MediaSniffer.sniff(bytes).rawValue) }
        return identity
    }

    static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}

extension MediaFormat {
    /// The formats every browser draws from a `data:` URI (the preview's icon).
    fileprivate var isWebImage: Bool { self == .png || self == .jpeg || self == .gif || self == .webp }
}
