public import AssetStore
public import Findings
import FoundationEssentials
import Glibc
public import HTTPFetch
import StrictJSON
import Synchronization

/// The shared remote store one level out from the local one (`--remote-cache`): the same content-addressed blobs
/// under `/cas/{sha256}`, and one record per asset URL under `/ac/{sha256 of the URL}` — the local index record
/// as JSON (``record(url:entry:)``), with the URL redacted: the record holds no secret, the key is a digest.
///
/// Read path (``pull(_:store:limit:prefetched:)``, or ``records(for:)`` and ``settle(_:record:store:limit:accept:)``
/// for many URLs at once): the record, then the blob streamed into the local store and verified
/// (size and SHA-256) before it is recorded locally; a blob that does not match is discarded (`store.remoteDamaged`)
/// and the asset comes from origin. Write path (``push(_:entry:store:)``): blob first, then the record, in the
/// background (``RemoteCache/put(_:)``).
public final class RemoteTier: Sendable {
    /// The client (its generic `/ac/` and `/cas/` API serves other records too, e.g. pass verdicts).
    public let cache: RemoteCache

    /// Records read before anyone asked for them (``readAhead(_:limit:batch:)``), until ``records(for:)`` takes them.
    private let early = Mutex(EarlyReads())

    /// The record keys of the URLs whose entry this run sent to the remote (an origin download, a revalidation):
    /// the packs holding them are written again (``pushPacks(_:urls:store:)``).
    private let changed = Mutex(Set<String>())
    /// What the packs read this run held: pack key → the record keys in it (empty: no usable pack).
    private let packsRead = Mutex([String: Set<String>]())

    /// Wraps a client.
    public init(cache: RemoteCache) { self.cache = cache }

    /// The record key of an asset URL (the exact URL, secrets included: only its digest leaves the machine).
    public static func key(_ url: String) -> String { RemoteCache.key(url) }

    /// The one warning of a run whose remote could not be used, or `nil`.
    public var finding: Finding? {
        guard let problem = cache.problem else { return nil }
        return .warning(
            AssetFindingCode.remoteUnavailable,
            "the remote cache \(cache.redactedURL) could not be used (\(problem)): assets came from origin")
    }

    /// Blobs up to this size ride inside their record too, as Bazel's `ActionResult` inlines small outputs: a warm
    /// remote then serves a small asset in one request instead of two (record, then blob). The blob is still
    /// uploaded to `/cas/` first, and an inline copy is verified like a blob read.
    public static let inlineLimit = 16 << 10

    /// `{"schemaVersion":1,"url":REDACTED,"sha256","size","contentType","etag","lastModified","cacheControl",
    /// "fetchedAtMillis","httpStatus"}`. With `inline`, the header also says `"inlineBytes":N` and is followed by a
    /// newline and the blob's N bytes as they are (JSON never holds a raw newline, so the first one ends the header):
    /// no base64 to encode, send a third more of and decode.
    public static func record(url: String, entry: StoreEntry, inline: [UInt8]? = nil) -> [UInt8] {
        let value = JSONValue.object(
            JSONObject(
                [
                    ("schemaVersion", .int(1)), ("url", .string(Redaction.redactURL(url))),
                    ("sha256", .string(entry.blob.sha256)), ("size", .int(entry.blob.size)),
                    ("contentType", .optional(entry.contentType)), ("etag", .optional(entry.etag)),
                    ("lastModified", .optional(entry.lastModified)), ("cacheControl", .optional(entry.cacheControl)),
                    ("fetchedAtMillis", .int(Int((entry.fetchedAt.timeIntervalSince1970 * 1000).rounded()))),
                    ("httpStatus", .int(entry.httpStatus)),
                ] + (inline.map { [("inlineBytes", JSONValue.int($0.count))] } ?? [])))
        var bytes = Array(value.serialized().utf8)
        if let inline {
            bytes.reserveCapacity(bytes.count + 1 + inline.count)
            bytes.append(UInt8(ascii: "\n"))
            bytes += inline
        }
        return bytes
    }

    /// The entry a record describes, or `nil` when it is not one (wrong schema, a bad digest, a negative size).
    public static func entry(_ bytes: [UInt8]) -> StoreEntry? { parse(bytes)?.entry }

    /// The record's entry and the blob bytes it carries inline (`nil`: none, or not base64), from one parse.
    ///
    /// A record as ``record(url:entry:inline:)`` writes it is a JSON header, a newline and `inlineBytes` bytes: only
    /// the header goes through the JSON parser, and a body of any other length makes the record unusable (cut short
    /// or padded: a miss, and the asset comes from origin). Records of earlier versions are JSON alone, the copy in an
    /// `"inline"` member as base64; when they end with `,"inline":"BASE64"}` the members before it are parsed and the
    /// base64 is decoded straight from the record's bytes (``InlineMember``). Anything else — another layout, an
    /// escape in the string, a second `inline` member, text that is not base64 — is parsed whole.
    static func parse(_ bytes: [UInt8]) -> (entry: StoreEntry, inline: ArraySlice<UInt8>?)? {
        let newline = bytes.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let found = memchr(base, 0x0A, raw.count) else { return nil }
            return UnsafeRawPointer(found) - base
        }
        if let headerEnd = newline, let header = parseWhole(Array(bytes[..<headerEnd])),
            let count = header.inlineBytes, !header.hasInline
        {
            let body = bytes[(headerEnd + 1)...]
            return body.count == count ? (header.entry, body) : nil
        }
        if let (members, text) = InlineMember.split(bytes),
            let inline = Base64.decodeCanonical(text) ?? Data(base64Encoded: Data(text)).map({ [UInt8]($0) }),
            let parsed = parseWhole(members), !parsed.hasInline, parsed.inlineBytes == nil
        {
            return (parsed.entry, inline[...])
        }
        guard let parsed = parseWhole(bytes), parsed.inlineBytes == nil else { return nil }
        return (parsed.entry, parsed.inline?[...])
    }

    private static func parseWhole(_ bytes: [UInt8])
        -> (entry: StoreEntry, inline: [UInt8]?, hasInline: Bool, inlineBytes: Int?)?
    {
        guard let value = try? JSON.parse(bytes, options: JSONParseOptions(maxDepth: 4)),
            value["schemaVersion"]?.numberValue?.intValue == 1,
            let sha256 = value["sha256"]?.stringValue, let size = value["size"]?.numberValue?.intValue,
            let blob = BlobRef(sha256: sha256, size: size),
            let millis = value["fetchedAtMillis"]?.numberValue?.intValue
        else { return nil }
        let entry = StoreEntry(
            blob: blob, contentType: value["contentType"]?.stringValue, etag: value["etag"]?.stringValue,
            lastModified: value["lastModified"]?.stringValue, cacheControl: value["cacheControl"]?.stringValue,
            fetchedAt: Date(timeIntervalSince1970: Double(millis) / 1000),
            httpStatus: value["httpStatus"]?.numberValue?.intValue ?? 200)
        let inline = value["inline"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
        let inlineBytes = value["inlineBytes"].map { $0.numberValue?.intValue ?? -1 }
        return (entry, inline, value["inline"] != nil, inlineBytes)
    }

    /// What the remote had for a URL.
    public enum Pull: Sendable {
        /// The blob is now in the local store (verified) and the remote's entry recorded locally.
        case stored(StoreEntry)
        /// No record, no blob, an entry larger than the limit, or the remote is unavailable: use origin.
        case miss
        /// The blob did not match its record (`store.remoteDamaged`): use origin, and push its copy.
        case damaged(Finding)
    }

    /// What the remote's record for a URL was, read ahead of the asset's own retrieval (a batch of `/ac/` reads, see
    /// ``records(for:)``) and not settled then.
    public enum Prefetched: Sendable {
        /// The record's bytes, still to be settled (its blob must be read, or it needs the origin first).
        case record([UInt8])
        /// No usable record (a miss, the remote unavailable, the local store's failure): use origin.
        case absent
        /// Its inline blob did not match (`store.remoteDamaged`): use origin.
        case damaged(Finding)
    }

    /// The `/ac/` records of many URLs, read in one batch (``RemoteCache/getAll(_:maxBytes:)``): one answer per URL,
    /// in order; `nil` for a miss or when the remote is unavailable. A record ``readAhead(_:limit:batch:)`` asked for
    /// is taken from there (waiting for it if it is still on its way), not asked for again.
    public func records(for urls: [String]) async -> [[UInt8]?] {
        let taken = early.withLock { $0.take(urls) }
        guard !taken.isEmpty else { return await cache.getAll(urls.map { .action(Self.key($0)) }) }
        let rest = urls.indices.filter { taken[$0] == nil }
        async let read = cache.getAll(rest.map { .action(Self.key(urls[$0])) })
        var answers = [[UInt8]?](repeating: nil, count: urls.count)
        var batches: [Int: [[UInt8]?]] = [:]
        for (index, found) in taken {
            if batches[found.batch] == nil { batches[found.batch] = await found.task.value }
            answers[index] = batches[found.batch]![found.position]
        }
        for (index, answer) in zip(rest, await read) { answers[index] = answer }
        return answers
    }

    /// The records of `urls`, all of one chunk (``RemotePack/chunks(of:)``; `chunk` is its record keys): from the
    /// chunk's pack, and those the pack lacks (or all, without a pack) read one by one as ``records(for:)`` does. One
    /// answer per URL, in order.
    /// `keys` are the URLs' record keys (``key(_:)``), in the same order.
    func records(for urls: [String], keys: [String], inChunk chunk: [String]) async -> [[UInt8]?] {
        guard chunk.count >= RemotePack.minRecords else { return await records(for: urls) }
        let packKey = RemotePack.key(of: chunk)
        let pack = await cache.get(.action(packKey), maxBytes: RemotePack.maxBytes).map(RemotePack.decode) ?? [:]
        packsRead.withLock { $0[packKey] = Set(pack.keys) }
        var answers = keys.map { key in pack[key].map { Array($0) } }
        let missing = answers.indices.filter { answers[$0] == nil }
        guard !missing.isEmpty else { return answers }
        for (index, answer) in zip(missing, await records(for: missing.map { urls[$0] })) { answers[index] = answer }
        return answers
    }

    /// Writes the pack of each chunk (``RemotePack``) that the remote lacks or that this run made out of date: one
    /// that was not found or lacked a URL the local store now has, or that holds a URL whose entry this run sent
    /// (an origin download, a revalidation). A chunk the run did not read and did not change is left alone. Each pack
    /// is the records of the chunk's URLs as the local store has them (a URL it has no entry for is left out),
    /// built on the upload thread when its turn comes. Call when the run's records are in the store.
    /// - Parameter urls: the run's URLs by record key.
    func pushPacks(_ chunks: [[String]], urls: [String: String], store: AssetStore) {
        guard cache.options.uploads else { return }
        let changed = changed.withLock { $0 }
        let read = packsRead.withLock { $0 }
        for chunk in chunks where chunk.count >= RemotePack.minRecords {
            let packKey = RemotePack.key(of: chunk)
            let chunkURLs = chunk.compactMap { key in urls[key].map { (key: key, url: $0) } }
            let stale: Bool
            if chunk.contains(where: changed.contains) {
                stale = true
            } else if let members = read[packKey] {
                let lacking = chunk.filter { !members.contains($0) }.compactMap { urls[$0] }
                stale = !lacking.isEmpty && ((try? store.lookup(lacking)) ?? []).contains { $0 != nil }
            } else {
                stale = false
            }
            guard stale, !chunkURLs.isEmpty else { continue }
            cache.put(.action(packKey)) { Self.pack(chunkURLs, store: store) }
        }
    }

    /// The pack of `urls` as `store` has them: each one's record (as ``push(_:entry:store:)`` uploads it, its blob
    /// inline while the pack's inline copies stay under ``RemotePack/maxInlineBytes``); `nil` when none is stored.
    private static func pack(_ urls: [(key: String, url: String)], store: AssetStore) -> [UInt8]? {
        guard let entries = try? store.lookup(urls.map(\.url)) else { return nil }
        var records: [(key: String, record: [UInt8])] = []
        var inlineBudget = RemotePack.maxInlineBytes
        for ((key, url), entry) in zip(urls, entries) {
            guard let entry else { continue }
            var inline: [UInt8]? = nil
            if entry.blob.size <= inlineBudget, case .intact(let path)? = try? store.path(entry.blob) {
                inline = Self.inline(path, entry)
                inlineBudget -= inline?.count ?? 0
            }
            records.append((key, record(url: url, entry: entry, inline: inline)))
        }
        return records.isEmpty ? nil : RemotePack.encode(records)
    }

    /// Starts reading the records of `urls` (in order, each once) before the run knows which it will want: the
    /// feed's messages are read before their cards are resolved, and their images are most of what the plan asks
    /// for, so the remote's reads overlap the reading and resolving instead of waiting for them. Called as the
    /// messages are read; `limit` counts over every call, and a URL whose record is still waiting to be taken is
    /// not read again.
    /// ``records(for:)`` takes what it can from here; a record nobody takes is dropped with the tier. Reads in
    /// batches of up to `batch`.
    public func readAhead(_ urls: [String], limit: Int, batch: Int) {
        early.withLock { reads in
            var chosen: [String] = []
            var seen: Set<String> = []
            for url in urls where reads.started + chosen.count < limit && reads.located[url] == nil {
                if seen.insert(url).inserted { chosen.append(url) }
            }
            reads.started += chosen.count
            for start in stride(from: 0, to: chosen.count, by: batch) {
                let part = Array(chosen[start..<min(start + batch, chosen.count)])
                let task = Task { [cache] in await cache.getAll(part.map { .action(Self.key($0)) }) }
                reads.add(part, task)
            }
        }
    }

    /// Looks `url` up in the remote and, on a hit, streams its blob into `store` and records it there.
    /// - Parameters:
    ///   - limit: the largest body accepted (a larger remote entry is a miss).
    ///   - prefetched: the record as a batch read it (see ``records(for:)``), so it is not asked for again.
    public func pull(_ url: String, store: AssetStore, limit: Int?, prefetched: Prefetched? = nil) async -> Pull {
        let bytes: [UInt8]
        switch prefetched {
        case .absent?: return .miss
        case .damaged(let finding)?: return .damaged(finding)
        case .record(let record)?: bytes = record
        case nil:
            guard let record = await cache.get(.action(Self.key(url))) else { return .miss }
            bytes = record
        }
        switch plan(bytes, store: store, limit: limit) {
        case .unusable: return .miss
        case .haveBlob(let entry): return recordOnly(url, entry: entry, store: store)
        case .inline(let entry, let blob): return storeInline(blob, url: url, entry: entry, store: store)
        case .readBlob(let entry): return await readBlob(url, entry: entry, store: store)
        }
    }

    /// Settles a record read in a batch without any further request, when its blob is in the local store already or
    /// rides inline and `accept` takes its entry (fresh, say): verified, stored and recorded as ``pull(_:store:limit:prefetched:)``
    /// would. - Returns: `nil` when it needs the blob's own read or `accept` refused it (nothing was written).
    public func settle(
        _ url: String, record: [UInt8], store: AssetStore, limit: Int?, accept: (StoreEntry) -> Bool
    ) -> Pull? {
        switch plan(record, store: store, limit: limit) {
        case .unusable: return .miss
        case .haveBlob(let entry): return accept(entry) ? recordOnly(url, entry: entry, store: store) : nil
        case .inline(let entry, let blob):
            return accept(entry) ? storeInline(blob, url: url, entry: entry, store: store) : nil
        case .readBlob: return nil
        }
    }

    /// What a record asks for.
    private enum Plan {
        /// Not a record (wrong schema, a bad digest), or its blob is over the limit: a miss.
        case unusable
        /// The same bytes are already stored (under another URL): only the record is new here, no blob is read.
        case haveBlob(StoreEntry)
        /// A small blob inside its record: no second request.
        case inline(StoreEntry, ArraySlice<UInt8>)
        /// The blob must be read from `/cas/`.
        case readBlob(StoreEntry)
    }

    private func plan(_ record: [UInt8], store: AssetStore, limit: Int?) -> Plan {
        guard let (entry, inline) = Self.parse(record), limit.map({ entry.blob.size <= $0 }) ?? true else {
            return .unusable
        }
        // An inline copy is stored without looking first: a commit that finds the same bytes stored keeps them (after
        // checking them), so only a blob still to be read is worth looking for.
        if let inline { return .inline(entry, inline) }
        if case .intact? = try? store.path(entry.blob) { return .haveBlob(entry) }
        return .readBlob(entry)
    }

    private func recordOnly(_ url: String, entry: StoreEntry, store: AssetStore) -> Pull {
        do throws(StoreError) {
            try store.record(url: url, entry: entry)
        } catch {
            return .miss
        }
        return .stored(entry)
    }

    /// `GET /cas/{sha256}` streamed into the store, verified (size and SHA-256) before it is recorded.
    private func readBlob(_ url: String, entry: StoreEntry, store: AssetStore) async -> Pull {
        let sink = StoreSink(store: store, limit: entry.blob.size)
        let read = await cache.get(.blob(entry.blob.sha256), into: sink, maxBytes: entry.blob.size)
        guard case .hit(let size, let sha256) = read else {
            sink.abort()
            return .miss
        }
        guard size == entry.blob.size, sha256 == entry.blob.sha256 else {
            sink.abort()
            return .damaged(
                .warning(
                    AssetFindingCode.remoteDamaged,
                    "the remote cache's copy of \(Redaction.redactURL(url)) is damaged (\(size) bytes, SHA-256 "
                        + "\(sha256) instead of \(entry.blob.size) bytes, \(entry.blob.sha256)): discarded, "
                        + "fetched from origin"))
        }
        do throws(StoreError) {
            // An empty body never reaches the sink's writer: store it as put(bytes:) would.
            var blob = try sink.commit()
            if blob == nil { blob = try store.put(bytes: []) }
            guard blob == entry.blob else { return .miss }
            try store.record(url: url, entry: entry)
        } catch {
            return .miss
        }
        return .stored(entry)
    }

    /// An inline blob, verified as a blob read is: recorded only when its size and SHA-256 are the record's, else
    /// `store.remoteDamaged` and the asset comes from origin (the bytes stay only as an unreferenced blob under
    /// their own digest, which `store gc` removes).
    private func storeInline(_ bytes: ArraySlice<UInt8>, url: String, entry: StoreEntry, store: AssetStore) -> Pull {
        let blob: BlobRef
        do throws(StoreError) {
            blob = try store.put(bytes: bytes)
        } catch {
            return .miss  // the local store's trouble, not the remote's
        }
        guard blob == entry.blob else {
            return .damaged(
                .warning(
                    AssetFindingCode.remoteDamaged,
                    "the remote cache's inline copy of \(Redaction.redactURL(url)) is damaged (\(blob.size) bytes, "
                        + "SHA-256 \(blob.sha256) instead of \(entry.blob.size) bytes, \(entry.blob.sha256)): "
                        + "discarded, fetched from origin"))
        }
        return recordOnly(url, entry: entry, store: store)
    }

    /// Uploads an origin download: its blob (from the store), then its record. Returns at once.
    public func push(_ url: String, entry: StoreEntry, store: AssetStore) {
        guard case .intact(let path)? = try? store.path(entry.blob) else { return }
        noteChanged(url)
        // A small blob is read once: the same bytes go to /cas/ and inline into the record.
        let inline = Self.inline(path, entry)
        cache.put([
            (.blob(entry.blob.sha256), inline.map(RemoteCache.Body.bytes) ?? .file(path)),
            (.action(Self.key(url)), .bytes(Self.record(url: url, entry: entry, inline: inline))),
        ])
    }

    /// Uploads only a record (after a `304`: the blob is already there), with the blob inline when it is small.
    public func pushRecord(_ url: String, entry: StoreEntry, store: AssetStore) {
        // A revalidated entry that is stale again at once (no max-age, no-cache) makes its pack no better: the next
        // runner revalidates it whichever record it reads.
        if case .fresh = entry.cacheDecision(at: Date()) { noteChanged(url) }
        var inline: [UInt8]? = nil
        if case .intact(let path)? = try? store.path(entry.blob) { inline = Self.inline(path, entry) }
        cache.put([(.action(Self.key(url)), .bytes(Self.record(url: url, entry: entry, inline: inline)))])
    }

    private func noteChanged(_ url: String) {
        guard cache.options.uploads else { return }
        let key = Self.key(url)
        changed.withLock { _ = $0.insert(key) }
    }

    /// The blob's bytes when it is small enough to ride inline (``inlineLimit``).
    private static func inline(_ path: String, _ entry: StoreEntry) -> [UInt8]? {
        guard entry.blob.size <= inlineLimit, let data = FileManager.default.contents(atPath: path),
            data.count == entry.blob.size
        else { return nil }
        return [UInt8](data)
    }
}

/// The inline copy at the end of a record, found without the JSON parser (see ``RemoteTier/parse(_:)``).
enum InlineMember {
    private static let marker = Array(#","inline":""#.utf8)

    /// The record without its last member (closed again: `{…}`) and that member's string, when the record ends with
    /// `,"inline":"…"}` and the string has no quote or escape; else `nil`.
    static func split(_ record: [UInt8]) -> (members: [UInt8], text: ArraySlice<UInt8>)? {
        let count = record.count
        guard count >= marker.count + 3, record[count - 1] == UInt8(ascii: "}"), record[count - 2] == UInt8(ascii: "\"")
        else { return nil }
        // The first `,"inline":"` outside a string (inside one its quotes would be escaped) starts the member; the
        // string that follows must run, unescaped, to the end.
        guard let start = firstMarker(in: record) else { return nil }
        let text = start + marker.count
        let plain = record.withUnsafeBytes { bytes in
            memchr(bytes.baseAddress! + text, Int32(UInt8(ascii: "\"")), count - 2 - text) == nil
                && memchr(bytes.baseAddress! + text, Int32(UInt8(ascii: "\\")), count - 2 - text) == nil
        }
        guard plain else { return nil }
        return (Array(record[..<start]) + [UInt8(ascii: "}")], record[text..<(count - 2)])
    }

    private static func firstMarker(in record: [UInt8]) -> Int? {
        let last = record.count - marker.count - 2
        guard last > 0 else { return nil }
        for start in 1...last
        where record[start] == marker[0] && record[start..<(start + marker.count)].elementsEqual(marker) {
            return start
        }
        return nil
    }
}

/// The records ``RemoteTier/readAhead(_:limit:batch:)`` is reading or has read, by URL, until they are taken.
private struct EarlyReads {
    typealias Batch = Task<[[UInt8]?], Never>
    /// One task per batch of URLs; `nil` once every record of it has been taken (its takers hold it).
    var batches: [Batch?] = []
    /// Where a URL's record is: its batch and its position there.
    var located: [String: (batch: Int, position: Int)] = [:]
    /// How many records of each batch are still to be taken.
    var remaining: [Int] = []
    /// How many URLs were read ahead in all (``RemoteTier/readAhead(_:limit:batch:)``'s `limit` counts them).
    var started = 0

    mutating func add(_ urls: [String], _ task: Batch) {
        for (position, url) in urls.enumerated() { located[url] = (batches.count, position) }
        remaining.append(urls.count)
        batches.append(task)
    }

    /// The early reads of `urls`, by their index there: each record is taken once, and a batch none of whose records
    /// is left is let go (its records go with the last taker).
    mutating func take(_ urls: [String]) -> [Int: (batch: Int, task: Batch, position: Int)] {
        guard !located.isEmpty else { return [:] }
        var taken: [Int: (batch: Int, task: Batch, position: Int)] = [:]
        for (index, url) in urls.enumerated() {
            guard let found = located.removeValue(forKey: url), let task = batches[found.batch] else { continue }
            taken[index] = (found.batch, task, found.position)
            remaining[found.batch] -= 1
            if remaining[found.batch] == 0 { batches[found.batch] = nil }
        }
        return taken
    }
}
