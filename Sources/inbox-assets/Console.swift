import Findings
import Foundation
import InboxCards

/// Exit codes (README "Exit codes"; DESIGN.md "CLI contract").
enum ExitCode {
    /// Nothing at or above `--fail-on`.
    static let success: Int32 = 0
    /// Findings at or above `--fail-on`.
    static let findings: Int32 = 1
    /// An input could not be read or is not usable at all, or an output path cannot be used.
    static let invalidInput: Int32 = 2
    /// Bad command line (EX_USAGE).
    static let usage: Int32 = 64
    /// The tool itself failed (EX_SOFTWARE).
    static let internalError: Int32 = 70
    /// Standard output or the `-o` file could not be written: a full disk, an I/O error, a closed descriptor
    /// (EX_IOERR).
    static let ioError: Int32 = 74
    /// Standard output's reader went away (EPIPE): 128 + SIGPIPE, what a shell reports for a program SIGPIPE
    /// ended (`git log | head`), so `set -o pipefail` scripts see the same status as for other tools. Nothing is
    /// printed.
    static let brokenPipe: Int32 = 141
}

/// The standard descriptors as the process found them.
///
/// A descriptor that is closed at start (`>&-`, `<&-`) is given `/dev/null`, so that no file the tool opens later
/// (a store blob, the `-o` report) can become descriptor 1 and receive the report or the error messages; the
/// descriptor is still treated as closed: writing standard output fails with EBADF (exit 74), reading `-` fails
/// (exit 2), and messages for a closed standard error are dropped.
enum StandardStreams {
    /// Which of 0, 1 and 2 were closed when the process started. Evaluated by ``claim()`` before anything else runs.
    static let closedAtStart: Set<Int32> = {
        var closed: Set<Int32> = []
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
        where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            closed.insert(descriptor)
            // `open` returns the lowest free descriptor, which is this one: 0, 1 and 2 are checked in order.
            let null = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != descriptor {
                _ = dup2(null, descriptor)
                close(null)
            }
        }
        return closed
    }()

    /// Takes over closed standard descriptors and ignores SIGPIPE; the first thing `main` does.
    ///
    /// With SIGPIPE ignored a write to a pipe whose reader has gone fails with EPIPE, which ``Console`` turns into
    /// a quiet exit 141, instead of the signal killing the process at whatever point it was (a TLS connection to a
    /// server that hung up would do the same: OpenSSL writes with `write(2)`).
    static func claim() {
        _ = closedAtStart
        signal(SIGPIPE, SIG_IGN)
    }
}

/// Writes to the standard streams with `write(2)`, unbuffered, handling every error instead of trapping as
/// `FileHandle.write` does.
///
/// Standard output carries the result, so a failed write ends the run: EPIPE quietly with ``ExitCode/brokenPipe``,
/// anything else (ENOSPC, EIO, a closed descriptor) with one line on standard error and ``ExitCode/ioError``.
/// Standard error carries diagnostics only: a failed write there is dropped (there is nowhere left to report it)
/// and the exit status still tells the outcome.
enum Console {
    static func out(_ text: String) {
        var text = text
        text.withUTF8 { out(UnsafeRawBufferPointer($0)) }
    }

    static func err(_ text: String) {
        var text = text
        text.withUTF8 { _ = writeAll(STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }

    /// Writes bytes as they are, without copying them into a `String` or `Data` first (reports of 100,000 cards).
    static func out(_ bytes: UnsafeRawBufferPointer) {
        if StandardStreams.closedAtStart.contains(STDOUT_FILENO) { outputFailed(EBADF) }
        let failure = writeAll(STDOUT_FILENO, bytes)
        if failure != 0 { outputFailed(failure) }
    }

    /// Ends the run for an error writing standard output (see the type's documentation).
    static func outputFailed(_ code: Int32) -> Never {
        if code == EPIPE { exit(ExitCode.brokenPipe) }
        err("Error: cannot write standard output: \(SystemError.text(code))\n")
        exit(ExitCode.ioError)
    }

    /// Writes every byte, retrying after EINTR and waiting out EAGAIN (a descriptor inherited in non-blocking
    /// mode); returns 0, or the `errno` that stopped it.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if written > 0 {
                offset += written
                continue
            }
            if written == 0 { return EIO }  // write(2) never does this for a non-empty buffer: do not spin on it
            switch errno {
            case EINTR: continue
            case EAGAIN:
                var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&poller, 1, -1)
            case let code: return code
            }
        }
        return 0
    }

    /// Asks glibc to grow the heap 64 MiB at a time. A resolve run holds a few hundred bytes per message in many
    /// small blocks, and glibc grows a thread's heap by what the next block needs: 27,000 `mprotect` calls for
    /// 100,000 messages. Larger steps reserve address space, not memory (pages are still touched one by one).
    /// `mallopt` is looked up with `dlsym` because Glibc's Swift module does not include `<malloc.h>`; without it
    /// (another C library) nothing changes.
    static func growHeapInLargeSteps() {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let topPad: Int32 = -2  // M_TOP_PAD in <malloc.h>
        _ = mallopt(topPad, 64 << 20)
    }

    /// Whether colour may be used on stdout: a terminal, and `NO_COLOR` unset (https://no-color.org).
    static var stdoutWantsColor: Bool {
        isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// Whether progress may be drawn on stderr.
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// How many columns text written to `descriptor` may use: `COLUMNS` when it is set to a positive number (as
    /// `ls` and git honour it), else the terminal's width (`TIOCGWINSZ`), else `nil` — a file or a pipe, no limit.
    static func width(of descriptor: Int32) -> Int? {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 {
            return columns
        }
        guard isatty(descriptor) == 1 else { return nil }
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// A failure that ends the command with a message on stderr and a specific exit code.
struct CommandFailure: Error {
    var message: String
    var status: Int32
    /// The operand the failure is about, when it is about one input.
    var source: String? = nil
    /// The finding code JSON reports list it with: `input.unreadable`, or `input.tooLarge` for an input past
    /// `--max-input`.
    var code = "input.unreadable"

    /// The failure as a finding, so JSON reports list it next to the other inputs.
    var finding: SourcedFinding {
        SourcedFinding(source: source ?? "-", finding: .error(code, message))
    }

    static func invalidInput(_ message: String, source: String? = nil) -> CommandFailure {
        CommandFailure(message: message, status: ExitCode.invalidInput, source: source)
    }
}

/// `errno` values as the text users see.
enum SystemError {
    /// `strerror`'s text with a lowercase first letter, to follow `cannot read 'x': ` in messages
    /// (`no such file or directory`).
    static func text(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
