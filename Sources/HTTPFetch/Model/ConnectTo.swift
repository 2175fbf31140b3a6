import Glibc

/// One `--connect-to` mapping, `HOST:PORT:HOST2:PORT2`, read as curl reads it: requests for HOST:PORT connect to
/// HOST2:PORT2 instead (the URL, the Host header and TLS verification keep the original name).
///
/// Any part may be empty: no HOST or PORT matches every host or port, no HOST2 or PORT2 keeps the URL's. An IPv6
/// address is written in brackets on either side (`[::1]:443:[::1]:8443`, `cdn.example.com:80:[::1]:8080`), as in a
/// URL; HOST is matched against the URL's host, which curl writes in its shortest form, so an IPv6 HOST is
/// normalised the same way (`[0:0::1]` matches `http://[::1]/`). Zone ids (`[fe80::1%eth0]`) are not accepted.
/// What curl would only reject at the first transfer (a port past 65535, an unclosed bracket, an IPv6 address
/// without brackets) is refused here, when the options are read.
public struct ConnectTo: Sendable, Hashable, CustomStringConvertible {
    /// The host requests must be for (an IPv6 address without its brackets); `nil` matches every host.
    public var host: String?
    /// The port requests must be for; `nil` matches every port.
    public var port: Int?
    /// Where to connect instead (an IPv6 address without its brackets); `nil` keeps the URL's host.
    public var targetHost: String?
    /// The port to connect to instead; `nil` keeps the URL's port.
    public var targetPort: Int?

    /// Parses `HOST:PORT:HOST2:PORT2`.
    /// - Throws: ``ConnectToError`` saying what is malformed.
    public init(parsing text: String) throws(ConnectToError) {
        var reader = Reader(text: Array(text.utf8), original: text)
        var colons = 0
        var inBrackets = false
        for byte in reader.text {
            if byte == UInt8(ascii: "[") { inBrackets = true }
            if byte == UInt8(ascii: "]") { inBrackets = false }
            if byte == UInt8(ascii: ":") && !inBrackets { colons += 1 }
        }
        if colons > 3 { throw reader.error("too many colons: an IPv6 address needs brackets ([::1])") }
        host = try reader.host(last: false)
        port = try reader.port(last: false)
        targetHost = try reader.host(last: true)
        targetPort = try reader.port(last: true)
    }

    /// The mapping as libcurl's `CURLOPT_CONNECT_TO` reads it, IPv6 addresses bracketed and normalised.
    public var description: String {
        func bracketed(_ host: String?) -> String {
            guard let host else { return "" }
            return host.contains(":") ? "[\(host)]" : host
        }
        return "\(bracketed(host)):\(port.map(String.init) ?? ""):\(bracketed(targetHost)):"
            + (targetPort.map(String.init) ?? "")
    }

    /// Reads the four parts left to right.
    private struct Reader {
        let text: [UInt8]
        let original: String
        var index = 0

        func error(_ reason: String) -> ConnectToError {
            ConnectToError(mapping: original, reason: reason)
        }

        /// A host part and the `:` after it (unless `last` … there is always a port after a host).
        mutating func host(last: Bool) throws(ConnectToError) -> String? {
            let which = last ? "HOST2" : "HOST"
            guard index < text.count else { throw error("\(which) and its port are missing") }
            if text[index] == UInt8(ascii: "[") {
                guard let close = text[index...].firstIndex(of: UInt8(ascii: "]")) else {
                    throw error("the [ of \(which) is never closed")
                }
                let inside = String(decoding: text[(index + 1)..<close], as: UTF8.self)
                guard !inside.contains("%") else { throw error("zone ids (\(inside)) are not supported") }
                guard let normalised = Self.normalisedIPv6(inside) else {
                    throw error("[\(inside)] is not an IPv6 address")
                }
                index = close + 1
                guard index < text.count, text[index] == UInt8(ascii: ":") else {
                    throw error("\(which) [\(inside)] must be followed by :PORT")
                }
                index += 1
                return normalised
            }
            let end = text[index...].firstIndex(of: UInt8(ascii: ":")) ?? text.count
            let name = String(decoding: text[index..<end], as: UTF8.self)
            guard end < text.count else { throw error("\(which) and its port are missing") }
            if let bad = name.unicodeScalars.first(where: Self.isForbiddenInHost) {
                throw error("\(which) \"\(name)\" holds \"\(bad.escaped(asASCII: true))\"")
            }
            index = end + 1
            return name.isEmpty ? nil : name
        }

        /// A port part: digits from 1 to 65535, or empty; followed by `:` unless it is the last part.
        mutating func port(last: Bool) throws(ConnectToError) -> Int? {
            let which = last ? "PORT2" : "PORT"
            let end = last ? text.count : (text[index...].firstIndex(of: UInt8(ascii: ":")) ?? text.count)
            guard last || end < text.count else { throw error("\(which) is not followed by :HOST2:PORT2") }
            let digits = text[index..<end]
            index = last ? end : end + 1
            guard !digits.isEmpty else { return nil }
            let shown = String(decoding: digits, as: UTF8.self)
            guard digits.count <= 5, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let value = Int(shown), (1...65535).contains(value)
            else { throw error("\(which) \"\(shown)\" is not a port from 1 to 65535") }
            return value
        }

        /// Characters no host name or IPv4 address holds; `:` ends the part, so an unbracketed IPv6 address shows
        /// up as too many parts.
        static func isForbiddenInHost(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value <= 0x20 || scalar.value == 0x7F || "[]/@?#\\%".unicodeScalars.contains(scalar)
        }

        /// `inside` as `inet_ntop` writes it (the form curl uses for a URL's host), or `nil` when it is no IPv6
        /// address.
        static func normalisedIPv6(_ inside: String) -> String? {
            var address = in6_addr()
            guard inet_pton(AF_INET6, inside, &address) == 1 else { return nil }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            return buffer.withUnsafeMutableBufferPointer { buffer in
                guard let start = buffer.baseAddress,
                    inet_ntop(AF_INET6, &address, start, socklen_t(buffer.count)) != nil
                else { return nil }
                return String(cString: start)
            }
        }
    }
}

/// Why a `--connect-to` mapping is malformed.
public struct ConnectToError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The mapping as given.
    public var mapping: String
    /// What is wrong with it (`PORT2 "99999" is not a port from 1 to 65535`).
    public var reason: String

    init(mapping: String, reason: String) {
        self.mapping = mapping
        self.reason = reason
    }

    /// `MAPPING: REASON (expected HOST:PORT:HOST2:PORT2, IPv6 addresses in brackets)`.
    public var description: String {
        "\(mapping): \(reason) (expected HOST:PORT:HOST2:PORT2, IPv6 addresses in brackets)"
    }
}
