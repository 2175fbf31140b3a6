import Foundation
import Preflight
import Synchronization

/// A one-line progress display on stderr (`assets 12/40 30%  1.2 MiB  3.4 MiB/s  ETA 0:05  2 failed`), drawn only
/// when stderr is a terminal and `--quiet` is not given; nothing at all when piped.
///
/// The line always fits the terminal (`COLUMNS`, else `TIOCGWINSZ`, asked at every redraw so a resized pane is
/// followed): the parts that do not fit are left out from the end, and a line that still does not fit is cut. It
/// never reaches the last column, so the terminal never wraps it onto a new row; each redraw returns to the start
/// of the line and erases it, and ``finish()`` erases it for good.
final class ProgressLine: Sendable {
    private struct State {
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
        let now = Date()
        let due: Bool = state.withLock { state in
            guard done == total || now.timeIntervalSince(state.lastDraw) > 0.1 else { return false }
            state.lastDraw = now
            return true
        }
        guard due else { return }
        let line = Self.line(
            label: label, done: done, total: total, bytes: bytes, failed: failed,
            elapsed: now.timeIntervalSince(started), width: Console.width(of: STDERR_FILENO))
        Console.err("\r\u{1B}[2K" + line)
    }

    /// Erases the line (before the report is printed).
    func finish() {
        guard enabled else { return }
        Console.err("\r\u{1B}[2K")
    }

    /// The progress text for a terminal `width` columns wide (`nil`: unknown, nothing is left out).
    static func line(
        label: String, done: Int, total: Int, bytes: Int, failed: Int, elapsed: TimeInterval, width: Int?
    ) -> String {
        var head = "\(label) \(done)/\(total)"
        if total > 0 { head += " \(min(100, done * 100 / total))%" }
        var parts = [head]
        if bytes > 0 {
            parts.append(ByteCount.format(bytes))
            parts.append("\(ByteCount.format(Int(Double(bytes) / max(elapsed, 0.001))))/s")
        }
        if done > 0 && done < total && elapsed >= 0.5 {
            let remaining = elapsed / Double(done) * Double(total - done)
            parts.append("ETA \(duration(remaining))")
        }
        if failed > 0 { parts.append("\(failed) failed") }
        guard let width else { return parts.joined(separator: "  ") }
        let room = max(1, width - 1)
        // `failed` matters more than the rate and the ETA: it goes last, but is the last to be left out.
        var kept = parts
        while kept.joined(separator: "  ").count > room && kept.count > 1 {
            let failedLast = failed > 0 && kept.count > 2
            kept.remove(at: failedLast ? kept.count - 2 : kept.count - 1)
        }
        let text = kept.joined(separator: "  ")
        return text.count > room ? String(text.prefix(room)) : text
    }

    /// `0:05`, `12:30`, `1:02:03`.
    static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(min(seconds, 359_999).rounded(.up))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }
}
