// fixture-server — runs FixtureServer until SIGTERM or SIGINT (routes: see the FixtureServer doc comment).
import FixtureServer
import Glibc

let usage = """
    usage: fixture-server --root DIR [--port N] [--https-port N] [--no-https] [--ca-out FILE] [--ready-file FILE]
    Serves DIR on 127.0.0.1 over HTTP and HTTPS (test CA written to --ca-out) with scripted fault routes.
    Prints the ports; with --ready-file, also writes them there once listening. Runs until SIGTERM/SIGINT.
    """

/// Writes straight to a descriptor: the C `stdout`/`stderr` globals are shared mutable state to Swift 6.
func emit(_ text: String, to fd: Int32) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    emit("Error: \(message)\n\(usage)\n", to: STDERR_FILENO)
    exit(64)
}

var root: String?
var port = 0
var httpsPort: Int? = 0
var caOut: String?
var readyFile: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    func value() -> String {
        guard let value = arguments.popFirst() else { fail("\(argument) needs a value") }
        return value
    }
    func portValue() -> Int {
        let text = value()
        guard let number = Int(text), (0...65_535).contains(number) else { fail("\(argument): not a port: \(text)") }
        return number
    }
    switch argument {
    case "--root": root = value()
    case "--port": port = portValue()
    case "--https-port": httpsPort = portValue()
    case "--no-https": httpsPort = nil
    case "--ca-out": caOut = value()
    case "--ready-file": readyFile = value()
    case "-h", "--help":
        emit(usage + "\n", to: STDOUT_FILENO)
        exit(0)
    default: fail("unknown argument \(argument)")
    }
}
guard let root else { fail("--root is required") }

// Block the stop signals before any server thread starts (threads inherit the mask), then wait for them here.
// A shell starts background jobs with SIGINT ignored, and an ignored signal is discarded rather than queued for
// sigwait: restore the default disposition first (it never runs while the signal is blocked).
signal(SIGINT, SIG_DFL)
signal(SIGTERM, SIG_DFL)
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGTERM)
sigaddset(&stopSignals, SIGINT)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

let server: FixtureServer
do {
    server = try FixtureServer(root: root, httpPort: port, httpsPort: httpsPort, caFile: caOut)
} catch {
    emit("Error: \(error)\n", to: STDERR_FILENO)
    exit(70)
}
var lines = ["http_port=\(server.httpPort)"]
if let https = server.httpsPort {
    lines.append("https_port=\(https)")
    for kind in FixtureCertificate.allCases where kind != .valid {
        lines.append("https_\(kind.rawValue)_port=\(server.tlsPorts[kind] ?? 0)")
    }
    lines.append("ca_file=\(server.caFilePath ?? "")")
}
let report = lines.joined(separator: "\n") + "\n"
emit(report, to: STDOUT_FILENO)
if let readyFile {
    // Written to a temporary name and renamed, so a waiting script never reads half a file.
    let temporary = readyFile + ".tmp"
    guard let file = fopen(temporary, "w") else { fail("cannot write \(readyFile)") }
    fputs(report, file)
    fclose(file)
    rename(temporary, readyFile)
}
var received: Int32 = 0
sigwait(&stopSignals, &received)
server.stop()
