import AssetStore
import Foundation
import Glibc
import Testing

/// A small tmpfs mounted for one test (root in the sandbox), unmounted when the value goes away.
final class TmpfsMount {
    let directory = TemporaryDirectory()
    var path: String { directory.path }

    init(size: String) throws {
        let result = run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", directory.path])
        guard result.status == 0 else { throw MountUnavailable() }
    }

    func remount(readOnly: Bool) -> Bool {
        run("/bin/mount", ["-o", readOnly ? "remount,ro" : "remount,rw", directory.path]).status == 0
    }

    deinit { run("/bin/umount", ["-l", directory.path]) }

    struct MountUnavailable: Error {}

    /// Whether this sandbox lets the tests mount a tmpfs (checked once).
    static let available: Bool = (try? TmpfsMount(size: "64k")) != nil
}

@Suite(
    .serialized,
    .enabled(if: TmpfsMount.available, "mount -t tmpfs is not permitted here, so no read-only or full file system"))
struct FaultTests {
    @Test func readOnlyStoreGivesAClearErrorAndWritesNothing() throws {
        let mount = try TmpfsMount(size: "4m")
        let store = try AssetStore(directory: mount.path + "/store")
        let url = "https://ro.test/a.png"
        let blob = try ingest(store, url: url, pseudoRandomBytes(10_000, seed: 1))
        let logPath = mount.path + "/store/index/records.log"
        let logBefore = fileBytes(logPath)
        #expect(mount.remount(readOnly: true))
        defer { _ = mount.remount(readOnly: false) }

        #expect(throws: StoreError(.readOnly, "")) { try store.beginBlob() }
        // A deferred writer finds out when its bytes must reach the disk.
        let deferred = try store.beginBlob(deferred: true)
        try deferred.write([1, 2, 3])
        #expect(throws: StoreError(.readOnly, "")) { try deferred.commit() }
        #expect(throws: StoreError(.readOnly, "")) { try store.put(bytes: [1, 2, 3]) }
        #expect(throws: StoreError(.readOnly, "")) { try store.record(url: "https://ro.test/b", entry: entry(blob)) }
        #expect(throws: StoreError(.readOnly, "")) { try store.touch(url) }
        do {
            _ = try store.beginBlob()
        } catch {
            #expect(error.message.contains("Read-only file system"))
            #expect(error.path?.hasPrefix(mount.path + "/store/tmp/") == true)
        }

        // Nothing half-written, and everything that only reads still works.
        #expect(entries(of: mount.path + "/store/tmp").isEmpty)
        #expect(fileBytes(logPath) == logBefore)
        let reopened = try AssetStore(directory: mount.path + "/store")
        #expect(try reopened.lookup(url)?.blob == blob)
        #expect(try reopened.read(blob).bytes == pseudoRandomBytes(10_000, seed: 1))
        #expect(try reopened.verify().isSpotless)
        let out = TemporaryDirectory()
        #expect(try reopened.export(urls: [url], to: out.path + "/e").assets.count == 1)
    }

    @Test func fullDiskGivesAClearErrorAndRemovesTheTemporaryFile() throws {
        let mount = try TmpfsMount(size: "1m")
        let store = try AssetStore(directory: mount.path + "/store")
        let writer = try store.beginBlob()
        var failure: StoreError?
        let chunk = pseudoRandomBytes(64 * 1024, seed: 3)
        for _ in 0..<40 where failure == nil {
            do { try writer.write(chunk) } catch { failure = error }
        }
        if failure == nil {
            do { _ = try writer.commit() } catch { failure = error }
        }
        #expect(failure?.code == .noSpace)
        #expect(failure?.message.contains("No space left on device") == true)
        #expect(entries(of: mount.path + "/store/tmp").isEmpty)
        #expect(throws: StoreError(.writerFinished, "")) { try writer.write([1]) }

        #expect(throws: StoreError(.noSpace, "")) { try store.put(bytes: pseudoRandomBytes(3_000_000, seed: 4)) }
        #expect(entries(of: mount.path + "/store/tmp").isEmpty)

        // An export that runs out of space leaves the earlier export as it was and no staging directory.
        let small = try ingest(store, url: "https://full.test/tiny.png", [9, 9])
        let target = mount.path + "/export"
        _ = try store.export(urls: ["https://full.test/tiny.png"], to: target)
        let manifestBefore = fileBytes(target + "/manifest.json")
        let big = try ingest(store, url: "https://full.test/big.mp4", pseudoRandomBytes(600_000, seed: 5))
        #expect(throws: StoreError(.noSpace, "")) {
            try store.export(urls: ["https://full.test/tiny.png", "https://full.test/big.mp4"], to: target)
        }
        #expect(entries(of: mount.path) == ["export", "store"])
        #expect(fileBytes(target + "/manifest.json") == manifestBefore)
        try store.remove("https://full.test/big.mp4")
        #expect(try store.gc(orphanGrace: .zero).removedOrphans == 1)
        #expect(try store.read(small).bytes == [9, 9] && big.size == 600_000)

        // The space came back: the store still works.
        let blob = try ingest(store, url: "https://full.test/small", [1, 2, 3])
        #expect(try store.read(blob).bytes == [1, 2, 3])
        #expect(try store.verify().isSpotless)
    }
}
