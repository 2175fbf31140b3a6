public import FoundationEssentials
import Glibc

/// Small self-contained records under a hex key — a pass's verification verdict, say — that any tier can keep:
/// this store's `records/` area now, a remote cache (whose action-cache endpoint takes the same key) wrapped
/// around it later. A record is opaque bytes; whoever writes it puts a version in its key or its content.
public protocol KeyedRecords: Sendable {
    /// The record saved under `key`, or `nil` when there is none (or it cannot be read).
    func load(_ key: String) -> Data?
    /// Saves `data` under `key`, replacing any record there; best effort (a record is a cache, never the truth).
    func save(_ key: String, _ data: Data)
}

/// `STORE/records/<first two hex digits>/<key>`: one file per record, written to a temporary name and renamed
/// into place, so a reader sees a whole record or none. `store gc` leaves the area alone; deleting it loses only
/// time.
public struct RecordArea: KeyedRecords {
    /// `STORE/records`.
    public let directory: String

    /// The area under `directory` (created on the first save).
    public init(directory: String) { self.directory = directory }

    /// Keys are 16–128 lower-case hex digits: nothing else can become a path.
    static func isKey(_ key: String) -> Bool {
        (16...128).contains(key.utf8.count) && key.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private func path(_ key: String) -> String { directory + "/" + key.prefix(2) + "/" + key }

    public func load(_ key: String) -> Data? {
        guard Self.isKey(key) else { return nil }
        let descriptor = open(path(key), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= 0, status.st_size <= 16 << 20 else { return nil }
        var data = Data(count: Int(status.st_size))
        let count = data.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return count == Int(status.st_size) ? data : nil
    }

    public func save(_ key: String, _ data: Data) {
        guard Self.isKey(key) else { return }
        let folder = directory + "/" + key.prefix(2)
        if mkdir(folder, 0o755) != 0 && errno == ENOENT {
            mkdir(directory, 0o755)
            mkdir(folder, 0o755)
        }
        let temporary = folder + "/.\(key).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        if written != data.count || rename(temporary, path(key)) != 0 { unlink(temporary) }
    }
}

extension AssetStore {
    /// The store's keyed-record area, `STORE/records/`.
    public var records: RecordArea { RecordArea(directory: directory + "/records") }
}
