import Glibc

/// Why the store itself cannot go on: the file system refused an operation, or the caller asked for
/// something impossible. Expected outcomes (an entry not in the store, a damaged blob) are values, not errors.
///
/// Equality and hashing look at ``code`` only, so tests and callers can match on the kind of failure.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// The file system denied access (`EACCES`, `EPERM`).
        case permissionDenied
        /// The store lives on a read-only file system (`EROFS`).
        case readOnly
        /// The disk or quota is full (`ENOSPC`, `EDQUOT`).
        case noSpace
        /// A file or directory the operation needs does not exist.
        case notFound
        /// Any other I/O failure (`EIO`, …).
        case ioFailure
        /// The caller passed something the store cannot take (a bad hash, a URL too long for one record).
        case invalidArgument
        /// The record names a blob that is not (or no longer) in the store.
        case blobMissing
        /// A ``BlobWriter`` was used after it committed, aborted or failed.
        case writerFinished
        /// The export target exists and is not empty and not an earlier export.
        case outputNotEmpty
        /// The export target exists and is not a directory (a file, a device, a FIFO, a dangling link): it is never
        /// replaced.
        case outputNotADirectory
        /// Neither `$XDG_CACHE_HOME` nor `$HOME` says where the default store lives.
        case noDefaultLocation
    }

    /// The kind of failure.
    public var code: Code
    /// A human sentence naming the operation, the path and the system's reason.
    public var message: String
    /// The file or directory involved, when there is one.
    public var path: String?
    /// The `errno` value behind the failure, when it came from the system.
    public var errno: Int32?

    /// Creates an error.
    public init(_ code: Code, _ message: String, path: String? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
    }

    /// Translates a failed system call — the one place `errno` values become ``Code``s.
    static func system(_ operation: String, path: String?, errno value: Int32) -> StoreError {
        let code: Code
        switch value {
        case EACCES, EPERM: code = .permissionDenied
        case EROFS: code = .readOnly
        case ENOSPC, EDQUOT: code = .noSpace
        case ENOENT: code = .notFound
        default: code = .ioFailure
        }
        let reason = String(cString: strerror(value))
        let message = path.map { "cannot \(operation) \($0): \(reason)" } ?? "cannot \(operation): \(reason)"
        return StoreError(code, message, path: path, errno: value)
    }

    public var description: String { message }

    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
