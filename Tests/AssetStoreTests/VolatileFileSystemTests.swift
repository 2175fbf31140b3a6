import Foundation
import Testing

@testable import AssetStore

/// On tmpfs and ramfs `fsync` is a no-op, and the store skips it there (blobs, fan-out directories, the log). Which
/// file system a store is on is held to `stat -f` (coreutils) as the oracle; a store on tmpfs must work as any.
@Suite struct VolatileFileSystemTests {
    /// `stat -f -c %T DIR`: the file system type's name (`tmpfs`, `ext2/ext3`, `overlayfs`, …).
    static func fileSystemType(_ directory: String) -> String {
        run("/usr/bin/stat", ["-f", "-c", "%T", directory]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: ["/dev/shm", "/tmp", FileManager.default.currentDirectoryPath])
    func theStoreKnowsWhetherItsFileSystemIsVolatile(_ parent: String) throws {
        var isDirectory: ObjCBool = false
        try #require(FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) && isDirectory.boolValue)
        let directory = parent + "/inbox-assets-volatile-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try AssetStore(directory: directory, batching: .run)
        let expected = ["tmpfs", "ramfs"].contains(Self.fileSystemType(parent))
        #expect(store.objectsVolatile == expected, "\(parent) is \(Self.fileSystemType(parent))")
        #expect(store.indexVolatile == expected)

        // Batched records, a flush, and a second store reading it all back, verified.
        var blobs: [BlobRef] = []
        for index in 0..<300 {
            let blob = try store.put(bytes: Array("blob \(index)".utf8))
            try store.record(
                url: "https://cdn.example.com/\(index).png",
                entry: StoreEntry(
                    blob: blob, contentType: "image/png", etag: nil, lastModified: nil, cacheControl: nil,
                    fetchedAt: Date(), httpStatus: 200))
            blobs.append(blob)
        }
        #expect(store.flush().isEmpty)
        let reader = try AssetStore(directory: directory)
        for (index, blob) in blobs.enumerated() {
            #expect(try reader.lookup("https://cdn.example.com/\(index).png")?.blob == blob)
            #expect(try reader.read(blob) == .intact(Array("blob \(index)".utf8)))
        }
    }
}
