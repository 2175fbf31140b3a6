import Findings
import Foundation
import InboxCards

/// Exit codes (README "Exit codes"; DESIGN.md "CLI contract").
enum ExitCode {
    /// Nothing at or above `--fail-on`.
    static let success: Int32 = 0
    /// Findings at or above `--fail-on`.
    static let findings: Int32 = 1
    /// An input could not be read or is not usable at all.
    static let invalidInput: Int32 = 2
    /// Bad command line (EX_USAGE).
    static let usage: Int32 = 64
    /// The tool itself failed (EX_SOFTWARE).
    static let internalError: Int32 = 70
}

/// Writes to the standard streams without Foundation's print buffering surprises on exit().
enum Console {
    static func out(_ text: String) { write(text, to: FileHandle.standardOutput) }
    static func err(_ text: String) { write(text, to: FileHandle.standardError) }

    /// Writes bytes as they are, without copying them into a `String` or `Data` first (reports of 100,000 cards).
    static func out(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        FileHandle.standardOutput.write(
            Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
    }

    private static func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(text.utf8))
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
}

/// A failure that ends the command with a message on stderr and a specific exit code.
struct CommandFailure: Error {
    var message: String
    var status: Int32
    /// The operand the failure is about, when it is about one input.
    var source: String? = nil

    /// The failure as an `input.unreadable` finding, so JSON reports list it next to the other inputs.
    var finding: SourcedFinding {
        SourcedFinding(source: source ?? "-", finding: .error("input.unreadable", message))
    }

    static func invalidInput(_ message: String, source: String? = nil) -> CommandFailure {
        CommandFailure(message: message, status: ExitCode.invalidInput, source: source)
    }
}

/// Reads a command's input operands: files as given, `-` as standard input (at most once).
enum InputFiles {
    /// The bytes of one operand.
    /// - Throws: ``CommandFailure`` (exit 2) when the file cannot be read.
    static func read(_ operand: String) throws(CommandFailure) -> [UInt8] {
        if operand == "-" {
            return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: operand, isDirectory: &isDirectory) else {
            throw .invalidInput("cannot read '\(operand)': no such file", source: operand)
        }
        guard !isDirectory.boolValue else {
            throw .invalidInput("cannot read '\(operand)': is a directory", source: operand)
        }
        guard let bytes = readFile(operand) else {
            throw .invalidInput("cannot read '\(operand)': permission denied or unreadable", source: operand)
        }
        return bytes
    }

    /// The file's bytes read straight into the array (`FileManager.contents` gives `Data`, which then costs a
    /// copy of the whole input); `nil` when it cannot be opened or read.
    private static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        let size = fstat(descriptor, &status) == 0 && status.st_size > 0 ? Int(status.st_size) : 0
        var bytes: [UInt8] = []
        var capacity = max(size + 1, 1 << 16)  // one more byte, to see the end without a second buffer
        while true {
            let start = bytes.count
            var failed = false
            bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                count = start
                if start > 0 { _ = buffer.initialize(fromContentsOf: bytes) }
                while count < capacity {
                    let got = Glibc.read(descriptor, buffer.baseAddress! + count, capacity - count)
                    if got < 0 && errno == EINTR { continue }
                    if got < 0 { failed = true }
                    if got <= 0 { break }
                    count += got
                }
            }
            if failed { return nil }
            if bytes.count < capacity { return bytes }
            capacity *= 2  // the file grew while being read, or its size was unknown (a pipe, /proc)
        }
    }
}
