import StrictJSON

/// One line of the index log.
enum IndexRecord: Equatable {
    /// URL → entry; `accessedAt` (ms) starts the LRU clock.
    case put(url: String, entry: StoreEntry, accessedAt: Int)
    /// The URL was used at `accessedAt` (ms).
    case touch(url: String, accessedAt: Int)
    /// The URL is no longer in the store.
    case remove(url: String)
    /// First line of a compacted log: a random id that tells this file from any earlier log that had the
    /// same inode number (file systems reuse them), so cached readers notice the switch.
    case generation(id: String)
}

/// A record the reader skipped, with where it was and why.
struct RecordDamage: Hashable {
    enum Kind: Hashable {
        /// Shorter than its header says, or cut inside the header: an append interrupted by a crash.
        case torn
        /// Complete but wrong: checksum mismatch, garbage, or JSON that is not a valid record.
        case corrupt
    }
    var offset: Int
    var length: Int
    var kind: Kind
    var reason: String
}

/// The newest state of one URL while reading the log.
struct IndexedEntry: Equatable {
    var entry: StoreEntry
    var accessedAt: Int
}

/// The index as read from the log: newest record per URL wins.
struct IndexState {
    var entries: [String: IndexedEntry] = [:]
    var records = 0
    var damage: [RecordDamage] = []

    mutating func apply(_ record: IndexRecord) {
        if case .generation = record { return }
        records += 1
        switch record {
        case .put(let url, let entry, let accessedAt):
            // One hash lookup (a run applies every record it appends); an older record's later access stays.
            let earlier = entries.updateValue(IndexedEntry(entry: entry, accessedAt: accessedAt), forKey: url)
            let kept = max(accessedAt, earlier?.accessedAt ?? 0)
            if kept != accessedAt { entries[url]?.accessedAt = kept }
        case .touch(let url, let accessedAt):
            if let current = entries[url], current.accessedAt < accessedAt {
                entries[url]?.accessedAt = accessedAt
            }
        case .remove(let url):
            entries[url] = nil
        case .generation:
            break
        }
    }
}

/// The on-disk record format of `STORE/index/records.log`.
///
/// Each record is one write of `"\n" + "IA1 " + <JSON byte length> + " " + <first 16 hex digits of the
/// JSON's SHA-256> + " " + <JSON> + "\n"`. The leading newline matters: an append cut short by `kill -9`
/// leaves a partial line without its newline, and the next process's record must not be glued onto it.
/// Readers skip empty lines, count a line shorter than its declared length as *torn* (crash debris) and a
/// complete line whose checksum or JSON is wrong as *corrupt* (damage), and keep going.
enum IndexCodec {
    static let magic: [UInt8] = Array("IA1 ".utf8)
    /// One record must fit one `write` so `O_APPEND` keeps it whole; URLs longer than this are refused.
    static let maxRecordBytes = 60 * 1024

    static func encode(_ record: IndexRecord) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(512)
        if case .put(let url, let entry, let accessedAt) = record {
            // The record every stored asset writes, written directly: the same bytes as the JSONValue path below
            // (same member order, same escaping; IndexTests compare the two), without building a JSONObject first.
            body += #"{"op":"put","url":"#.utf8
            appendString(url, to: &body)
            body += #","sha256":"#.utf8
            appendString(entry.blob.sha256, to: &body)
            body += #","size":"#.utf8
            body += String(entry.blob.size).utf8
            body += #","contentType":"#.utf8
            appendOptional(entry.contentType, to: &body)
            body += #","etag":"#.utf8
            appendOptional(entry.etag, to: &body)
            body += #","lastModified":"#.utf8
            appendOptional(entry.lastModified, to: &body)
            body += #","cacheControl":"#.utf8
            appendOptional(entry.cacheControl, to: &body)
            body += #","fetchedAt":"#.utf8
            body += String(Millis.from(entry.fetchedAt)).utf8
            body += #","httpStatus":"#.utf8
            body += String(entry.httpStatus).utf8
            body += #","accessedAt":"#.utf8
            body += String(accessedAt).utf8
            body.append(UInt8(ascii: "}"))
        } else {
            body = encodedJSON(record)
        }
        return line(body)
    }

    /// The record's JSON through ``JSONValue`` (every kind of record; `put` records take the direct path above).
    static func encodedJSON(_ record: IndexRecord) -> [UInt8] {
        let json: JSONValue
        switch record {
        case .put(let url, let entry, let accessedAt):
            json = .object(
                JSONObject([
                    ("op", "put"), ("url", .string(url)), ("sha256", .string(entry.blob.sha256)),
                    ("size", .int(entry.blob.size)), ("contentType", .optional(entry.contentType)),
                    ("etag", .optional(entry.etag)), ("lastModified", .optional(entry.lastModified)),
                    ("cacheControl", .optional(entry.cacheControl)),
                    ("fetchedAt", .int(Millis.from(entry.fetchedAt))), ("httpStatus", .int(entry.httpStatus)),
                    ("accessedAt", .int(accessedAt)),
                ]))
        case .touch(let url, let accessedAt):
            json = .object(JSONObject([("op", "touch"), ("url", .string(url)), ("accessedAt", .int(accessedAt))]))
        case .remove(let url):
            json = .object(JSONObject([("op", "remove"), ("url", .string(url))]))
        case .generation(let id):
            json = .object(JSONObject([("op", "generation"), ("id", .string(id))]))
        }
        var body: [UInt8] = []
        json.write(to: &body)
        return body
    }

    /// Frames a record's JSON as one log line: newline, magic, length, checksum, JSON, newline.
    static func line(_ body: [UInt8]) -> [UInt8] {
        let digest = SHA256Hasher.digest(body)
        var line: [UInt8] = [0x0a]
        line.reserveCapacity(body.count + 40)
        line += magic
        line += String(body.count).utf8
        line.append(0x20)
        // The checksum: the first 16 hex digits (8 bytes) of the JSON's SHA-256.
        for byte in digest.prefix(8) {
            line.append(hexDigits[Int(byte >> 4)])
            line.append(hexDigits[Int(byte & 0x0F)])
        }
        line.append(0x20)
        line += body
        line.append(0x0a)
        return line
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func appendOptional(_ string: String?, to output: inout [UInt8]) {
        if let string { appendString(string, to: &output) } else { output += "null".utf8 }
    }

    /// A JSON string exactly as StrictJSON writes one: UTF-8, with `"`, `\` and control characters escaped.
    private static func appendString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings (URLs, hashes, validators) need no escape at all: scanned and copied in one go, in place.
        var string = string
        let plain = string.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            output.append(contentsOf: bytes)
            return true
        }
        if plain {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += #"\""#.utf8
            case UInt8(ascii: "\\"): output += #"\\"#.utf8
            case 0x0A: output += #"\n"#.utf8
            case 0x0D: output += #"\r"#.utf8
            case 0x09: output += #"\t"#.utf8
            case 0..<0x20:
                output += #"\u00"#.utf8
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Parses the complete lines of `bytes` (which start at file offset `base`) into `state`.
    /// - Parameter final: treat an unterminated last line as a torn record (otherwise it is left for later:
    ///   another process may be in the middle of writing it).
    /// - Returns: how many bytes were consumed (up to and including the last newline, or all when `final`).
    static func parse(_ bytes: [UInt8], base: Int, into state: inout IndexState, final: Bool) -> Int {
        var lineStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            if bytes[index] == 0x0a {
                if index > lineStart { decodeLine(bytes, lineStart, index, base: base, into: &state) }
                lineStart = index + 1
            }
            index += 1
        }
        guard final, lineStart < count else { return lineStart }
        state.damage.append(
            RecordDamage(
                offset: base + lineStart, length: count - lineStart, kind: .torn,
                reason: "unterminated record at the end of the log"))
        return count
    }

    private static func decodeLine(_ bytes: [UInt8], _ start: Int, _ end: Int, base: Int, into state: inout IndexState)
    {
        func damage(_ kind: RecordDamage.Kind, _ reason: String) {
            state.damage.append(RecordDamage(offset: base + start, length: end - start, kind: kind, reason: reason))
        }
        let length = end - start
        // A torn header: the line stops inside "IA1 " or is the zero fill a power loss leaves behind.
        if length < magic.count {
            if bytes[start..<end].elementsEqual(magic[0..<length]) {
                damage(.torn, "record cut inside its header")
            } else {
                damage(.corrupt, "not a record")
            }
            return
        }
        guard bytes[start..<start + magic.count].elementsEqual(magic) else {
            if bytes[start..<end].allSatisfy({ $0 == 0 }) {
                damage(.torn, "zero-filled record")
            } else {
                damage(.corrupt, "not a record")
            }
            return
        }
        var position = start + magic.count
        var declared = 0
        var digits = 0
        while position < end, bytes[position] >= 0x30, bytes[position] <= 0x39, digits < 7 {
            declared = declared * 10 + Int(bytes[position] - 0x30)
            position += 1
            digits += 1
        }
        guard digits > 0, position < end, bytes[position] == 0x20 else {
            if position == end {
                damage(.torn, "record cut inside its header")
            } else {
                damage(.corrupt, "malformed record length")
            }
            return
        }
        position += 1
        let checksumStart = position
        guard end - checksumStart >= 17 else {
            damage(.torn, "record cut inside its header")
            return
        }
        guard bytes[checksumStart + 16] == 0x20 else {
            damage(.corrupt, "malformed record checksum")
            return
        }
        let bodyStart = checksumStart + 17
        let available = end - bodyStart
        if available < declared {
            damage(.torn, "record has \(available) of its \(declared) bytes")
            return
        }
        if available > declared {
            damage(.corrupt, "record is longer than its declared \(declared) bytes")
            return
        }
        let body = Array(bytes[bodyStart..<end])
        let expected = SHA256Hasher.hex(body).utf8.prefix(16)
        guard bytes[checksumStart..<checksumStart + 16].elementsEqual(expected) else {
            damage(.corrupt, "checksum mismatch")
            return
        }
        do {
            let value = try JSON.parse(body)
            guard let record = decodeRecord(value) else {
                damage(.corrupt, "record JSON lacks required fields")
                return
            }
            state.apply(record)
        } catch {
            damage(.corrupt, "record JSON: \(error)")
        }
    }

    private static func decodeRecord(_ value: JSONValue) -> IndexRecord? {
        guard let op = value["op"]?.stringValue else { return nil }
        if op == "generation" { return value["id"]?.stringValue.map { .generation(id: $0) } }
        guard let url = value["url"]?.stringValue, !url.isEmpty else { return nil }
        switch op {
        case "put":
            guard let sha256 = value["sha256"]?.stringValue, let size = value["size"]?.numberValue?.intValue,
                let blob = BlobRef(sha256: sha256, size: size),
                let fetchedAt = value["fetchedAt"]?.numberValue?.intValue,
                let httpStatus = value["httpStatus"]?.numberValue?.intValue
            else { return nil }
            func text(_ key: String) -> String?? {
                switch value[key] {
                case nil, .null?: return .some(nil)
                case .string(let string)?: return .some(string)
                default: return nil
                }
            }
            guard let contentType = text("contentType"), let etag = text("etag"),
                let lastModified = text("lastModified"), let cacheControl = text("cacheControl")
            else { return nil }
            let entry = StoreEntry(
                blob: blob, contentType: contentType, etag: etag, lastModified: lastModified,
                cacheControl: cacheControl, fetchedAt: Millis.date(fetchedAt), httpStatus: httpStatus)
            let accessedAt = value["accessedAt"]?.numberValue?.intValue ?? fetchedAt
            return .put(url: url, entry: entry, accessedAt: accessedAt)
        case "touch":
            guard let accessedAt = value["accessedAt"]?.numberValue?.intValue else { return nil }
            return .touch(url: url, accessedAt: accessedAt)
        case "remove":
            return .remove(url: url)
        default:
            return nil
        }
    }
}
