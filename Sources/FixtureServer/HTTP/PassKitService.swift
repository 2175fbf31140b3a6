import Glibc

/// How the PassKit web service at `/passkit/FAULT/` misbehaves (what `pass audit --web-service` must tell apart).
enum PassKitFault: String {
    /// Behaves: the latest pass for the right token, 304 for a current `If-Modified-Since`, 401 otherwise.
    case ok
    /// Answers with `ROOT/passkit/wrong-pass.pkpass` (another pass type or web service).
    case wrongPass = "wrong-pass"
    /// Answers with `ROOT/passkit/wrong-serial.pkpass` (another serial number).
    case wrongSerial = "wrong-serial"
    /// Never checks `Authorization`: anyone gets the pass.
    case noAuth = "no-auth"
    /// Answers 500 to everything.
    case error500 = "500"
    /// Waits 3 s before answering like `ok`.
    case slow
}

extension RequestHandler {
    /// The pass-update endpoint of Apple's PassKit web service, relative to a pass's `webServiceURL` of
    /// `https://HOST/passkit/FAULT`: `GET /passkit/FAULT/v1/passes/{passTypeIdentifier}/{serialNumber}` answers
    /// `ROOT/passkit/{passTypeIdentifier}/{serialNumber}.pkpass` when `Authorization` is
    /// `ApplePass <ROOT/passkit/{passTypeIdentifier}/{serialNumber}.token>`, else 401; `If-Modified-Since` gives 304
    /// as for any file. Every other method is 405 (the device endpoints are not served: the audit never
    /// registers a device).
    func passKit(_ segments: ArraySlice<Substring>, _ modifiers: Modifiers) -> Bool {
        let parts = segments.map { percentDecode(String($0)) }
        guard parts.count == 5, parts[1] == "v1", parts[2] == "passes", let fault = PassKitFault(rawValue: parts[0]),
            !parts.contains(where: { $0.isEmpty || $0 == ".." || $0.contains("/") || $0.contains("\0") })
        else { return writer.simple(status: 404, body: "no such PassKit endpoint\n", isHead: isHead) }
        guard request.method == "GET" else {
            return writer.simple(status: 405, body: "method not allowed\n", headers: [("Allow", "GET")])
        }
        let folder = core.root + "/passkit/" + parts[3]
        switch fault {
        case .error500: return writer.simple(status: 500, body: "internal error\n", isHead: isHead)
        case .slow: guard wait(3_000) else { return false }
        default: break
        }
        if fault != .noAuth {
            let token =
                readSmallFile(folder + "/" + parts[4] + ".token").map {
                    Substring($0.filter { !$0.isNewline }).trimmingSpaces()
                } ?? ""
            guard !token.isEmpty, request.header("authorization") == "ApplePass " + token else {
                return writer.simple(status: 401, body: "unauthorized\n", isHead: isHead)
            }
        }
        let path =
            switch fault {
            case .wrongPass: core.root + "/passkit/wrong-pass.pkpass"
            case .wrongSerial: core.root + "/passkit/wrong-serial.pkpass"
            default: folder + "/" + parts[4] + ".pkpass"
            }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return writer.simple(status: 404, body: "no such pass\n", isHead: isHead)
        }
        let entity = Entity(
            length: Int(info.st_size), etag: "\"\(String(info.st_size, radix: 16))\"",
            lastModified: Int(info.st_mtim.tv_sec), contentType: "application/vnd.apple.pkpass",
            source: .file(path: path))
        var plain = modifiers
        plain.contentType = nil
        return serve(entity, plain)
    }

    /// A file of at most 4 KiB as text; `nil` when it cannot be read.
    private func readSmallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &buffer, buffer.count)
        return count >= 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
    }
}
