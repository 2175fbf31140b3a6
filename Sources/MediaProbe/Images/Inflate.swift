/// A minimal DEFLATE (RFC 1951) decoder for checks, not for images: it counts what a stream inflates to, keeps
/// only the first `keep` output bytes, and serves back-references from a 32 KiB ring. Memory is bounded by
/// `keep` + 32 KiB whatever the input; time by the input size and `maxOutput` (decoding stops there). Written after
/// zlib's `contrib/puff` (canonical Huffman codes decoded bit by bit), which is small enough to review.
struct InflateCheck {
    /// How decoding ended.
    enum Outcome: Equatable {
        /// The final block ended: the whole stream was decoded.
        case ended
        /// The input ran out before the final block ended (a cut-off stream).
        case outOfInput
        /// `maxOutput` bytes were produced; decoding stopped there on purpose.
        case reachedLimit
        /// The bits break RFC 1951 (a decoder rejects the stream at this point).
        case invalid(String)
    }

    let outcome: Outcome
    /// Bytes produced (at most `maxOutput`).
    let produced: Int
    /// The first `keep` bytes produced.
    let kept: [UInt8]

    /// Inflates `input` (raw DEFLATE, no zlib header) until it ends, runs out, or has produced `maxOutput` bytes.
    init(_ input: [UInt8], keep: Int, maxOutput: Int) {
        var state = InflateState(input: input, keep: Swift.max(keep, 0), maxOutput: Swift.max(maxOutput, 0))
        let outcome = state.run()
        self.outcome = outcome
        self.produced = state.produced
        self.kept = state.kept
    }
}

/// A zlib stream (RFC 1950) header: compression method 8, window ≤ 32 KiB, the check bits, no preset dictionary.
/// Returns nil when valid, else why not (zlib's `inflate` answers "incorrect header check" and friends).
func zlibHeaderProblem(_ bytes: [UInt8]) -> String? {
    guard bytes.count >= 2 else { return "the zlib header is cut off" }
    let cmf = Int(bytes[0])
    let flg = Int(bytes[1])
    if cmf & 0x0F != 8 { return "the zlib stream does not use deflate (method \(cmf & 0x0F))" }
    if cmf >> 4 > 7 { return "the zlib window size is invalid" }
    if (cmf << 8 | flg) % 31 != 0 { return "the zlib header check bits are wrong" }
    if flg & 0x20 != 0 { return "the zlib stream needs a preset dictionary" }
    return nil
}

private struct HuffmanTable {
    var counts = [Int](repeating: 0, count: 16)
    var symbols: [Int]

    /// Builds the canonical code for `lengths`; nil when over-subscribed (RFC 1951 §3.2.2 allows incomplete
    /// codes only for a single distance code, which `puff` also accepts: decoding then fails on the unused codes).
    init?(lengths: [Int]) {
        symbols = [Int](repeating: 0, count: lengths.count)
        for length in lengths { counts[length] += 1 }
        if counts[0] == lengths.count {
            counts[0] = 0
            return  // no codes: any use fails to decode
        }
        var left = 1
        for length in 1..<16 {
            left <<= 1
            left -= counts[length]
            if left < 0 { return nil }
        }
        var offsets = [Int](repeating: 0, count: 16)
        for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
        for (symbol, length) in lengths.enumerated() where length != 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
        counts[0] = 0
    }
}

private struct InflateState {
    let input: [UInt8]
    let keep: Int
    let maxOutput: Int
    var position = 0
    var bitBuffer = 0
    var bitCount = 0
    var produced = 0
    var kept: [UInt8] = []
    var window = [UInt8](repeating: 0, count: 1 << 15)

    init(input: [UInt8], keep: Int, maxOutput: Int) {
        self.input = input
        self.keep = keep
        self.maxOutput = maxOutput
        kept.reserveCapacity(Swift.min(keep, 1 << 16))
    }

    struct OutOfInput: Error {}
    struct Invalid: Error { let reason: String }
    struct Limit: Error {}

    mutating func bits(_ count: Int) throws -> Int {
        while bitCount < count {
            guard position < input.count else { throw OutOfInput() }
            bitBuffer |= Int(input[position]) << bitCount
            position += 1
            bitCount += 8
        }
        let value = bitBuffer & ((1 << count) - 1)
        bitBuffer >>= count
        bitCount -= count
        return value
    }

    mutating func emit(_ byte: UInt8) throws {
        guard produced < maxOutput else { throw Limit() }
        window[produced & 0x7FFF] = byte
        if produced < keep { kept.append(byte) }
        produced += 1
    }

    mutating func decode(_ table: HuffmanTable) throws -> Int {
        var code = 0
        var first = 0
        var index = 0
        for length in 1..<16 {
            code |= try bits(1)
            let count = table.counts[length]
            if code - count < first { return table.symbols[index + (code - first)] }
            index += count
            first += count
            first <<= 1
            code <<= 1
        }
        throw Invalid(reason: "an invalid Huffman code")
    }

    mutating func run() -> InflateCheck.Outcome {
        do {
            var last = 0
            repeat {
                last = try bits(1)
                switch try bits(2) {
                case 0: try stored()
                case 1: try codes(Self.fixedLengths, Self.fixedDistances)
                case 2: try dynamic()
                default: throw Invalid(reason: "a block of the reserved type 3")
                }
            } while last == 0
            return .ended
        } catch is OutOfInput {
            return .outOfInput
        } catch is Limit {
            return .reachedLimit
        } catch let error as Invalid {
            return .invalid(error.reason)
        } catch {
            return .invalid("\(error)")
        }
    }

    mutating func stored() throws {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= input.count else { throw OutOfInput() }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        position += 4
        guard length == ~complement & 0xFFFF else { throw Invalid(reason: "a stored block with a bad length") }
        for _ in 0..<length {
            guard position < input.count else { throw OutOfInput() }
            try emit(input[position])
            position += 1
        }
    }

    static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]
    static let fixedLengths: HuffmanTable = {
        var lengths = [Int](repeating: 8, count: 288)
        for symbol in 144..<256 { lengths[symbol] = 9 }
        for symbol in 256..<280 { lengths[symbol] = 7 }
        return HuffmanTable(lengths: lengths)!
    }()
    static let fixedDistances = HuffmanTable(lengths: [Int](repeating: 5, count: 30))!

    mutating func codes(_ lengths: HuffmanTable, _ distances: HuffmanTable) throws {
        while true {
            let symbol = try decode(lengths)
            if symbol < 256 {
                try emit(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let index = symbol - 257
            guard index < 29 else { throw Invalid(reason: "an invalid length code") }
            let length = Self.lengthBase[index] + (try bits(Self.lengthExtra[index]))
            let distanceSymbol = try decode(distances)
            guard distanceSymbol < 30 else { throw Invalid(reason: "an invalid distance code") }
            let distance = Self.distanceBase[distanceSymbol] + (try bits(Self.distanceExtra[distanceSymbol]))
            guard distance <= produced else { throw Invalid(reason: "a distance before the start of the data") }
            for _ in 0..<length { try emit(window[(produced - distance) & 0x7FFF]) }
        }
    }

    mutating func dynamic() throws {
        let lengthCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeCount = try bits(4) + 4
        guard lengthCount <= 286, distanceCount <= 30 else {
            throw Invalid(reason: "too many length or distance codes")
        }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var codeLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeCount { codeLengths[order[index]] = try bits(3) }
        guard let lengthCodes = HuffmanTable(lengths: codeLengths) else {
            throw Invalid(reason: "an invalid code-length code")
        }
        var lengths: [Int] = []
        lengths.reserveCapacity(lengthCount + distanceCount)
        while lengths.count < lengthCount + distanceCount {
            let symbol = try decode(lengthCodes)
            if symbol < 16 {
                lengths.append(symbol)
                continue
            }
            var value = 0
            var repeats: Int
            switch symbol {
            case 16:
                guard let previous = lengths.last else { throw Invalid(reason: "a repeat with no previous length") }
                value = previous
                repeats = 3 + (try bits(2))
            case 17: repeats = 3 + (try bits(3))
            default: repeats = 11 + (try bits(7))
            }
            guard lengths.count + repeats <= lengthCount + distanceCount else {
                throw Invalid(reason: "too many code lengths")
            }
            lengths += [Int](repeating: value, count: repeats)
        }
        guard lengths[256] != 0 else { throw Invalid(reason: "no end-of-block code") }
        guard let literal = HuffmanTable(lengths: Array(lengths[0..<lengthCount])),
            let distance = HuffmanTable(lengths: Array(lengths[lengthCount...]))
        else { throw Invalid(reason: "an over-subscribed Huffman code") }
        try codes(literal, distance)
    }
}
