/// One parsed HTTP/1.x request head.
struct Request {
    var method: String
    /// The request target exactly as sent (path and query), the key of the per-target counters.
    var target: String
    var path: String
    var query: String
    var version: String
    var headers: [(name: String, value: String)]

    /// The first header named `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name }?.value
    }

    /// Whether the client wants the connection kept open after this response.
    var keepAlive: Bool {
        let connection = header("connection")?.lowercased() ?? ""
        if version == "HTTP/1.0" { return connection.contains("keep-alive") }
        return !connection.contains("close")
    }

    /// The value of query parameter `name`, percent-decoded.
    func queryValue(_ name: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.first.map(String.init) == name { return percentDecode(parts.count > 1 ? String(parts[1]) : "") }
        }
        return nil
    }
}

/// Why a request head could not be read.
enum RequestReadError: Error {
    /// The client closed or the socket failed: just close.
    case closed
    /// Syntax error: answer 400 and close.
    case malformed
    /// Head larger than ``RequestReader/maxHeadBytes``: answer 431 and close.
    case tooLarge
}

/// Reads request heads from a connection, keeping bytes that belong to the next (pipelined) request.
struct RequestReader {
    static let maxHeadBytes = 32 * 1024
    private var buffer: [UInt8] = []
    /// Reused for every read, so a keep-alive connection does not allocate per request.
    private var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    mutating func next(from connection: ClientConnection) -> Result<Request, RequestReadError> {
        var searchFrom = 0
        while true {
            if let end = headEnd(from: searchFrom) {
                if end > Self.maxHeadBytes { return .failure(.tooLarge) }
                let head = Array(buffer[..<end])
                buffer.removeSubrange(..<(end + 4))
                guard let request = Self.parse(head) else { return .failure(.malformed) }
                return .success(request)
            }
            if buffer.count > Self.maxHeadBytes { return .failure(.tooLarge) }
            searchFrom = max(0, buffer.count - 3)
            let count = scratch.withUnsafeMutableBytes { connection.read(into: $0) }
            if count <= 0 { return .failure(.closed) }
            buffer.append(contentsOf: scratch[..<count])
        }
    }

    /// Reads and drops a request body of `count` bytes (the fixture routes ignore bodies).
    mutating func discardBody(_ count: Int, from connection: ClientConnection) -> Bool {
        var remaining = count
        let buffered = min(remaining, buffer.count)
        buffer.removeSubrange(..<buffered)
        remaining -= buffered
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while remaining > 0 {
            let read = chunk.withUnsafeMutableBytes { connection.read(into: $0) }
            if read <= 0 { return false }
            if read > remaining {
                // The rest is the start of the next pipelined request.
                buffer.append(contentsOf: chunk[remaining..<read])
                remaining = 0
            } else {
                remaining -= read
            }
        }
        return true
    }

    private func headEnd(from start: Int) -> Int? {
        guard buffer.count >= 4 else { return nil }
        var index = start
        while index + 3 < buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    static func parse(_ head: [UInt8]) -> Request? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        guard let requestLine = lines.popFirst() else { return nil }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), parts[1].hasPrefix("/") else { return nil }
        var headers: [(String, String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon]
            guard !name.isEmpty, !name.contains(" ") else { return nil }
            headers.append((String(name), line[line.index(after: colon)...].trimmingSpaces()))
        }
        let target = String(parts[1])
        let question = target.firstIndex(of: "?")
        return Request(
            method: String(parts[0]), target: target, path: String(target[..<(question ?? target.endIndex)]),
            query: question.map { String(target[target.index(after: $0)...]) } ?? "", version: String(parts[2]),
            headers: headers)
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}

/// Decodes `%XX` escapes; malformed escapes stay as they are.
func percentDecode(_ text: String) -> String {
    guard text.contains("%") else { return text }
    var bytes: [UInt8] = []
    let utf8 = Array(text.utf8)
    var index = 0
    while index < utf8.count {
        if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count, let high = hexValue(utf8[index + 1]),
            let low = hexValue(utf8[index + 2])
        {
            bytes.append(high << 4 | low)
            index += 3
        } else {
            bytes.append(utf8[index])
            index += 1
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
