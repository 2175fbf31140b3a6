internal import CZlib

/// A bounded inflate for checks, not for images: zlib's own `inflate` counts what a stream inflates to, keeps
/// only the first `keep` output bytes and stops after `maxOutput`. Memory is bounded by `keep` + a 16 KiB output
/// buffer + what zlib allocates, which an allocator refuses beyond ``memoryBudget`` (zlib needs its inflate state,
/// about 7 KiB, and the 32 KiB window); time by the input size and `maxOutput`. The zlib every PNG decoder uses
/// (libpng, Pillow, Skia through libpng) is the judge, so its verdict on a stream is theirs, message included.
struct InflateCheck {
    /// What the input is: a zlib stream (RFC 1950, PNG's IDAT data) or raw deflate (RFC 1951, the IDAT data of
    /// Apple's CgBI PNGs, which have no zlib header or Adler-32).
    enum Format {
        case zlib
        case raw
    }

    /// How decoding ended.
    enum Outcome: Equatable {
        /// The final block ended (and, for a zlib stream, its Adler-32 matched): the whole stream was decoded.
        case ended
        /// The input ran out before the stream ended (a cut-off stream).
        case outOfInput
        /// `maxOutput` bytes were produced and the stream goes on; decoding stopped there on purpose.
        case reachedLimit
        /// zlib rejects the stream at this point (its message: "incorrect header check", "invalid block type",
        /// "invalid distance too far back", a preset dictionary it cannot have, …).
        case invalid(String)
        /// zlib asked for more memory than ``InflateCheck/memoryBudget``: not judged.
        case overBudget
    }

    /// Most bytes zlib may hold at once: its inflate state and the 32 KiB window, with room to spare.
    static let memoryBudget = 48 << 10
    /// The output buffer inflate writes into, reused for the whole stream.
    static let outputBufferSize = 16 << 10

    let outcome: Outcome
    /// Bytes produced (at most `maxOutput`).
    let produced: Int
    /// The first `keep` bytes produced.
    let kept: [UInt8]
    /// The most bytes zlib held at once while decoding (at most ``memoryBudget``).
    let peakMemory: Int

    /// Inflates `input` until it ends, runs out, breaks the format, or has produced `maxOutput` bytes.
    init(_ input: [UInt8], format: Format, keep: Int, maxOutput: Int) {
        guard let stream = InflateStream(windowBits: format == .zlib ? 15 : -15, budget: Self.memoryBudget) else {
            (outcome, produced, kept, peakMemory) = (.overBudget, 0, [], 0)
            return
        }
        (outcome, produced, kept) = stream.run(input, keep: Swift.max(keep, 0), maxOutput: Swift.max(maxOutput, 0))
        peakMemory = stream.peakMemory
    }
}

/// The bytes zlib holds: counted by its allocator, which refuses to go beyond the budget (zlib then answers
/// Z_MEM_ERROR). Each block carries its size in a 16-byte header so the free function can count it back.
private struct AllocationBudget {
    let limit: Int
    var live = 0
    var peak = 0
}

private let budgetHeader = 16

private func budgetedAlloc(_ opaque: UnsafeMutableRawPointer?, _ items: uInt, _ size: uInt) -> UnsafeMutableRawPointer?
{
    guard let budget = opaque?.assumingMemoryBound(to: AllocationBudget.self) else { return nil }
    let (bytes, overflow) = Int(items).multipliedReportingOverflow(by: Int(size))
    guard !overflow, bytes <= budget.pointee.limit - budget.pointee.live else { return nil }
    let block = UnsafeMutableRawPointer.allocate(byteCount: budgetHeader + bytes, alignment: budgetHeader)
    block.storeBytes(of: bytes, as: Int.self)
    budget.pointee.live += bytes
    budget.pointee.peak = Swift.max(budget.pointee.peak, budget.pointee.live)
    return block + budgetHeader
}

private func budgetedFree(_ opaque: UnsafeMutableRawPointer?, _ address: UnsafeMutableRawPointer?) {
    guard let address, let budget = opaque?.assumingMemoryBound(to: AllocationBudget.self) else { return }
    let block = address - budgetHeader
    budget.pointee.live -= block.load(as: Int.self)
    block.deallocate()
}

/// The one owner of a `z_stream`: it exists only once `inflateInit2` succeeded, and its deinit calls `inflateEnd`
/// and frees the stream, whichever way decoding ended. Non-copyable, so no second owner can end it again; the
/// stream lives on the heap because zlib's state points back at it.
private struct InflateStream: ~Copyable {
    private let stream: UnsafeMutablePointer<z_stream>
    private let budget: UnsafeMutablePointer<AllocationBudget>

    init?(windowBits: Int32, budget limit: Int) {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let budget = UnsafeMutablePointer<AllocationBudget>.allocate(capacity: 1)
        budget.initialize(to: AllocationBudget(limit: limit))
        stream.pointee.zalloc = budgetedAlloc
        stream.pointee.zfree = budgetedFree
        stream.pointee.opaque = UnsafeMutableRawPointer(budget)
        guard ia_inflate_init2(stream, windowBits) == Z_OK else {
            // A failed inflateInit2 frees what it allocated and leaves no state: nothing to end.
            stream.deinitialize(count: 1)
            stream.deallocate()
            budget.deinitialize(count: 1)
            budget.deallocate()
            return nil
        }
        self.stream = stream
        self.budget = budget
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        budget.deinitialize(count: 1)
        budget.deallocate()
    }

    var peakMemory: Int { budget.pointee.peak }

    func run(_ input: [UInt8], keep: Int, maxOutput: Int) -> (InflateCheck.Outcome, Int, [UInt8]) {
        let stream = self.stream
        var kept: [UInt8] = []
        kept.reserveCapacity(Swift.min(keep, 1 << 16))
        var produced = 0
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: InflateCheck.outputBufferSize)
        defer { output.deallocate() }
        let outcome = input.withUnsafeBufferPointer { buffer -> InflateCheck.Outcome in
            var fed = 0
            while true {
                if stream.pointee.avail_in == 0, fed < buffer.count, let base = buffer.baseAddress {
                    // avail_in is 32 bits wide: a longer input is fed in pieces. zlib never writes to its input.
                    let piece = Swift.min(buffer.count - fed, 1 << 30)
                    stream.pointee.next_in = UnsafeMutablePointer(mutating: base + fed)
                    stream.pointee.avail_in = uInt(piece)
                    fed += piece
                }
                // Room for one byte beyond the limit tells "goes on past the limit" from "ends exactly there".
                let room = Swift.min(InflateCheck.outputBufferSize, maxOutput + 1 - produced)
                stream.pointee.next_out = output
                stream.pointee.avail_out = uInt(room)
                let status = inflate(stream, Z_NO_FLUSH)
                let written = room - Int(stream.pointee.avail_out)
                let counted = Swift.min(written, maxOutput - produced)
                if kept.count < keep {
                    kept.append(
                        contentsOf: UnsafeBufferPointer(start: output, count: Swift.min(counted, keep - kept.count)))
                }
                produced += counted
                if written > counted { return .reachedLimit }
                switch status {
                case Z_OK: continue  // progress was made
                case Z_STREAM_END: return .ended
                // No progress possible with output room left: the input is used up.
                case Z_BUF_ERROR: if fed < buffer.count { continue } else { return .outOfInput }
                case Z_NEED_DICT: return .invalid("it needs a preset dictionary")
                case Z_MEM_ERROR: return .overBudget
                default: return .invalid(stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)")
                }
            }
        }
        return (outcome, produced, kept)
    }
}
