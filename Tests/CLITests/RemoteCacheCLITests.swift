import AssetStore
import FixtureServer
import Foundation
import HTTPFetch
import StrictJSON
import TestSupport
import Testing

/// `--remote-cache` against real nginx on loopback as a WebDAV store (the Bazel HTTP remote-cache protocol as
/// nginx speaks it: 404 on a miss, 201/204 on PUT, the bytes on GET), with the fixture server as the origin and
/// its counters as the proof of what reached the origin.
@Suite(.serialized, .ownThread) struct RemoteCacheCLITests {
    /// The origin fixture plus a WebDAV nginx as the shared remote (`--remote-cache http://user:REMOTESECRET@…`).
    final class Shared {
        let origin: PrefetchFixture
        let nginx: Nginx

        init(extra: String = "") async throws {
            origin = try PrefetchFixture()
            nginx = try await Nginx(mode: .webDAV(extra: extra))
        }

        /// The remote base URL, with credentials in its userinfo (nginx ignores them; they must never be printed).
        var remote: String { "http://runner:REMOTESECRET@127.0.0.1:\(nginx.port)/cache" }

        func store(_ name: String) -> String { origin.directory + "/" + name }

        /// The blobs the remote holds: name → the SHA-256 of the file's bytes (by coreutils).
        func remoteBlobs() async throws -> [String: String] {
            let directory = nginx.root + "/cache/cas"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            var hashes: [String: String] = [:]
            for name in names { hashes[name] = try await Child.sha256sum(directory + "/" + name) }
            return hashes
        }

        /// A second runner on `campaign` with an empty store (`b`), origin counters reset first: its result (no
        /// warning expected) and how many lines nginx's access log held before it.
        func secondRunner(_ campaign: String) async throws -> (CLIResult, logged: Int) {
            let logged = try nginx.accessLog().count
            origin.server.resetCounters()
            let second = try await origin.run([
                "prefetch", campaign, "--store", store("b"), "--remote-cache", remote, "--format", "json",
            ])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stderr.isEmpty, "no remote warning")
            return (second, logged)
        }

        /// The names of the remote's per-URL records (not its record packs).
        func remoteRecords() -> [String] { remoteEntries().filter { !isPack($0) } }

        /// The names of the remote's record packs (`/ac/` entries that start as one).
        func remotePacks() -> [String] { remoteEntries().filter(isPack) }

        private func remoteEntries() -> [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: nginx.root + "/cache/ac")) ?? []
        }

        private func isPack(_ name: String) -> Bool {
            guard let handle = FileHandle(forReadingAtPath: nginx.root + "/cache/ac/" + name) else { return false }
            defer { try? handle.close() }
            return (try? handle.read(upToCount: 20)) == Data("inbox-assets pack 1\n".utf8)
        }
    }

    /// A record file as the runner writes it: the JSON header, and the inline copy after its newline (if any).
    static func readRecord(_ path: String) throws -> (header: JSONObject, inline: [UInt8]?) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let newline = bytes.firstIndex(of: 0x0A)
        let header = try #require(try JSON.parse(Array(bytes[..<(newline ?? bytes.count)])).objectValue)
        return (header, newline.map { Array(bytes[($0 + 1)...]) })
    }

    /// Writes a record file: the header, and the inline copy (its `inlineBytes` set to match) after a newline.
    static func writeRecord(_ path: String, header: JSONObject, inline: [UInt8]?) throws {
        var header = header
        header["inlineBytes"] = inline.map { .int($0.count) }
        var bytes = Array(JSONValue.object(header).serialized().utf8)
        if let inline { bytes += [0x0A] + inline }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Every output of a run, for the no-secret checks.
    private static func everything(_ result: CLIResult) -> String { result.stdout + result.stderr }

    @Test func aSecondRunnerWithAnEmptyStoreDownloadsNoBodyFromOrigin() async throws {
        let shared = try await Shared()
        let first = try await shared.origin.run([
            "prefetch", shared.origin.campaign, "--store", shared.store("a"), "--remote-cache", shared.remote,
            "--format", "json",
        ])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(try JSON.parse(first.stdout)["summary"]?["fetched"] == 6)
        let blobs = try await shared.remoteBlobs()
        let stored = try AssetStore(directory: shared.store("a")).list()
        #expect(Set(blobs.keys) == Set(stored.map(\.entry.blob.sha256)), "every origin download was uploaded")
        #expect(blobs.allSatisfy { $0.key == $0.value }, "each remote blob is named by its SHA-256")
        #expect(shared.remoteRecords().count == stored.count)
        // Records hold no secret: the pass URL's token is redacted in what the remote stores.
        for record in shared.remoteRecords() {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: shared.nginx.root + "/cache/ac/" + record)))
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("PASSSECRET"), "\(text)")
        }

        shared.origin.server.resetCounters()
        let second = try await shared.origin.run([
            "prefetch", shared.origin.campaign, "--store", shared.store("b"), "--remote-cache", shared.remote,
            "--format", "json",
        ])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(shared.origin.server.stats.bodyBytesSent == 0, "no body from origin: every blob came from nginx")
        #expect(shared.origin.server.stats.responsesByStatus[200] == nil)
        #expect(shared.origin.server.requests(for: "/cache/max-age%3D3600/inbox/hero.png") == 0)
        let report = try JSON.parse(second.stdout)
        let sources = (report["assets"]?.arrayValue ?? []).compactMap { $0["source"]?.stringValue }
        #expect(sources.filter { $0 == "remote" }.count == 1, "the max-age image: no origin request at all")
        #expect(sources.filter { $0 == "revalidated" }.count == 5, "a 304 from origin, the body from the remote")
        #expect(report["summary"]?["bytesFetched"] == 0)
        #expect(second.stderr.isEmpty, "no remote warning")
        // Small blobs ride inline in their records (one request an asset); larger ones come from /cas/.
        let log = try shared.nginx.accessLog()
        let inlined = stored.filter { $0.entry.blob.size <= 16 << 10 }.count
        #expect(inlined > 0)
        #expect(log.filter { $0.contains(" 200 GET /cache/cas/") }.count == stored.count - inlined, "\(log)")
        #expect(log.filter { $0.contains(" 200 GET /cache/ac/") }.count == stored.count, "\(log)")
        #expect(try await CLI.run(["store", "verify", "--store", shared.store("b")]).status == 0)
        for result in [first, second] { #expect(!Self.everything(result).contains("REMOTESECRET")) }
    }

    /// More assets than one batch of record reads (``AssetRetriever``'s `remoteBatch`, 512): fresh small ones settled
    /// in the batch, larger ones read from `/cas/`, stale ones revalidated with origin — each record asked for once.
    @Test func aWarmRemoteServesManyAssetsInBatchesAskingForEachRecordOnce() async throws {
        let shared = try await Shared()
        let fresh = (0..<1_100).map { "https://cdn.example.com/cache/max-age%3D3600/bytes/\(100 + $0)" }
        let large = (0..<30).map { "https://cdn.example.com/cache/max-age%3D3600/bytes/\(20_000 + $0)" }
        let stale = (0..<30).map { "https://cdn.example.com/bytes/\(5_000 + $0)" }
        let campaign = try shared.origin.campaign(images: fresh + large + stale, name: "many.json")
        let first = try await shared.origin.run([
            "prefetch", campaign, "--store", shared.store("a"), "--remote-cache", shared.remote, "--format", "json",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try JSON.parse(first.stdout)["summary"]?["fetched"] == 1_160)
        let (second, logged) = try await shared.secondRunner(campaign)
        let report = try JSON.parse(second.stdout)
        #expect(report["summary"]?["fromRemote"] == 1_130)
        let sources = (report["assets"]?.arrayValue ?? []).compactMap { $0["source"]?.stringValue }
        #expect(sources.filter { $0 == "revalidated" }.count == 30, "the stale ones: a 304 from origin")
        #expect(shared.origin.server.stats.bodyBytesSent == 0, "no body from origin")
        #expect(shared.origin.server.stats.totalRequests == 30, "only the stale ones reached origin")
        let requests = try shared.nginx.accessLog().dropFirst(logged)
        // Every record is read once: by itself (the first 1,536 images are read ahead, while the cards are resolved)
        // or in its chunk's pack, which is read once too.
        let reads = requests.filter { $0.contains(" 200 GET /cache/ac/") }.map { $0.split(separator: "/").last! }
        let packs = Set(shared.remotePacks().map { Substring($0) })
        #expect(!packs.isEmpty, "1,160 URLs make packs")
        #expect(Set(reads).count == reads.count, "no record or pack read twice")
        #expect(reads.filter(packs.contains).count == packs.count, "every pack read")
        #expect(reads.count - packs.count == 1_160, "every record read ahead (1,160 is under the read-ahead limit)")
        #expect(requests.filter { $0.contains(" 200 GET /cache/cas/") }.count == 30, "only the large blobs")
        let stored = try AssetStore(directory: shared.store("b")).list()
        #expect(stored.count == 1_160)
        #expect(try await CLI.run(["store", "verify", "--store", shared.store("b")]).status == 0)
    }

    /// The records of a pack file on the remote, by key, as the tests read it (`KEY LENGTH\n` and the bytes).
    static func packRecords(_ path: String) throws -> [(key: String, record: [UInt8])] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let magic = Array("inbox-assets pack 1\n".utf8)
        try #require(bytes.starts(with: magic))
        var records: [(key: String, record: [UInt8])] = []
        var at = magic.count
        while at < bytes.count {
            let newline = try #require(bytes[at...].firstIndex(of: 0x0A))
            let line = String(decoding: bytes[at..<newline], as: UTF8.self).split(separator: " ")
            let length = try #require(Int(line[1]))
            records.append((String(line[0]), Array(bytes[(newline + 1)..<(newline + 1 + length)])))
            at = newline + 1 + length
        }
        return records
    }

    /// Writes a campaign of `images` and lets a first runner (store `a`) fill the remote with them.
    static func seeded(_ shared: Shared, _ images: [String], name: String) async throws -> String {
        let campaign = try shared.origin.campaign(images: images, name: name)
        let first = try await shared.origin.run([
            "prefetch", campaign, "--store", shared.store("a"), "--remote-cache", shared.remote, "--quiet",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        return campaign
    }

    /// More assets than the read-ahead covers: the records it did not read come in packs, a few hundred a request,
    /// and a campaign that changes one URL rewrites only that URL's pack.
    @Test func aWarmRemoteServesWhatWasNotReadAheadFromRecordPacks() async throws {
        let shared = try await Shared()
        let images = (0..<2_000).map { "https://cdn.example.com/cache/max-age%3D3600/bytes/\(100 + $0)" }
        let campaign = try await Self.seeded(shared, images, name: "many.json")
        let packs = shared.remotePacks()
        #expect(packs.count >= 2, "\(packs.count) packs")
        let keyOf = Dictionary(uniqueKeysWithValues: images.map { (RemoteCache.key($0), $0) })
        var packed: Set<String> = []
        for pack in packs {
            let records = try Self.packRecords(shared.nginx.root + "/cache/ac/" + pack)
            #expect(records.count >= 32 && records.count <= 2_048)
            for (key, record) in records {
                #expect(keyOf[key] != nil, "a pack holds the run's URLs only")
                #expect(packed.insert(key).inserted, "each URL in one pack")
                // The same record as the URL's own: the JSON header and the inline copy.
                let own = [UInt8](try Data(contentsOf: URL(fileURLWithPath: shared.nginx.root + "/cache/ac/" + key)))
                #expect(record == own)
            }
        }
        #expect(packed.count > 1_500, "most URLs are packed (chunks under 32 URLs are not)")

        let (second, logged) = try await shared.secondRunner(campaign)
        #expect(try JSON.parse(second.stdout)["summary"]?["fromRemote"] == 2_000)
        #expect(shared.origin.server.stats.totalRequests == 0, "no origin request at all")
        let requests = try shared.nginx.accessLog().dropFirst(logged)
        let reads = requests.filter { $0.contains(" GET /cache/ac/") }.map { String($0.split(separator: "/").last!) }
        #expect(Set(reads).count == reads.count, "no record or pack read twice")
        #expect(reads.filter(Set(packs).contains).count == packs.count, "every pack read once")
        let readAhead = Set(images.prefix(1_536).map(RemoteCache.key))
        let own = reads.filter { !packs.contains($0) }
        #expect(own.allSatisfy { readAhead.contains($0) || !packed.contains($0) }, "a packed URL is not read alone")
        #expect(own.count < 2_000)
        #expect(!requests.contains { $0.contains(" PUT ") }, "nothing changed: nothing written")
        #expect(try await CLI.run(["store", "verify", "--store", shared.store("b")]).status == 0)

        // One URL replaced: its chunk gets a new pack (two, if its key is a cut); the others are left alone.
        let changed = try shared.origin.campaign(
            images: images.dropLast() + ["https://cdn.example.com/cache/max-age%3D3600/bytes/9999"], name: "one.json")
        let before = try shared.nginx.accessLog().count
        let third = try await shared.origin.run([
            "prefetch", changed, "--store", shared.store("b"), "--remote-cache", shared.remote, "--quiet",
        ])
        #expect(third.status == 0, "\(third.stderr)")
        let writes = try shared.nginx.accessLog().dropFirst(before).filter { $0.contains(" PUT /cache/ac/") }
        let newPacks = Set(shared.remotePacks()).subtracting(packs)
        #expect(!newPacks.isEmpty && newPacks.count <= 2, "\(newPacks.count) new packs")
        #expect(writes.count == 1 + newPacks.count, "the new URL's record and its chunk's pack: \(writes)")
    }

    /// A pack's inline copy is verified as a record's is: a damaged one is discarded with `store.remoteDamaged`, the
    /// asset comes from origin, and the pack is written again with the good bytes. A pack cut short serves the
    /// records before the cut; the rest are read one by one, and the pack is written whole again.
    @Test(arguments: ["damaged copy", "cut short"])
    func aDamagedPackIsCaughtAndWrittenAgain(damage: String) async throws {
        let shared = try await Shared()
        // 40 URLs whose keys hold no cut: one chunk, one pack.
        let images = (0..<40).map { "https://cdn.example.com/cache/max-age%3D3600/bytes/\(3_000 + $0)" }
        let campaign = try await Self.seeded(shared, images, name: "forty.json")
        let pack = try #require(shared.remotePacks().first)
        #expect(shared.remotePacks().count == 1)
        let path = shared.nginx.root + "/cache/ac/" + pack
        let records = try Self.packRecords(path)
        #expect(records.count == 40)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let victim = records[7]
        if damage == "damaged copy" {
            // The last byte of the eighth record is the last byte of its inline copy.
            let end =
                try #require(bytes.indices.firstIndex { bytes[$0...].starts(with: victim.record) })
                + victim.record.count
            bytes[end - 1] ^= 0xff
        } else {
            bytes.removeLast(bytes.count / 2)
        }
        // The records the damaged pack still holds whole.
        var end = "inbox-assets pack 1\n".utf8.count
        let kept = records.prefix { record in
            end += "\(record.key) \(record.record.count)\n".utf8.count + record.record.count
            return end <= bytes.count
        }.count
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // The records the read-ahead would take instead are removed, so the pack is what the runner reads.
        for (key, _) in records { try FileManager.default.removeItem(atPath: shared.nginx.root + "/cache/ac/" + key) }

        shared.origin.server.resetCounters()
        let second = try await shared.origin.run([
            "prefetch", campaign, "--store", shared.store("b"), "--remote-cache", shared.remote, "--format", "json",
        ])
        #expect(second.status == 0, "\(second.stderr)")
        let assets = try JSON.parse(second.stdout)["assets"]?.arrayValue ?? []
        let damaged = assets.filter { asset in
            (asset["findings"]?.arrayValue ?? []).contains { $0["code"] == "store.remoteDamaged" }
        }
        let fromOrigin = assets.filter { $0["source"] == "network" }.compactMap { $0["url"]?.stringValue }
        if damage == "damaged copy" {
            #expect(damaged.count == 1)
            #expect(fromOrigin == [images[images.firstIndex { RemoteCache.key($0) == victim.key }!]])
        } else {
            #expect(damaged.isEmpty)
            #expect(kept > 0 && kept < 40)
            #expect(fromOrigin.count == 40 - kept, "what the cut pack lacked")
        }
        // Written again, whole and good: the same records as the first runner's.
        let rewritten = try Self.packRecords(path)
        #expect(rewritten.map(\.key) == records.map(\.key))
        let good = try #require(records.first { $0.key == victim.key })
        #expect(rewritten.first { $0.key == victim.key }?.record.suffix(16) == good.record.suffix(16))
        #expect(try await CLI.run(["store", "verify", "--store", shared.store("b")]).status == 0)
    }

    /// How a test damages a remote blob: one byte flipped (same size), bytes appended, bytes cut off.
    enum Damage: String, CaseIterable {
        case flip, append, truncate

        func apply(_ bytes: inout [UInt8]) {
            switch self {
            case .flip: bytes[bytes.count / 2] ^= 0xff
            case .append: bytes += Array(repeating: 0x41, count: 4096)
            case .truncate: bytes.removeLast(bytes.count / 3)
            }
        }
    }

    /// Damages the blob in `/cas/` (after taking the inline copy out of its record, so the blob is read), or the
    /// inline copy in the record.
    @Test(arguments: Damage.allCases, [false, true])
    func aCorruptedRemoteBlobIsDetectedAndReplacedFromOrigin(damage: Damage, inline: Bool) async throws {
        let shared = try await Shared()
        let first = try await shared.origin.run([
            "prefetch", shared.origin.campaign, "--store", shared.store("a"), "--remote-cache", shared.remote,
        ])
        #expect(first.status == 0, "\(first.stderr)")
        let hero = try #require(
            try AssetStore(directory: shared.store("a")).lookup(
                "https://cdn.example.com/cache/max-age%3D3600/inbox/hero.png"))
        let path = shared.nginx.root + "/cache/cas/" + hero.blob.sha256
        let recordPath = try #require(
            shared.remoteRecords().map { shared.nginx.root + "/cache/ac/" + $0 }.first { record in
                (try? Self.readRecord(record))?.header["sha256"] == .string(hero.blob.sha256)
            })
        let record = try Self.readRecord(recordPath)
        let copy = try #require(record.inline)
        #expect(copy.count == hero.blob.size, "a small blob rides inline")
        if inline {
            var bytes = copy
            damage.apply(&bytes)
            // The header still says how long the (damaged) copy is: the record is read, the copy is checked.
            try Self.writeRecord(recordPath, header: record.header, inline: bytes)
        } else {
            try Self.writeRecord(recordPath, header: record.header, inline: nil)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            damage.apply(&bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }

        shared.origin.server.resetCounters()
        let second = try await shared.origin.run([
            "prefetch", shared.origin.campaign, "--store", shared.store("b"), "--remote-cache", shared.remote,
            "--format", "json",
        ])
        #expect(second.status == 0, "\(second.stderr)")
        let assets = try JSON.parse(second.stdout)["assets"]?.arrayValue ?? []
        let damaged = assets.filter { asset in
            (asset["findings"]?.arrayValue ?? []).contains { $0["code"] == "store.remoteDamaged" }
        }
        #expect(damaged.count == 1)
        #expect(damaged.first?["source"] == "network", "fetched from origin instead")
        #expect(damaged.first?["sha256"] == .string(hero.blob.sha256), "the good bytes, not the remote's")
        #expect(shared.origin.server.requests(for: "/cache/max-age%3D3600/inbox/hero.png") == 1)
        #expect(try await Child.sha256sum(path) == hero.blob.sha256, "the origin's copy replaced the damaged one")
        #expect(try await CLI.run(["store", "verify", "--store", shared.store("b")]).status == 0)
    }

    @Test(arguments: ["not json", "{\"schemaVersion\":1,\"sha256\":\"zz\",\"size\":-1,\"fetchedAtMillis\":0}", ""])
    func aGarbageRecordIsAMissAndIsReplaced(record: String) async throws {
        let shared = try await Shared()
        let campaign = try shared.origin.campaign(images: ["https://cdn.example.com/inbox/hero.png"])
        let key = try await Child.run(
            "/usr/bin/env", ["sh", "-c", "printf %s \"$0\" | sha256sum", "https://cdn.example.com/inbox/hero.png"]
        ).output.prefix(64)
        let recordPath = shared.nginx.root + "/cache/ac/" + key
        try FileManager.default.createDirectory(
            atPath: shared.nginx.root + "/cache/ac", withIntermediateDirectories: true)
        try Data(record.utf8).write(to: URL(fileURLWithPath: recordPath))
        let result = try await shared.origin.run([
            "prefetch", campaign, "--store", shared.store("a"), "--remote-cache", shared.remote, "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSON.parse(result.stdout)["summary"]?["fetched"] == 1, "from origin")
        let replaced = try Self.readRecord(recordPath).header
        #expect(replaced["schemaVersion"] == 1, "the origin download's record replaced the garbage")
        #expect(replaced["url"] == "https://cdn.example.com/inbox/hero.png")
    }

    @Test func denyPrivateDoesNotApplyToTheRemote() async throws {
        // Fresh by max-age, so the second runner needs nothing from the (loopback, hence denied) origin.
        let shared = try await Shared()
        let campaign = try shared.origin.campaign(
            images: (0..<5).map { "https://cdn.example.com/cache/max-age%3D3600/bytes/\(300 + $0)" })
        let seed = try await shared.origin.run([
            "prefetch", campaign, "--store", shared.store("a"), "--remote-cache", shared.remote,
        ])
        #expect(seed.status == 0, "\(seed.stderr)")
        let denied = try await shared.origin.run([
            "prefetch", campaign, "--store", shared.store("b"), "--deny-private", "--format", "json",
        ])
        #expect(denied.status == 1, "the loopback origin is refused")
        let second = try await shared.origin.run([
            "prefetch", campaign, "--store", shared.store("c"), "--remote-cache", shared.remote, "--deny-private",
            "--format", "json",
        ])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(try JSON.parse(second.stdout)["summary"]?["fromRemote"] == 5, "the loopback remote is trusted")
    }

    /// A remote that is down, slow, full or refusing: one warning, the origin serves, the check passes.
    @Test(arguments: ["down", "slow", "full", "refusing"])
    func aBrokenRemoteCostsOneWarningAndFallsBackToOrigin(fault: String) async throws {
        let shared = try await Shared()
        let fixture = shared.origin
        let http = "http://127.0.0.1:\(fixture.server.httpPort)"
        let remote: String
        switch fault {
        case "down": remote = "http://127.0.0.1:\(closedPort())"
        case "slow": remote = http + "/delay/8000/status/404"
        case "full": remote = http + "/status/507"
        default: remote = http + "/status/403"
        }
        let result = try await fixture.run([
            "check", fixture.campaign, "--store", shared.store("a"), "--remote-cache", remote, "--remote-timeout",
            "1", "--format", "json",
        ])
        #expect(result.status == 0 || result.status == 1, "\(result.stderr)")
        let report = CheckReportJSON.flattened(try JSON.parse(result.stdout))
        let warnings = (report["findings"]?.arrayValue ?? []).filter {
            $0["code"] == "store.remoteUnavailable"
        }
        #expect(warnings.count == 1, "\(result.stdout)")
        let cards = report["cards"]?.arrayValue ?? []
        let sources = cards.flatMap { $0["assets"]?.arrayValue ?? [] }.compactMap { $0["source"]?.stringValue }
        #expect(sources.contains("network"), "the origin served")
        #expect(!sources.contains("remote"))
        // The same assets and verdicts as a run without any remote.
        let plain = try await fixture.run([
            "check", fixture.campaign, "--store", shared.store("b"), "--format", "json",
        ])
        #expect(plain.status == result.status)
        // The same summary but for the remote's one warning, which counts like any other.
        var expected = try JSON.parse(plain.stdout)["summary"]?.objectValue
        let plainWarnings = expected?["warnings"]?.numberValue?.intValue ?? 0
        expected?["warnings"] = .int(plainWarnings + 1)
        #expect(expected.map(JSONValue.object) == report["summary"])
    }

    @Test func aRemoteRefusingUploadsStillServesReads() async throws {
        // PUT answered 403 by nginx itself (a read-only token): one warning, and reads keep working.
        let shared = try await Shared()
        let seed = try await shared.origin.run([
            "prefetch", shared.origin.campaign, "--store", shared.store("a"), "--remote-cache", shared.remote,
        ])
        #expect(seed.status == 0)
        let readOnly = try await Shared(extra: "location / { limit_except GET { deny all; } }")
        // Same blobs and records, served read-only.
        try FileManager.default.removeItem(atPath: readOnly.nginx.root)
        try FileManager.default.copyItem(atPath: shared.nginx.root, toPath: readOnly.nginx.root)
        let campaign = try readOnly.origin.campaign(images: [
            "https://cdn.example.com/cache/max-age%3D3600/inbox/hero.png", "https://cdn.example.com/bytes/777",
        ])
        let remote = "http://127.0.0.1:\(readOnly.nginx.port)/cache"
        let result = try await readOnly.origin.run([
            "prefetch", campaign, "--store", readOnly.store("b"), "--remote-cache", remote, "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "store.remoteUnavailable").count == 2, "\(result.stderr)")
        #expect(result.stderr.contains("HTTP 403"))
        let summary = try JSON.parse(result.stdout)["summary"]
        #expect(summary?["fromRemote"] == 1, "the hero came from the read-only remote")
        #expect(try readOnly.nginx.accessLog().contains { $0.contains(" 403 PUT /cache/cas/") })
    }

    @Test func aBlobTheLocalStoreHoldsIsNotDownloadedAgain() async throws {
        // Two URLs, the same bytes (the fixture's generated body): the second's record is new here, its blob is not.
        let shared = try await Shared()
        let first = "https://cdn.example.com/cache/max-age%3D3600/bytes/777"
        let second = "https://cdn.example.com/cache/max-age%3D600/bytes/777"
        let both = try shared.origin.campaign(images: [first, second], name: "both.json")
        let seed = try await shared.origin.run([
            "prefetch", both, "--store", shared.store("a"), "--remote-cache", shared.remote,
        ])
        #expect(seed.status == 0, "\(seed.stderr)")
        let local = try await shared.origin.run([
            "prefetch", try shared.origin.campaign(images: [first], name: "first.json"), "--store", shared.store("b"),
        ])
        #expect(local.status == 0)
        let logged = try shared.nginx.accessLog().count
        let result = try await shared.origin.run([
            "prefetch", try shared.origin.campaign(images: [second], name: "second.json"), "--store",
            shared.store("b"), "--remote-cache", shared.remote, "--format", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try JSON.parse(result.stdout)["summary"]?["fromRemote"] == 1)
        let requests = try shared.nginx.accessLog().dropFirst(logged)
        #expect(requests.count == 1 && requests.allSatisfy { $0.contains(" GET /cache/ac/") }, "\(requests)")
        #expect(try await CLI.run(["store", "verify", "--store", shared.store("b")]).status == 0)
    }

    @Test func noRemoteUploadReadsButNeverWrites() async throws {
        let shared = try await Shared()
        let result = try await shared.origin.run([
            "prefetch", shared.origin.campaign, "--store", shared.store("a"), "--remote-cache", shared.remote,
            "--no-remote-upload",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let log = try shared.nginx.accessLog()
        #expect(!log.isEmpty && log.allSatisfy { $0.contains(" GET /cache/ac/") }, "\(log)")
        #expect(try await shared.remoteBlobs().isEmpty)
    }

    @Test func twoProcessesUploadingTheSameBlobsAtOnceLeaveAConsistentRemote() async throws {
        let shared = try await Shared()
        let images = (0..<40).map { "https://cdn.example.com/bytes/\(1_000 + $0 * 37)" }
        let campaign = try shared.origin.campaign(images: images)
        let processes = try ["a", "b"].map { name in
            try shared.origin.start([
                "prefetch", campaign, "--store", shared.store(name), "--remote-cache", shared.remote, "--quiet",
            ])
        }
        for process in processes {
            #expect(await Child.wait(for: process, timeout: 120))
            #expect(process.terminationStatus == 0)
        }
        let blobs = try await shared.remoteBlobs()
        #expect(blobs.count == images.count)
        #expect(blobs.allSatisfy { $0.key == $0.value }, "no torn or mixed blob")
        #expect(shared.remoteRecords().count == images.count)
        shared.origin.server.resetCounters()
        let third = try await shared.origin.run([
            "prefetch", campaign, "--store", shared.store("c"), "--remote-cache", shared.remote, "--format", "json",
        ])
        #expect(third.status == 0)
        #expect(shared.origin.server.stats.bodyBytesSent == 0)
        #expect(try JSON.parse(third.stdout)["summary"]?["fetched"] == 0)
    }

    @Test func offlineUsesTheRemoteUnlessNoRemote() async throws {
        let shared = try await Shared()
        let seed = try await shared.origin.run([
            "prefetch", shared.origin.campaign, "--store", shared.store("a"), "--remote-cache", shared.remote,
        ])
        #expect(seed.status == 0)
        shared.origin.server.resetCounters()
        let offline = try await shared.origin.run([
            "export", shared.origin.campaign, "--store", shared.store("b"), "--remote-cache", shared.remote,
            "--offline", "--out", shared.store("out"), "--format", "json",
        ])
        #expect(offline.status == 0, "\(offline.stdout)\(offline.stderr)")
        #expect(try JSON.parse(offline.stdout)["exported"] == 6)
        #expect(shared.origin.server.stats.totalRequests == 0, "offline: no origin traffic")
        let without = try await shared.origin.run([
            "export", shared.origin.campaign, "--store", shared.store("c"), "--remote-cache", shared.remote,
            "--offline", "--no-remote", "--out", shared.store("out2"), "--format", "json",
        ])
        // --no-remote makes it a local-only offline run, which refuses a store that does not exist (exit 2) …
        #expect(without.status == 2)
        #expect(without.stderr.contains("no store at"))
        // … and exports nothing from an empty one.
        let empty = shared.store("c")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let fromEmpty = try await shared.origin.run([
            "export", shared.origin.campaign, "--store", empty, "--remote-cache", shared.remote,
            "--offline", "--no-remote", "--out", shared.store("out2"), "--format", "json",
        ])
        #expect(fromEmpty.status == 1)
        #expect(try JSON.parse(fromEmpty.stdout)["exported"] == 0)
    }

    /// nginx that wants credentials: basic auth (`runner:REMOTESECRET`, from the URL's userinfo) or a bearer token
    /// (`--remote-header` from the environment); the wrong ones are refused, which costs one warning.
    @Test(arguments: ["basic", "bearer"])
    func credentialsReachTheRemoteAndNeverTheOutput(scheme: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-auth-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("runner:{PLAIN}REMOTESECRET\n".utf8).write(to: URL(fileURLWithPath: directory + "/htpasswd"))
        let extra =
            scheme == "basic"
            ? "auth_basic cache; auth_basic_user_file \(directory)/htpasswd;"
            : "if ($http_authorization != \"Bearer HEADERSECRET\") { return 401; }"
        let shared = try await Shared(extra: extra)
        let base = "http://127.0.0.1:\(shared.nginx.port)/cache"
        let good =
            scheme == "basic"
            ? ["--remote-cache", shared.remote]
            : [
                "--remote-cache", base, "--remote-header", "Authorization: Bearer ${IA_TEST_TOKEN}",
            ]
        let bad =
            scheme == "basic"
            ? ["--remote-cache", "http://runner:WRONG@127.0.0.1:\(shared.nginx.port)/cache"]
            : [
                "--remote-cache", base, "--remote-header", "Authorization: Bearer ${IA_TEST_WRONG}",
            ]
        let environment = ["IA_TEST_TOKEN": "HEADERSECRET", "IA_TEST_WRONG": "NOTIT"]
        let first = try await shared.origin.run(
            ["prefetch", shared.origin.campaign, "--store", shared.store("a")] + good, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.isEmpty, "accepted: no warning")
        #expect(try await shared.remoteBlobs().count == 6)
        let refused = try await shared.origin.run(
            ["prefetch", shared.origin.campaign, "--store", shared.store("b"), "--format", "json"] + bad,
            environment: environment)
        #expect(refused.status == 0, "a refusing remote never fails the run")
        #expect(refused.stderr.contains("store.remoteUnavailable") && refused.stderr.contains("HTTP 401"))
        #expect(try JSON.parse(refused.stdout)["summary"]?["fromRemote"] == 0)
        for result in [first, refused] {
            for secret in ["REMOTESECRET", "HEADERSECRET", "WRONG", "NOTIT"] {
                #expect(!Self.everything(result).contains(secret), "\(secret)")
            }
        }
    }

    @Test func anHTTPSRemoteIsTrustedThroughCacert() async throws {
        let origin = try PrefetchFixture()
        let nginx = try await Nginx(mode: .webDAV(extra: "", tls: true))
        // One --cacert for both: the fixture server's CA and nginx's self-signed certificate.
        let bundle = origin.directory + "/bundle.pem"
        let pems = try [origin.server.caFilePath!, nginx.certificate].map {
            try String(contentsOfFile: $0, encoding: .utf8)
        }
        try Data(pems.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: bundle))
        let network = [
            "--connect-to", "cdn.example.com:443:127.0.0.1:\(origin.server.httpsPort!)", "--retries", "0",
        ]
        let remote = nginx.url("cache")
        #expect(remote.hasPrefix("https://"))
        let untrusted = try await CLI.run(
            [
                "prefetch", origin.campaign, "--store", origin.directory + "/a", "--remote-cache", remote, "--cacert",
                origin.server.caFilePath!,
            ] + network)
        #expect(untrusted.status == 0, "\(untrusted.stderr)")
        #expect(untrusted.stderr.contains("store.remoteUnavailable"), "nginx's certificate is not trusted")
        let trusted = try await CLI.run(
            [
                "prefetch", origin.campaign, "--store", origin.directory + "/b", "--remote-cache", remote, "--cacert",
                bundle,
            ] + network)
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(trusted.stderr.isEmpty)
        #expect(try nginx.accessLog().filter { $0.contains(" PUT /cache/cas/") }.count == 6)
    }

    @Test func remoteHeadersExpandTheEnvironmentAndAreValidated() async throws {
        let shared = try await Shared()
        let unset = try await CLI.run([
            "prefetch", shared.origin.campaign, "--store", shared.store("a"), "--remote-cache", shared.remote,
            "--remote-header", "Authorization: Bearer ${IA_TEST_UNSET_TOKEN}",
        ])
        #expect(unset.status == 64)
        #expect(unset.stderr.contains("IA_TEST_UNSET_TOKEN"))
        let set = try await shared.origin.run(
            [
                "prefetch", shared.origin.campaign, "--store", shared.store("a"), "--remote-cache", shared.remote,
                "--remote-header", "Authorization: Bearer ${IA_TEST_TOKEN}",
            ], environment: ["IA_TEST_TOKEN": "HEADERSECRET"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(!Self.everything(set).contains("HEADERSECRET"))
        #expect(!(try await shared.remoteBlobs()).isEmpty)
        let bad = try await CLI.run([
            "prefetch", shared.origin.campaign, "--remote-cache", "ftp://runner:REMOTESECRET@127.0.0.1/cache",
        ])
        #expect(bad.status == 64)
        #expect(!Self.everything(bad).contains("REMOTESECRET"), "\(bad.stderr)")
    }
}
