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
}
