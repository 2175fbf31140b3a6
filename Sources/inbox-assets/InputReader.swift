import ArgumentKit
import Foundation
import InboxCards

/// The bounds every input read obeys: `--max-input` and `--input-timeout`.
struct InputLimits: Sendable {
    /// 256 MiB, the campaign reader's own limit (``ReaderOptions/maxInputBytes``).
    static let defaultMaxBytes = ReaderOptions().maxInputBytes
    /// Seconds a pipe, FIFO or terminal may send nothing before the read gives up.
    static let defaultTimeout: Double = 30

    /// Inputs larger than this are refused (exit 2) after reading one byte past it, never more.
    var maxBytes = defaultMaxBytes
    /// A read that makes no progress for this many seconds gives up (exit 2).
    var timeout = defaultTimeout

    /// `--max-input` and `--input-timeout`, for every command that reads campaign inputs or URL lists.
    static let options: [Option] = [
        .value(
            "max-input", "size",
            help: "Largest input accepted (a file, standard input, a pipe or device), e.g. 512M.", default: "256M"),
        .value(
            "input-timeout", "sec",
            help: "Give up on an input (a pipe, FIFO or standard input) that sends nothing for this long.",
            default: "30"),
    ]

    /// The limits the command line asks for; the defaults for a command without the options (`probe -`).
    static func parse(_ invocation: Invocation) throws(UsageError) -> InputLimits {
        var limits = InputLimits()
        if let bytes = try invocation.byteSize("max-input") {
            guard (1...(4 << 30)).contains(bytes) else {
                throw invocation.invalid(
                    invocation.value("max-input")!, for: "max-input", hint: "Expected a size from 1 byte to 4G.")
            }
            limits.maxBytes = bytes
        }
        if let text = invocation.value("input-timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                throw invocation.invalid(text, for: "input-timeout", hint: "Expected seconds from 0 to 86400.")
            }
            limits.timeout = seconds
        }
        return limits
    }

    /// `256 MiB`, `512 KiB`, `1000 bytes`: a limit as it was most likely given.
    static func describe(_ bytes: Int) -> String {
        if bytes >= 1 << 30 && bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// `30 s`, `0.5 s`.
    static func describe(seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e9 ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// The campaign reader's options with the same byte limit (so a larger `--max-input` is not refused again).
    var readerOptions: ReaderOptions { ReaderOptions(maxInputBytes: maxBytes) }
}

/// Why ``InputReader`` stopped.
enum InputReadError: Error {
    /// `open`, `fstat` or `read` failed with this `errno`.
    case system(Int32)
    /// More than the limit arrived.
    case tooLarge(limit: Int)
    /// Nothing arrived for this many seconds.
    case stalled(seconds: Double)
}

/// The one reader every input goes through: regular files, standard input, pipes (process substitution's
/// `/dev/fd/N`), FIFOs, character devices (`/dev/zero`) and sockets alike.
///
/// It stops one byte past the limit, so `/dev/zero` costs the limit and no more; the buffer is reserved once at
/// the limit for an input of unknown size (address space: pages are touched only as bytes arrive) and at the
/// file's size for a regular file. Anything but a regular file is read after `poll(2)` says it is readable, so
/// a FIFO that never gets a writer or a pipe that stops sending gives up after the timeout instead of blocking
/// forever.
enum InputReader {
    /// What to do with an input past the limit.
    enum Overflow {
        /// Throw ``InputReadError/tooLarge(limit:)``.
        case fail
        /// Return the first `limit + 1` bytes (the caller reports the size itself, as the pass verifier does).
        case truncate
    }

    /// Opens `path` without blocking (a FIFO without a writer would block in `open`) and reads it whole.
    static func read(path: String, limits: InputLimits, overflow: Overflow = .fail) throws(InputReadError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { throw .system(errno) }
        defer { close(descriptor) }
        return try read(descriptor: descriptor, limits: limits, overflow: overflow)
    }

    /// Reads `descriptor` to its end (it stays open).
    static func read(
        descriptor: Int32, limits: InputLimits, overflow: Overflow = .fail
    ) throws(InputReadError) -> [UInt8] {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .system(errno) }
        let type = status.st_mode & S_IFMT
        if type == S_IFDIR { throw .system(EISDIR) }
        let regular = type == S_IFREG
        let ceiling = limits.maxBytes + 1  // one byte past the limit tells "larger than" without reading on
        if regular && overflow == .fail && Int(status.st_size) > limits.maxBytes {
            throw .tooLarge(limit: limits.maxBytes)  // known without reading a byte
        }
        var capacity: Int
        if regular {
            // The size, plus one byte to see the end without a second buffer; /proc files say 0.
            capacity = status.st_size > 0 ? min(Int(status.st_size) + 1, ceiling) : min(1 << 16, ceiling)
        } else {
            capacity = ceiling
        }
        var bytes: [UInt8] = []
        var failure: InputReadError?
        var ended = false
        while failure == nil && !ended {
            let start = bytes.count
            bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                count = start
                if start > 0 { _ = buffer.initialize(fromContentsOf: bytes) }
                bytes = []  // the old buffer goes before this one fills: growing never holds both at their full size
                while count < capacity {
                    if !regular, let stall = waitReadable(descriptor, seconds: limits.timeout) {
                        failure = stall
                        return
                    }
                    let got = Glibc.read(descriptor, buffer.baseAddress! + count, capacity - count)
                    if got > 0 {
                        count += got
                    } else if got == 0 {
                        ended = true
                        return
                    } else if errno != EINTR && errno != EAGAIN {
                        failure = .system(errno)
                        return
                    }
                }
            }
            if bytes.count == ceiling {
                guard overflow == .truncate else { throw .tooLarge(limit: limits.maxBytes) }
                return bytes
            }
            // Full below the ceiling: a regular file that grew while being read, or whose size was unknown.
            if !ended { capacity = min(capacity * 2, ceiling) }
        }
        if let failure { throw failure }
        // A small input in a buffer reserved at the limit: give the address space back (a copy of at most a
        // quarter of the reservation).
        guard bytes.count <= bytes.capacity / 4 && bytes.capacity > 1 << 20 else { return bytes }
        return [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: bytes)
        }
    }

    /// Waits until `descriptor` can be read (data, end of file or an error, which `read` then reports); the
    /// error when it stays silent for `seconds`.
    private static func waitReadable(_ descriptor: Int32, seconds: Double) -> InputReadError? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return .stalled(seconds: seconds) }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min((left * 1000).rounded(.up), 60_000)))
            if ready > 0 {
                return poller.revents & Int16(POLLNVAL) != 0 ? .system(EBADF) : nil
            }
            if ready < 0 && errno != EINTR { return .system(errno) }
        }
    }
}

/// Reads a command's input operands: files as given, `-` as standard input (at most once), all through
/// ``InputReader``.
enum InputFiles {
    /// The bytes of one operand.
    /// - Throws: ``CommandFailure`` (exit 2) when the input cannot be read, is larger than `limits.maxBytes` or
    ///   stalls for `limits.timeout`.
    static func read(_ operand: String, limits: InputLimits) throws(CommandFailure) -> [UInt8] {
        do throws(InputReadError) {
            if operand == "-" {
                if StandardStreams.closedAtStart.contains(STDIN_FILENO) { throw InputReadError.system(EBADF) }
                return try InputReader.read(descriptor: STDIN_FILENO, limits: limits)
            }
            return try InputReader.read(path: operand, limits: limits)
        } catch {
            throw failure(error, operand: operand)
        }
    }

    /// One operand as a campaign input: a regular file is opened and left on disk (read, and read again, as the
    /// cards are resolved; NDJSON a chunk at a time), anything else (`-`, a pipe, a FIFO, a device) is read whole
    /// as ``read(_:limits:)`` reads it.
    /// - Throws: ``CommandFailure`` (exit 2) as ``read(_:limits:)`` does.
    static func open(_ operand: String, limits: InputLimits) throws(CommandFailure) -> CampaignInput {
        guard operand != "-" else { return CampaignInput(name: operand, bytes: try read(operand, limits: limits)) }
        do throws(InputReadError) {
            let descriptor = Glibc.open(operand, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
            guard descriptor >= 0 else { throw .system(errno) }
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                defer { close(descriptor) }
                return CampaignInput(name: operand, bytes: try InputReader.read(descriptor: descriptor, limits: limits))
            }
            guard Int(status.st_size) <= limits.maxBytes else {
                close(descriptor)
                throw .tooLarge(limit: limits.maxBytes)
            }
            do {
                return CampaignInput(name: operand, file: try CampaignFile(descriptor: descriptor))
            } catch {
                throw .system(error.code)
            }
        } catch {
            throw failure(error, operand: operand)
        }
    }

    /// The failure as the message users see (`cannot read 'x': no such file`) and its exit code (2).
    static func failure(_ error: InputReadError, operand: String) -> CommandFailure {
        let name = operand == "-" ? "standard input" : "'\(operand)'"
        switch error {
        case .system(let code):
            let reason: String
            switch code {
            case ENOENT: reason = "no such file"
            case EISDIR: reason = "is a directory"
            case EACCES: reason = "permission denied"
            case EBADF where operand == "-": reason = "it is closed"
            default: reason = SystemError.text(code)
            }
            return .invalidInput("cannot read \(name): \(reason)", source: operand)
        case .tooLarge(let limit):
            var failure = CommandFailure.invalidInput(
                "\(operand): input larger than \(InputLimits.describe(limit)) (--max-input)",
                source: operand)
            failure.code = CardFindingCode.tooLarge
            return failure
        case .stalled(let seconds):
            return .invalidInput(
                "cannot read \(name): nothing arrived for \(InputLimits.describe(seconds: seconds)) (--input-timeout)",
                source: operand)
        }
    }
}
