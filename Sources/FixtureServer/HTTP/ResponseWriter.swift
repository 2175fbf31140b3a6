import Glibc

/// Writes one response head and body, counting what it sends.
struct ResponseWriter {
    let core: ServerCore
    let connection: ClientConnection
    var keepAlive: Bool

    /// Writes the status line and headers, plus `body` in the same `send` when given (one syscall for small
    /// responses keeps 10,000-request benchmarks honest).
    /// - Returns: `false` when the client went away.
    func head(status: Int, headers: [(String, String)], body: [UInt8] = []) -> Bool {
        core.countResponse(status: status)
        var text = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\nServer: inbox-assets-fixture\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !keepAlive { text += "Connection: close\r\n" }
        text += "\r\n"
        var bytes = Array(text.utf8)
        bytes.append(contentsOf: body)
        core.countBody(body.count)
        return connection.write(bytes)
    }

    /// A complete small response with a text body.
    func simple(status: Int, body: String, headers: [(String, String)] = [], isHead: Bool = false) -> Bool {
        // 1xx, 204 and 304 never carry a body (RFC 9110 §6.4.1): sending one would corrupt the next response.
        if status == 204 || status == 304 || (100...199).contains(status) {
            return head(status: status, headers: headers) && keepAlive
        }
        let bytes = Array(body.utf8)
        let all = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "\(bytes.count)")] + headers
        return head(status: status, headers: all, body: isHead ? [] : bytes) && keepAlive
    }

    /// Writes body bytes, counting them first: a client that has read the bytes must see them counted.
    func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
        core.countBody(bytes.count)
        return connection.write(bytes)
    }

    func body(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { body($0) } }

    /// Writes one chunk of a chunked body (an empty `bytes` writes the last chunk).
    func chunk(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let size = Array((String(bytes.count, radix: 16) + "\r\n").utf8)
        guard connection.write(size) else { return false }
        if bytes.count > 0 { guard body(bytes) else { return false } }
        return connection.write(Array("\r\n".utf8))
    }
}

func reasonPhrase(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 204: "No Content"
    case 206: "Partial Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 303: "See Other"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 410: "Gone"
    case 416: "Range Not Satisfiable"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: "Status \(status)"
    }
}

/// `Sun, 06 Nov 1994 08:49:37 GMT` for a Unix time.
func httpDate(_ seconds: Int) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, the only format HTTP/1.1 senders may generate).
func parseHTTPDate(_ text: String) -> Int? {
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    let words = text.split(separator: " ")
    guard words.count == 6, words[5] == "GMT", let day = Int(words[1]),
        let month = months.firstIndex(of: String(words[2])),
        let year = Int(words[3])
    else { return nil }
    let clock = words[4].split(separator: ":").compactMap { Int($0) }
    guard clock.count == 3 else { return nil }
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(clock[0])
    parts.tm_min = Int32(clock[1])
    parts.tm_sec = Int32(clock[2])
    return Int(timegm(&parts))
}

/// Content-Type by file extension (the types the inbox cares about, then common web types).
func contentType(forPath path: String) -> String {
    let name = path.split(separator: "/").last ?? ""
    guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
    switch name[name.index(after: dot)...].lowercased() {
    case "png": return "image/png"
    case "jpg", "jpeg": return "image/jpeg"
    case "gif": return "image/gif"
    case "webp": return "image/webp"
    case "heic": return "image/heic"
    case "avif": return "image/avif"
    case "tif", "tiff": return "image/tiff"
    case "bmp": return "image/bmp"
    case "mkv": return "video/x-matroska"
    case "mpd": return "application/dash+xml"
    case "svg": return "image/svg+xml"
    case "ico": return "image/x-icon"
    case "mp4", "m4v": return "video/mp4"
    case "mov": return "video/quicktime"
    case "webm": return "video/webm"
    case "m3u8": return "application/vnd.apple.mpegurl"
    case "ts": return "video/mp2t"
    case "m4s": return "video/iso.segment"
    case "pkpass": return "application/vnd.apple.pkpass"
    case "pkpasses": return "application/vnd.apple.pkpasses"
    case "json": return "application/json"
    case "html", "htm": return "text/html; charset=utf-8"
    case "txt": return "text/plain; charset=utf-8"
    case "css": return "text/css"
    case "js": return "text/javascript"
    case "xml": return "application/xml"
    case "pdf": return "application/pdf"
    case "zip": return "application/zip"
    default: return "application/octet-stream"
    }
}
