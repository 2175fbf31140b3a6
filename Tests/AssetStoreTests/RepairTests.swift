import Foundation
import Glibc
import Testing

@testable import AssetStore

/// What can sit where a blob belongs instead of the blob.
enum NonFile: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case emptyDirectory, directoryWithFiles, fifo, symlink, danglingSymlink

    var testDescription: String { rawValue }

    /// Puts it at `path` (a blob's path whose file was removed); `scratch` holds a symlink's target.
    func make(at path: String, scratch: String) throws {
        switch self {
        case .emptyDirectory:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .directoryWithFiles:
            try FileManager.default.createDirectory(atPath: path + "/nested", withIntermediateDirectories: true)
            try writeFile(path + "/nested/file", [1, 2, 3])
            #expect(Glibc.symlink("/etc/passwd", path + "/link") == 0)
        case .fifo: #expect(mkfifo(path, 0o644) == 0)
        case .symlink:
            try writeFile(scratch + "/decoy", [7])
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: scratch + "/decoy")
        case .danglingSymlink:
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: scratch + "/nothing")
        }
    }
}

/// Repairs that finish: whatever damage a blob suffered, storing its content again leaves a store `verify` finds
/// clean, and gc leaves it spotless.
struct RepairTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var damage: NonFile
        var files: TemporaryFiles
        var testDescription: String { "\(damage) (\(files))" }
    }

    static let cases = NonFile.allCases.flatMap { damage in
        TemporaryFiles.allCases.map { Case(damage: damage, files: $0) }
    }

    @Test(arguments: cases)
    func aNonFileAtABlobPathIsMovedAsideWhenTheBlobIsStoredAgain(_ testCase: Case) throws {
        let directory = TemporaryDirectory()
        let scratch = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        testCase.files.apply(to: store)
        let bytes = pseudoRandomBytes(5_000, seed: 11)
        let url = "https://repair.test/hero.png"
        let blob = try ingest(store, url: url, bytes)
        let path = store.blobPath(blob.sha256)
        try FileManager.default.removeItem(atPath: path)
        try testCase.damage.make(at: path, scratch: scratch.path)
        #expect(!(try store.verify().isClean))

        // No read first: the commit itself finds the non-file in its way.
        try ingest(store, url: url, bytes)
        #expect(try store.read(blob).bytes == bytes)
        let report = try store.verify()
        #expect(report.isClean, "\(report.problems.map(\.message))")
        #expect(report.problems.allSatisfy { $0.kind == .strayTempFile })
        _ = try store.gc(orphanGrace: .zero)
        #expect(try store.verify().isSpotless)
        #expect(entries(of: directory.path + "/tmp").isEmpty)
        #expect(FileManager.default.fileExists(atPath: "/etc/passwd"), "a link inside is removed, not followed")
        if testCase.damage == .symlink { #expect(fileBytes(scratch.path + "/decoy") == [7]) }
    }

    @Test(arguments: NonFile.allCases)
    func readingMovesANonFileAsideSoTheNextFetchCanStoreTheBlob(_ damage: NonFile) throws {
        let directory = TemporaryDirectory()
        let scratch = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let bytes = Array("the real picture".utf8)
        let blob = try ingest(store, url: "https://repair.test/a", bytes)
        let path = store.blobPath(blob.sha256)
        try FileManager.default.removeItem(atPath: path)
        try damage.make(at: path, scratch: scratch.path)
        guard case .damaged = try store.read(blob) else {
            Issue.record("\(damage) was not reported as damage")
            return
        }
        var info = stat()
        #expect(lstat(path, &info) != 0, "the blob's path is free again")
        #expect(try store.path(blob) == .missing)
        try ingest(store, url: "https://repair.test/a", bytes)
        #expect(try store.verify().isClean)
    }

    @Test(arguments: NonFile.allCases)
    func gcRemovesNonFilesNamedLikeBlobsAndKeepsOtherFiles(_ damage: NonFile) throws {
        let directory = TemporaryDirectory()
        let scratch = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let blob = try ingest(store, url: "https://repair.test/b", [1, 2, 3, 4])
        let path = store.blobPath(blob.sha256)
        try FileManager.default.removeItem(atPath: path)
        try damage.make(at: path, scratch: scratch.path)
        let notes = store.objectsDirectory + "/" + blob.sha256.prefix(2) + "/README"
        try writeFile(notes, Array("not the store's".utf8))
        let report = try store.gc(orphanGrace: .zero)
        #expect(report.removedNonFiles == 1)
        #expect(report.droppedRecords == 1, "its record named a blob that was not there")
        var info = stat()
        #expect(lstat(path, &info) != 0)
        #expect(fileBytes(notes) == Array("not the store's".utf8), "a file not named like a blob is left alone")
        let verify = try store.verify()
        #expect(verify.isClean && verify.problems.map(\.kind) == [.unexpectedFile])
    }

    @Test(arguments: BlobTamper.allCases, TemporaryFiles.allCases)
    func aTamperedBlobStoredAgainWithoutAReadLeavesVerifyClean(_ tamper: BlobTamper, _ files: TemporaryFiles) throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        files.apply(to: store)
        let bytes = pseudoRandomBytes(70_000, seed: 5)
        let url = "https://repair.test/c"
        let blob = try ingest(store, url: url, bytes)
        try tamper.apply(to: store.blobPath(blob.sha256))
        // The same content again, under another URL, with no read first: the commit finds the damaged copy in its
        // way (a flipped byte keeps the size, so only its hash tells) and renames the good one over it.
        try ingest(store, url: "https://mirror.repair.test/c", bytes)
        try ingest(store, url: url, bytes)
        #expect(try store.read(blob).bytes == bytes)
        #expect(try store.verify().isSpotless)
    }
}
