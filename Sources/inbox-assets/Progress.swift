import Foundation
import Preflight
import Synchronization

/// A one-line progress display on stderr (`assets 12/40  1.2 MiB  2 failed  3.4 MiB/s`), drawn only when
/// stderr is a terminal and `--quiet` is not given; nothing at all when piped.
final class ProgressLine: Sendable {
    private struct State {
        var done = 0
        var total = 0
        var bytes = 0
        var failed = 0
        var lastDraw = Date.distantPast
    }

    private let enabled: Bool
    private let label: String
    private let started = Date()
    private let state = Mutex(State())

    init(label: String, quiet: Bool) {
        self.label = label
        self.enabled = !quiet && Console.stderrIsTerminal
    }

    func update(done: Int, total: Int, bytes: Int = 0, failed: Int = 0) {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            state.done = done
            state.total = total
            state.bytes = bytes
            state.failed = failed
            let now = Date()
            guard done == total || now.timeIntervalSince(state.lastDraw) > 0.1 else { return nil }
            state.lastDraw = now
            let rate = Double(bytes) / max(now.timeIntervalSince(started), 0.001)
            var text = "\(label) \(done)/\(total)"
            if bytes > 0 { text += "  \(ByteCount.format(bytes))  \(ByteCount.format(Int(rate)))/s" }
            if failed > 0 { text += "  \(failed) failed" }
            return text
        }
        if let line { Console.err("\r\u{1B}[2K" + line) }
    }

    /// Clears the line (before the report is printed).
    func finish() {
        guard enabled else { return }
        Console.err("\r\u{1B}[2K")
    }
}
