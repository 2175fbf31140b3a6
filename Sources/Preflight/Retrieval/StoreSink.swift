import AssetStore
import HTTPFetch
import Synchronization

/// Streams a GET's body into the store through a ``BlobWriter`` (256 KiB buffer, temporary file), so memory
/// stays bounded whatever the size.
///
/// The engine calls `begin`/`write`/`finish`/`abort` on its thread; the retriever calls ``commit()`` after the
/// outcome, on its own task, so the `fsync` and rename never stall the engine's other transfers. `BlobWriter` is
/// not Sendable, so it lives behind a `Mutex`: the engine and the retriever never touch it at the same time
/// (the retriever commits only after the engine returned the outcome), the lock just makes that visible to
/// the compiler.
///
/// The body is hashed twice: by the engine (for ``FetchOutcome/sha256``) and by the blob writer (which names the
/// blob by its own hash and cannot be handed one, so a wrong hash can never name a blob). SHA-256 with the CPU's
/// SHA extensions runs at well over 1 GB/s, far above any download, so the second hash costs CPU, not time;
/// ``commit()`` compares both hashes.
final class StoreSink: FetchSink {
    private struct State {
        var writer: BlobWriter?
        var failure: StoreError?
        var received: (sha256: String, bytes: Int)?
    }

    private let store: AssetStore
    private let state = Mutex(State())

    init(store: AssetStore) { self.store = store }

    /// The store error that stopped the transfer (a full disk, a read-only store), if any.
    var failure: StoreError? { state.withLock { $0.failure } }

    func begin(contentLength: Int?) throws {
        try state.withLock { (state) throws(StoreError) in
            state.writer?.abort()
            state.writer = nil
            state.received = nil
            do throws(StoreError) {
                state.writer = try store.beginBlob()
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
        try state.withLock { (state) throws(StoreError) in
            guard let writer = state.writer else { return }
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
    ///   counted and hashed (the temporary file is removed either way).
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
                blob = try writer.commit()
            } catch {
                state.failure = error
                throw error
            }
            guard blob.sha256 == received.sha256 else {
                // Cannot happen unless memory is corrupted; the blob itself is named by its real content.
                throw StoreError(.ioFailure, "the stored body's SHA-256 differs from the one received")
            }
            return blob
        }
    }
}
