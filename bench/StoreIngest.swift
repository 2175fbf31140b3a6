// bench/StoreIngest.swift — the store-ingest side of `make bench` item e.
//
// There is no CLI command that ingests a local file (blobs arrive through prefetch), so bench/run.sh compiles this
// file with swiftc -O against the release build's AssetStore, Findings and StrictJSON objects: it is the same code
// the CLI runs, without a bench-only product in Package.swift.
//
// Usage: store-ingest STORE FILE...
// Streams each FILE into a new blob of the store at STORE the way a download does: read() into one reused 256 KiB
// buffer (as libcurl hands its buffer to the write callback), each piece fed to BlobWriter.write while it is still
// in cache, then commit (SHA-256, temporary file, fsync, link); prints "<sha256>  FILE" like sha256sum.
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
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 4096)
            defer { buffer.deallocate() }
            for path in arguments[2...] {
                let fd = open(path, O_RDONLY)
                guard fd >= 0 else { fail("store-ingest: cannot open \(path)") }
                defer { close(fd) }
                let writer = try store.beginBlob()
                // One buffer, reused, as libcurl hands its buffer to the write callback (and as sha256sum reads): the
                // piece just read is hashed and then written while it is in cache, and 256 KiB pieces reach the
                // writer's no-copy path. An earlier driver mapped the file instead; measured side by side, the
                // mapping's page faults cost about 3% less than this read's copy, but a download has that copy too.
                while true {
                    let got = read(fd, buffer.baseAddress, buffer.count)
                    if got < 0 && errno == EINTR { continue }
                    guard got >= 0 else { fail("store-ingest: cannot read \(path)") }
                    if got == 0 { break }
                    try writer.write(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
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
