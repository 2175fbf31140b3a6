import Glibc

/// Streams one blob into the store: bytes are hashed (SHA-256) as they arrive and written through a
/// 256 KiB buffer to a unique file in `STORE/tmp/`, so memory stays bounded whatever the size.
///
/// ``commit()`` fsyncs the file and renames it to `objects/sha256/ab/<hex>` (an existing blob of the same
/// size means the content is already there: the temporary file is dropped). ``abort()`` — or letting the
/// writer go without committing — removes the temporary file. Any write failure (a full disk, an I/O
/// error) removes the temporary file before the error is thrown, so nothing half-written stays behind.
///
/// While it exists the writer holds an exclusive `flock` on its temporary file: that is how `gc` and
/// `verify` tell a live download from the debris of a killed process (a file nobody holds locked).
///
/// Not Sendable: one writer is fed by one thread at a time (it owns a file descriptor, an OpenSSL digest
/// context and a buffer). Hand it to another thread by transferring it (`sending`), not by sharing it.
public final class BlobWriter {
    private enum State { case open, committed, aborted }

    private let store: AssetStore
    private let tempPath: String
    private var fd: Int32
    private let hasher: SHA256Hasher
    private let buffer: UnsafeMutableRawBufferPointer
    private var buffered = 0
    private var state = State.open

    /// Bytes written so far.
    public private(set) var size = 0

    init(store: AssetStore) throws(StoreError) {
        self.store = store
        let hasher = try SHA256Hasher()
        let path = store.tempDirectory + "/blob-\(getpid())-\(FileSystem.randomToken())"
        // The store lock keeps gc from judging the file stray between its creation and its flock.
        let lock = try store.lock(exclusive: false)
        let fd = try FileSystem.open(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o444, operation: "create temp file")
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            close(fd)
            unlink(path)
            throw StoreError.system("lock temp file", path: path, errno: failure)
        }
        lock?.release()
        self.hasher = hasher
        self.tempPath = path
        self.fd = fd
        self.buffer = .allocate(byteCount: FileSystem.chunkSize, alignment: 16)
    }

    deinit {
        if state == .open { discard() }
        buffer.deallocate()
    }

    /// Appends bytes to the blob.
    /// - Throws: ``StoreError`` when the disk refuses them (the temporary file is already removed), or
    ///   `.writerFinished` after ``commit()``/``abort()``/a failure.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(StoreError) {
        guard state == .open else { throw finished() }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        hasher.update(bytes)
        size += bytes.count
        do throws(StoreError) {
            if buffered == 0 && bytes.count >= buffer.count {
                // Nothing pending and a whole buffer's worth: write it as it is (no copy; found by make bench).
                try FileSystem.writeAll(fd, base, bytes.count, path: tempPath)
            } else if buffered + bytes.count <= buffer.count {
                (buffer.baseAddress! + buffered).copyMemory(from: base, byteCount: bytes.count)
                buffered += bytes.count
                if buffered == buffer.count { try flush() }
            } else {
                try flush()
                if bytes.count >= buffer.count {
                    try FileSystem.writeAll(fd, base, bytes.count, path: tempPath)  // big chunk: no copy
                } else {
                    buffer.baseAddress!.copyMemory(from: base, byteCount: bytes.count)
                    buffered = bytes.count
                }
            }
        } catch {
            discard()
            throw error
        }
    }

    /// Appends bytes to the blob. See ``write(_:)-(UnsafeRawBufferPointer)``.
    public func write(_ bytes: [UInt8]) throws(StoreError) {
        try withBytes(bytes) { (raw) throws(StoreError) in try write(raw) }
    }

    /// Appends bytes to the blob. See ``write(_:)-(UnsafeRawBufferPointer)``.
    public func write(_ bytes: ArraySlice<UInt8>) throws(StoreError) {
        try withBytes(bytes) { (raw) throws(StoreError) in try write(raw) }
    }

    /// Makes the blob durable and addressable: flush, `fsync`, rename into `objects/sha256/ab/<hex>`,
    /// `fsync` of the directory. Record the URL with ``AssetStore/record(url:entry:)`` afterwards.
    /// - Returns: the blob's hash and size.
    /// - Throws: ``StoreError`` when the disk fails (the temporary file is removed).
    public func commit() throws(StoreError) -> BlobRef {
        guard state == .open else { throw finished() }
        do throws(StoreError) {
            try flush()
            try FileSystem.sync(fd, path: tempPath)
            let blob = BlobRef(trusted: hasher.finish(), size: size)
            try store.install(tempPath: tempPath, blob: blob)
            state = .committed
            close(fd)
            fd = -1
            return blob
        } catch {
            discard()
            throw error
        }
    }

    /// Gives up on the blob and removes the temporary file. Safe to call more than once.
    public func abort() {
        if state == .open { discard() }
    }

    private func flush() throws(StoreError) {
        guard buffered > 0 else { return }
        try FileSystem.writeAll(fd, buffer.baseAddress!, buffered, path: tempPath)
        buffered = 0
    }

    private func discard() {
        state = .aborted
        unlink(tempPath)
        if fd >= 0 { close(fd) }
        fd = -1
    }

    private func finished() -> StoreError {
        StoreError(.writerFinished, "the blob writer was already committed or aborted", path: tempPath)
    }
}
