import AssetStore
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The child side of the crash tests: the test binary re-run with these variables set ingests into a
/// store until it is killed (or 20 seconds pass, so a lost child never runs forever).
enum CrashChild {
    static let storeVariable = "ASSETSTORE_TEST_CHILD_STORE"
    static let seedVariable = "ASSETSTORE_TEST_CHILD_SEED"
    static let batchVariable = "ASSETSTORE_TEST_CHILD_BATCH"
    static var storeDirectory: String? { getenv(storeVariable).map { String(cString: $0) } }

    /// Content every child also writes, so kills land in the existing-blob path too.
    static let sharedSize = 200_000
    static let sharedSeed: UInt64 = 7

    /// The URL says how to regenerate its bytes, so the parent can check any entry that survived.
    static func url(seed: UInt64, item: Int, size: Int, contentSeed: UInt64) -> String {
        "https://crash.test/\(seed)/\(item).bin?size=\(size)&seed=\(contentSeed)&token=t"
    }

    static func expectedBytes(for url: String) -> [UInt8]? {
        guard let query = url.split(separator: "?").last else { return nil }
        var fields: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let size = fields["size"].flatMap({ Int($0) }), let seed = fields["seed"].flatMap({ UInt64($0) }) else {
            return nil
        }
        return pseudoRandomBytes(size, seed: seed)
    }

    /// Starts the test binary as a child that runs only ``CrashTests/childIngestsUntilKilled()``.
    /// - Parameter batch: the child's ``RecordBatching/maxRecords`` (1 = immediate appends).
    static func spawn(store: String, seed: Int, batch: Int = 1) throws -> RunningChild {
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["--testing-library", "swift-testing", "--filter", "childIngestsUntilKilled"]
        var environment = ProcessInfo.processInfo.environment
        environment[storeVariable] = store
        environment[seedVariable] = String(seed)
        environment[batchVariable] = String(batch)
        process.environment = environment
        let pipe = Spawning.pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try Spawning.run(process)
        return RunningChild(process: process, output: pipe.fileHandleForReading)
    }
}

struct RunningChild: @unchecked Sendable {
    let process: Process
    let output: FileHandle

    /// Waits (off the test pool) until the child says it opened the store; `false` if it exited first.
    func waitUntilReady() async -> Bool {
        let child = self
        return await Child.offThePool { child.blockUntilReady() }
    }

    private func blockUntilReady() -> Bool {
        var seen = ""
        while !seen.contains("ready-to-ingest\n") {
            let data = output.availableData
            if data.isEmpty { return false }
            seen += String(decoding: data, as: UTF8.self)
        }
        return true
    }

    /// Waits for the ready line, sleeps `delay` µs and SIGKILLs the child, all on one Dispatch thread: the delay
    /// must not stretch while the test pool is busy (the child stops by itself after 20 s).
    /// - Returns: `nil` when the child exited before it was ready; else whether the kill found it still working.
    func killWhenReady(afterMicroseconds delay: UInt32) async -> Bool? {
        let child = self
        return await Child.offThePool {
            guard child.blockUntilReady() else { return nil }
            usleep(delay)
            return child.kill()
        }
    }

    /// SIGKILLs the child; `true` when it died of that signal (it was still working).
    func kill() -> Bool {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }
}

@Suite(.ownThread)
struct CrashTests {
    @Test(.enabled(if: CrashChild.storeDirectory != nil, "runs only inside the child process of the crash tests"))
    func childIngestsUntilKilled() throws {
        guard let directory = CrashChild.storeDirectory else { return }
        let batch = getenv(CrashChild.batchVariable).map { String(cString: $0) }.flatMap { Int($0) } ?? 1
        let store = try AssetStore(
            directory: directory, batching: RecordBatching(maxRecords: batch, maxDelay: .seconds(3_600)))
        let seed = UInt64(getenv(CrashChild.seedVariable).map { String(cString: $0) }.flatMap { UInt64($0) } ?? 0)
        var random = pseudoRandomBytes(8 * 4_096, seed: seed).makeIterator()
        func next(_ bound: Int) -> Int {
            var value = 0
            for _ in 0..<3 { value = value << 8 | Int(random.next() ?? 0) }
            return value % bound
        }
        FileHandle.standardOutput.write(Data("ready-to-ingest\n".utf8))
        let deadline = Date().addingTimeInterval(20)
        var item = 0
        while Date() < deadline && item < 4_000 {
            let shared = item % 4 == 3
            let size = shared ? CrashChild.sharedSize : next(600_000)
            let contentSeed = shared ? CrashChild.sharedSeed : seed * 100_000 + UInt64(item)
            let url = CrashChild.url(seed: seed, item: item, size: size, contentSeed: contentSeed)
            do {
                try ingest(store, url: url, pseudoRandomBytes(size, seed: contentSeed), chunk: 1 + next(120_000))
                if item % 5 == 4 {
                    try store.touch(CrashChild.url(seed: seed, item: item - 2, size: 0, contentSeed: 0))
                }
                if item % 7 == 6 { try store.remove(url) }
            } catch let error as StoreError where error.code == .blobMissing {
                // A concurrent gc removed the just-committed blob before the record: the invariant held.
            }
            item += 1
        }
    }

    @Test func killedAtRandomMomentsTheStoreStaysVerifiable() async throws {
        let directory = TemporaryDirectory()
        var roundsWithDebris = 0
        for round in 0..<24 {
            // Every other child batches its records (8 a batch): a kill then also lands mid-batch, losing the
            // records not yet appended (their blobs become orphans), never leaving a record without its blob.
            let child = try CrashChild.spawn(store: directory.path, seed: round, batch: round % 2 == 0 ? 8 : 1)
            let delay = UInt32.random(in: 0..<250_000)
            let killed = await child.killWhenReady(afterMicroseconds: delay)
            try #require(killed != nil, "child did not start")
            #expect(killed == true, "round \(round): the child finished before the kill at \(delay) µs")
            let report = try AssetStore(directory: directory.path).verify()
            #expect(report.isClean, "round \(round), killed after \(delay) µs: \(report.problems.map(\.message))")
            if !report.isSpotless { roundsWithDebris += 1 }
        }
        // Killing mid-write or mid-batch leaves debris (an orphan, a torn record, a named temporary file) now and
        // then; had no kill ever hit a write, this test would not have tested anything.
        #expect(roundsWithDebris > 0)

        let store = try AssetStore(directory: directory.path)
        let survivors = try store.list()
        #expect(!survivors.isEmpty)
        for listed in survivors {
            #expect(
                try store.read(listed.entry.blob).bytes == CrashChild.expectedBytes(for: listed.url), "\(listed.url)")
        }
        _ = try store.gc(orphanGrace: .zero)
        #expect(try store.verify().isSpotless)
        // A re-run completes.
        let rerun = pseudoRandomBytes(300_000, seed: 12_345)
        let blob = try ingest(store, url: "https://crash.test/rerun", rerun)
        #expect(try store.read(blob).bytes == rerun)
        #expect(try store.verify().isSpotless)
    }

    @Test func twoProcessesAndAConcurrentGCKeepOneStoreConsistent() async throws {
        let directory = TemporaryDirectory()
        let children = try [(100, 1), (101, 5)].map { try CrashChild.spawn(store: directory.path, seed: $0, batch: $1) }
        for child in children { try #require(await child.waitUntilReady(), "child did not start") }
        let store = try AssetStore(directory: directory.path)
        // At least 12 rounds, and on until the children have recorded something: on a loaded machine they may
        // take a while to write their first entries, and a test whose writers wrote nothing tests nothing.
        let deadline = Date().addingTimeInterval(15)
        var rounds = 0
        while try rounds < 12 || (store.list().isEmpty && Date() < deadline) {
            rounds += 1
            await Child.pause(seconds: 0.04)
            // The most aggressive gc there is: no grace for orphans, a tight budget.
            _ = try store.gc(maxBytes: 4_000_000, orphanGrace: .zero)
            let live = try store.verify()
            #expect(live.isClean, "while writing: \(live.problems.map(\.message))")
        }
        for child in children { #expect(child.kill()) }
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems.map(\.message))")
        #expect(report.entriesChecked > 0)
        for listed in try store.list() {
            #expect(
                try store.read(listed.entry.blob).bytes == CrashChild.expectedBytes(for: listed.url), "\(listed.url)")
        }
        _ = try store.gc(orphanGrace: .zero)
        #expect(try store.verify().isSpotless)
    }

    @Test func aReaderInAnotherProcessSeesEachFlushedBatchWithItsBlobs() async throws {
        let directory = TemporaryDirectory()
        let child = try CrashChild.spawn(store: directory.path, seed: 200, batch: 6)
        try #require(await child.waitUntilReady(), "child did not start")
        let reader = try AssetStore(directory: directory.path)
        var sightings = 0
        var seen = 0
        let deadline = Date().addingTimeInterval(15)
        while sightings < 5 && Date() < deadline {
            let listed = try reader.list()
            if listed.count > seen {
                sightings += 1
                seen = listed.count
                for entry in listed.suffix(3) {
                    #expect(
                        try reader.read(entry.entry.blob).bytes == CrashChild.expectedBytes(for: entry.url),
                        "\(entry.url)")
                }
            }
            await Child.pause(seconds: 0.02)
        }
        #expect(child.kill())
        #expect(sightings == 5, "the reader saw the index grow \(sightings) times")
        #expect(try reader.verify().isClean)
    }
}
