import HTTPFetch

/// Many assets' records in one `/ac/` entry, so that a runner asks a warm remote for a few hundred assets at a time
/// instead of one request each. Over loopback a request costs CPU on both sides (a `send` that wakes the server, its
/// response, the client's bookkeeping); over a real network it costs a round trip, and on S3 or GCS behind
/// bazel-remote a billed GET. A pack is what a runner would have read record by record, so nothing else changes:
/// each record in it is used exactly as the same record read from `/ac/{sha256 of the URL}` would be (its inline
/// blob verified, a stale entry revalidated with origin), and whatever a pack lacks is read record by record.
///
/// **Which assets share a pack** must come out the same on every runner that plans the same URLs, without a
/// coordinator, and a campaign that changes a few URLs must leave the other packs alone. So the run's record keys
/// (``RemoteTier/key(_:)``, uniformly distributed hex) are sorted and cut after every key whose last three hex digits
/// are a multiple of 512 (content-defined, as rsync and restic cut files into chunks): a key ends a chunk or not
/// whatever else is planned, so adding or removing one URL changes only the chunk it falls in (or splits or joins two
/// at a cut). A chunk never holds more than ``maxRecords`` keys (a long run between cuts is cut there too), so a
/// pack stays a few MB; a chunk of fewer than ``minRecords`` has none. The pack's own key is the SHA-256 of its
/// chunk's keys.
///
/// **Layout** (``encode(_:)``): the line `inbox-assets pack 1`, then for each record a line of its key (64 hex
/// digits), a space and its length in bytes, and the record's bytes as `/ac/{key}` holds them. A pack cut short keeps
/// the records before the cut; anything else malformed ends the pack there (``decode(_:)``).
enum RemotePack {
    /// A chunk ends after a key whose last three hex digits, as a number, have these bits clear: one key in 512.
    static let cutMask: UInt32 = 0x1FF
    /// The most records one pack holds.
    static let maxRecords = 2_048
    /// A chunk of fewer keys has no pack: its records are read one by one (a pack would save little, and cost a
    /// request and a copy of the records on the remote).
    static let minRecords = 32
    /// Inline copies in one pack add up to at most this; records past it go without theirs (their blob is read from
    /// `/cas/`), so a pack in memory stays small whatever the assets weigh.
    static let maxInlineBytes = 8 << 20
    /// The most bytes read for one pack: its inline copies and headers of ``maxRecords`` records, with room to spare.
    static let maxBytes = maxInlineBytes + maxRecords * 4096
    private static let magic = Array("inbox-assets pack 1\n".utf8)

    /// The chunks of `keys` (record keys; repeats count once), each sorted; in order of their keys.
    static func chunks(of keys: [String]) -> [[String]] {
        var chunks: [[String]] = []
        var current: [String] = []
        for key in Set(keys).sorted() {
            current.append(key)
            if isCut(key) || current.count == maxRecords {
                chunks.append(current)
                current = []
            }
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }

    /// Whether `key` ends a chunk.
    static func isCut(_ key: String) -> Bool {
        guard let value = UInt32(key.suffix(3), radix: 16) else { return false }
        return value & cutMask == 0
    }

    /// The `/ac/` key of a chunk's pack.
    static func key(of chunk: [String]) -> String {
        RemoteCache.key(String(decoding: magic, as: UTF8.self) + chunk.joined(separator: "\n"))
    }

    /// A pack of `records` (key, the record's bytes), in the order given.
    static func encode(_ records: [(key: String, record: [UInt8])]) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(records.reduce(magic.count) { $0 + $1.record.count + 80 })
        for (key, record) in records {
            bytes += Array("\(key) \(record.count)\n".utf8)
            bytes += record
        }
        return bytes
    }

    /// The records of a pack by key: every whole record up to the first thing that is not one (the end, a pack cut
    /// short, a line that is not a key and a length); none when the pack does not start as one. A key listed twice
    /// keeps its first record.
    static func decode(_ bytes: [UInt8]) -> [String: ArraySlice<UInt8>] {
        guard bytes.starts(with: magic) else { return [:] }
        var records: [String: ArraySlice<UInt8>] = [:]
        var at = magic.count
        while at < bytes.count {
            // `KEY LENGTH\n`: 64 lowercase hex digits, a space, 1–9 decimal digits.
            let lineEnd = min(bytes.count, at + 64 + 1 + 9 + 1)
            guard let newline = bytes[at..<lineEnd].firstIndex(of: 0x0A), newline - at >= 66,
                bytes[at + 64] == UInt8(ascii: " ")
            else { break }
            let keyBytes = bytes[at..<(at + 64)]
            let digits = bytes[(at + 65)..<newline]
            guard keyBytes.allSatisfy(Self.isLowerHex), digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
                break
            }
            let length = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            let start = newline + 1
            guard length <= bytes.count - start else { break }
            let key = String(decoding: keyBytes, as: UTF8.self)
            if records[key] == nil { records[key] = bytes[start..<(start + length)] }
            at = start + length
        }
        return records
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }
}
