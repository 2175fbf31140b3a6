import AssetStore
import Foundation
import StrictJSON
import Testing

/// `inbox-assets store …` against a store filled through the library.
struct StoreCLITests {
    func makeStore() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-store-cli-\(UUID())").path
        let store = try AssetStore(directory: directory)
        for (index, url) in ["https://cdn.example.com/a.png?token=SECRET", "https://cdn.example.com/b.jpg"].enumerated()
        {
            let blob = try store.put(bytes: Array(repeating: UInt8(index), count: 1000 * (index + 1)))
            let entry = StoreEntry(
                blob: blob, headers: [HTTPHeaderField(name: "Content-Type", value: "image/png")], httpStatus: 200,
                fetchedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
            try store.record(url: url, entry: entry)
        }
        return directory
    }

    @Test func statsListAndVerifyCleanStore() async throws {
        let directory = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stats = try await CLI.run(["store", "stats", "--store", directory, "--format", "json"])
        #expect(stats.status == 0)
        #expect(try JSON.parse(stats.stdout)["entries"] == 2)
        let list = try await CLI.run(["store", "ls", "--store", directory])
        #expect(list.status == 0)
        #expect(list.stdout.contains("https://cdn.example.com/a.png?token=REDACTED"))
        #expect(!list.stdout.contains("SECRET"))
        #expect(list.stdout.hasSuffix("2 entries\n"))
        let verify = try await CLI.run(["store", "verify", "--store", directory])
        #expect(verify.status == 0)
        #expect(verify.stdout.hasPrefix("clean: 2 blobs"))
    }

    @Test func verifyFindsATamperedBlobAndExits1() async throws {
        let directory = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try AssetStore(directory: directory)
        let entry = try #require(try store.lookup("https://cdn.example.com/b.jpg"))
        let path = store.blobPath(entry.blob.sha256)
        chmod(path, 0o644)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 10)
        handle.write(Data([0xFF]))
        try handle.close()
        let verify = try await CLI.run(["store", "verify", "--store", directory, "--format", "json"])
        #expect(verify.status == 1)
        let report = try JSON.parse(verify.stdout)
        #expect(report["clean"] == false)
        #expect(report["problems"]?[0]?["code"] == "store.blobHashMismatch")
    }

    @Test func gcWithABudgetEvictsLeastRecentlyUsed() async throws {
        let directory = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let gc = try await CLI.run(["store", "gc", "--store", directory, "--max-size", "2K", "--format", "json"])
        #expect(gc.status == 0)
        let report = try JSON.parse(gc.stdout)
        #expect(report["evicted"] == ["https://cdn.example.com/a.png?token=REDACTED"])
        #expect(
            try JSON.parse(try await CLI.run(["store", "stats", "--store", directory, "--format", "json"]).stdout)[
                "entries"]
                == 1)
    }

    @Test func unopenableStoreIsExit2() async throws {
        let result = try await CLI.run(["store", "gc", "--store", "/proc/version/x"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: cannot open the store:"))
        let stats = try await CLI.run(["store", "stats", "--store", "/proc/version/x"])
        #expect(stats.status == 2)
        #expect(stats.stderr.hasPrefix("Error: no store at /proc/version/x (not a directory);"))
    }
}
