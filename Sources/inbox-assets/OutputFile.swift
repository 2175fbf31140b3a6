import Foundation
import StrictJSON

/// Where a command's report goes: standard output (no `-o`, or `-o -`) or a file the tool creates by name.
///
/// ``prepare(_:)`` runs before the work, so a report that cannot be written is known before any input is read or
/// any asset fetched; ``write(_:)`` runs at the end.
enum OutputTarget {
    case standardOutput
    case file(OutputFile)

    /// Checks the output path (README "Output paths").
    /// - Parameter path: `-o`'s value; `nil` or `-` is standard output.
    /// - Throws: ``CommandFailure``: exit 2 for a path that is not a regular file or whose directory cannot be
    ///   written; exit 74 when standard output is the target and it is closed.
    static func prepare(_ path: String?) throws(CommandFailure) -> OutputTarget {
        guard let path, path != "-" else {
            if StandardStreams.closedAtStart.contains(STDOUT_FILENO) {
                throw CommandFailure(
                    message: "cannot write standard output: \(SystemError.text(EBADF))", status: ExitCode.ioError)
            }
            return .standardOutput
        }
        return .file(try OutputFile(path))
    }

    /// Whether the report goes to standard output (colour is decided by the terminal there, never in a file).
    var isStandardOutput: Bool {
        if case .standardOutput = self { return true }
        return false
    }

    /// A writer for a report made piece by piece: standard output gets each piece as it comes (its errors end the
    /// run in ``Console``); a file gets them in its temporary file until ``ReportStream/finish()``.
    /// - Throws: ``CommandFailure`` from ``OutputFile/begin()``.
    func stream() throws(CommandFailure) -> ReportStream {
        switch self {
        case .standardOutput: ReportStream(pending: nil)
        case .file(let file): ReportStream(pending: try file.begin())
        }
    }

    /// Writes the whole report.
    /// - Throws: ``CommandFailure`` from ``OutputFile/write(_:)``; standard output's errors end the run in
    ///   ``Console``.
    func write(_ text: String) throws(CommandFailure) {
        switch self {
        case .standardOutput: Console.out(text)
        case .file(let file):
            var text = text
            let written = text.withUTF8 { bytes in
                Result { () throws(CommandFailure) in try file.write(UnsafeRawBufferPointer(bytes)) }
            }
            try written.get()
        }
    }
}

/// Where a streamed report's bytes go (``OutputTarget/stream()``).
final class ReportStream {
    private let pending: OutputFile.Pending?

    fileprivate init(pending: OutputFile.Pending?) { self.pending = pending }

    func write(_ bytes: UnsafeRawBufferPointer) {
        if let pending { pending.append(bytes) } else { Console.out(bytes) }
    }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// Ends the report: a file is flushed and renamed over its name.
    /// - Throws: ``CommandFailure`` from ``OutputFile/Pending/commit()``.
    func finish() throws(CommandFailure) { try pending?.commit() }
}

/// A JSON report (`--format json`, pretty, with a final newline) or NDJSON lines written through a
/// ``JSONWriter`` into an output target as they are made: never one tree or one string.
enum JSONReportStream {
    static func write(
        to output: OutputTarget, lines: Bool = false, _ body: (inout JSONWriter) -> Void
    ) throws(CommandFailure) {
        let stream = try output.stream()
        var writer = JSONWriter(pretty: !lines) { stream.write($0) }
        body(&writer)
        if !lines { writer.raw("\n") }
        writer.flush()
        try stream.finish()
    }
}

/// A file the tool writes by name, never anything else that sits at that name.
///
/// The bytes go to a temporary file in the target's directory (`.NAME.tmp-PID-RANDOM`), which is flushed and
/// renamed over the name: readers see the old file or the new one, never half of it, and a full disk leaves the
/// old file as it was. Only a new name or an existing regular file is replaced. Anything else at the name — a
/// device (`/dev/null`), a FIFO, a socket, a directory — and any symbolic link, whatever it points to, is refused
/// (exit 2) and left alone: following a link would let whoever can create one in a shared directory (`/tmp`)
/// choose which file a root CI job replaces. A replaced file keeps its permission bits (and, when the tool can,
/// its owner); a new one gets 0666 less the umask, as a shell redirection would.
struct OutputFile {
    /// The path as given.
    let path: String
    /// The directory that will hold it (`.` for a bare name).
    let directory: String
    /// The last path component.
    let name: String

    /// Checks that `path` may be written: it is a new name or a regular file, in an existing directory this
    /// process can write.
    /// - Throws: ``CommandFailure`` (exit 2) saying why not.
    init(_ path: String) throws(CommandFailure) {
        guard !path.isEmpty else { throw Self.refused(path, "the path is empty") }
        guard !path.hasSuffix("/") else { throw Self.refused(path, "the path names a directory") }
        self.path = path
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
            name = String(path[path.index(after: slash)...])
        } else {
            directory = "."
            name = path
        }
        try checkTarget()
        var status = stat()
        guard stat(directory, &status) == 0 else {
            throw Self.refused(path, "directory '\(directory)': \(SystemError.text(errno))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw Self.refused(path, "'\(directory)' is not a directory")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw Self.refused(path, "directory '\(directory)': \(SystemError.text(errno))")
        }
    }

    /// Writes `bytes` as the whole file (see the type's documentation).
    /// - Throws: ``CommandFailure``: exit 2 when something other than a regular file appeared at the path during
    ///   the run, exit 74 when the temporary file cannot be created, written, flushed or renamed.
    func write(_ bytes: UnsafeRawBufferPointer) throws(CommandFailure) {
        let pending = try begin()
        pending.append(bytes)
        try pending.commit()
    }

    /// Creates the temporary file a report is written into as it is made; ``Pending/commit()`` renames it over
    /// the name.
    /// - Throws: ``CommandFailure``: exit 2 when the name no longer holds a regular file, exit 74 when the
    ///   temporary file cannot be created.
    func begin() throws(CommandFailure) -> Pending {
        let existing = try checkTarget()
        let (descriptor, temporary) = try createTemporary()
        if let existing {
            _ = fchmod(descriptor, existing.st_mode & 0o777)
            _ = fchown(descriptor, existing.st_uid, existing.st_gid)  // works only for root; then the mode is kept
        }
        return Pending(file: self, descriptor: descriptor, temporary: temporary)
    }

    /// The temporary file of a report being written: appended to, then committed (flushed and renamed over the
    /// name) or, on any error, removed. A run killed half way leaves it behind under its `.NAME.tmp-PID-…` name;
    /// the named file is untouched either way.
    final class Pending {
        private let file: OutputFile
        private let descriptor: Int32
        private let temporary: String
        /// The first `errno` that stopped a write: later appends are dropped and ``commit()`` throws it.
        private var failure: Int32 = 0
        private var open = true

        fileprivate init(file: OutputFile, descriptor: Int32, temporary: String) {
            self.file = file
            self.descriptor = descriptor
            self.temporary = temporary
        }

        deinit {
            if open {
                close(descriptor)
                unlink(temporary)
            }
        }

        func append(_ bytes: UnsafeRawBufferPointer) {
            guard failure == 0, open else { return }
            failure = Console.writeAll(descriptor, bytes)
        }

        /// Flushes the temporary file and renames it over the name.
        /// - Throws: ``CommandFailure``: exit 2 when something other than a regular file appeared at the path
        ///   during the run, exit 74 when a write, the flush or the rename failed (the temporary file is removed).
        func commit() throws(CommandFailure) {
            guard open else { return }
            open = false
            if failure == 0 && fsync(descriptor) != 0 && errno != EINVAL { failure = errno }
            if close(descriptor) != 0 && failure == 0 && errno != EINTR { failure = errno }
            if failure == 0 {
                // Checked again right before the rename: a FIFO or device put there during the run is still refused.
                do {
                    try file.checkTarget()
                } catch {
                    unlink(temporary)
                    throw error
                }
                if rename(temporary, file.path) != 0 { failure = errno }
            }
            if failure != 0 {
                unlink(temporary)
                throw CommandFailure(
                    message: "cannot write '\(file.path)': \(SystemError.text(failure))", status: ExitCode.ioError)
            }
        }
    }

    /// The target's `lstat`, `nil` for a new name.
    /// - Throws: ``CommandFailure`` (exit 2) when the name holds anything but a regular file, or cannot be looked at.
    @discardableResult
    fileprivate func checkTarget() throws(CommandFailure) -> stat? {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw Self.refused(path, SystemError.text(errno))
        }
        let type = status.st_mode & S_IFMT
        if type == S_IFREG { return status }
        if type == S_IFLNK {
            var target = stat()
            let pointee = stat(path, &target) == 0 ? "to a \(Self.describe(target.st_mode & S_IFMT))" : "that dangles"
            throw Self.refused(path, "it is a symbolic link \(pointee); links are not followed (name the file itself)")
        }
        throw Self.refused(path, "it is a \(Self.describe(type)), not a regular file (- writes to standard output)")
    }

    /// Creates the temporary file next to the target, never following a link and never reusing a name.
    private func createTemporary() throws(CommandFailure) -> (Int32, String) {
        let stem = String(name.utf8.prefix(100)) ?? "output"
        for _ in 0..<16 {
            let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let temporary = "\(directory)/.\(stem).tmp-\(getpid())-\(random)"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
            if descriptor >= 0 { return (descriptor, temporary) }
            if errno != EEXIST {
                throw CommandFailure(
                    message: "cannot write '\(path)': \(SystemError.text(errno))", status: ExitCode.ioError)
            }
        }
        throw CommandFailure(message: "cannot write '\(path)': \(SystemError.text(EEXIST))", status: ExitCode.ioError)
    }

    private static func refused(_ path: String, _ reason: String) -> CommandFailure {
        .invalidInput("cannot write '\(path)': \(reason)")
    }

    private static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFREG: "regular file"
        case S_IFDIR: "directory"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        case S_IFIFO: "FIFO"
        case S_IFSOCK: "socket"
        case S_IFLNK: "symbolic link"
        default: "special file"
        }
    }
}
