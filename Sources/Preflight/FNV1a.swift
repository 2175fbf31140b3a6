/// 64-bit FNV-1a, fed part by part (no joined string): the baseline's finding fingerprints and the JUnit report's
/// shared card names.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }

    mutating func add(_ text: String) {
        for byte in text.utf8 { add(byte) }
    }

    /// ``value`` as sixteen lowercase hex digits, zero-padded.
    var hex: String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            let digits: StaticString = "0123456789abcdef"
            for index in 0..<16 { buffer[index] = digits.utf8Start[Int((value >> UInt64(60 - 4 * index)) & 0xF)] }
            return 16
        }
    }
}
