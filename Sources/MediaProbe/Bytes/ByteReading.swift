// Bounds-checked reads over untrusted bytes. Every read returns nil instead of trapping, so a hostile length or
// offset can only ever end a parse with a finding, never crash it.

extension [UInt8] {
    /// True when `count` bytes starting at `offset` exist. Written so that huge offsets cannot overflow.
    @inline(__always)
    func has(_ count: Int, at offset: Int) -> Bool {
        offset >= 0 && count >= 0 && offset <= self.count && count <= self.count - offset
    }

    @inline(__always)
    func u8(_ offset: Int) -> Int? {
        has(1, at: offset) ? Int(self[offset]) : nil
    }

    func u16be(_ offset: Int) -> Int? {
        guard has(2, at: offset) else { return nil }
        return Int(self[offset]) << 8 | Int(self[offset + 1])
    }

    func u16le(_ offset: Int) -> Int? {
        guard has(2, at: offset) else { return nil }
        return Int(self[offset + 1]) << 8 | Int(self[offset])
    }

    func u24le(_ offset: Int) -> Int? {
        guard has(3, at: offset) else { return nil }
        return Int(self[offset + 2]) << 16 | Int(self[offset + 1]) << 8 | Int(self[offset])
    }

    func u32be(_ offset: Int) -> Int? {
        guard has(4, at: offset) else { return nil }
        return Int(self[offset]) << 24 | Int(self[offset + 1]) << 16 | Int(self[offset + 2]) << 8
            | Int(self[offset + 3])
    }

    func u32le(_ offset: Int) -> Int? {
        guard has(4, at: offset) else { return nil }
        return Int(self[offset + 3]) << 24 | Int(self[offset + 2]) << 16 | Int(self[offset + 1]) << 8
            | Int(self[offset])
    }

    /// A 64-bit big-endian value; nil when it does not fit in `Int` (no real file has an 8-exabyte box).
    func u64be(_ offset: Int) -> Int? {
        guard has(8, at: offset) else { return nil }
        var value: UInt64 = 0
        for index in offset..<offset + 8 { value = value << 8 | UInt64(self[index]) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    /// True when the bytes at `offset` equal `ascii`, an ASCII-only literal such as `"ftyp"` (a `\u{89}` in the
    /// literal would be two UTF-8 bytes: compare such signatures as byte arrays).
    func matches(_ ascii: StaticString, at offset: Int) -> Bool {
        let length = ascii.utf8CodeUnitCount
        guard has(length, at: offset) else { return false }
        return ascii.withUTF8Buffer { literal in
            for index in 0..<length where self[offset + index] != literal[index] { return false }
            return true
        }
    }

    /// Four bytes as text (an ISO-BMFF box type or brand, a RIFF chunk id); non-printable bytes become `?`.
    func fourCC(_ offset: Int) -> String? {
        guard has(4, at: offset) else { return nil }
        var scalars = String.UnicodeScalarView()
        for byte in self[offset..<offset + 4] {
            scalars.append(Unicode.Scalar((0x20...0x7E).contains(byte) ? byte : UInt8(ascii: "?")))
        }
        return String(scalars)
    }
}

/// Multiplies non-negative sizes without trapping; saturates at `Int.max` (a hostile header may claim 4G×4G).
@inline(__always)
func saturatingProduct(_ values: Int...) -> Int {
    var result = 1
    for value in values {
        let (product, overflow) = result.multipliedReportingOverflow(by: Swift.max(value, 0))
        if overflow { return Int.max }
        result = product
    }
    return result
}
