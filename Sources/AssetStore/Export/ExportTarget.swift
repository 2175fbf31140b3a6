import Glibc

/// Where an export goes, and what interrupted exports leave next to it.
///
/// An export of `DIR` is built in `.DIR.export-PID-TOKEN` next to it; where the file system cannot exchange two
/// directories atomically, the earlier export is renamed to `.DIR.old-PID-TOKEN` for a moment. A process killed in
/// the middle (`kill -9`, a power loss) leaves those behind. They are recognised by name, and judged abandoned when
/// nobody holds their `flock` (every export holds one on each directory it creates or moves, until it is done) and
/// the process named in them is gone: a lock alone would not cover the moment between `mkdir` and `flock`, a process
/// id alone not an export in another PID namespace (a container sharing the directory) or a reused id.
enum ExportTarget {
    /// `.DIR` + this + `PID-TOKEN`: a staging directory.
    static let stagingInfix = ".export-"
    /// `.DIR` + this + `PID-TOKEN`: an earlier export being replaced.
    static let oldInfix = ".old-"

    /// The absolute directory an export to `path` writes: `path` itself (its parent created when missing), or where
    /// a symbolic link at `path` points (the link stays, the export lands in its target).
    /// - Throws: `.outputNotADirectory` for a dangling link, or the file system's error.
    static func resolve(_ path: String) throws(StoreError) -> String {
        if let info = try FileSystem.linkStatus(path) {
            guard let real = FileSystem.realPath(path) else {
                if (info.st_mode & S_IFMT) == S_IFLNK {
                    throw StoreError(
                        .outputNotADirectory, "\(path) is a symbolic link to nothing; left as it is", path: path)
                }
                throw StoreError.system("resolve", path: path, errno: errno)
            }
            return real
        }
        let name = FileSystem.lastComponent(path)
        let parent = FileSystem.parentDirectory(path)
        try FileSystem.makeDirectories(parent)
        return (FileSystem.realPath(parent) ?? parent).withTrailingSlashDropped + "/" + name
    }

    /// What interrupted exports left next to `target`.
    struct Debris: Sendable, Hashable {
        /// The leftover directory.
        var path: String
        /// Whether it is a replaced earlier export (`.old-`) rather than a staging directory.
        var isOldExport: Bool
        /// The process that made it.
        var pid: pid_t
    }

    /// Leftovers of exports to `target` whose process is gone (see the type's documentation). Read-only.
    static func findDebris(nextTo target: String) -> [Debris] {
        let parent = FileSystem.parentDirectory(target)
        let name = FileSystem.lastComponent(target)
        guard let names = try? FileSystem.list(parent) else { return [] }
        var found: [Debris] = []
        for entry in names.sorted() {
            guard let (isOld, pid) = parse(entry, name: name) else { continue }
            let path = parent + "/" + entry
            var info = stat()
            // Never a link (whatever it points at), never another user's directory.
            guard lstat(path, &info) == 0, FileSystem.isDirectory(info), info.st_uid == geteuid() else { continue }
            guard processIsGone(pid), !DirectoryLock.isHeld(path) else { continue }
            found.append(Debris(path: path, isOldExport: isOld, pid: pid))
        }
        return found
    }

    /// Removes what ``findDebris(nextTo:)`` finds; when `target` itself is missing (a run killed between the two
    /// renames of a replacement), the replaced export is renamed back first instead of being removed.
    /// - Returns: the directories removed (and the one restored, if any).
    @discardableResult
    static func cleanDebris(nextTo target: String) -> (removed: [String], restored: String?) {
        var removed: [String] = []
        var restored: String?
        for debris in findDebris(nextTo: target) {
            let lock = DirectoryLock(debris.path)
            defer { lock.release() }
            guard lock.isHeld else { continue }  // another cleaner got there first
            var info = stat()
            if debris.isOldExport, restored == nil, lstat(target, &info) != 0, errno == ENOENT,
                (try? FileSystem.linkStatus(debris.path + "/manifest.json")).map(FileSystem.isRegularFile) == true,
                Glibc.rename(debris.path, target) == 0
            {
                restored = debris.path
                continue
            }
            FileSystem.removeTree(debris.path)
            removed.append(debris.path)
        }
        return (removed, restored)
    }

    /// `(isOld, pid)` when `entry` is `.NAME.export-PID-TOKEN` or `.NAME.old-PID-TOKEN`.
    static func parse(_ entry: String, name: String) -> (Bool, pid_t)? {
        let prefix = "." + name
        guard entry.hasPrefix(prefix) else { return nil }
        let rest = entry.dropFirst(prefix.count)
        let isOld: Bool
        let tail: Substring
        if rest.hasPrefix(stagingInfix) {
            (isOld, tail) = (false, rest.dropFirst(stagingInfix.count))
        } else if rest.hasPrefix(oldInfix) {
            (isOld, tail) = (true, rest.dropFirst(oldInfix.count))
        } else {
            return nil
        }
        let parts = tail.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0, !parts[1].isEmpty,
            parts[1].allSatisfy({ $0.isHexDigit })
        else { return nil }
        return (isOld, pid)
    }

    /// Whether no process with this id exists here (`kill(pid, 0)` says `ESRCH`; `EPERM` means it exists).
    static func processIsGone(_ pid: pid_t) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }
}

/// An exclusive, non-blocking `flock` on a directory, held until ``release()`` or deinit: how an export marks the
/// directories it is working in. Where the file system refuses `flock` the lock is simply not held (the process id
/// in the directory's name still protects it within this PID namespace).
final class DirectoryLock {
    private var fd: Int32

    /// Tries to lock `path` (never following a symlink); see ``isHeld``.
    init(_ path: String) {
        fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            fd = -1
        }
    }

    /// Whether this process now holds the lock.
    var isHeld: Bool { fd >= 0 }

    /// Whether some other open file description holds a `flock` on `path` (a live export).
    static func isHeld(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Releases the lock now.
    func release() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    deinit { release() }
}

extension String {
    /// The path without a trailing `/` (except for `/` itself, which becomes empty, ready for `+ "/" + name`).
    fileprivate var withTrailingSlashDropped: String {
        var path = self
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
