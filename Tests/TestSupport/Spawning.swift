import Foundation
import Glibc

/// How the tests make pipes and start processes, so that no child inherits another test's pipe.
///
/// A child inherits every descriptor that is open and not close-on-exec when it is started, and Foundation's
/// `Pipe()` is neither. Tests run in parallel: an nginx started by one test while another test's `Pipe()` to its
/// own child was open kept that pipe's write end for its whole life, so the other test waited for an end-of-file
/// that never came (a hang seen in `.ci/run`). Pipes made here are close-on-exec from the start — their child still
/// gets them, as its standard streams are copies (`dup2`) that do not inherit the flag — and making a pipe and
/// starting a process never interleave: both hold one lock.
public enum Spawning {
    private static let lock = NSLock()

    /// A pipe whose two descriptors are close-on-exec.
    public static func pipe() -> Pipe {
        lock.lock()
        defer { lock.unlock() }
        let pipe = Pipe()
        for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting] {
            let fd = handle.fileDescriptor
            _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        }
        return pipe
    }

    /// A pipe as two descriptors (read, write), both close-on-exec; `nil` when `pipe(2)` fails.
    public static func descriptors() -> (read: Int32, write: Int32)? {
        lock.lock()
        defer { lock.unlock() }
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        for fd in ends { _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Starts `process` (`Process.run()`) while no pipe is being made.
    public static func run(_ process: Process) throws {
        lock.lock()
        defer { lock.unlock() }
        try process.run()
    }
}
