import AssetStore
import Foundation
import StrictJSON
import Testing

struct FileNameCase: Sendable, CustomTestStringConvertible {
    var url: String
    var contentType: String?
    var expected: String
    var testDescription: String { url }
}

struct ExportTests {
    static let hash = "0123456789abcdef" + String(repeating: "0", count: 48)

    @Test(arguments: [
        FileNameCase(
            url: "https://cdn.test/img/hero.JPG?w=2&token=x", contentType: nil, expected: "hero-0123456789ab.jpg"),
        FileNameCase(url: "https://cdn.test/img/hero", contentType: "image/webp", expected: "hero-0123456789ab.webp"),
        FileNameCase(url: "https://cdn.test/", contentType: "image/png; q=1", expected: "asset-0123456789ab.png"),
        FileNameCase(url: "https://cdn.test", contentType: nil, expected: "asset-0123456789ab.bin"),
        FileNameCase(url: "https://cdn.test/a/..", contentType: "image/gif", expected: "asset-0123456789ab.gif"),
        FileNameCase(
            url: "https://cdn.test/%2e%2e%2fetc%2fpasswd", contentType: nil, expected: "_etc_passwd-0123456789ab.bin"),
        FileNameCase(url: "https://cdn.test/..%2F..%2Fx.png", contentType: nil, expected: "_._x-0123456789ab.png"),
        FileNameCase(url: "https://cdn.test/.hidden", contentType: "text/plain", expected: "hidden-0123456789ab.txt"),
        FileNameCase(
            url: "https://cdn.test/caf%C3%A9 menu.pkpass", contentType: nil, expected: "caf___menu-0123456789ab.pkpass"),
        FileNameCase(url: "https://cdn.test/v/master.m3u8#t=1", contentType: nil, expected: "master-0123456789ab.m3u8"),
        FileNameCase(url: "https://cdn.test/clip", contentType: "Video/MP4", expected: "clip-0123456789ab.mp4"),
        FileNameCase(url: "https://cdn.test/a.tar.gz", contentType: nil, expected: "a.tar-0123456789ab.gz"),
        FileNameCase(
            url: "https://cdn.test/weird.ext_toolong", contentType: nil, expected: "weird.ext_toolong-0123456789ab.bin"),
        FileNameCase(url: "/absolute/path.png", contentType: nil, expected: "path-0123456789ab.png"),
        FileNameCase(
            url: "https://cdn.test/img/hero.png;token=s3cret;v=2?w=1", contentType: nil,
            expected: "hero-0123456789ab.png"),
        FileNameCase(
            url: "https://cdn.test/" + String(repeating: "x", count: 300) + ".png", contentType: nil,
            expected: String(repeating: "x", count: 60) + "-0123456789ab.png"),
    ])
    func fileNamesAreSafe(_ testCase: FileNameCase) {
        let name = AssetStore.exportFileName(url: testCase.url, sha256: Self.hash, contentType: testCase.contentType)
        #expect(name == testCase.expected)
        #expect(!name.contains("/") && !name.hasPrefix(".") && !name.contains(".."))
    }

    @Test func exportWritesTheDocumentedManifestAndVerifiedFiles() throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        let hero = pseudoRandomBytes(50_000, seed: 1)
        let pass = pseudoRandomBytes(20_000, seed: 2)
        let heroURL = "https://cdn.test/img/hero.jpg?token=s3cret"
        let mirrorURL = "https://mirror.test/img/hero.jpg"
        let passURL = "https://cdn.test/passes/boarding"
        try ingest(store, url: heroURL, hero)
        try ingest(store, url: mirrorURL, hero)
        let passBlob = try store.put(bytes: pass)
        try store.record(url: passURL, entry: entry(passBlob, contentType: "application/vnd.apple.pkpass"))
        let missingURL = "https://cdn.test/never-fetched.png?sig=abc"

        let target = out.path + "/bundle"
        let result = try store.export(urls: [passURL, heroURL, missingURL, heroURL, mirrorURL], to: target)

        #expect(result.directory == target)
        #expect(result.missing == [MissingAsset(url: missingURL, reason: .notInStore)])
        #expect(result.findings.map(\.code) == ["asset.notInStore"])
        #expect(!result.findings[0].message.contains("abc"))
        #expect(result.assets.map(\.url) == [heroURL, passURL, mirrorURL])

        let manifest = try JSON.parse(fileBytes(target + "/manifest.json"))
        #expect(manifest == result.manifest)
        #expect(manifest.objectValue?.keys == ["schemaVersion", "assets"])
        #expect(manifest["schemaVersion"] == .int(1))
        let assets = try #require(manifest["assets"]?.objectValue)
        #expect(assets.keys == [heroURL, passURL, mirrorURL])
        for (url, expectedBytes) in [(heroURL, hero), (passURL, pass), (mirrorURL, hero)] {
            let item = try #require(assets[url])
            #expect(item.objectValue?.keys == ["path", "sha256", "contentType", "bytes"])
            let path = try #require(item["path"]?.stringValue)
            #expect(path.hasPrefix("assets/"))
            let written = fileBytes(target + "/" + path)
            #expect(written == expectedBytes)
            #expect(item["sha256"]?.stringValue == (try coreutilsSHA256(written)))
            #expect(item["bytes"] == .int(expectedBytes.count))
        }
        #expect(assets[passURL]?["contentType"] == "application/vnd.apple.pkpass")
        #expect(assets[passURL]?["path"]?.stringValue?.hasSuffix(".pkpass") == true)
        // Same name, same content: one file serves both hero URLs.
        #expect(assets[heroURL]?["path"] == assets[mirrorURL]?["path"])
        #expect(entries(of: target + "/assets").count == 2)
        #expect(entries(of: out.path) == ["bundle"])
    }

    @Test func exportReplacesAnEarlierExportAtomically() throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        try ingest(store, url: "https://a.test/one.png", [1])
        try ingest(store, url: "https://a.test/two.png", [2])
        let target = out.path + "/export"
        _ = try store.export(urls: ["https://a.test/one.png"], to: target)
        let second = try store.export(urls: ["https://a.test/two.png"], to: target)
        #expect(second.assets.map(\.url) == ["https://a.test/two.png"])
        #expect(entries(of: target + "/assets") == [second.assets[0].path.replacing("assets/", with: "")])
        #expect(entries(of: out.path) == ["export"])
    }

    @Test func exportRefusesToOverwriteSomethingElse() throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        try writeFile(out.path + "/precious.txt", Array("keep me".utf8))
        #expect(throws: StoreError(.outputNotEmpty, "")) { try store.export(urls: [], to: out.path) }
        #expect(entries(of: out.path) == ["precious.txt"])
        #expect(entries(of: FileManager.default.temporaryDirectory.path).allSatisfy { !$0.contains(".export-") })
    }

    @Test func exportReportsDamagedAndVanishedBlobs() throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        let damaged = try ingest(store, url: "https://a.test/damaged.png", pseudoRandomBytes(1_000, seed: 1))
        let vanished = try ingest(store, url: "https://a.test/vanished.png", pseudoRandomBytes(1_000, seed: 2))
        try ingest(store, url: "https://a.test/fine.png", pseudoRandomBytes(1_000, seed: 3))
        var bytes = fileBytes(store.blobPath(damaged.sha256))
        bytes[10] ^= 1
        try writeFile(store.blobPath(damaged.sha256), bytes)
        try FileManager.default.removeItem(atPath: store.blobPath(vanished.sha256))
        let urls = ["https://a.test/damaged.png", "https://a.test/vanished.png", "https://a.test/fine.png"]
        let result = try store.export(urls: urls, to: out.path + "/x")
        #expect(result.assets.map(\.url) == ["https://a.test/fine.png"])
        #expect(result.missing.map(\.reason) == [.blobDamaged, .blobMissing])
        #expect(result.findings.map(\.code) == ["asset.storeDamaged", "asset.storeMissing"])
        #expect(entries(of: out.path + "/x/assets").count == 1)
        #expect(try store.path(damaged) == .missing)
    }

    @Test func redactedManifestKeysHideSecrets() throws {
        let storeDirectory = TemporaryDirectory()
        let out = TemporaryDirectory()
        let store = try AssetStore(directory: storeDirectory.path)
        try ingest(store, url: "https://a.test/x.png?token=one", [1])
        try ingest(store, url: "https://a.test/x.png?token=two", [2])
        let result = try store.export(
            urls: ["https://a.test/x.png?token=one", "https://a.test/x.png?token=two"], to: out.path + "/r",
            options: ExportOptions(manifestKeys: .redactedURL))
        let text = String(decoding: fileBytes(out.path + "/r/manifest.json"), as: UTF8.self)
        #expect(!text.contains("one") && !text.contains("two"))
        #expect(result.manifest["assets"]?.objectValue?.keys == ["https://a.test/x.png?token=REDACTED"])
        #expect(result.missing == [MissingAsset(url: "https://a.test/x.png?token=two", reason: .keyCollision)])
    }
}
