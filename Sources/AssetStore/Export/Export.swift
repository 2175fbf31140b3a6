import Findings
import Glibc
public import StrictJSON

/// How ``AssetStore/export(urls:to:options:)`` writes its output.
public struct ExportOptions: Sendable, Hashable {
    /// How URLs appear as keys of `manifest.json`.
    public enum ManifestKeys: Sendable, Hashable {
        /// The exact URL, secrets included. The default: the app looks assets up by the URL it finds in
        /// the message payload, which already carries the same URL, so the manifest reveals nothing the
        /// app's inbox data does not — but do not publish a manifest where the campaign data is private.
        case exactURL
        /// The URL with secret query values replaced by `REDACTED` (``Redaction/redactURL(_:)``); the app
        /// must redact its lookup keys with the same rule. Two URLs that differ only in a secret share a
        /// key; the first in URL order wins and the other is reported as a collision.
        case redactedURL
        /// The SHA-256 of the exact URL (its UTF-8 bytes, 64 lowercase hex digits): the app hashes the URL it finds
        /// in the message payload and looks that up. No URL text reaches the export at all: the manifest says
        /// `"keys": "sha256"`, and file names are the content's SHA-256 instead of the URL's last path component.
        /// Distinct URLs never share a key.
        case sha256
    }

    /// How URLs appear as manifest keys.
    public var manifestKeys: ManifestKeys

    /// Creates options.
    public init(manifestKeys: ManifestKeys = .exactURL) {
        self.manifestKeys = manifestKeys
    }
}

/// One file written by an export.
public struct ExportedAsset: Sendable, Hashable {
    /// The URL (exact; redact before printing).
    public var url: String
    /// The file's path relative to the export directory, e.g. `assets/hero-1a2b3c4d5e6f.jpg`.
    public var path: String
    /// SHA-256 of the file.
    public var sha256: String
    /// The stored `Content-Type`.
    public var contentType: String?
    /// Size in bytes.
    public var bytes: Int
}

/// A URL the export could not take from the store.
public struct MissingAsset: Sendable, Hashable {
    /// Why it is missing.
    public enum Reason: String, Sendable, Hashable {
        /// The store has no entry for the URL: prefetch it.
        case notInStore
        /// The entry's blob is gone from the store: fetch it again.
        case blobMissing
        /// The entry's blob failed its hash check (and was removed): fetch it again.
        case blobDamaged
        /// With redacted manifest keys, another URL already took this key.
        case keyCollision
    }

    /// The URL (exact; ``finding`` redacts it).
    public var url: String
    /// Why it is missing.
    public var reason: Reason

    /// Creates a missing-asset report.
    public init(url: String, reason: Reason) {
        self.url = url
        self.reason = reason
    }

    /// The gap as a finding (`asset.notInStore`, `asset.storeDamaged`, …).
    public var finding: Finding {
        let shown = Redaction.redactURL(url)
        switch reason {
        case .notInStore: return .error("asset.notInStore", "\(shown) is not in the store; prefetch it first")
        case .blobMissing: return .error("asset.storeMissing", "the stored body of \(shown) is missing; fetch it again")
        case .blobDamaged:
            return .error("asset.storeDamaged", "the stored body of \(shown) failed its hash check; fetch it again")
        case .keyCollision:
            return .warning("asset.manifestKeyCollision", "\(shown) has the same redacted manifest key as another URL")
        }
    }
}

/// What ``AssetStore/export(urls:to:options:)`` wrote and what it could not.
public struct ExportResult: Sendable, Hashable {
    /// The export directory (absolute).
    public var directory: String
    /// Files written, in URL order.
    public var assets: [ExportedAsset]
    /// URLs not exported, in URL order.
    public var missing: [MissingAsset]
    /// The manifest as written to `manifest.json`.
    public var manifest: JSONValue

    /// One finding per missing URL.
    public var findings: [Finding] { missing.map(\.finding) }
}

/// A body to export that is not in the store: a download a store that cannot be written kept in memory.
public struct ExportBody: Sendable, Hashable {
    /// The bytes.
    public var bytes: [UInt8]
    /// The `Content-Type` it was served with.
    public var contentType: String?

    /// Creates a body.
    public init(bytes: [UInt8], contentType: String?) {
        self.bytes = bytes
        self.contentType = contentType
    }
}

extension AssetStore {
    /// Writes the stored bodies of `urls` as files under `directory/assets/` plus `directory/manifest.json`:
    /// ```
    /// {"schemaVersion":1,"assets":{"<url>":{"path":"assets/<file>","sha256":"…","contentType":"…","bytes":123}}}
    /// ```
    /// Every file is copied (not linked: the app bundle must not share inodes with the store) while its
    /// SHA-256 is checked. The export is atomic: it is built in a hidden sibling directory
    /// (`.NAME.export-PID-TOKEN`, `flock`'d while this process works in it), fsync'd, and exchanged with an earlier
    /// export at `directory` in one `renameat2(RENAME_EXCHANGE)` (two renames where the file system cannot
    /// exchange). URLs the store cannot provide are reported in ``ExportResult/missing`` and left out of the
    /// manifest.
    ///
    /// `directory` may be absent, an empty directory, an earlier export (a directory holding a regular
    /// `manifest.json`) or a symbolic link to one of those (the export is written where the link points; the link
    /// stays). Anything else — a regular file, a device, a FIFO, a socket, a directory with other contents, a
    /// dangling link — is refused and left as it is. Before staging, what interrupted exports to the same
    /// `directory` left next to it (staging and replaced directories whose process is gone) is removed, and a
    /// replaced export whose successor never arrived is put back; the store also notes `directory` (in
    /// `STORE/exports/`) so that ``gc(maxBytes:orphanGrace:)`` finds such leftovers later.
    /// - Parameters:
    ///   - urls: The URLs to export (duplicates are fine).
    ///   - directory: The export directory.
    ///   - options: How URLs appear in the manifest.
    ///   - bodies: Bodies to take from memory instead of the store, by URL (downloads a store that cannot be
    ///     written could not keep).
    /// - Throws: `.outputNotEmpty` when `directory` holds something other than an earlier export,
    ///   `.outputNotADirectory` when it is not a directory at all, or the file system's error (the staging
    ///   directory is removed).
    public func export(
        urls: [String], to directory: String, options: ExportOptions = ExportOptions(),
        bodies: [String: ExportBody] = [:]
    ) throws(StoreError) -> ExportResult {
        let requested = FileSystem.absolute(directory)
        let output = try ExportTarget.resolve(requested)
        let parent = FileSystem.parentDirectory(output)
        let name = FileSystem.lastComponent(output)
        // Refused targets first: nothing is cleaned up next to them, and the store does not note them.
        _ = try Self.replacesEarlierExport(output, shownAs: requested)
        ExportTarget.cleanDebris(nextTo: output)
        registerExport(output)
        // Again: cleaning up may have put back an earlier export that an interrupted run had moved away.
        let replacing = try Self.replacesEarlierExport(output, shownAs: requested)
        let staging = parent + "/.\(name)\(ExportTarget.stagingInfix)\(getpid())-\(FileSystem.randomToken())"
        try FileSystem.makeDirectory(staging)
        // Held until the export is done: a cleaner (gc, another export) never removes a locked directory.
        let stagingLock = DirectoryLock(staging)
        defer { stagingLock.release() }
        do throws(StoreError) {
            try FileSystem.makeDirectories(staging + "/assets")
            let result = try writeExport(
                urls: urls, bodies: bodies, into: staging, finalDirectory: requested, options: options)
            try FileSystem.syncDirectory(staging + "/assets")
            try FileSystem.syncDirectory(staging)
            if replacing {
                let oldLock = DirectoryLock(output)
                defer { oldLock.release() }
                if try FileSystem.exchange(staging, output) {
                    // `staging` now names the earlier export.
                    FileSystem.removeTree(staging)
                } else {
                    let old = parent + "/.\(name)\(ExportTarget.oldInfix)\(getpid())-\(FileSystem.randomToken())"
                    try FileSystem.rename(output, old)
                    do throws(StoreError) {
                        try FileSystem.rename(staging, output)
                    } catch {
                        try? FileSystem.rename(old, output)
                        throw error
                    }
                    FileSystem.removeTree(old)
                }
            } else {
                try FileSystem.rename(staging, output)
            }
            try FileSystem.syncDirectory(parent)
            return result
        } catch {
            FileSystem.removeTree(staging)
            throw error
        }
    }

    /// Whether `output` holds an earlier export to replace (`false`: absent or an empty directory).
    /// - Throws: `.outputNotADirectory` or `.outputNotEmpty` for anything an export must not replace.
    private static func replacesEarlierExport(_ output: String, shownAs requested: String) throws(StoreError) -> Bool {
        guard let info = try FileSystem.linkStatus(output) else { return false }
        guard FileSystem.isDirectory(info) else {
            throw StoreError(
                .outputNotADirectory, "\(requested) is \(FileSystem.describe(info)), not a directory; left as it is",
                path: requested)
        }
        guard !(try FileSystem.list(output)).isEmpty else { return false }
        guard let manifest = try FileSystem.linkStatus(output + "/manifest.json"), FileSystem.isRegularFile(manifest)
        else {
            throw StoreError(
                .outputNotEmpty, "\(requested) exists and is not an earlier export (no manifest.json)", path: requested)
        }
        return true
    }

    /// Notes an export target in `STORE/exports/` (one small file per target, named by the SHA-256 of its path and
    /// holding the path) so that gc can find what an interrupted export left next to it. Best effort: a store that
    /// cannot be written simply does not learn about it (the next export to the same target still cleans up).
    func registerExport(_ target: String) {
        let line = Array((target + "\n").utf8)
        let name = String(SHA256Hasher.hex(Array(target.utf8)).prefix(32))
        let file = exportsDirectory + "/" + name
        if (try? FileSystem.readFile(file)) == line { return }
        guard (try? FileSystem.makeDirectories(exportsDirectory)) != nil else { return }
        let temp = exportsDirectory + "/.tmp-\(getpid())-\(FileSystem.randomToken())"
        guard let fd = try? FileSystem.open(temp, O_WRONLY | O_CREAT | O_EXCL, operation: "create") else { return }
        let written =
            (try? withBytes(line) { (raw) throws(StoreError) in
                try FileSystem.writeAll(fd, raw.baseAddress!, raw.count, path: temp)
            }) != nil
        close(fd)
        if !written || Glibc.rename(temp, file) != 0 { unlink(temp) }
    }

    /// The export targets ``registerExport(_:)`` noted, with the file that notes each. A file whose name does not
    /// match its content (torn by a crash, or not the store's) is reported with a `nil` target.
    func registeredExports() -> [(file: String, target: String?)] {
        var found: [(String, String?)] = []
        // Unreadable (another user's store): nothing to look after.
        for name in ((try? FileSystem.list(exportsDirectory)) ?? []).sorted() {
            let file = exportsDirectory + "/" + name
            if name.hasPrefix(".tmp-") {
                found.append((file, nil))
                continue
            }
            guard let bytes = try? FileSystem.readFile(file), bytes.last == 0x0a, bytes.count < 8_192 else {
                found.append((file, nil))
                continue
            }
            let target = String(decoding: bytes.dropLast(), as: UTF8.self)
            let valid = target.hasPrefix("/") && String(SHA256Hasher.hex(Array(target.utf8)).prefix(32)) == name
            found.append((file, valid ? target : nil))
        }
        return found
    }

    private func writeExport(
        urls: [String], bodies: [String: ExportBody], into staging: String, finalDirectory: String,
        options: ExportOptions
    ) throws(StoreError) -> ExportResult {
        var assets: [ExportedAsset] = []
        var missing: [MissingAsset] = []
        var manifestAssets = JSONObject()
        var written: [String: String] = [:]  // file → sha256
        let hashedKeys = options.manifestKeys == .sha256
        for url in Set(urls).sorted() {
            let key: String
            switch options.manifestKeys {
            case .exactURL: key = url
            case .redactedURL: key = Redaction.redactURL(url)
            case .sha256: key = SHA256Hasher.hex(Array(url.utf8))
            }
            if manifestAssets[key] != nil {
                missing.append(MissingAsset(url: url, reason: .keyCollision))
                continue
            }
            // The body: from memory when the caller holds it (newer than any stored copy), else from the store.
            let sha256: String
            let size: Int
            let contentType: String?
            let entry: StoreEntry?
            if let body = bodies[url] {
                sha256 = SHA256Hasher.hex(body.bytes)
                size = body.bytes.count
                contentType = body.contentType
                entry = nil
            } else {
                guard let stored = try lookup(url) else {
                    missing.append(MissingAsset(url: url, reason: .notInStore))
                    continue
                }
                (sha256, size, contentType, entry) = (
                    stored.blob.sha256, stored.blob.size, stored.contentType, stored
                )
            }
            var file =
                "assets/"
                + (hashedKeys
                    ? Self.hashedExportFileName(url: url, sha256: sha256, contentType: contentType)
                    : Self.exportFileName(url: url, sha256: sha256, contentType: contentType))
            if let other = written[file], other != sha256 {
                // Twelve hex digits collided: the full hash keeps the two contents apart.
                file.replace(String(other.prefix(12)), with: sha256, maxReplacements: 1)
            }
            if written[file] == nil {
                if let body = bodies[url] {
                    try writeNewFile(body.bytes, to: staging + "/" + file)
                    written[file] = sha256
                } else if let entry {
                    switch try copyVerified(entry.blob, to: staging + "/" + file) {
                    case .intact: written[file] = sha256
                    case .missing:
                        missing.append(MissingAsset(url: url, reason: .blobMissing))
                        continue
                    case .damaged:
                        missing.append(MissingAsset(url: url, reason: .blobDamaged))
                        continue
                    }
                }
            }
            let asset = ExportedAsset(url: url, path: file, sha256: sha256, contentType: contentType, bytes: size)
            assets.append(asset)
            manifestAssets[key] = .object(
                JSONObject([
                    ("path", .string(file)), ("sha256", .string(asset.sha256)),
                    ("contentType", .optional(asset.contentType)), ("bytes", .int(asset.bytes)),
                ]))
        }
        var members: [(String, JSONValue)] = [("schemaVersion", .int(1))]
        if hashedKeys { members.append(("keys", .string("sha256"))) }
        members.append(("assets", .object(manifestAssets)))
        let manifest = JSONValue.object(JSONObject(members))
        var bytes = Array(manifest.serialized(pretty: true).utf8)
        bytes.append(0x0a)
        try writeNewFile(bytes, to: staging + "/manifest.json")
        return ExportResult(directory: finalDirectory, assets: assets, missing: missing, manifest: manifest)
    }

    /// Creates `path` (it must not exist: `O_EXCL`, never through a link) with `bytes`, fsync'd.
    private func writeNewFile(_ bytes: [UInt8], to path: String) throws(StoreError) {
        let fd = try FileSystem.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, operation: "create export file")
        defer { close(fd) }
        try withBytes(bytes) { (raw) throws(StoreError) in
            if raw.count > 0 { try FileSystem.writeAll(fd, raw.baseAddress!, raw.count, path: path) }
        }
        try FileSystem.sync(fd, path: path)
    }

    /// Copies a blob to `destination`, hashing while copying; a damaged blob is removed from the store.
    private func copyVerified(_ blob: BlobRef, to destination: String) throws(StoreError) -> BlobFile {
        let source = blobPath(blob.sha256)
        // Held until the export is done (as its retrieval held what it fetched or found): no gc removes it mid-copy.
        hold(blob.sha256, ordering: .lockIfNeeded)
        let input: Int32
        let info: stat
        switch try FileSystem.openBlob(source) {
        case .absent: return .missing
        case .notAFile(let info):
            return .damaged(quarantine(blob, path: source, info: info, actualSize: 0, actualSHA256: nil))
        case .file(let opened, let found):
            input = opened
            info = found
        }
        defer { close(input) }
        let output = try FileSystem.open(
            destination, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, operation: "create export file")
        var closed = false
        defer { if !closed { close(output) } }
        let hasher = try SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileSystem.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var size = 0
        while true {
            let got = try FileSystem.read(input, buffer.baseAddress!, buffer.count, path: source)
            if got == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            try FileSystem.writeAll(output, buffer.baseAddress!, got, path: destination)
            size += got
        }
        let sha256 = hasher.finish()
        guard size == blob.size, sha256 == blob.sha256 else {
            close(output)
            closed = true
            unlink(destination)
            return .damaged(quarantine(blob, path: source, info: info, actualSize: size, actualSHA256: sha256))
        }
        try FileSystem.sync(output, path: destination)
        return .intact(destination)
    }

    /// A safe file name for an exported asset: the URL's last path component (without `;` parameters,
    /// percent-decoded, reduced to `[A-Za-z0-9._-]`, no leading dot, no `..`, at most 60 bytes), a dash and the first
    /// 12 hex digits of the content hash, and an extension — the URL's own, or one derived from the content type.
    /// Never `..`, never a path separator, never absolute; equal content under an equal name shares one file.
    public static func exportFileName(url: String, sha256: String, contentType: String?) -> String {
        var path = Substring(url)
        if let scheme = path.firstRange(of: "://") {
            path = path[scheme.upperBound...]
            path = path[(path.firstIndex(of: "/") ?? path.endIndex)...]
        }
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        var last = path.split(separator: "/").last.map(String.init) ?? ""
        // Matrix parameters (`;token=…`) are no part of a file name, and may carry secrets.
        if let parameters = last.firstIndex(of: ";") { last = String(last[..<parameters]) }
        var safe = percentDecoded(last).map { byte -> UInt8 in
            let allowed =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == 0x2e || byte == 0x5f || byte == 0x2d
            return allowed ? byte : 0x5f
        }
        // No leading dot (hidden files, `..`) and no dot runs, so no name can read as a parent reference.
        while safe.first == 0x2e { safe.removeFirst() }
        var index = 1
        while index < safe.count {
            if safe[index] == 0x2e && safe[index - 1] == 0x2e { safe.remove(at: index) } else { index += 1 }
        }
        var stem = String(decoding: safe, as: UTF8.self)
        var fileExtension: String?
        if let dot = stem.lastIndex(of: "."), dot != stem.startIndex {
            let candidate = stem[stem.index(after: dot)...]
            if (1...8).contains(candidate.count), candidate.allSatisfy({ $0.isLetter || $0.isNumber }) {
                fileExtension = candidate.lowercased()
                stem = String(stem[..<dot])
            }
        }
        if stem.utf8.count > 60 { stem = String(decoding: stem.utf8.prefix(60), as: UTF8.self) }
        while stem.hasSuffix(".") { stem.removeLast() }
        if stem.isEmpty { stem = "asset" }
        let suffix = fileExtension ?? extensionFor(contentType: contentType)
        return "\(stem)-\(sha256.prefix(12)).\(suffix)"
    }

    /// The file name of an asset exported with ``ExportOptions/ManifestKeys/sha256`` keys: the content's SHA-256 and
    /// an extension from the content type — or, when the type says nothing, the URL's own if it is one of the
    /// well-known media extensions, so that no other URL text reaches the export.
    static func hashedExportFileName(url: String, sha256: String, contentType: String?) -> String {
        var suffix = extensionFor(contentType: contentType)
        if suffix == "bin" {
            let named = exportFileName(url: url, sha256: sha256, contentType: nil)
            let own = String(named[named.index(after: named.lastIndex(of: ".")!)...])
            if knownExtensions.contains(own) { suffix = own }
        }
        return "\(sha256).\(suffix)"
    }

    /// The extensions ``extensionFor(contentType:)`` gives, plus common spellings of them.
    static let knownExtensions: Set<String> = [
        "jpg", "jpeg", "png", "gif", "webp", "heic", "heif", "avif", "svg", "bmp", "mp4", "m4v", "mov", "webm", "ts",
        "m4s", "m3u8", "m3u", "pkpass", "json", "txt", "html",
    ]

    /// The usual file extension for a content type (parameters ignored); `bin` when unknown.
    static func extensionFor(contentType: String?) -> String {
        let type = (contentType ?? "").split(separator: ";").first.map { $0.trimming(" \t").lowercased() }
        switch type ?? "" {
        case "image/jpeg", "image/jpg", "image/pjpeg": return "jpg"
        case "image/png": return "png"
        case "image/gif": return "gif"
        case "image/webp": return "webp"
        case "image/heic": return "heic"
        case "image/heif": return "heif"
        case "image/avif": return "avif"
        case "image/svg+xml": return "svg"
        case "image/bmp": return "bmp"
        case "video/mp4": return "mp4"
        case "video/quicktime": return "mov"
        case "video/webm": return "webm"
        case "video/mp2t": return "ts"
        case "application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl": return "m3u8"
        case "application/vnd.apple.pkpass": return "pkpass"
        case "application/json": return "json"
        case "text/plain": return "txt"
        case "text/html": return "html"
        default: return "bin"
        }
    }

    private static func percentDecoded(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x41...0x46: return byte - 0x41 + 10
            case 0x61...0x66: return byte - 0x61 + 10
            default: return nil
            }
        }
        while index < bytes.count {
            if bytes[index] == 0x25, index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }
}
