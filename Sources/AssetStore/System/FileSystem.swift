import Glibc
import Synchronization

/// Thin, errno-translating wrappers over the POSIX calls the store needs. The store talks to the kernel
/// directly (not through Foundation's FileManager) because crash safety depends on exact calls: `O_EXCL`,
/// `O_APPEND`, `fsync` of files and directories, `rename`, `flock`.
enum FileSystem {
    /// Size of the buffers used for streaming reads and writes: large enough for few syscalls, small
    /// enough that a 1 GB video streams in bounded memory.
    static let chunkSize = 256 * 1024

    /// `O_TMPFILE` (an unnamed file in a directory, Linux 3.11+), which Swift's Glibc module does not import: glibc
    /// defines it as `__O_TMPFILE | O_DIRECTORY`, and `__O_TMPFILE` is `020000000` on these architectures (the
    /// generic value); elsewhere `nil`, and blobs are written to named temporary files.
    static let temporaryFileFlag: Int32? = {
        #if os(Linux) && (arch(x86_64) || arch(arm64) || arch(riscv64))
            return 0o20000000 | O_DIRECTORY
        #else
            return nil
        #endif
    }()

    /// `AT_EMPTY_PATH` (`0x1000` on every Linux architecture), which glibc defines only under `_GNU_SOURCE`, so
    /// Swift's Glibc module does not import it.
    static let emptyPathFlag: Int32 = 0x1000

    /// Opens `path`, retrying on `EINTR`.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644, operation: String) throws(StoreError)
        -> Int32
    {
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw StoreError.system(operation, path: path, errno: errno)
        }
    }

    /// Opens `name` relative to the directory `directory` (`openat`), retrying on `EINTR`; `path` names it in errors.
    static func open(
        at directory: Int32, _ name: String, _ flags: Int32, mode: mode_t = 0o644, path: String, operation: String
    ) throws(StoreError) -> Int32 {
        while true {
            let fd = Glibc.openat(directory, name, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw StoreError.system(operation, path: path, errno: errno)
        }
    }

    /// Writes all `count` bytes at `base`, looping over short writes and `EINTR`.
    static func writeAll(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int, path: String) throws(StoreError) {
        var done = 0
        while done < count {
            let written = Glibc.write(fd, base + done, count - done)
            if written > 0 {
                done += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                throw StoreError.system("write", path: path, errno: written < 0 ? errno : ENOSPC)
            }
        }
    }

    /// Reads up to `count` bytes into `base`; returns how many arrived (0 = end of file).
    static func read(_ fd: Int32, _ base: UnsafeMutableRawPointer, _ count: Int, path: String) throws(StoreError)
        -> Int
    {
        while true {
            let got = Glibc.read(fd, base, count)
            if got >= 0 { return got }
            if errno == EINTR { continue }
            throw StoreError.system("read", path: path, errno: errno)
        }
    }

    /// Reads the bytes of `path` from `offset` to its end (as it was when `fstat` ran).
    static func readFile(_ path: String, from offset: Int = 0) throws(StoreError) -> [UInt8] {
        let fd = try open(path, O_RDONLY | O_NONBLOCK, operation: "open")
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.system("stat", path: path, errno: errno) }
        return try readRange(fd, from: offset, count: max(0, Int(info.st_size) - offset), path: path)
    }

    /// `pread` of `count` bytes from `start`; fewer when the file turns out shorter (gc replaced it).
    static func readRange(_ fd: Int32, from start: Int, count: Int, path: String) throws(StoreError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: StoreError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var filled = 0
            while filled < count {
                let got = pread(fd, buffer.baseAddress! + filled, count - filled, off_t(start + filled))
                if got > 0 {
                    filled += got
                } else if got < 0 && errno == EINTR {
                    continue
                } else {
                    if got < 0 { failure = StoreError.system("read", path: path, errno: errno) }
                    break
                }
            }
            initialized = filled
        }
        if let failure { throw failure }
        return bytes
    }

    /// What opening a blob found.
    enum BlobOpening {
        /// A regular file, open for reading (the caller closes it), with its `fstat`.
        case file(Int32, stat)
        /// Nothing there.
        case absent
        /// A symlink, directory, FIFO or device where a blob belongs (its `lstat`): damage, never data.
        case notAFile(stat)
    }

    /// Opens a blob without following symlinks and without blocking on FIFOs.
    static func openBlob(_ path: String) throws(StoreError) -> BlobOpening {
        while true {
            let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
            if fd < 0 {
                let failure = errno
                if failure == EINTR { continue }
                if failure == ENOENT || failure == ENOTDIR { return .absent }
                var info = stat()
                if failure == ELOOP, lstat(path, &info) == 0 { return .notAFile(info) }
                throw StoreError.system("open blob", path: path, errno: failure)
            }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                let failure = errno
                close(fd)
                throw StoreError.system("stat", path: path, errno: failure)
            }
            guard isRegularFile(info) else {
                close(fd)
                return .notAFile(info)
            }
            return .file(fd, info)
        }
    }

    /// `fsync` on an open descriptor.
    static func sync(_ fd: Int32, path: String) throws(StoreError) {
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw StoreError.system("fsync", path: path, errno: errno)
        }
    }

    /// Whether the file system of `fd` keeps everything in memory and nothing across a reboot (tmpfs, ramfs): its
    /// `fsync` does nothing (the kernel's `noop_fsync`), so the store skips the call there. Unknown: `false`.
    static func isVolatile(_ fd: Int32) -> Bool {
        // fstatfs(2) (<sys/vfs.h>) is not in the Glibc module: looked up by name. Its `struct statfs` starts with
        // `f_type`, a `long`, on every Linux ABI; the buffer is larger than the whole struct.
        typealias FStatFS = @convention(c) (Int32, UnsafeMutableRawPointer) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fstatfs") else { return false }
        let fstatfs = unsafeBitCast(symbol, to: FStatFS.self)
        var buffer = [Int](repeating: 0, count: 64)
        guard buffer.withUnsafeMutableBytes({ fstatfs(fd, $0.baseAddress!) }) == 0 else { return false }
        let tmpfs = 0x0102_1994  // TMPFS_MAGIC, <linux/magic.h>
        let ramfs = 0x8584_58f6  // RAMFS_MAGIC
        return buffer[0] == tmpfs || buffer[0] == ramfs
    }

    /// `fsync` on a directory, which makes a `rename` or a new entry in it durable.
    static func syncDirectory(_ path: String) throws(StoreError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY, operation: "open directory")
        defer { close(fd) }
        try sync(fd, path: path)
    }

    /// `stat`, or `nil` when the path does not exist.
    static func status(_ path: String) throws(StoreError) -> stat? {
        var info = stat()
        if stat(path, &info) == 0 { return info }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw StoreError.system("stat", path: path, errno: errno)
    }

    /// `lstat` (a symbolic link is described, not followed), or `nil` when the path does not exist.
    static func linkStatus(_ path: String) throws(StoreError) -> stat? {
        var info = stat()
        if lstat(path, &info) == 0 { return info }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw StoreError.system("stat", path: path, errno: errno)
    }

    /// `realpath`: the absolute path with every symbolic link, `.` and `..` resolved; `nil` (and `errno` set) when
    /// some component does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// "a regular file", "a FIFO", … for messages.
    static func describe(_ info: stat) -> String {
        switch info.st_mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    /// `mkdir` of one new directory (it must not exist yet).
    static func makeDirectory(_ path: String, mode: mode_t = 0o755) throws(StoreError) {
        if mkdir(path, mode) == 0 { return }
        throw StoreError.system("create directory", path: path, errno: errno)
    }

    /// `renameat2(from, to, RENAME_EXCHANGE)`: swaps two directory entries atomically (Linux 3.15+, on the file
    /// systems that support it). Looked up with `dlsym` because Glibc's Swift module does not import `renameat2`
    /// (glibc declares it only under `_GNU_SOURCE`).
    /// - Returns: `false` when the C library, kernel or file system cannot exchange (then rename twice instead).
    /// - Throws: any other failure.
    static func exchange(_ from: String, _ to: String) throws(StoreError) -> Bool {
        guard let renameat2 = Self.renameat2, exchangeEnabled.load(ordering: .relaxed) else { return false }
        let exchangeFlag: UInt32 = 2  // RENAME_EXCHANGE in <linux/fs.h>
        while renameat2(AT_FDCWD, from, AT_FDCWD, to, exchangeFlag) != 0 {
            if errno == EINTR { continue }
            if errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP { return false }
            throw StoreError.system("exchange \(from) with", path: to, errno: errno)
        }
        return true
    }

    /// Cleared by tests to take the two-rename path file systems without `RENAME_EXCHANGE` take.
    static let exchangeEnabled = Atomic(true)

    private typealias RenameAt2 =
        @convention(c) (
            Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32
        ) -> Int32
    private static let renameat2: RenameAt2? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }()

    static func isDirectory(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFDIR }
    static func isRegularFile(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFREG }

    /// Seconds since the epoch of the last modification.
    static func modificationTime(_ info: stat) -> Double {
        Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    /// Creates `path` and missing parents; returns whether the last component was newly created.
    @discardableResult
    static func makeDirectories(_ path: String) throws(StoreError) -> Bool {
        if mkdir(path, 0o755) == 0 { return true }
        let failure = errno
        if failure == EEXIST || failure == EROFS || failure == EACCES,
            let info = try status(path), isDirectory(info)
        {
            return false
        }
        guard failure == ENOENT else { throw StoreError.system("create directory", path: path, errno: failure) }
        let parent = parentDirectory(path)
        guard parent != path else { throw StoreError.system("create directory", path: path, errno: failure) }
        try makeDirectories(parent)
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return true }
        throw StoreError.system("create directory", path: path, errno: errno)
    }

    /// The names in a directory (without `.` and `..`); an absent directory has none.
    static func list(_ path: String) throws(StoreError) -> [String] {
        guard let directory = opendir(path) else {
            if errno == ENOENT { return [] }
            throw StoreError.system("list directory", path: path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            // Read in place: a record is only `d_reclen` bytes long, and copying the whole `struct dirent`
            // (`entry.pointee`) can read past the end of readdir's buffer.
            let name = String(
                cString: (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                    .assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes a file; an already absent file is fine.
    static func remove(_ path: String) throws(StoreError) {
        if unlink(path) == 0 || errno == ENOENT { return }
        throw StoreError.system("remove", path: path, errno: errno)
    }

    /// Removes a directory tree the store itself created (export staging). Does not follow symlinks.
    static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if isDirectory(info), let names = try? list(path) {
            for name in names { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// `rename`, translated.
    static func rename(_ from: String, _ to: String) throws(StoreError) {
        if Glibc.rename(from, to) == 0 { return }
        throw StoreError.system("rename \(from) to", path: to, errno: errno)
    }

    static func parentDirectory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func lastComponent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Makes a relative path absolute against the current directory and drops trailing slashes.
    static func absolute(_ path: String) -> String {
        var result = path
        if !result.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                let cwd = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                result = cwd == "/" ? "/" + result : cwd + "/" + result
            }
        }
        while result.count > 1 && result.hasSuffix("/") { result.removeLast() }
        return result
    }

    /// A random lowercase hex string for unique temporary names.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 16)
    }
}

/// An exclusive or shared `flock` on one file, held until ``release()`` or deinit.
///
/// Every acquisition opens its own descriptor: `flock` locks belong to the open file description, so two
/// threads of one process using one descriptor would silently share (and release) each other's lock.
/// With a descriptor each, threads exclude each other exactly like processes do.
final class FileLock {
    private var fd: Int32

    /// Blocks until the lock is held. `nil` when the lock file cannot exist (read-only store that never
    /// had one): nobody can write such a store, so there is nothing to exclude.
    static func acquire(_ path: String, exclusive: Bool) throws(StoreError) -> FileLock? {
        var fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 && errno == ENOENT {
            fd = Glibc.open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o644)
        }
        if fd < 0 {
            if errno == EROFS || errno == EACCES { return nil }
            throw StoreError.system("open lock file", path: path, errno: errno)
        }
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            if errno == EINTR { continue }
            let failure = errno
            close(fd)
            throw StoreError.system("lock", path: path, errno: failure)
        }
        return FileLock(fd: fd)
    }

    private init(fd: Int32) { self.fd = fd }

    /// Releases the lock now (closing the descriptor releases it).
    func release() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    deinit { release() }
}

/// `withUnsafeBytes` with a typed error: the standard library's version only `rethrows` untyped errors.
func withBytes<Result>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(StoreError) -> Result)
    throws(StoreError) -> Result
{
    try withBytes(bytes[...], body)
}

/// `withUnsafeBytes` with a typed error, for slices.
func withBytes<Result>(_ bytes: ArraySlice<UInt8>, _ body: (UnsafeRawBufferPointer) throws(StoreError) -> Result)
    throws(StoreError) -> Result
{
    let outcome: Swift.Result<Result, StoreError> = bytes.withUnsafeBytes { raw in
        do throws(StoreError) {
            return .success(try body(raw))
        } catch {
            return .failure(error)
        }
    }
    return try outcome.get()
}
