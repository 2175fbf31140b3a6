/// The 64-bit values added more than once, found in bounded memory: up to `runValues` values (4 MB) are kept and
/// sorted in memory; past that each full buffer is sorted and written as a run to an unlinked file in
/// `$TMPDIR` (``SpillFile``), and the runs are merged at the end. What `check --format junit` finds the card names
/// two cards of a file share with (their hashes), so that a run of millions of cards holds megabytes, not 8 bytes a
/// card.
///
/// When no file can be made or a write fails, the values stay in memory (the answer is the same). A run that cannot
/// be read back at the end ends the merge there: the repeats found so far are the answer (``complete`` is false).
public struct RepeatedValues {
    private let limits: SpillLimits
    private let runValues: Int
    private var buffer: [UInt64] = []
    /// No file to write runs to (none could be made, or a write failed): the values stay in memory.
    private var inMemory = false
    private var file: SpillFile?
    private var writer: SpillWriter?
    /// The byte ranges of the runs written.
    private var runs: [Range<Int>] = []
    /// Whether the last ``repeated()`` merged every run.
    public private(set) var complete = true

    public init() { self.init(limits: .standard, runValues: 1 << 19) }

    init(limits: SpillLimits, runValues: Int) {
        self.limits = limits
        self.runValues = max(runValues, 1)
    }

    /// Adds one value.
    public mutating func add(_ value: UInt64) {
        buffer.append(value)
        if !inMemory && buffer.count >= runValues { spill() }
    }

    /// Sorts the buffer and writes it as a run; keeps it in memory when there is no file to write to.
    private mutating func spill() {
        if file == nil {
            guard let made = SpillFile(limits, name: "repeats") else {
                inMemory = true
                return
            }
            file = made
            writer = SpillWriter(made)
        }
        guard var writing = writer else { return }
        buffer.sort()
        let start = writing.offset
        buffer.withUnsafeBytes { writing.append($0) }
        writing.flush()
        guard writing.failure == nil else {
            // A full $TMPDIR: this buffer stays in memory, and so does every value from here on (the runs written
            // before it are read back at the end).
            writer = nil
            inMemory = true
            return
        }
        writer = writing
        runs.append(start..<writing.offset)
        buffer.removeAll(keepingCapacity: true)
    }

    /// The values added two or more times.
    public mutating func repeated() -> Set<UInt64> {
        buffer.sort()
        var result = Set<UInt64>()
        complete = true
        var readers: [SpillReader] = []
        if let file {
            readers = runs.map { SpillReader(file, range: $0, capacity: 1 << 16) }
        }
        // A k-way merge of the runs and the buffer: the smallest head each time (a few dozen runs at most).
        var heads: [UInt64?] = []
        for reader in readers { heads.append(Self.next(reader, complete: &complete)) }
        var position = 0
        var previous: UInt64?
        while true {
            var smallest: UInt64?
            var source = -1
            for (index, head) in heads.enumerated() {
                if let head, smallest.map({ head < $0 }) ?? true {
                    smallest = head
                    source = index
                }
            }
            if position < buffer.count, smallest.map({ buffer[position] < $0 }) ?? true {
                smallest = buffer[position]
                source = heads.count
            }
            guard let value = smallest else { break }
            if source == heads.count {
                position += 1
            } else {
                heads[source] = Self.next(readers[source], complete: &complete)
            }
            if value == previous { result.insert(value) }
            previous = value
        }
        return result
    }

    /// The next value of a run, nil at its end or when it cannot be read (then `complete` turns false).
    private static func next(_ reader: SpillReader, complete: inout Bool) -> UInt64? {
        guard !reader.isAtEnd else { return nil }
        do {
            return UInt64(bitPattern: try reader.int64())
        } catch {
            complete = false
            return nil
        }
    }
}
