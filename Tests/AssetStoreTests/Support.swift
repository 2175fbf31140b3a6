import Foundation
import Glibc
import TestSupport
import Testing

@testable import AssetStore

/// A fresh directory under /tmp, removed (with everything in it) when the value goes away.
final class TemporaryDirectory: Sendable {
    let path: String

    init() {
        var template = Array("/tmp/assetstore-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(errno)")
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        _ = run("/bin/chmod", ["-R", "u+w", path])
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Deterministic pseudo-random bytes (SplitMix64), so a test — or a parent process — can regenerate
/// exactly what was stored from the seed alone.
func pseudoRandomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed &+ 0x9E37_79B9_7F4A_7C15)
    var bytes = [UInt8](repeating: 0, count: count)
    var index = 0
    while index < count {
        let z = generator.next()
        for shift in stride(from: 0, to: 64, by: 8) where index < count {
            bytes[index] = UInt8(truncatingIfNeeded: z >> UInt64(shift))
            index += 1
        }
    }
    return bytes
}

/// SHA-256 as coreutils computes it: an oracle independent of the code under test.
func coreutilsSHA256(_ bytes: [UInt8]) throws -> String {
    let scratch = TemporaryDirectory()
    let path = scratch.path + "/data"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let output = run("/usr/bin/sha256sum", [path]).output
    return String(output.prefix(64))
}

/// Runs a command; returns its exit status and standard output.
@discardableResult
func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Spawning.pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try Spawning.run(process) } catch { return (-1, "") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

func fileBytes(_ path: String) -> [UInt8] {
    (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    _ = chmod(path, 0o644)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

func entries(of directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// An entry for `blob` with plausible HTTP metadata.
func entry(
    _ blob: BlobRef, contentType: String? = "image/png", etag: String? = "\"v1\"", cacheControl: String? = nil,
    fetchedAt: Date = Date(timeIntervalSince1970: 1_790_000_000)
) -> StoreEntry {
    StoreEntry(
        blob: blob, contentType: contentType, etag: etag, lastModified: "Wed, 21 Oct 2026 07:28:00 GMT",
        cacheControl: cacheControl, fetchedAt: fetchedAt, httpStatus: 200)
}

/// Stores `bytes` for `url` the way the fetch engine does: stream, commit, record.
@discardableResult
func ingest(_ store: AssetStore, url: String, _ bytes: [UInt8], chunk: Int = 10_000) throws -> BlobRef {
    let writer = try store.beginBlob()
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunk)
        try writer.write(bytes[offset..<end])
        offset = end
    }
    let blob = try writer.commit()
    try store.record(url: url, entry: entry(blob))
    return blob
}

extension BlobRead {
    var bytes: [UInt8]? {
        if case .intact(let bytes) = self { return bytes }
        return nil
    }
}

/// How blobs are staged before they enter `objects/`: the code paths a test can force on a store.
enum TemporaryFiles: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// `O_TMPFILE`, linked with `AT_EMPTY_PATH` (the default on Linux 6.10+).
    case unnamed
    /// `O_TMPFILE`, linked through `/proc/self/fd/N` (older kernels).
    case unnamedThroughProc
    /// A named, flock'd file in `tmp/`, renamed into place (file systems without `O_TMPFILE`).
    case named

    var testDescription: String { rawValue }

    func apply(to store: AssetStore) {
        store.anonymousTemporaryFiles.store(self != .named, ordering: .relaxed)
        store.linkByDescriptor.store(self == .unnamed, ordering: .relaxed)
    }
}
