import FixtureServer
import Foundation
import HTTPFetch
import TestSupport
import Testing

/// The generic action-cache API of ``RemoteCache`` (records under `/ac/{hex key}`, blobs under `/cas/{sha256}`)
/// against nginx as a WebDAV store: what the pass verdict cache and the asset tier both build on.
@Suite("Remote cache client against nginx WebDAV", .ownThread)
struct RemoteCacheTests {
    @Test func recordsAndBlobsRoundTripAndAMissIsNotAFailure() async throws {
        let nginx = try await Nginx(mode: .webDAV(extra: ""))
        let cache = RemoteCache(options: RemoteCacheOptions(url: nginx.url("bazel/")))
        let key = RemoteCache.key("verdict|pass-sha256|anchors|v1")
        #expect(key.count == 64)
        #expect(await cache.get(.action(key)) == nil, "a miss before any PUT")
        let record = Array("{\"verdict\":\"valid\"}".utf8)
        #expect(await cache.putNow(.action(key), body: .bytes(record)))
        #expect(await cache.get(.action(key)) == record)

        let blob = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let file = nginx.root + "/upload.bin"
        try Data(blob).write(to: URL(fileURLWithPath: file))
        let expected = try await Child.sha256sum(file)
        cache.put([(.blob(expected), .file(file)), (.action(key), .bytes(record))])
        #expect(await cache.finishUploads(within: 30) == 0)
        let sink = MemorySink()
        let read = await cache.get(.blob(expected), into: sink, maxBytes: nil)
        #expect(read == .hit(bytes: blob.count, sha256: expected))
        #expect(sink.bytes == blob)
        #expect(await cache.get(.blob(String(repeating: "0", count: 64)), into: MemorySink(), maxBytes: nil) == .miss)
        #expect(cache.problem == nil)
        #expect(cache.uploadedCount == 3)
        let log = try nginx.accessLog()
        #expect(log.filter { $0.contains(" PUT /bazel/") }.count == 3, "\(log)")
    }

    @Test func aBodyOverTheLimitIsCutOffWithoutDisablingTheRemote() async throws {
        let nginx = try await Nginx(
            files: ["c/cas/" + String(repeating: "a", count: 64): Array(repeating: 7, count: 5000)],
            mode: .webDAV(extra: ""))
        let cache = RemoteCache(options: RemoteCacheOptions(url: nginx.url("c")))
        let read = await cache.get(.blob(String(repeating: "a", count: 64)), into: MemorySink(), maxBytes: 100)
        guard case .hit(let bytes, let sha256) = read else {
            Issue.record("expected a cut-off hit, got \(read)")
            return
        }
        #expect(bytes > 100 && bytes <= 5000, "counted past the limit, then cut off")
        #expect(sha256.isEmpty, "no digest for bytes that were not kept")
        #expect(cache.problem == nil, "a too-large answer is this entry's problem, not the remote's")
        #expect(await cache.putNow(.action("k"), body: .bytes([1])))
    }

    @Test func anUploadWhoseFileIsGoneSkipsItsRecordAndKeepsTheRemote() async throws {
        let nginx = try await Nginx(mode: .webDAV(extra: ""))
        let cache = RemoteCache(options: RemoteCacheOptions(url: nginx.url("c")))
        let blob = String(repeating: "b", count: 64)
        cache.put([(.blob(blob), .file(nginx.root + "/no-such-file")), (.action("k1"), .bytes([1]))])
        #expect(await cache.finishUploads(within: 30) == 0)
        #expect(cache.problem == nil, "a local read failure is not the remote's")
        #expect(await cache.get(.action("k1")) == nil, "no record without its blob")
        #expect(await cache.putNow(.action("k2"), body: .bytes([2])), "uploads still work")
    }

    @Test func aBatchReadAnswersEveryPathInOrderWithOneRequestEach() async throws {
        let records = (0..<40).map { index in (RemoteCache.key("url \(index)"), Array("{\"n\":\(index)}".utf8)) }
        // Every third record exists; the rest are misses. One oversized entry is no answer either.
        var files: [String: [UInt8]] = [:]
        for (index, (key, bytes)) in records.enumerated() where index % 3 == 0 { files["b/ac/" + key] = bytes }
        files["b/ac/big"] = Array(repeating: 65, count: 5000)
        let nginx = try await Nginx(files: files, mode: .webDAV(extra: ""))
        let cache = RemoteCache(options: RemoteCacheOptions(url: nginx.url("b"), readConnections: 4))
        let paths = records.map { RemotePath.action($0.0) } + [.action("big")]
        let answers = await cache.getAll(paths, maxBytes: 1000)
        #expect(answers.count == paths.count)
        for (index, (_, bytes)) in records.enumerated() {
            #expect(answers[index] == (index % 3 == 0 ? bytes : nil), "record \(index)")
        }
        #expect(answers.last == .some(nil), "an entry over maxBytes is not returned cut off")
        #expect(cache.problem == nil, "misses and a too-large entry are not the remote's failure")
        // The oversized entry's read is cut off by the client: nginx logs it once it notices, maybe a moment later.
        let gets = try nginx.accessLog(atLeast: paths.count).filter { $0.contains(" GET /b/ac/") }
        #expect(gets.count == paths.count, "one request per path: \(gets.count)")
        #expect(await cache.getAll([]) == [])
        // The same loop still serves single and blocking reads.
        #expect(await cache.get(.action(records[0].0)) == records[0].1)
        let key = records[3].0
        let blocking = await Task.detached { cache.getWaiting(.action(key)) }.value
        #expect(blocking == records[3].1)
    }

    /// A remote that stalls: the first wave of reads times out, and nothing more is asked of it — the queued rest of
    /// the batch, and every later read, answer at once without a request.
    @Test func aFailingRemoteIsAskedNoMoreOnceAReadFailed() async throws {
        let server = try FixtureServer(root: FileManager.default.temporaryDirectory.path, httpsPort: nil)
        defer { server.stop() }
        let cache = RemoteCache(
            options: RemoteCacheOptions(url: server.url("/delay/8000/status/404"), timeout: 1, readConnections: 3))
        let paths = (0..<30).map { RemotePath.action(RemoteCache.key("u\($0)")) }
        let answers = await cache.getAll(paths)
        #expect(answers.allSatisfy { $0 == nil })
        #expect(cache.problem?.hasPrefix("GET /ac/… failed") == true, "\(cache.problem ?? "no problem")")
        #expect(await cache.get(paths[0]) == nil)
        #expect(
            await cache.get(.blob(String(repeating: "c", count: 64)), into: MemorySink(), maxBytes: nil) == .unavailable
        )
        #expect(
            server.stats.totalRequests <= 3, "only the first wave reached the remote: \(server.stats.totalRequests)")
    }

    /// Many batches and single reads at once from many tasks share the one loop; each gets its own answers.
    @Test func concurrentBatchesGetTheirOwnAnswers() async throws {
        var files: [String: [UInt8]] = [:]
        for index in 0..<60 { files["c/ac/k\(index)"] = Array("record \(index)".utf8) }
        let nginx = try await Nginx(files: files, mode: .webDAV(extra: ""))
        let cache = RemoteCache(options: RemoteCacheOptions(url: nginx.url("c"), readConnections: 5))
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for batch in 0..<6 {
                group.addTask {
                    let indices = (0..<60).filter { $0 % 6 == batch } + [1000 + batch]
                    let answers = await cache.getAll(indices.map { .action("k\($0)") })
                    return zip(indices, answers).filter { index, answer in
                        answer != (index < 60 ? Array("record \(index)".utf8) : nil)
                    }.count
                }
                group.addTask { await cache.get(.action("k\(batch)")) == Array("record \(batch)".utf8) ? 0 : 1 }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(cache.problem == nil)
    }
}
