import Findings

/// `.strings` files (rules H1–H2): UTF-8 or UTF-16 with a byte order mark, `"key" = "value";` pairs with
/// `/* */` and `//` comments.
enum StringsFile {
    struct ParseError: Error {
        var line: Int
        var reason: String
    }

    /// Decodes the file's text: UTF-16 when it starts with a BOM, UTF-8 otherwise (a UTF-8 BOM is skipped).
    static func decode(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let littleEndian = bytes[0] == 0xFF
            let body = bytes.dropFirst(2)
            guard body.count % 2 == 0 else { return nil }
            var units: [UInt16] = []
            units.reserveCapacity(body.count / 2)
            var index = body.startIndex
            while index < body.endIndex {
                let first = UInt16(body[index])
                let second = UInt16(body[index + 1])
                units.append(littleEndian ? first | second << 8 : first << 8 | second)
                index += 2
            }
            return String(validating: units, as: UTF16.self)
        }
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        return String(validating: body, as: UTF8.self)
    }

    /// The keys and values of a `.strings` text, in file order.
    static func parse(_ text: String) throws(ParseError) -> [(key: String, value: String)] {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var line = 1
        var pairs: [(String, String)] = []

        func skipSpaceAndComments() throws(ParseError) {
            while index < scalars.count {
                let scalar = scalars[index]
                if scalar == "\n" {
                    line += 1
                    index += 1
                } else if scalar == " " || scalar == "\t" || scalar == "\r" || scalar == "\u{FEFF}" {
                    index += 1
                } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "*" {
                    index += 2
                    while index + 1 < scalars.count, !(scalars[index] == "*" && scalars[index + 1] == "/") {
                        if scalars[index] == "\n" { line += 1 }
                        index += 1
                    }
                    guard index + 1 < scalars.count else {
                        throw ParseError(line: line, reason: "unterminated comment")
                    }
                    index += 2
                } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
                    while index < scalars.count, scalars[index] != "\n" { index += 1 }
                } else {
                    return
                }
            }
        }

        func token() throws(ParseError) -> String {
            guard index < scalars.count else { throw ParseError(line: line, reason: "unexpected end of file") }
            if scalars[index] != "\"" {
                var word = String.UnicodeScalarView()
                while index < scalars.count,
                    scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index])
                        || "_.-".unicodeScalars.contains(scalars[index])
                {
                    word.append(scalars[index])
                    index += 1
                }
                guard !word.isEmpty else {
                    throw ParseError(line: line, reason: "expected a quoted string, found '\(scalars[index])'")
                }
                return String(word)
            }
            index += 1
            var value = String.UnicodeScalarView()
            while index < scalars.count, scalars[index] != "\"" {
                var scalar = scalars[index]
                if scalar == "\n" { line += 1 }
                if scalar == "\\" {
                    index += 1
                    guard index < scalars.count else { break }
                    switch scalars[index] {
                    case "n": scalar = "\n"
                    case "t": scalar = "\t"
                    case "r": scalar = "\r"
                    case "U", "u":
                        let digits = String(
                            String.UnicodeScalarView(scalars[(index + 1)..<min(index + 5, scalars.count)]))
                        guard digits.count == 4, let code = UInt32(digits, radix: 16),
                            let decoded = Unicode.Scalar(code)
                        else { throw ParseError(line: line, reason: "invalid \\U escape") }
                        scalar = decoded
                        index += 4
                    default: scalar = scalars[index]
                    }
                }
                value.append(scalar)
                index += 1
            }
            guard index < scalars.count else { throw ParseError(line: line, reason: "unterminated string") }
            index += 1
            return String(value)
        }

        func expect(_ character: Unicode.Scalar) throws(ParseError) {
            try skipSpaceAndComments()
            guard index < scalars.count, scalars[index] == character else {
                let found = index < scalars.count ? "'\(scalars[index])'" : "end of file"
                throw ParseError(line: line, reason: "expected '\(character)', found \(found)")
            }
            index += 1
        }

        while true {
            try skipSpaceAndComments()
            if index >= scalars.count { break }
            let key = try token()
            try skipSpaceAndComments()
            if index < scalars.count, scalars[index] == ";" {  // `"key";` means key = key
                index += 1
                pairs.append((key, key))
                continue
            }
            try expect("=")
            try skipSpaceAndComments()
            let value = try token()
            try expect(";")
            pairs.append((key, value))
        }
        return pairs
    }

    /// Checks every `<lang>.lproj/pass.strings`: each decodes and parses, and all locales carry the same keys.
    static func check(entries: [ArchiveEntry]) -> [Finding] {
        var findings: [Finding] = []
        var keysByLocale: [(locale: String, keys: Set<String>)] = []
        for entry in entries {
            let parts = entry.name.split(separator: "/")
            guard parts.count == 2, parts[0].hasSuffix(".lproj"), parts[1].hasSuffix(".strings") else { continue }
            guard let text = decode(entry.data) else {
                findings.append(
                    .error(
                        PassFindingCode.stringsEncoding,
                        "\(quoted(entry.name)) is neither UTF-8 nor UTF-16 with a byte order mark",
                        path: entry.name))
                continue
            }
            do {
                let pairs = try parse(text)
                if parts[1] == "pass.strings" {
                    keysByLocale.append((String(parts[0].dropLast(6)), Set(pairs.map(\.key))))
                }
            } catch {
                findings.append(
                    .error(
                        PassFindingCode.stringsInvalid, "\(quoted(entry.name)) line \(error.line): \(error.reason)",
                        path: entry.name))
            }
        }
        let allKeys = keysByLocale.reduce(into: Set<String>()) { $0.formUnion($1.keys) }
        for (locale, keys) in keysByLocale where keys != allKeys {
            let missing = allKeys.subtracting(keys).sorted()
            let shown = missing.prefix(5).map(quoted).joined(separator: ", ") + (missing.count > 5 ? ", …" : "")
            findings.append(
                .warning(
                    PassFindingCode.stringsMissingKeys,
                    "\(locale).lproj/pass.strings lacks \(missing.count) key(s) other locales have: \(shown)",
                    path: "\(locale).lproj/pass.strings"))
        }
        return findings
    }
}
