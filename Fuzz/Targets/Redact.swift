// libFuzzer target: the URL redactor (Findings.Redaction). Every input is used twice:
//   1. as text: redactURL and redactText never crash and are idempotent (redacting the output changes nothing);
//   2. as a recipe: its bytes pick a URL's parts (scheme, userinfo, host, path segments with matrix parameters, query,
//      fragment; parameter names from the secret list and from look-alikes, spelled in any case and partly
//      percent-encoded) and plant a known secret value in the userinfo, a secret query, fragment or matrix
//      parameter. The redacted URL must not hold any planted secret, must keep every ordinary parameter as it was,
//      and must be a fixed point of the redactor.
import Findings

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedact(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    checkText(String(decoding: bytes, as: UTF8.self))
    var recipe = Recipe(bytes: bytes)
    let planted = recipe.url()
    checkPlanted(planted)
    return 0
}

/// Invariant 1: no crash, and idempotence of both entry points.
private func checkText(_ text: String) {
    let url = Redaction.redactURL(text)
    let again = Redaction.redactURL(url)
    if again != url {
        fatalError(
            "redactURL is not idempotent:\n  in:    \(text.debugDescription)\n  once:  \(url.debugDescription)\n  twice: \(again.debugDescription)"
        )
    }
    let prose = Redaction.redactText(text)
    let proseAgain = Redaction.redactText(prose)
    if proseAgain != prose {
        fatalError(
            "redactText is not idempotent:\n  in:    \(text.debugDescription)\n  once:  \(prose.debugDescription)\n  twice: \(proseAgain.debugDescription)"
        )
    }
}

/// Invariant 2: planted secrets never survive, ordinary parameters always do.
private func checkPlanted(_ planted: PlantedURL) {
    let redacted = Redaction.redactURL(planted.url)
    for secret in planted.secrets where redacted.contains(secret) {
        fatalError(
            "secret \(secret.debugDescription) survived:\n  in:  \(planted.url.debugDescription)\n  out: \(redacted.debugDescription)"
        )
    }
    for ordinary in planted.ordinary where !redacted.contains(ordinary) {
        fatalError(
            "ordinary parameter \(ordinary.debugDescription) was redacted:\n  in:  \(planted.url.debugDescription)\n  out: \(redacted.debugDescription)"
        )
    }
    if Redaction.redactURL(redacted) != redacted { fatalError("not idempotent on \(planted.url.debugDescription)") }
    if planted.url.contains("://") {
        let text = Redaction.redactText("fetch \(planted.url) failed")
        for secret in planted.secrets where text.contains(secret) {
            fatalError("secret \(secret.debugDescription) survived redactText: \(text.debugDescription)")
        }
    }
}

private struct PlantedURL {
    var url = ""
    /// Values that must be gone from the redacted URL.
    var secrets: [String] = []
    /// `name=value` pairs that must still be there.
    var ordinary: [String] = []
}

/// Reads choices from the fuzz input (zeros once it runs out, so every input makes a URL).
private struct Recipe {
    let bytes: [UInt8]
    var position = 0
    var serial = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> Int {
        defer { position += 1 }
        return position < bytes.count ? Int(bytes[position]) : 0
    }

    mutating func pick<T>(_ options: [T]) -> T { options[next() % options.count] }

    static let secretNames = Redaction.secretQueryNames.sorted()
    static let ordinaryNames = [
        "page", "w", "h", "state", "tokenizer", "token_type", "expires_in", "mykey", "signed", "keyboard", "q", "v",
        "sort", "sigma", "passive", "sessions", "spa",
    ]
    /// Filler characters: never structure (`/ ? # @ ; & = :`), never the `~` that marks a secret.
    static let filler = Array("abcXYZ019-._!$'()*+,".utf8)

    mutating func filler(_ count: Int) -> String {
        var out: [UInt8] = []
        for _ in 0..<count { out.append(pick(Self.filler)) }
        return String(decoding: out, as: UTF8.self)
    }

    /// A secret value unique in the URL: `~` (which nothing else holds), a serial, then characters its position
    /// allows (`extra`): a query value may hold `?`, `=`, `/`, `:` and `@`; a matrix value `=`, `:` and `@`.
    mutating func secret(extra: [UInt8]) -> String {
        serial += 1
        var out = Array("~S\(serial)~".utf8)
        for _ in 0..<(next() % 6) { out.append(pick(Self.filler + extra)) }
        out.append(UInt8(ascii: "~"))
        return String(decoding: out, as: UTF8.self)
    }

    /// `name` in any case, some bytes percent-encoded (in either hex case).
    mutating func spell(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            switch next() % 4 {
            case 0: out += String(UnicodeScalar(byte >= 97 && byte <= 122 ? byte - 32 : byte))
            case 1:
                let hex = String(byte, radix: 16, uppercase: next() % 2 == 0)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            default: out += String(UnicodeScalar(byte))
            }
        }
        return out
    }

    /// One parameter; a secret one when the recipe says so.
    mutating func parameter(into planted: inout PlantedURL, extra: [UInt8]) -> String {
        if next() % 2 == 0 {
            let name = spell(pick(Self.secretNames))
            let value = secret(extra: extra)
            planted.secrets.append(value)
            return "\(name)=\(value)"
        }
        let pair = "\(spell(pick(Self.ordinaryNames)))=\(filler(next() % 5))"
        planted.ordinary.append(pair)
        return pair
    }

    mutating func url() -> PlantedURL {
        var planted = PlantedURL()
        var url = pick(["https://", "http://", "HTTPS://", "//", "ftp://", "wss://", "https:/", "https:"])
        switch next() % 4 {
        case 1:
            let value = secret(extra: Array(":;&=@".utf8))
            planted.secrets.append(value)
            url += "\(filler(next() % 4)):\(value)@"
        case 2:
            let value = secret(extra: Array(":;&=".utf8))
            planted.secrets.append(value)
            url += "\(value)@"
        default: break
        }
        url += pick(["cdn.example.com", "127.0.0.1", "[::1]", "h:8080", "xn--bcher-kva.example"])
        for _ in 0..<(next() % 4) {
            url += "/" + filler(next() % 6)
            for _ in 0..<(next() % 3) { url += ";" + parameter(into: &planted, extra: Array("=:@".utf8)) }
        }
        let valueExtra = Array("?=/:@".utf8)
        if next() % 3 != 0 {
            url += "?"
            for index in 0..<(next() % 5) {
                if index > 0 { url += pick(["&", ";", "&&"]) }
                url += parameter(into: &planted, extra: valueExtra)
            }
        }
        if next() % 3 != 0 {
            url += "#" + pick(["", "/cb?", "!/route?", "s1&"])
            for index in 0..<(next() % 4) {
                if index > 0 { url += pick(["&", ";"]) }
                url += parameter(into: &planted, extra: valueExtra)
            }
        }
        planted.url = url
        return planted
    }
}
