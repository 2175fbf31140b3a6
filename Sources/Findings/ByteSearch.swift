#if canImport(Glibc)
    import Glibc
#endif

extension StringProtocol {
    /// Whether `other` occurs in this text, compared byte for byte (UTF-8): what a report's hot loops ask (does a
    /// message name this URL, does a text hold `{{`). Where Foundation is imported, `contains(_:)` resolves to its
    /// `NSString` search, which converts both texts to UTF-16 first: a tenth of `check`'s time on a feed of 500,000
    /// cards.
    public func containsBytes<Other: StringProtocol>(_ other: Other) -> Bool {
        var text = String(self)
        var needle = String(other)
        return text.withUTF8 { text in
            needle.withUTF8 { needle in
                guard !needle.isEmpty else { return true }
                guard needle.count <= text.count else { return false }
                let first = needle[0]
                var start = 0
                let last = text.count - needle.count
                while start <= last {
                    // The next place the first byte occurs (memchr), then the rest compared (memcmp).
                    guard let found = memchr(text.baseAddress! + start, Int32(first), last - start + 1) else {
                        return false
                    }
                    let offset = text.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if memcmp(text.baseAddress! + offset, needle.baseAddress!, needle.count) == 0 { return true }
                    start = offset + 1
                }
                return false
            }
        }
    }
}
