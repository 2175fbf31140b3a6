import Glibc

/// Changes that route prefixes (`/delay`, `/type`, …) make to whatever `REST` answers.
struct Modifiers {
    var delayMilliseconds = 0
    var contentType: String?
    var cacheControl: String?
    var chunked = false
    var close = false
    var headStatus: Int?
    var headDrop = false
}

/// A representation the server can answer GET/HEAD/conditional/range requests for.
struct Entity {
    enum Source {
        case file(path: String)
        /// Byte `i` is `i % 251`: deterministic, not a repeating power of two.
        case generated
    }
    var length: Int
    var etag: String
    var lastModified: Int?
    var contentType: String
    var source: Source
}

/// Answers one request on its connection thread.
struct RequestHandler {
    let core: ServerCore
    let connection: ClientConnection
    let request: Request

    var writer: ResponseWriter {
        ResponseWriter(core: core, connection: connection, keepAlive: request.keepAlive)
    }
    var isHead: Bool { request.method == "HEAD" }

    /// - Returns: whether the connection stays open for another request.
    func handle() -> Bool {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true)
        return route(segments[...], Modifiers())
    }

    private func route(_ segments: ArraySlice<Substring>, _ modifiers: Modifiers) -> Bool {
        var modifiers = modifiers
        let first = segments.first.map(String.init) ?? ""
        let rest = segments.dropFirst()
        func number(_ offset: Int) -> Int? {
            let index = segments.startIndex + offset
            return index < segments.endIndex ? Int(segments[index]) : nil
        }
        switch first {
        case "delay":
            guard let milliseconds = number(1) else { return badRoute() }
            modifiers.delayMilliseconds += milliseconds
            return route(rest.dropFirst(), modifiers)
        case "type":
            guard rest.count >= 2 else { return badRoute() }
            modifiers.contentType = percentDecode("\(rest[rest.startIndex])/\(rest[rest.startIndex + 1])")
            return route(rest.dropFirst(2), modifiers)
        case "cache":
            guard let value = rest.first else { return badRoute() }
            modifiers.cacheControl = percentDecode(String(value))
            return route(rest.dropFirst(), modifiers)
        case "chunked":
            modifiers.chunked = true
            return route(rest, modifiers)
        case "close":
            modifiers.close = true
            return route(rest, modifiers)
        case "head-status":
            guard let code = number(1) else { return badRoute() }
            modifiers.headStatus = code
            return route(rest.dropFirst(), modifiers)
        case "head-drop":
            modifiers.headDrop = true
            return route(rest, modifiers)
        default:
            break
        }
        if isHead, modifiers.headDrop { return false }
        guard wait(modifiers.delayMilliseconds) else { return false }
        if isHead, let code = modifiers.headStatus {
            return writer.simple(status: code, body: "HEAD refused\n", headers: [("Allow", "GET")], isHead: true)
        }
        switch first {
        case "status":
            guard let code = number(1) else { return badRoute() }
            return writer.simple(status: code, body: "status \(code)\n", isHead: isHead) && !modifiers.close
        case "retry":
            guard let failures = number(1), let code = number(2), segments.count >= 4 else { return badRoute() }
            let seconds = String(segments[segments.startIndex + 3])
            if core.requestCount(request.target) <= failures {
                let headers = seconds == "-" ? [] : [("Retry-After", seconds)]
                return writer.simple(status: code, body: "try again\n", headers: headers, isHead: isHead)
            }
            return route(segments.dropFirst(4), modifiers)
        case "redirect":
            guard let hops = number(1) else { return badRoute() }
            let tail = segments.dropFirst(2)
            if hops <= 0 {
                return tail.isEmpty ? route(["bytes", "16"], modifiers) : route(tail, modifiers)
            }
            let next = "/redirect/\(hops - 1)" + tail.map { "/\($0)" }.joined()
            return redirect(to: next, status: 302)
        case "redirect-loop":
            return redirect(to: request.target, status: 302)
        case "redirect-to":
            guard let location = request.queryValue("url") else { return badRoute() }
            return redirect(to: location, status: request.queryValue("status").flatMap(Int.init) ?? 302)
        case "drip":
            guard let count = number(1), let interval = number(2) else { return badRoute() }
            return drip(count: count, intervalMilliseconds: interval)
        case "reset":
            guard let count = number(1) else { return badRoute() }
            return cut(sending: count, declaring: count * 2 + 1_000, reset: true)
        case "short":
            guard let declared = number(1), let sent = number(2), sent < declared else { return badRoute() }
            return cut(sending: sent, declaring: declared, reset: false)
        case "endless":
            return endless()
        case "passkit":
            return passKit(rest, modifiers)
        case "challenge":
            // A CDN bot challenge: /challenge/403 (cf-mitigated: challenge) or /challenge/503/page (Cloudflare's
            // HTML page, no cf-mitigated).
            guard let status = number(1) else { return badRoute() }
            let page = Array(
                "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>checking your browser</body></html>\n"
                    .utf8)
            var headers = [("Content-Type", "text/html; charset=UTF-8"), ("Content-Length", "\(page.count)")]
            headers += [("Server", "cloudflare"), ("cf-ray", "8f0000000000abcd-AMS")]
            if rest.dropFirst().first != "page" { headers.append(("cf-mitigated", "challenge")) }
            return writer.head(status: status, headers: headers, body: isHead ? [] : page) && request.keepAlive
        case "require-header":
            // /require-header/NAME/VALUE/rest…: 401 unless the request has header NAME: VALUE, then serves rest.
            guard rest.count >= 2 else { return badRoute() }
            let name = percentDecode(String(rest[rest.startIndex])).lowercased()
            let value = percentDecode(String(rest[rest.startIndex + 1]))
            guard request.header(name) == value else {
                return writer.simple(status: 401, body: "missing \(name)\n", isHead: isHead)
            }
            return route(rest.dropFirst(2), modifiers)
        case "echo":
            let lines = ["\(request.method) \(request.target)"] + request.headers.map { "\($0.name): \($0.value)" }
            return writer.simple(status: 200, body: lines.joined(separator: "\n") + "\n", isHead: isHead)
        case "bytes":
            guard let count = number(1), count >= 0 else { return badRoute() }
            let entity = Entity(
                length: count, etag: "\"bytes-\(count)\"", lastModified: 1_700_000_000,
                contentType: "application/octet-stream", source: .generated)
            return serve(entity, modifiers)
        default:
            return serveFile(segments, modifiers)
        }
    }

    private func badRoute() -> Bool {
        writer.simple(status: 400, body: "bad fixture route \(request.path)\n", isHead: isHead)
    }

    func wait(_ milliseconds: Int) -> Bool {
        milliseconds <= 0 || sleep(milliseconds: milliseconds) { core.isStopping }
    }

    private func redirect(to location: String, status: Int) -> Bool {
        writer.simple(status: status, body: "see \(location)\n", headers: [("Location", location)], isHead: isHead)
    }

    // MARK: Faults

    private func drip(count: Int, intervalMilliseconds: Int) -> Bool {
        let headers = [("Content-Type", "application/octet-stream"), ("Content-Length", "\(count)")]
        guard writer.head(status: 200, headers: headers), !isHead else { return !isHead && request.keepAlive }
        for index in 0..<count {
            guard wait(intervalMilliseconds), writer.body([UInt8(index % 251)]) else { return false }
        }
        return request.keepAlive
    }

    /// Declares `declared` bytes, sends `sending`, then resets (RST) or closes cleanly.
    private func cut(sending: Int, declaring declared: Int, reset: Bool) -> Bool {
        let headers = [("Content-Type", "application/octet-stream"), ("Content-Length", "\(declared)")]
        guard writer.head(status: 200, headers: headers), !isHead else { return false }
        _ = writeGenerated(offset: 0, count: sending, chunked: false)
        if reset { connection.reset() }
        return false
    }

    private func endless() -> Bool {
        let headers = [("Content-Type", "application/octet-stream"), ("Transfer-Encoding", "chunked")]
        guard writer.head(status: 200, headers: headers), !isHead else { return false }
        var block = [UInt8](repeating: 0, count: 16 * 1024)
        for index in block.indices { block[index] = UInt8(index % 251) }
        while !core.isStopping {
            guard block.withUnsafeBytes({ writer.chunk($0) }) else { return false }
        }
        return false
    }

    // MARK: Entities (files and generated bytes)

    private func serveFile(_ segments: ArraySlice<Substring>, _ modifiers: Modifiers) -> Bool {
        let parts = segments.map { percentDecode(String($0)) }
        guard !parts.contains(where: { $0 == ".." || $0.contains("/") || $0.contains("\0") }) else {
            return writer.simple(status: 403, body: "forbidden\n", isHead: isHead)
        }
        let path = core.root + "/" + parts.joined(separator: "/")
        var info = stat()
        guard !parts.isEmpty, stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return writer.simple(status: 404, body: "not found\n", isHead: isHead) && !modifiers.close
        }
        let modified = Int(info.st_mtim.tv_sec)
        let etag =
            "\"\(String(info.st_size, radix: 16))-\(String(modified, radix: 16))"
            + "\(String(info.st_mtim.tv_nsec, radix: 16))\""
        let entity = Entity(
            length: Int(info.st_size), etag: etag, lastModified: modified, contentType: contentType(forPath: path),
            source: .file(path: path))
        return serve(entity, modifiers)
    }

    func serve(_ entity: Entity, _ modifiers: Modifiers) -> Bool {
        guard request.method == "GET" || isHead else {
            return writer.simple(status: 405, body: "method not allowed\n", headers: [("Allow", "GET, HEAD")])
        }
        var writer = self.writer
        writer.keepAlive = writer.keepAlive && !modifiers.close
        var headers: [(String, String)] = [
            ("Content-Type", modifiers.contentType ?? entity.contentType), ("ETag", entity.etag),
        ]
        if let modified = entity.lastModified { headers.append(("Last-Modified", httpDate(modified))) }
        if let cache = modifiers.cacheControl { headers.append(("Cache-Control", cache)) }
        if isNotModified(entity) {
            return writer.head(status: 304, headers: headers) && writer.keepAlive
        }
        if modifiers.chunked {
            headers.append(("Transfer-Encoding", "chunked"))
            guard writer.head(status: 200, headers: headers) else { return false }
            if isHead { return writer.keepAlive }
            guard write(entity, offset: 0, count: entity.length, writer: writer, chunked: true) else { return false }
            return writer.connection.write(Array("0\r\n\r\n".utf8)) && writer.keepAlive
        }
        headers.append(("Accept-Ranges", "bytes"))
        var status = 200
        var offset = 0
        var count = entity.length
        switch requestedRange(length: entity.length) {
        case .none:
            break
        case .unsatisfiable:
            headers.append(("Content-Range", "bytes */\(entity.length)"))
            headers.append(("Content-Length", "0"))
            return writer.head(status: 416, headers: headers) && writer.keepAlive
        case .range(let start, let end):
            status = 206
            offset = start
            count = end - start + 1
            headers.append(("Content-Range", "bytes \(start)-\(end)/\(entity.length)"))
        }
        headers.append(("Content-Length", "\(count)"))
        if isHead { return writer.head(status: status, headers: headers) && writer.keepAlive }
        if count <= 64 * 1024, let small = read(entity, offset: offset, count: count) {
            return writer.head(status: status, headers: headers, body: small) && writer.keepAlive
        }
        guard writer.head(status: status, headers: headers) else { return false }
        return write(entity, offset: offset, count: count, writer: writer, chunked: false) && writer.keepAlive
    }

    private func isNotModified(_ entity: Entity) -> Bool {
        if let match = request.header("if-none-match") {
            return match.split(separator: ",").contains { tag in
                let trimmed = tag.trimmingSpaces()
                return trimmed == "*" || trimmed == entity.etag || trimmed == "W/" + entity.etag
            }
        }
        if let since = request.header("if-modified-since").flatMap(parseHTTPDate), let modified = entity.lastModified {
            return modified <= since
        }
        return false
    }

    private enum RangeRequest {
        case none
        case unsatisfiable
        case range(Int, Int)
    }

    /// A single `bytes=` range; several ranges or a syntax error mean "send it all", as RFC 9110 allows.
    private func requestedRange(length: Int) -> RangeRequest {
        guard let header = request.header("range"), header.hasPrefix("bytes="), !header.contains(",") else {
            return .none
        }
        let spec = header.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return .none }
        let startText = spec[..<dash].trimmingSpaces()
        let endText = spec[spec.index(after: dash)...].trimmingSpaces()
        if startText.isEmpty {
            guard let suffix = Int(endText) else { return .none }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .range(max(0, length - suffix), length - 1)
        }
        guard let start = Int(startText), start >= 0 else { return .none }
        guard start < length else { return .unsatisfiable }
        if endText.isEmpty { return .range(start, length - 1) }
        guard let end = Int(endText), end >= start else { return .none }
        return .range(start, min(end, length - 1))
    }

    private func read(_ entity: Entity, offset: Int, count: Int) -> [UInt8]? {
        switch entity.source {
        case .generated:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count)
            var done = 0
            while done < count {
                let start = (offset + done) % 251
                let want = min(64 * 1024, count - done)
                bytes += generatedPattern[start..<(start + want)]
                done += want
            }
            return bytes
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let got = bytes.withUnsafeMutableBytes {
                    pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done))
                }
                guard got > 0 else { return nil }
                done += got
            }
            return bytes
        }
    }

    /// Streams `count` bytes from `offset` in 64 KiB pieces, so a large file never sits in memory.
    private func write(_ entity: Entity, offset: Int, count: Int, writer: ResponseWriter, chunked: Bool) -> Bool {
        switch entity.source {
        case .generated:
            return writeGenerated(offset: offset, count: count, chunked: chunked)
        case .file(let path):
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            var done = 0
            while done < count {
                let want = min(buffer.count, count - done)
                let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, off_t(offset + done)) }
                guard got > 0 else { return false }
                let sent = buffer.withUnsafeBytes { piece in
                    let slice = UnsafeRawBufferPointer(rebasing: piece[..<got])
                    return chunked ? writer.chunk(slice) : writer.body(slice)
                }
                guard sent else { return false }
                done += got
            }
            return true
        }
    }

    private func writeGenerated(offset: Int, count: Int, chunked: Bool) -> Bool {
        let writer = self.writer
        var done = 0
        return generatedPattern.withUnsafeBytes { pattern in
            while done < count {
                // The pattern repeats every 251 bytes, so any window of it is a slice of one precomputed block.
                let start = (offset + done) % 251
                let want = min(64 * 1024, count - done)
                let slice = UnsafeRawBufferPointer(rebasing: pattern[start..<(start + want)])
                guard chunked ? writer.chunk(slice) : writer.body(slice) else { return false }
                done += want
            }
            return true
        }
    }
}

/// 64 KiB + 251 bytes of the `/bytes` pattern (byte `i` = `i % 251`): every 64 KiB window at any phase.
private let generatedPattern: [UInt8] = (0..<(64 * 1024 + 251)).map { UInt8($0 % 251) }
