/// Byte sizes on the command line. One parser for every `--max-size`, so `10M` means the same to the HTTP
/// engine's download cap and to the store's gc budget.
public enum ByteSize {
    /// Parses a size such as `500M` (`--max-size`): a whole number of bytes, optionally followed by `K`, `M`,
    /// `G` or `T` — powers of 1024, like curl's `--max-filesize` and `du -h`; `KB`/`KiB` and lowercase
    /// spellings mean the same.
    /// - Returns: The number of bytes, or `nil` for anything else (negative, fractional, overflowing).
    public static func parse(_ text: String) -> Int? {
        var digits = Substring(text)
        var unit = 1
        let suffixes: [(String, Int)] = [("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("t", 1 << 40)]
        let lowered = text.lowercased()
        for (letter, scale) in suffixes {
            for spelling in [letter + "ib", letter + "b", letter] where lowered.hasSuffix(spelling) {
                digits = digits.dropLast(spelling.count)
                unit = scale
                break
            }
            if unit != 1 { break }
        }
        if unit == 1, lowered.hasSuffix("b") { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(digits) else {
            return nil
        }
        let (result, overflow) = value.multipliedReportingOverflow(by: unit)
        return overflow ? nil : result
    }

}

extension Invocation {
    /// A size option (`--max-size 10M`), or `nil` when absent; a usage error names the option otherwise.
    public func byteSize(_ name: String) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let bytes = ByteSize.parse(text) else {
            throw invalid(text, for: name, hint: "Expected a size such as 500K, 10M or 2G (powers of 1024).")
        }
        return bytes
    }
}
