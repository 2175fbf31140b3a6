internal import CCurl
import Findings
import Glibc

/// The deny-private rule: which connected addresses are not public.
enum AddressPolicy {
    /// `true` for loopback, RFC 1918 private, CGNAT, link-local, unspecified, multicast, reserved and
    /// broadcast IPv4; and for IPv6 loopback, unspecified, unique-local, link-local, multicast, and IPv4-mapped
    /// or NAT64 forms of the IPv4 ranges above. An unparsable address counts as private (fail closed).
    static func isPrivate(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4.s_addr) { Array($0) }  // network order
            return isPrivateIPv4(bytes[0], bytes[1], bytes[2], bytes[3])
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return true }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) { return true }  // :: and ::1
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {  // ::ffff:a.b.c.d
            return isPrivateIPv4(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xff, bytes[3] == 0x9b {  // 64:ff9b::/96 NAT64
            return isPrivateIPv4(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        if bytes[0] & 0xfe == 0xfc { return true }  // fc00::/7 unique local
        if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0x80 { return true }  // fe80::/10 link-local
        if bytes[0] == 0xff { return true }  // multicast
        return false
    }

    private static func isPrivateIPv4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Bool {
        switch (a, b) {
        case (0, _), (10, _), (127, _): return true  // "this network", private, loopback
        case (100, 64...127): return true  // CGNAT
        case (169, 254): return true  // link-local (cloud metadata lives here)
        case (172, 16...31), (192, 168): return true
        case (192, 0) where c == 0 || c == 2: return true  // IETF protocol assignments, TEST-NET-1
        case (198, 18...19): return true  // benchmarking
        case (198, 51) where c == 100, (203, 0) where c == 113: return true  // TEST-NET-2/3
        case (224...255, _): return true  // multicast, reserved, broadcast
        default: return false
        }
    }
}

/// Turns a finished transfer's `CURLcode` into a failure class: the one place C status codes are translated.
enum CurlErrorClassifier {
    /// - Parameters:
    ///   - code: the transfer's result.
    ///   - flags: what the engine's own callbacks decided (they abort transfers with generic codes).
    static func failure(for code: CURLcode, flags: TransferFlags) -> FetchFailure {
        if flags.cancelled { return .cancelled }
        // Only when the refusal is what ended it: with several addresses, curl may have refused a private one
        // and then failed on a public one for its own reasons.
        if flags.privateAddress, code == CURLE_COULDNT_CONNECT || code == CURLE_ABORTED_BY_CALLBACK {
            return .privateAddress
        }
        if flags.tooLarge { return .tooLarge }
        if flags.sinkFailed { return .sink }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .dns
        case CURLE_COULDNT_CONNECT: return .connect
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_INITFAILED,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_SHUTDOWN_FAILED:
            return .tls
        case CURLE_UNSUPPORTED_PROTOCOL: return .scheme
        case CURLE_URL_MALFORMAT: return .invalidURL
        case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects
        case CURLE_FILESIZE_EXCEEDED: return .tooLarge
        case CURLE_PARTIAL_FILE, CURLE_BAD_CONTENT_ENCODING: return .truncated
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        case CURLE_WRITE_ERROR: return .sink
        // RECV/SEND errors (ECONNRESET), an empty reply, a garbled reply and HTTP/2 stream resets all mean the
        // peer dropped the exchange; anything unexpected also lands here, with curl's text kept for the reader.
        default: return .reset
        }
    }

    static func text(for code: CURLcode) -> String { String(cString: curl_easy_strerror(code)) }
}

/// Why the engine's callbacks stopped a transfer (curl reports these as generic codes).
struct TransferFlags {
    var cancelled = false
    var privateAddress = false
    var tooLarge = false
    var sinkFailed = false
    /// A probe's GET fallback stops at the first body byte on purpose: not a failure.
    var probeBodyCut = false
    /// A ranged GET stops once the range's bytes arrived (a server may ignore Range and send everything).
    var rangeComplete = false
}

/// Parses and checks URLs with curl's own parser, so the engine and curl agree on what a URL means.
enum URLCheck {
    struct Parsed {
        var scheme: String
        /// `scheme://host:port`, the key of the per-host limit.
        var hostKey: String
    }

    enum Problem: Error {
        case invalid(String)
        case scheme(String)
    }

    /// Why `url` is never requested when it holds a C0 control byte or DEL (`nil` when it holds none): curl reads
    /// the URL as a C string, so a NUL would silently cut it (`/png/a\0b` requests `/png/a`), and an exact URL is
    /// worth more than a guess at what was meant.
    static func controlCharacter(in url: String) -> String? {
        guard let (offset, byte) = ControlCharacters.first(in: url) else { return nil }
        return "the URL holds the control character \(ControlCharacters.notation(byte)) at byte \(offset): "
            + "it is never requested"
    }

    static func parse(_ url: String) -> Result<Parsed, Problem> {
        guard let handle = curl_url() else { return .failure(.invalid("out of memory")) }
        defer { curl_url_cleanup(handle) }
        let status = curl_url_set(handle, CURLUPART_URL, url, 0)
        guard status == CURLUE_OK else {
            return .failure(.invalid(String(cString: curl_url_strerror(status))))
        }
        func part(_ which: CURLUPart, _ flags: UInt32 = 0) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(validatingCString: value)
        }
        let scheme = part(CURLUPART_SCHEME)?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            return .failure(.scheme("only http and https URLs are fetched, not \(scheme.isEmpty ? "this" : scheme)"))
        }
        let host = part(CURLUPART_HOST)?.lowercased() ?? ""
        let port = part(CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT)) ?? ""
        return .success(Parsed(scheme: scheme, hostKey: "\(scheme)://\(host):\(port)"))
    }

    /// `"http"` or `"https"` when `url` starts with that scheme and `://` (any case), else `nil`: the cheap
    /// check for URLs already parsed once (redirect targets, the hop being started).
    static func httpScheme(of url: String) -> String? {
        let lower = url.prefix(8).lowercased()
        if lower.hasPrefix("https://") { return "https" }
        if lower.hasPrefix("http://") { return "http" }
        return nil
    }

    /// Whether a redirect target may be followed (http/https only, also across redirects).
    static func isFetchableScheme(_ url: String) -> Bool { httpScheme(of: url) != nil }
}

/// Whether `path` names a regular file this process can read.
func isReadableFile(_ path: String) -> Bool {
    var info = stat()
    return access(path, R_OK) == 0 && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
}
