import AssetStore
import HTTPFetch
import Synchronization

/// Streams a GET's body into the store through a ``BlobWriter`` (a buffer of up to 256 KiB, sized to the
/// `Content-Length`, then a temporary file), so memory stays bounded whatever the size; a body over the request's
/// limit stops the transfer (`too-large`) before it can fill the disk.
///
/// The engine calls `begin`/`write`/`finish`/`abort` on its thread; the retriever calls ``commit()`` after the
/// outcome, on its own task, so the `fsync` and link never stall the engine's other transfers. The writer is
/// deferred: a body that fits its buffer costs the engine's thread no system call at all (the temporary file is
/// created by ``commit()``); a larger one gets its file when the buffer first fills. `BlobWriter` is
/// not Sendable, so it lives behind a `Mutex`: the engine and the retriever never touch it at the same time
/// (the retriever commits only after the engine returned the outcome), the lock just makes that visible to
/// the compiler.
///
/// The body is hashed once, by the engine, which hashes exactly the bytes it hands to ``write(_:)`` since the last
/// ``begin(contentLength:)`` and reports that digest to ``finish(sha256:bytes:)``: the blob writer is begun without
/// hashing and named by that digest at ``commit()``. (It used to hash everything again; on 10,000 small images that
/// was 46 MB of SHA-256 on the engine's thread for nothing.) Every read and `store verify` re-hash the blob, so a
/// wrong digest could never be served, only found.
final class StoreSink: FetchSink {
    private struct State {
        var writer: BlobWriter?
        var failure: StoreError?
        var received: (sha256: String, bytes: Int)?
    }

    private let store: AssetStore
    /// The most body bytes accepted (`nil`: no limit); one more stops the transfer as `too-large` and removes what
    /// reached the disk, so an endless body cannot fill it.
    private let limit: Int?
    private let state = Mutex(State())

    init(store: AssetStore, limit: Int?) {
        self.store = store
        self.limit = limit
    }

    /// The store error that stopped the transfer (a full disk, a read-only store), if any.
    var failure: StoreError? { state.withLock { $0.failure } }

    func begin(contentLength: Int?) throws {
        if let limit, let contentLength, contentLength > limit { throw SinkCapacityExceeded(limit: limit) }
        try state.withLock { (state) throws(StoreError) in
            state.writer?.abort()
            state.writer = nil
            state.received = nil
            do throws(StoreError) {
                // Deferred: the engine's thread only copies a small body into the writer's buffer; the temporary
                // file is created, written, fsync'd and linked by commit(), on the retriever's task.
                state.writer = try store.beginBlob(hashing: false, sizeHint: contentLength, deferred: true)
            } catch {
                state.failure = error
                throw error
            }
        }
    }

    func write(_ chunk: UnsafeRawBufferPointer) throws {
        // The engine's buffer is valid for this call only and is read synchronously under the lock, never kept.
        // Region checking cannot see that a non-Sendable pointer used inside `withLock` does not escape into the
        // state, so the buffer crosses as its address and length.
        let address = UInt(bitPattern: chunk.baseAddress)
        let count = chunk.count
        let limit = self.limit
        try state.withLock { (state) throws in
            guard let writer = state.writer else { return }
            if let limit, writer.size + count > limit {
                writer.abort()  // removes the temporary file now, not when the transfer is torn down
                state.writer = nil
                throw SinkCapacityExceeded(limit: limit)
            }
            do throws(StoreError) {
                try writer.write(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: count))
            } catch {
                state.failure = error
                state.writer = nil  // the writer already removed its temporary file
                throw error
            }
        }
    }

    func finish(sha256: String, bytes: Int) throws {
        state.withLock { $0.received = (sha256, bytes) }
    }

    func abort() {
        state.withLock { state in
            state.writer?.abort()
            state.writer = nil
        }
    }

    /// Installs the finished body as a blob (fsync, rename). Call once, after an ok outcome.
    /// - Returns: the blob, or `nil` when no body was received.
    /// - Throws: ``StoreError`` when the disk fails, or when the bytes written differ from the bytes the engine
    ///   counted (the temporary file is removed either way).
    func commit() throws(StoreError) -> BlobRef? {
        try state.withLock { (state) throws(StoreError) -> BlobRef? in
            guard let writer = state.writer, let received = state.received else { return nil }
            state.writer = nil
            guard writer.size == received.bytes else {
                writer.abort()
                throw StoreError(
                    .ioFailure, "the store got \(writer.size) bytes but \(received.bytes) arrived; not stored")
            }
            let blob: BlobRef
            do throws(StoreError) {
                blob = try writer.commit(sha256: received.sha256)
            } catch {
                state.failure = error
                throw error
            }
            return blob
        }
    }
}
