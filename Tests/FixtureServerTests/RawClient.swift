import Foundation

/// A minimal blocking HTTP/1.1 client over a POSIX socket, so the server's bytes are seen exactly as sent.
/// Every read has a 5 s timeout: a broken server fails a test, it never hangs it.
final class RawClient {
    struct Response {
        var status: Int
        var headers: [String: String]  // lowercased names
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    enum ClientError: Error {
        case connect(Int32)
        case closed
        case timeout
        case malformed(String)
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // No close() here: the object is fully initialised, so deinit closes the descriptor (closing it here
        // too would close whatever another thread opened under the same number in between).
        guard result == 0 else { throw ClientError.connect(errno) }
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends a GET/HEAD with the given extra header lines.
    func request(_ method: String, _ target: String, headers: [String] = []) {
        send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
    }

    /// Reads more bytes; throws `closed` at EOF, or the errno on error.
    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { throw ClientError.closed }
        if count < 0 { throw errno == EAGAIN ? ClientError.timeout : ClientError.connect(errno) }
        buffer.append(contentsOf: chunk[..<count])
    }

    /// Reads one response. `head: true` for responses to HEAD (no body whatever the headers say).
    func response(head: Bool = false) throws -> Response {
        var end: Int?
        while end == nil {
            end = buffer.indices.dropLast(3).first { index in
                buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10
            }
            if end == nil { try fill() }
        }
        let headText = String(decoding: buffer[..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ClientError.malformed(headText) }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body: [UInt8] = []
        if head || status == 304 || status == 204 {
            return Response(status: status, headers: headers, body: body)
        }
        if let length = headers["content-length"].flatMap(Int.init) {
            while buffer.count < length { try fill() }
            body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else if headers["transfer-encoding"] == "chunked" {
            body = try readChunked()
        } else {
            while true {
                do { try fill() } catch ClientError.closed { break }
            }
            body = buffer
            buffer = []
        }
        return Response(status: status, headers: headers, body: body)
    }

    private func readChunked() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            var lineEnd: Int?
            while lineEnd == nil {
                lineEnd = buffer.indices.dropLast().first { buffer[$0] == 13 && buffer[$0 + 1] == 10 }
                if lineEnd == nil { try fill() }
            }
            let size = Int(String(decoding: buffer[..<lineEnd!], as: UTF8.self), radix: 16) ?? -1
            guard size >= 0 else { throw ClientError.malformed("chunk size") }
            buffer.removeFirst(lineEnd! + 2)
            while buffer.count < size + 2 { try fill() }
            body += buffer[..<size]
            buffer.removeFirst(size + 2)
            if size == 0 { return body }
        }
    }

    /// Reads until the server closes; returns what arrived and how it ended (0 = clean close, else errno).
    func drain() -> (bytes: Int, error: Int32) {
        var total = buffer.count
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (total, 0) }
            if count < 0 { return (total, errno) }
            total += count
        }
    }
}
