import Foundation
import Glibc
import StrictJSON
import TestSupport
import Testing

@testable import AssetStore

/// Something that may already sit at an export's `--out` path.
enum ExistingTarget: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case regularFile, fifo, socket, characterDevice, danglingSymlink, symlinkToFile, symlinkToFIFO,
        directoryWithOtherFiles
    case manifestIsAFIFO, manifestIsADirectory

    var testDescription: String { rawValue }

    /// Makes it at `path` (with helpers in `scratch`); `false` when this machine cannot (mknod without privilege).
    func make(at path: String, scratch: String) throws -> Bool {
        switch self {
        case .regularFile: try writeFile(path, Array("precious".utf8))
        case .fifo: #expect(mkfifo(path, 0o644) == 0)
        case .socket:
            let made = run(
                "/usr/bin/python3", ["-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", path])
            return made.status == 0
        case .characterDevice:
            return mknod(path, S_IFCHR | 0o666, dev_t(0x103)) == 0  // 1:3, what /dev/null is
        case .danglingSymlink:
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: scratch + "/nothing")
        case .symlinkToFile:
            try writeFile(scratch + "/file", Array("precious".utf8))
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: scratch + "/file")
        case .symlinkToFIFO:
            #expect(mkfifo(scratch + "/fifo", 0o644) == 0)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: scratch + "/fifo")
        case .directoryWithOtherFiles:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            try writeFile(path + "/notes.txt", Array("precious".utf8))
        case .manifestIsAFIFO:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            #expect(mkfifo(path + "/manifest.json", 0o644) == 0)
        case .manifestIsADirectory:
            try FileManager.default.createDirectory(atPath: path + "/manifest.json", withIntermediateDirectories: true)
        }
        return true
    }
}

/// `lstat` fields that show whether a path was replaced: type, inode, size.
func identity(_ path: String) -> [UInt64] {
    var info = stat()
    guard lstat(path, &info) == 0 else { return [] }
    return [UInt64(info.st_mode), UInt64(info.st_ino), UInt64(info.st_size)]
}

struct ExportSafetyTests {
    @Test(arguments: ExistingTarget.allCases)
    func anExistingTargetThatIsNotAnExportIsRefusedAndLeftAsItIs(_ kind: ExistingTarget) throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let scratch = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        try ingest(store, url: "https://a.test/one.png", [1, 2, 3])
        let target = out.path + "/bundle"
        guard try kind.make(at: target, scratch: scratch.path) else { return }  // mknod not permitted here
        let before = identity(target)
        let scratchBefore = entries(of: scratch.path).map { identity(scratch.path + "/" + $0) }
        do {
            _ = try store.export(urls: ["https://a.test/one.png"], to: target)
            Issue.record("\(kind) at the target was accepted")
        } catch {
            #expect([.outputNotEmpty, .outputNotADirectory].contains(error.code), "\(error)")
            #expect(error.message.contains(target), "\(error.message)")
        }
        #expect(identity(target) == before, "the target is never replaced")
        #expect(entries(of: scratch.path).map { identity(scratch.path + "/" + $0) } == scratchBefore)
        #expect(entries(of: out.path) == ["bundle"], "no staging directory is left behind")
    }

    @Test(arguments: [false, true])
    func aSymlinkToADirectoryIsFollowedAndStaysALink(earlierExport: Bool) throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let real = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        try ingest(store, url: "https://a.test/one.png", [1, 2, 3])
        try ingest(store, url: "https://a.test/two.png", [4, 5])
        let bundle = real.path + "/bundle"
        if earlierExport {
            _ = try store.export(urls: ["https://a.test/one.png"], to: bundle)
        } else {
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: false)
        }
        let link = out.path + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: bundle)
        let result = try store.export(urls: ["https://a.test/two.png"], to: link)
        #expect(result.directory == link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == bundle, "the link stays")
        let manifest = try JSON.parse(fileBytes(bundle + "/manifest.json"))
        #expect(manifest["assets"]?.objectValue?.keys == ["https://a.test/two.png"])
        #expect(entries(of: real.path) == ["bundle"], "staged next to the real directory, and cleaned up")
        #expect(entries(of: out.path) == ["link"])
    }

    /// Makes `.NAME.export-PID-TOKEN` with `PID` a process that is gone (a child that already exited).
    static func deadPID() -> pid_t {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try? Spawning.run(process)
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test func anExportRemovesWhatKilledExportsLeftNextToItsTargetAndNothingElse() throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        try ingest(store, url: "https://a.test/one.png", [1, 2, 3])
        let target = out.path + "/bundle"
        _ = try store.export(urls: ["https://a.test/one.png"], to: target)
        let dead = Self.deadPID()
        let stale = [".bundle.export-\(dead)-1a2b", ".bundle.old-\(dead)-3c4d"]
        for name in stale {
            try FileManager.default.createDirectory(
                atPath: out.path + "/" + name + "/assets", withIntermediateDirectories: true)
            try writeFile(out.path + "/" + name + "/assets/x.png", [9])
        }
        // Kept: a live process's staging (this one), a locked one, a look-alike link, another target's, a bad name.
        let kept = [
            ".bundle.export-\(getpid())-5e6f", ".bundle.export-\(dead)-7a8b", ".bundle.export-\(dead)-link",
            ".other.export-\(dead)-9c0d", ".bundle.export-\(dead)-zz",
        ]
        for name in kept where !name.hasSuffix("-link") {
            try FileManager.default.createDirectory(atPath: out.path + "/" + name, withIntermediateDirectories: false)
        }
        try FileManager.default.createSymbolicLink(
            atPath: out.path + "/.bundle.export-\(dead)-link", withDestinationPath: out.path + "/bundle")
        let held = DirectoryLock(out.path + "/.bundle.export-\(dead)-7a8b")
        defer { held.release() }
        #expect(held.isHeld)

        _ = try store.export(urls: ["https://a.test/one.png"], to: target)
        let left = Set(entries(of: out.path))
        #expect(left.isDisjoint(with: stale), "\(left)")
        #expect(left == Set(kept + ["bundle"]))
        #expect(fileBytes(target + "/manifest.json").count > 0)
    }

    @Test(arguments: [true, false])
    func anEarlierExportIsReplacedWholeWithOrWithoutAnAtomicExchange(exchange: Bool) throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        try ingest(store, url: "https://a.test/one.png", [1])
        try ingest(store, url: "https://a.test/two.png", [2, 2])
        let target = out.path + "/bundle"
        _ = try store.export(urls: ["https://a.test/one.png"], to: target)
        if !exchange { FileSystem.exchangeEnabled.store(false, ordering: .relaxed) }
        defer { FileSystem.exchangeEnabled.store(true, ordering: .relaxed) }
        let second = try store.export(urls: ["https://a.test/two.png"], to: target)
        #expect(entries(of: target + "/assets") == [second.assets[0].path.replacing("assets/", with: "")])
        #expect(entries(of: out.path) == ["bundle"], "neither the staging nor the replaced export is left")
    }

    @Test func aReplacedExportWhoseSuccessorNeverArrivedIsPutBack() throws {
        let out = TemporaryDirectory()
        let target = out.path + "/bundle"
        let dead = Self.deadPID()
        // Killed between the two renames of a replacement (file systems without RENAME_EXCHANGE): no target, the
        // earlier export under its .old name, the new one still staged.
        let old = out.path + "/.bundle.old-\(dead)-aa"
        try FileManager.default.createDirectory(atPath: old + "/assets", withIntermediateDirectories: true)
        try writeFile(old + "/manifest.json", Array("{}\n".utf8))
        try FileManager.default.createDirectory(
            atPath: out.path + "/.bundle.export-\(dead)-bb", withIntermediateDirectories: false)
        let cleaned = ExportTarget.cleanDebris(nextTo: target)
        #expect(cleaned.restored == old)
        #expect(cleaned.removed == [out.path + "/.bundle.export-\(dead)-bb"])
        #expect(fileBytes(target + "/manifest.json") == Array("{}\n".utf8))
        #expect(entries(of: out.path) == ["bundle"])
    }

    @Test func gcAndVerifyFindStagingLeftNextToEveryTargetTheStoreExportedTo() throws {
        let storeDirectory = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        try ingest(store, url: "https://a.test/one.png", [1, 2, 3])
        let outs = [TemporaryDirectory(), TemporaryDirectory()]
        for out in outs { _ = try store.export(urls: ["https://a.test/one.png"], to: out.path + "/bundle") }
        #expect(entries(of: storeDirectory.path + "/exports").count == 2)
        let dead = Self.deadPID()
        for out in outs {
            try FileManager.default.createDirectory(
                atPath: out.path + "/.bundle.export-\(dead)-abc/assets", withIntermediateDirectories: true)
        }
        let verify = try store.verify()
        #expect(verify.isClean)
        #expect(verify.problems.map(\.kind) == [.staleExport, .staleExport])
        #expect(verify.findings.map(\.code) == ["store.staleExport", "store.staleExport"])

        // One target is gone for good: gc cleans next to it, then forgets it.
        try FileManager.default.removeItem(atPath: outs[1].path + "/bundle")
        let gc = try store.gc()
        #expect(gc.removedExportStaging == 2)
        #expect(gc.json["removedExportStaging"] == .int(2))
        for out in outs { #expect(!entries(of: out.path).contains { $0.hasPrefix(".bundle.") }) }
        #expect(entries(of: storeDirectory.path + "/exports").count == 1)
        #expect(try store.verify().isSpotless)
        // A registration file that does not match its name is dropped, not followed.
        try writeFile(storeDirectory.path + "/exports/0123456789abcdef0123456789abcdef", Array("/etc\n".utf8))
        _ = try store.gc()
        #expect(entries(of: storeDirectory.path + "/exports").count == 1)
    }

    @Test func sha256KeysLeaveNoURLTextInTheExport() throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        let urls = [
            "https://secret-host.test/img/hero-TOKEN1.png?token=TOKEN2", "https://secret-host.test/pass;sig=TOKEN3",
            "https://secret-host.test/img/hero-TOKEN1.png?token=OTHER",
        ]
        try ingest(store, url: urls[0], [1, 2, 3])
        let passBlob = try store.put(bytes: [4, 5])
        try store.record(url: urls[1], entry: entry(passBlob, contentType: "application/vnd.apple.pkpass"))
        try ingest(store, url: urls[2], [1, 2, 3])
        let target = out.path + "/bundle"
        let result = try store.export(urls: urls, to: target, options: ExportOptions(manifestKeys: .sha256))
        #expect(result.missing.isEmpty, "distinct URLs never share a key")
        let manifest = try JSON.parse(fileBytes(target + "/manifest.json"))
        #expect(manifest.objectValue?.keys == ["schemaVersion", "keys", "assets"])
        #expect(manifest["keys"] == "sha256")
        let assets = try #require(manifest["assets"]?.objectValue)
        for url in urls {
            let key = try coreutilsSHA256(Array(url.utf8))
            let item = try #require(assets[key], "\(url) is keyed by its SHA-256")
            let path = try #require(item["path"]?.stringValue)
            let sha = try #require(item["sha256"]?.stringValue)
            #expect(path == "assets/\(sha).\(url.contains("pass") ? "pkpass" : "png")")
        }
        var everything = String(decoding: fileBytes(target + "/manifest.json"), as: UTF8.self)
        everything += entries(of: target + "/assets").joined()
        for secret in ["secret-host", "TOKEN", "hero", "OTHER", "img"] {
            #expect(!everything.contains(secret), "\(secret) reached the export")
        }
    }

    @Test func bodiesFromMemoryAreExportedWithTheirHash() throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        try ingest(store, url: "https://a.test/stored.png", [1, 2, 3])
        let fresh = pseudoRandomBytes(3_000, seed: 4)
        let result = try store.export(
            urls: ["https://a.test/stored.png", "https://a.test/fresh.jpg"], to: out.path + "/bundle",
            bodies: ["https://a.test/fresh.jpg": ExportBody(bytes: fresh, contentType: "image/jpeg")])
        #expect(result.missing.isEmpty)
        let asset = try #require(result.assets.first { $0.url == "https://a.test/fresh.jpg" })
        #expect(fileBytes(out.path + "/bundle/" + asset.path) == fresh)
        #expect(asset.sha256 == (try coreutilsSHA256(fresh)))
        #expect(asset.contentType == "image/jpeg" && asset.bytes == 3_000)
        #expect(try store.lookup("https://a.test/fresh.jpg") == nil, "exporting does not store it")
    }
}
