import Glibc
import Synchronization

/// What one ``AssetStore`` holds against gc: its lease file in `STORE/leases/` and the blobs named in it.
///
/// ## Why
/// Two runs share a store; one finds a blob the other wrote already there and is about to record it (or to read it,
/// or to copy it into an export) when `store gc --max-size` in a third process evicts the other run's entry and, with
/// it, the blob. Orphan grace does not help (the blob is referenced, so it is evicted, not orphaned), and the run
/// failed with `asset.storeFailed` — housekeeping failing a job. So every store names, in a file of its own, each blob
/// it commits or reads, and gc never removes a blob that a live process names, nor evicts an entry that uses one.
///
/// ## The protocol
/// - The file is `STORE/leases/PID-TOKEN`: one line per blob (its 64 hex digits), appended (`O_APPEND`), each blob
///   once. Its process holds an exclusive `flock` on it for as long as the store is open, which is how gc tells a
///   live lease from one a killed process left (nobody holds it: gc removes it). It is created under the shared store
///   lock, so gc (which holds the lock exclusively) never sees it between its creation and its `flock`. The lock is
///   held on a read-only descriptor and each line written through one opened for it: a store kept open is no file
///   open for writing (which would keep its file system from being remounted read-only).
/// - A blob another process may remove (one found already in the store, one about to be read) is named under the
///   shared store lock: gc, which reads the leases under the exclusive lock, either ran before — and whatever it
///   removed is found missing afterwards: a miss, fetched again — or runs after and keeps it.
/// - A new blob is named before it is linked into `objects/`, without the lock: gc reads the leases after it has
///   listed the blobs, so any blob it saw linked was already named.
/// - The file is removed when the store is released, or at `exit` (so a CLI run that exits with its store open
///   leaves nothing), and by gc when its process is gone.
///
/// A store that cannot create its lease file (a read-only store, another user's) holds nothing. It writes no records
/// either, so no record of its can lose its blob; what it reads, it reads as before: a blob gc removed first is a miss.
struct LeaseState {
    /// The lease file, open read-only and `flock`'d, or -1 before the first blob.
    var fd: Int32 = -1
    /// `STORE/leases/`, open while the lease file exists.
    var directoryFD: Int32 = -1
    /// The lease file's name in it, and its path, while it exists.
    var name = ""
    var path: String?
    /// The blobs named in it.
    var held: Set<String> = []
    /// The lease file could not be created: nothing is held (and nothing is tried again).
    var unavailable = false
}

extension AssetStore {
    /// How a caller of ``hold(_:ordering:)`` makes sure gc sees the lease before it could remove the blob.
    enum HoldOrdering {
        /// The caller holds the store lock (shared): gc cannot be between reading the leases and removing blobs.
        case locked
        /// The blob becomes visible in `objects/` only after this returns (a new blob, about to be linked): gc lists
        /// the blobs before it reads the leases, so no lock is needed for the line.
        case beforeLink
        /// Anything else (a blob about to be read): the line is written under the shared store lock.
        case lockIfNeeded
    }

    /// Names `sha256` in this store's lease file, so that no gc in another process removes the blob (or evicts an
    /// entry that uses it) while this store is open. Best effort: a store that cannot keep a lease holds nothing.
    func hold(_ sha256: String, ordering: HoldOrdering) {
        let (known, open) = leases.withLock { ($0.held.contains(sha256) || $0.unavailable, $0.fd >= 0) }
        if known { return }
        var lock: FileLock?
        if ordering == .lockIfNeeded || (ordering == .beforeLink && !open) {
            // Creating the lease file always needs the lock (gc must never find it before its flock).
            guard let taken = try? self.lock(exclusive: false) else {
                // No lock file (a read-only store that never had one), or none to be had: nothing can be held.
                leases.withLock { $0.unavailable = true }
                return
            }
            lock = taken
        }
        defer { lock?.release() }
        leases.withLock { state in
            guard !state.unavailable, !state.held.contains(sha256) else { return }
            if state.fd < 0 && !openLease(&state) { return }
            // A lease that cannot grow (a full disk) protects what it names already; the rest is not held.
            if append(sha256, to: state) { state.held.insert(sha256) }
        }
    }

    /// One line, written whole (one `write` of 65 bytes with `O_APPEND`).
    private func append(_ sha256: String, to state: LeaseState) -> Bool {
        let fd = Glibc.openat(state.directoryFD, state.name, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let line = Array((sha256 + "\n").utf8)
        return line.withUnsafeBytes { raw in
            (try? FileSystem.writeAll(fd, raw.baseAddress!, raw.count, path: state.path ?? "")) != nil
        }
    }

    /// Creates and locks the lease file (the caller holds the store lock, and the ``leases`` mutex). On failure nothing
    /// is held from now on.
    private func openLease(_ state: inout LeaseState) -> Bool {
        state.unavailable = true
        guard (try? FileSystem.makeDirectories(leasesDirectory)) != nil,
            let directory = try? FileSystem.open(leasesDirectory, O_RDONLY | O_DIRECTORY, operation: "open directory")
        else { return false }
        let name = "\(getpid())-\(FileSystem.randomToken())"
        let fd = Glibc.openat(directory, name, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0, flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            if fd >= 0 {
                close(fd)
                unlinkat(directory, name, 0)
            }
            close(directory)
            return false
        }
        let path = leasesDirectory + "/" + name
        LeaseRegistry.add(path)
        state = LeaseState(fd: fd, directoryFD: directory, name: name, path: path)
        return true
    }

    /// Removes the lease file: nothing is held any more (the store is being released).
    func releaseLease() {
        leases.withLock { state in
            guard let path = state.path else { return }
            unlink(path)
            close(state.fd)
            close(state.directoryFD)
            LeaseRegistry.remove(path)
            state = LeaseState()
        }
    }

    /// The blobs every other live store holds, read by gc under the exclusive store lock; lease files whose process
    /// is gone (nobody holds their `flock`) are removed on the way. The store running gc does not hold against itself:
    /// it flushed its own records first, and what it reads meanwhile it reads after gc, as a miss.
    func heldByOthers() -> Set<String> {
        let own = leases.withLock { $0.path }
        var held: Set<String> = []
        for name in ((try? FileSystem.list(leasesDirectory)) ?? []).sorted() {
            let path = leasesDirectory + "/" + name
            guard path != own else { continue }
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else {
                // A symlink is nobody's lease. (Gone meanwhile: its store was released.)
                if errno == ELOOP { unlink(path) }
                continue
            }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, FileSystem.isRegularFile(info) else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                unlink(path)  // its process is gone (killed before it could remove it)
                continue
            }
            guard let bytes = try? FileSystem.readRange(fd, from: 0, count: Int(info.st_size), path: path) else {
                continue
            }
            for line in bytes.split(separator: 0x0a) {
                let sha256 = String(decoding: line, as: UTF8.self)
                if Hex.isDigest(sha256) { held.insert(sha256) }
            }
        }
        return held
    }
}

/// The lease files of this process's open stores, removed at `exit`: the CLI exits with its store still open (its
/// deinit never runs), and a lease left behind would hold its blobs until a gc noticed its process was gone.
enum LeaseRegistry {
    private static let paths = Mutex<Set<String>>([])
    private static let installed = Atomic(false)

    static func add(_ path: String) {
        if !installed.exchange(true, ordering: .relaxed) {
            atexit {
                // Never blocks an exit: a lease another thread is registering right now is left for gc.
                _ = LeaseRegistry.paths.withLockIfAvailable { paths in
                    for path in paths { unlink(path) }
                }
            }
        }
        paths.withLock { _ = $0.insert(path) }
    }

    static func remove(_ path: String) {
        paths.withLock { _ = $0.remove(path) }
    }
}
