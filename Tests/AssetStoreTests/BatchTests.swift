import Foundation
import Glibc
import Synchronization
import Testing

@testable import AssetStore

/// Batched index records (``RecordBatching``), unnamed temporary files and single hashing.
struct BatchTests {
    /// A batch that only an explicit flush (or a full batch) ends.
    static let manual = RecordBatching(maxRecords: 1_000, maxDelay: .seconds(3_600))

    @Test func batchedRecordsAreSeenByTheirStoreAtOnceAndByOthersAfterTheFlush() throws {
        let directory = TemporaryDirectory()
        let writer = try AssetStore(directory: directory.path, batching: Self.manual)
        let reader = try AssetStore(directory: directory.path)
        let blobs = try (0..<3).map { try ingest(writer, url: "https://b.test/\($0)", [UInt8($0), 1, 2]) }
        #expect(try writer.lookup("https://b.test/1")?.blob == blobs[1])
        #expect(try writer.list().count == 3)
        #expect(try reader.list().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/index/records.log"))

        #expect(writer.flush().isEmpty)
        #expect(try reader.list().map(\.url) == (0..<3).map { "https://b.test/\($0)" })
        #expect(try reader.read(blobs[2]).bytes == [2, 1, 2])
        // The writer's own view went on from its append without re-reading it, and still sees later records.
        try ingest(reader, url: "https://b.test/other", [9])
        #expect(try writer.list().count == 4)
        #expect(writer.flush().isEmpty)
        #expect(try writer.verify().isSpotless)
    }

    /// Many URLs looked up at once give what one lookup each gives, another process's appends included.
    @Test func aLookupOfManyURLsAnswersAsOneLookupEach() throws {
        let directory = TemporaryDirectory()
        let writer = try AssetStore(directory: directory.path, batching: Self.manual)
        let other = try AssetStore(directory: directory.path)
        let blobs = try (0..<4).map { try ingest(writer, url: "https://b.test/\($0)", [UInt8($0)]) }
        let theirs = try ingest(other, url: "https://b.test/theirs", [7])
        try writer.remove("https://b.test/2")
        let urls = [
            "https://b.test/3", "https://b.test/none", "https://b.test/0", "https://b.test/2",
            "https://b.test/theirs", "https://b.test/0",
        ]
        let many = try writer.lookup(urls)
        #expect(try many == urls.map { try writer.lookup($0) })
        #expect(many.map { $0?.blob } == [blobs[3], nil, blobs[0], nil, theirs, blobs[0]])
        #expect(try writer.lookup([]).isEmpty)
    }

    @Test func waitingRecordsStayOnTopOfWhatOthersAppendMeanwhile() throws {
        let directory = TemporaryDirectory()
        let writer = try AssetStore(directory: directory.path, batching: Self.manual)
        let other = try AssetStore(directory: directory.path)
        let url = "https://b.test/contested"
        let mine = try ingest(writer, url: url, [1])
        // Another process records the same URL after this one did, but appends first.
        let theirs = try ingest(other, url: url, [2])
        #expect(try writer.lookup(url)?.blob == mine)
        #expect(try other.lookup(url)?.blob == theirs)
        #expect(writer.flush().isEmpty)
        // In the log this store's record comes last, so it wins everywhere, in this store's own view too.
        #expect(try writer.lookup(url)?.blob == mine)
        #expect(try other.lookup(url)?.blob == mine)
        #expect(try AssetStore(directory: directory.path).lookup(url)?.blob == mine)
    }

    @Test func aFullBatchIsAppendedWithoutAFlush() throws {
        let directory = TemporaryDirectory()
        let writer = try AssetStore(
            directory: directory.path, batching: RecordBatching(maxRecords: 4, maxDelay: .seconds(3_600)))
        let reader = try AssetStore(directory: directory.path)
        for index in 0..<3 { try ingest(writer, url: "https://b.test/\(index)", [UInt8(index)]) }
        #expect(try reader.list().isEmpty)
        try ingest(writer, url: "https://b.test/3", [3])
        #expect(try reader.list().count == 4)
        try writer.touch("https://b.test/0")
        try writer.remove("https://b.test/1")
        #expect(try writer.lookup("https://b.test/1") == nil)
        #expect(try reader.lookup("https://b.test/1") != nil)
        #expect(writer.flush().isEmpty)
        #expect(try reader.lookup("https://b.test/1") == nil)
    }

    /// Full batches are appended outside the index's mutex, so threads go on recording and looking up while one
    /// appends: every record still reaches the log once, batches in the order they were taken (the newest record of
    /// a URL wins in every store's view), and each thread sees its own records at once throughout.
    @Test func threadsRecordingWhileABatchIsAppendedLoseNothingAndKeepTheOrder() throws {
        let directory = TemporaryDirectory()
        let writer = try AssetStore(
            directory: directory.path, batching: RecordBatching(maxRecords: 8, maxDelay: .seconds(3_600)))
        let threads = 4
        let rounds = 60
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            do {
                for round in 0..<rounds {
                    let url = "https://b.test/\(thread)/\(round)"
                    let blob = try ingest(writer, url: url, [UInt8(thread), UInt8(round), 1])
                    // Each thread also rewrites one URL of its own, so only the order of batches decides what wins.
                    try ingest(writer, url: "https://b.test/\(thread)/latest", [UInt8(thread), UInt8(round), 2])
                    if try writer.lookup(url)?.blob != blob {
                        failures.withLock { $0.append("\(url) not seen by its own store") }
                    }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(writer.flush().isEmpty)
        let reader = try AssetStore(directory: directory.path)
        #expect(try reader.list().count == threads * (rounds + 1))
        for thread in 0..<threads {
            let latest = try reader.lookup("https://b.test/\(thread)/latest")
            #expect(try latest.map { try reader.read($0.blob).bytes } == [UInt8(thread), UInt8(rounds - 1), 2])
            #expect(try writer.lookup("https://b.test/\(thread)/latest") == latest)
        }
        // Clean: every record's blob is there and intact (the rewritten URL's earlier blobs are orphans for gc).
        let report = try reader.verify()
        #expect(report.isClean && report.entriesChecked == threads * (rounds + 1))
        // The writer, still open, holds them against another store's gc; its own gc removes them.
        #expect(try reader.gc(orphanGrace: .zero).keptHeld == threads * (rounds - 1))
        #expect(try writer.gc(orphanGrace: .zero).removedOrphans == threads * (rounds - 1))
        #expect(try reader.verify().isSpotless)
    }

    @Test func anOldBatchIsAppendedWithTheNextRecord() throws {
        let directory = TemporaryDirectory()
        // No delay allowed: every record finds the batch old enough (no clock in the test).
        let writer = try AssetStore(
            directory: directory.path, batching: RecordBatching(maxRecords: 1_000, maxDelay: .zero))
        let reader = try AssetStore(directory: directory.path)
        try ingest(writer, url: "https://b.test/a", [1])
        #expect(try reader.list().count == 1)
    }

    @Test func verifyGCAndStatsFlushFirst() throws {
        let directory = TemporaryDirectory()
        let writer = try AssetStore(directory: directory.path, batching: Self.manual)
        try ingest(writer, url: "https://b.test/a", [1])
        #expect(try writer.stats().entries == 1)
        try ingest(writer, url: "https://b.test/b", [2])
        // gc would call the waiting record's blob an orphan if it read the log without it.
        #expect(try writer.gc(orphanGrace: .zero).removedOrphans == 0)
        try ingest(writer, url: "https://b.test/c", [3])
        let report = try writer.verify()
        #expect(report.isSpotless && report.entriesChecked == 3)
        #expect(try AssetStore(directory: directory.path).list().count == 3)
    }

    @Test func aBlobRemovedBeforeTheFlushIsReportedAndNeverRecorded() throws {
        let directory = TemporaryDirectory()
        let writer = try AssetStore(directory: directory.path, batching: Self.manual)
        let kept = try ingest(writer, url: "https://b.test/kept", [1])
        let lost = try ingest(writer, url: "https://b.test/lost", [2, 2])
        // Another store's gc, even without grace, keeps the unflushed records' blobs: the writer holds them.
        #expect(try AssetStore(directory: directory.path).gc(maxBytes: 0, orphanGrace: .zero).keptHeld == 2)
        #expect(FileManager.default.fileExists(atPath: writer.blobPath(lost.sha256)))
        // So only blobs removed behind the store's back (by hand, a failing disk) are missing at the flush.
        for blob in [kept, lost] { try FileManager.default.removeItem(atPath: writer.blobPath(blob.sha256)) }
        let unrecorded = writer.flush()
        #expect(unrecorded.map(\.url).sorted() == ["https://b.test/kept", "https://b.test/lost"])
        #expect(unrecorded.allSatisfy { $0.error.code == .blobMissing })
        #expect(try writer.lookup("https://b.test/lost") == nil)
        #expect(try writer.verify().isSpotless)
        // Fetching again stores it.
        try ingest(writer, url: "https://b.test/lost", [2, 2])
        #expect(writer.flush().isEmpty)
        #expect(try AssetStore(directory: directory.path).lookup("https://b.test/lost")?.blob == lost)
    }

    @Test func aStoreLetGoFlushesItsBatch() throws {
        let directory = TemporaryDirectory()
        do {
            let writer = try AssetStore(directory: directory.path, batching: Self.manual)
            try ingest(writer, url: "https://b.test/a", [1])
        }
        #expect(try AssetStore(directory: directory.path).list().count == 1)
    }

    @Test func batchesLargerThanOneWriteStayWhole() throws {
        let directory = TemporaryDirectory()
        let writer = try AssetStore(directory: directory.path, batching: Self.manual)
        let blob = try writer.put(bytes: [7])
        // 300 records of ~1 KB: several 64 KiB writes in one flush.
        let urls = (0..<300).map { "https://b.test/\($0)?" + String(repeating: "q", count: 900) }
        for url in urls { try writer.record(url: url, entry: entry(blob)) }
        #expect(writer.flush().isEmpty)
        let report = try AssetStore(directory: directory.path).verify()
        #expect(report.isSpotless && report.entriesChecked == 300 && report.recordsChecked == 300)
    }

    @Test(arguments: TemporaryFiles.allCases)
    func everyWayOfStagingABlobRoundTrips(_ files: TemporaryFiles) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        files.apply(to: store)
        let bytes = pseudoRandomBytes(300_000, seed: 5)
        let blob = try ingest(store, url: "https://b.test/a", bytes, chunk: 70_000)
        #expect(try store.read(blob).bytes == bytes)
        // The same content again: already there, the second copy is dropped.
        #expect(try ingest(store, url: "https://b.test/b", bytes) == blob)
        // A damaged copy (wrong size) is replaced atomically.
        let path = store.blobPath(blob.sha256)
        try writeFile(path, [1, 2, 3])
        #expect(try ingest(store, url: "https://b.test/c", bytes) == blob)
        #expect(fileBytes(path) == bytes)
        #expect(entries(of: directory.path + "/tmp").isEmpty)
        #expect(try store.verify().isSpotless)
    }

    /// `put(bytes:)` writes what fills its 4 KiB buffer straight from the caller's bytes, and a slice from the middle
    /// of a larger array: every size around the buffer's stores exactly its bytes under their SHA-256.
    @Test(arguments: [0, 1, 4_095, 4_096, 4_097, 16 << 10, 300_000])
    func aPutOfBytesAtHandStoresExactlyThem(size: Int) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let around = pseudoRandomBytes(size + 20, seed: UInt64(size))
        let bytes = around[7..<(7 + size)]
        let blob = try store.put(bytes: bytes)
        #expect(blob.size == size)
        #expect(blob.sha256 == (try coreutilsSHA256(Array(bytes))))
        #expect(try store.read(blob).bytes == Array(bytes))
        #expect(try store.put(bytes: Array(bytes)) == blob)
    }

    @Test func aWriterThatDoesNotHashIsNamedByTheCallersDigest() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let bytes = pseudoRandomBytes(100_000, seed: 8)
        let digest = try coreutilsSHA256(bytes)
        let writer = try store.beginBlob(hashing: false)
        try writer.write(bytes)
        let blob = try writer.commit(sha256: digest)
        #expect(blob.sha256 == digest && blob.size == bytes.count)
        #expect(try store.read(blob).bytes == bytes)

        let unnamed = try store.beginBlob(hashing: false)
        try unnamed.write([1])
        #expect(throws: StoreError(.invalidArgument, "")) { try unnamed.commit() }
        let malformed = try store.beginBlob(hashing: false)
        try malformed.write([1])
        #expect(throws: StoreError(.invalidArgument, "")) { try malformed.commit(sha256: "../../etc/passwd") }
        // A writer that hashes checks a digest it is given.
        let checked = try store.beginBlob()
        try checked.write([1])
        #expect(throws: StoreError(.ioFailure, "")) { try checked.commit(sha256: digest) }
        #expect(try store.stats().blobs == 1)
        #expect(entries(of: directory.path + "/tmp").isEmpty)
    }

    @Test(arguments: [
        "https://a.test/plain.png", "https://a.test/q?\"quoted\"&back\\slash", "tab\tnew\nline\rcr\u{1}\u{1F}\u{7F}",
        "ünïcödé/日本/🎉", "",
    ])
    func putRecordsAreWrittenExactlyAsTheJSONEncoderWritesThem(text: String) throws {
        let blob = try #require(BlobRef(sha256: String(repeating: "0f", count: 32), size: 12))
        let entries = [
            StoreEntry(
                blob: blob, contentType: text, etag: "W/\"\(text)\"", lastModified: nil, cacheControl: text,
                fetchedAt: Date(timeIntervalSince1970: 1_790_000_000.123), httpStatus: 203),
            StoreEntry(blob: blob, fetchedAt: Date(timeIntervalSince1970: -5)),
        ]
        for entry in entries {
            let record = IndexRecord.put(url: "u" + text, entry: entry, accessedAt: -1)
            #expect(IndexCodec.encode(record) == IndexCodec.line(IndexCodec.encodedJSON(record)))
            var state = IndexState()
            _ = IndexCodec.parse(IndexCodec.encode(record), base: 0, into: &state, final: true)
            #expect(state.entries["u" + text]?.entry == entry && state.damage.isEmpty)
        }
    }

    @Test(arguments: [TemporaryFiles.named, .unnamed], [0, 10, 5_000, 300_000])
    func aDeferredWriterCreatesItsFileOnlyWhenItMust(_ files: TemporaryFiles, size: Int) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        files.apply(to: store)
        let bytes = pseudoRandomBytes(size, seed: UInt64(size))
        // The hint says 5,000 bytes: the 300,000-byte body overflows the small buffer and needs the file early.
        let writer = try store.beginBlob(sizeHint: 5_000, deferred: true)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 16_384)
            try writer.write(bytes[offset..<end])
            offset = end
        }
        let fileExpected = files == .named && size > 5_000
        #expect(entries(of: directory.path + "/tmp").count == (fileExpected ? 1 : 0))
        let blob = try writer.commit()
        let digest = try coreutilsSHA256(bytes)
        #expect(blob.size == size && blob.sha256 == digest)
        #expect(try store.read(blob).bytes == bytes)
        try store.record(url: "https://b.test/deferred", entry: entry(blob))
        #expect(entries(of: directory.path + "/tmp").isEmpty)
        // Abandoned before and after the file exists: nothing stays behind.
        for written in [10, 300_000] {
            let abandoned = try store.beginBlob(sizeHint: 100, deferred: true)
            try abandoned.write(pseudoRandomBytes(written, seed: 3))
            abandoned.abort()
        }
        #expect(entries(of: directory.path + "/tmp").isEmpty)
        #expect(try store.verify().isSpotless)
    }
}
