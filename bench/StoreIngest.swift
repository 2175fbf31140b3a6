// bench/StoreIngest.swift — the store-ingest side of `make bench` item e.
//
// There is no CLI command that ingests a local file (blobs arrive through prefetch), so bench/run.sh compiles this
// file with swiftc -O against the release build's AssetStore, Findings and StrictJSON objects: it is the same code
// the CLI runs, without a bench-only product in Package.swift.
//
// Usage: store-ingest STORE FILE...
// Streams each FILE into a new blob of the store at STORE the way a download does (256 KiB pieces of the mapped file
// fed to BlobWriter.write, then commit: SHA-256, temporary file, fsync, rename); prints "<sha256>  FILE" like
// sha256sum.
import AssetStore
import Glibc

@main
enum StoreIngest {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3 else {
            fail("usage: store-ingest STORE FILE...", status: 2)
        }
        do {
            let store = try AssetStore(directory: arguments[1])
            for path in arguments[2...] {
                let fd = open(path, O_RDONLY)
                var status = stat()
                guard fd >= 0, fstat(fd, &status) == 0 else { fail("store-ingest: cannot open \(path)") }
                defer { close(fd) }
                let size = Int(status.st_size)
                let writer = try store.beginBlob()
                if size > 0 {
                    // The file is mapped, not read(): in the product the bytes arrive in memory from libcurl, so
                    // an extra kernel copy into a read buffer would be the driver's cost, not the store's.
                    guard let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapping != MAP_FAILED else {
                        fail("store-ingest: cannot map \(path)")
                    }
                    defer { munmap(mapping, size) }
                    let bytes = UnsafeRawBufferPointer(start: mapping, count: size)
                    // 256 KiB pieces: the size of the writer's own buffer.
                    var offset = 0
                    while offset < size {
                        let end = min(offset + 256 * 1024, size)
                        try writer.write(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                        offset = end
                    }
                }
                let blob = try writer.commit()
                print("\(blob.sha256)  \(path)")
            }
        } catch {
            fail("store-ingest: \(error)")
        }
    }

    /// Writes `message` to standard error (fd 2: Swift 6 refuses the shared C `stderr` variable) and exits.
    static func fail(_ message: String, status: Int32 = 1) -> Never {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(status)
    }
}
