#if canImport(Glibc)
    import Glibc
#endif

/// When ``FeedOrder`` leaves memory for disk, and how much memory its disk path may use. Internal: the CLI always
/// uses ``standard``; tests force the disk path (and one, two or many sorted runs) at a few cards.
struct SpillLimits: Sendable {
    /// Past this many cards the sort keys go to disk (``SpilledFeedOrder``); below it everything stays in memory
    /// (13 bytes a card, and a message's key and titles: about 10 MB at the standard threshold).
    var threshold: Int
    /// Cards in one sorted run (a buffer of 64 bytes a card, reserved once: 4 MB). Smaller runs only mean more of
    /// them to merge (76 at 5 million cards).
    var runCards: Int = 1 << 16
    /// Cards whose positions one pass of the reordering holds (12 bytes each, plus 8 a place in another language's
    /// feed: 3 MB, and 8 MB more where every card has four such places).
    var bucketCards: Int = 1 << 18
    /// Where the files go: `nil` is `$TMPDIR`, else `/tmp` (tests: a directory that is not one).
    var directory: String? = nil
    /// Tests only: writes past this many bytes fail with `ENOSPC`, as in a full `$TMPDIR`.
    var failWritesAfter: Int? = nil

    /// The CLI's: memory up to a quarter of a million cards (50,000 messages of five cards), then disk. Measured
    /// (`resolve --format json`, five cards a message): the in-memory order's peak at this threshold and the run
    /// buffer after it fit in what a run of 100,000 messages peaked at in memory, so the peak is the same from
    /// there on however many messages; a higher threshold (or larger runs) raised the peak of every spilled run.
    static let standard = SpillLimits(threshold: 1 << 18)
    /// Never to disk (``CardResolver/run(_:)``, whose cards are all in memory anyway, and the fallback of a run whose
    /// files failed).
    static let inMemory = SpillLimits(threshold: .max)
}

/// An unlinked temporary file in `$TMPDIR` (else `/tmp`; mkstemp, then unlink): it goes with its last reference or
/// the process, whatever happens. The feed order's runs and positions, JUnit's name hashes and `resolve`'s card
/// spool are such files. Written by one owner, appending, while
/// it is built; then only read, with `pread` at an offset (no shared file offset), which is why it may be shared.
final class SpillFile: @unchecked Sendable {
    let descriptor: Int32
    /// Bytes appended.
    private(set) var size = 0
    private let failAfter: Int?

    /// A new empty file; `nil` when none can be made (no such directory, not writable).
    init?(_ limits: SpillLimits, name: String) {
        var directory = limits.directory ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        if directory.isEmpty { directory = "/tmp" }
        var template = Array((directory + "/inbox-assets-\(name)-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        self.descriptor = descriptor
        failAfter = limits.failWritesAfter
    }

    deinit { close(descriptor) }

    /// Appends `bytes`; the `errno` of a failed write (a full `$TMPDIR`), else `nil`.
    func append(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        if let failAfter, size + bytes.count > failAfter { return ENOSPC }
        var offset = 0
        while offset < bytes.count {
            let done = pwrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset, off_t(size))
            if done > 0 {
                offset += done
                size += done
            } else if done < 0 && errno != EINTR {
                return errno
            } else if done == 0 {
                return EIO
            }
        }
        return nil
    }

    /// Reads up to `buffer.count` bytes at `offset`: how many (0 at the end), or -1 with `errno` set.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        while true {
            let got = pread(descriptor, buffer.baseAddress!, buffer.count, off_t(offset))
            if got >= 0 || errno != EINTR { return got }
        }
    }
}

/// Appends to a ``SpillFile`` through a buffer of its own; the first failed write is kept (``failure``) and every
/// later one skipped.
struct SpillWriter {
    let file: SpillFile
    private(set) var buffer: [UInt8] = []
    private(set) var failure: Int32?
    private let capacity: Int

    init(_ file: SpillFile, capacity: Int = 1 << 16) {
        self.file = file
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    /// Bytes written so far, the buffered ones included.
    var offset: Int { file.size + buffer.count }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { flush() }
    }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
        if buffer.count >= capacity { flush() }
    }

    mutating func flush() {
        if failure == nil, !buffer.isEmpty { failure = buffer.withUnsafeBytes { file.append($0) } }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Reads a range of a ``SpillFile`` from its start through a bounded buffer of its own (`pread`, so that any number
/// of readers share the file). A class: its buffer is its own memory, which ``current`` points into.
final class SpillReader {
    let file: SpillFile
    private let end: Int
    private var next: Int
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var filled = 0

    init(_ file: SpillFile, range: Range<Int>, capacity: Int = 1 << 16) {
        self.file = file
        next = range.lowerBound
        end = range.upperBound
        self.capacity = max(capacity, 64)
        buffer = .allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { buffer.deallocate() }

    /// Whether every byte of the range was taken.
    var isAtEnd: Bool { start == filled && next >= end }

    /// The next bytes (as many as the last ``ensure(_:)`` asked for), valid until the next ``ensure(_:)``.
    var current: UnsafeRawPointer { UnsafeRawPointer(buffer + start) }

    /// Makes the next `count` bytes available at ``current`` (`errno` thrown; `EIO`: the range ends first).
    func ensure(_ count: Int) throws(SpillError) {
        guard filled - start < count else { return }
        if start > 0 {
            buffer.copyMemory(from: buffer + start, byteCount: filled - start)
            filled -= start
            start = 0
        }
        if count > capacity {
            let larger = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 8)
            larger.copyMemory(from: buffer, byteCount: filled)
            buffer.deallocate()
            buffer = larger
            capacity = count
        }
        while filled < count {
            let want = min(capacity - filled, end - next)
            guard want > 0 else { throw SpillError(code: EIO) }
            let got = file.read(into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: want), at: next)
            if got < 0 { throw SpillError(code: errno) }
            if got == 0 { throw SpillError(code: EIO) }
            filled += got
            next += got
        }
    }

    /// Takes `count` bytes (made available by ``ensure(_:)``).
    func skip(_ count: Int) { start += count }

    func int32() throws(SpillError) -> Int32 {
        try ensure(4)
        defer { start += 4 }
        return Int32(littleEndian: current.loadUnaligned(as: Int32.self))
    }

    func int64() throws(SpillError) -> Int64 {
        try ensure(8)
        defer { start += 8 }
        return Int64(littleEndian: current.loadUnaligned(as: Int64.self))
    }
}

/// A failed write or read of a spill file: its `errno`.
struct SpillError: Error, Sendable {
    var code: Int32
}

/// ``FeedOrder`` past its ``SpillLimits/threshold``: the same positions, worked out with bounded memory.
///
/// 1. ``add(sendDate:order:code:read:push:cards:)`` writes each message's `sentAt` and read flag to a file in read
///    order, and each card's sort key (its feed, then its feed order's fields, encoded so that a byte comparison of
///    the fixed part decides most pairs; the strings compared as Swift compares them; its index last) to a buffer
///    that is sorted and written as a run when it holds ``SpillLimits/runCards``.
/// 2. ``finish()`` merges the runs (k-way, a bounded buffer each), so that every feed's cards come in feed order,
///    and walks each feed once: a card's position in the feed of a language is how many of that feed's members come
///    before it, counted as it goes (``Walk``), without sorting each language's feed on its own. The places, in feed
///    order, go to buckets of card indices; each bucket is then ordered in memory and written to the positions file
///    in card index order, which ``FeedPositions/Cursor`` reads back as the cards are walked.
///
/// A failed write (a full `$TMPDIR`) stops it: ``finish()`` returns `nil` and the run is ordered in memory instead.
final class SpilledFeedOrder {
    /// One card of a message, what its feed order needs.
    struct Card {
        var title: String?
        var language: String?
        var feed: FeedOrder.FeedKey
        var pinned: Bool
    }

    /// A sort record: a fixed header, then the title's and the code's UTF-8 bytes.
    enum Record {
        /// Compared as bytes: feed, two flags, send date, order (both descending), whether a title follows.
        static let keyBytes = 20
        static let index = 20
        static let language = 24
        static let flags = 28
        static let languageSet = 29
        static let titleLength = 33
        static let codeLength = 37
        static let header = 41
        static let own: UInt8 = 1
        static let fallback: UInt8 = 2
        static let titleNotASCII: UInt8 = 4
        static let codeNotASCII: UInt8 = 8
    }

    let limits: SpillLimits
    private let runFile: SpillFile
    private var runWriter: SpillWriter
    private var messageWriter: SpillWriter
    /// The runs written: their ranges in ``runFile``.
    private var runs: [Range<Int>] = []
    private var records: [UInt8] = []
    private var starts: [Int32] = []
    /// ``starts`` grouped by feed while a run is sorted.
    private var byFeed: [Int32] = []
    private var failure: Int32?
    private(set) var cardCount = 0
    private(set) var messageCount = 0

    private var feedIDs = Interned<FeedOrder.FeedKey>()
    /// Per feed, its cards' languages in the order the cards name them first (the order of ``FeedPositions/others``).
    private var feedLanguages: [[Int32]] = []
    private var languageIDs = Interned<String>()
    /// The distinct sets of languages a per-language message has in one feed (sorted): a fallback card's record
    /// names its set, which the walk needs to know which languages' feeds it shows in.
    private var languageSets = Interned<[Int32]>()

    /// Empty spill files; `nil` when `$TMPDIR` takes none.
    init?(limits: SpillLimits) {
        guard let runFile = SpillFile(limits, name: "feed-runs"), let messageFile = SpillFile(limits, name: "feed-sent")
        else { return nil }
        self.limits = limits
        self.runFile = runFile
        runWriter = SpillWriter(runFile, capacity: 1 << 20)
        messageWriter = SpillWriter(messageFile)
    }

    /// The sorted runs written so far.
    var runCount: Int { runs.count }

    /// The bytes its buffers hold (their capacities): bounded by ``SpillLimits/runCards``, whatever the run's length.
    var heldBytes: Int {
        records.capacity + (starts.capacity + byFeed.capacity) * 4 + runWriter.buffer.capacity
            + messageWriter.buffer.capacity
    }

    /// Whether a write failed (the positions are then worked out in memory).
    var failed: Bool { failure != nil || runWriter.failure != nil || messageWriter.failure != nil }

    /// Records the next message's cards (at least one), in read order.
    func add(sendDate: Double, order: Int64, code: String, read: Bool, push: Bool, cards: [Card]) {
        // The message: its first card, its read flag and its send date as a card shows it.
        messageWriter.append(Int32(cardCount))
        messageWriter.append(Int32(read ? 1 : 0))
        messageWriter.append(FeedPositions.sentAt(sendDate))
        messageCount += 1

        var feeds: [UInt8] = []
        var languages: [Int32] = []
        feeds.reserveCapacity(cards.count)
        languages.reserveCapacity(cards.count)
        for card in cards {
            let feed = UInt8(feedIDs.id(of: card.feed))
            if Int(feed) == feedLanguages.count { feedLanguages.append([]) }
            feeds.append(feed)
            var language: Int32 = -1
            if let name = card.language {
                language = languageIDs.id(of: name)
                if !feedLanguages[Int(feed)].contains(language) { feedLanguages[Int(feed)].append(language) }
            }
            languages.append(language)
        }
        let english = languageIDs[MessageText.fallbackLanguage]

        // Date and order descending: the bits inverted of a key that orders ascending (-0 is 0, as `!=` has it).
        let date = sendDate == 0 ? 0 : sendDate
        let ascending = date.sign == .minus ? ~date.bitPattern : date.bitPattern | (1 << 63)
        let dateKey = (~ascending).bigEndian
        let orderKey = (~(UInt64(bitPattern: order) ^ (1 << 63))).bigEndian
        let codeASCII = code.utf8.allSatisfy { $0 < 0x80 }
        let codeLength = code.utf8.count

        for (slot, card) in cards.enumerated() {
            let feed = feeds[slot]
            let language = languages[slot]
            var flags: UInt8 = codeASCII ? 0 : Record.codeNotASCII
            var languageSet: Int32 = -1
            if language >= 0 {
                // As ``FeedOrder`` sees the message in this feed: the last card of each language, the first card
                // with a language, and the card a device of another language shows (`en`, else that first card).
                var first = -1
                var mine: [Int32] = []
                var englishCard = -1
                for other in cards.indices where feeds[other] == feed && languages[other] >= 0 {
                    if first < 0 { first = other }
                    if !mine.contains(languages[other]) { mine.append(languages[other]) }
                    if languages[other] == english { englishCard = other }
                }
                let own = !cards.indices.contains { $0 > slot && feeds[$0] == feed && languages[$0] == language }
                if own { flags |= Record.own }
                if (englishCard >= 0 ? englishCard : first) == slot {
                    flags |= Record.fallback
                    mine.sort()
                    languageSet = languageSets.id(of: mine)
                }
            }
            let ios = feedIDs.keys[Int(feed)].platform == .ios
            let title = ios ? nil : card.title
            if let title, !title.utf8.allSatisfy({ $0 < 0x80 }) { flags |= Record.titleNotASCII }

            let titleLength = title?.utf8.count ?? 0
            // A run ends at its number of cards or at its bytes (long titles or codes), whichever comes first: its
            // buffer, reserved once, never grows past them.
            if starts.count >= limits.runCards
                || (!starts.isEmpty && records.count + Record.header + titleLength + codeLength > runBytes)
            {
                writeRun()
            }
            if records.capacity == 0 {
                records.reserveCapacity(runBytes)
                starts.reserveCapacity(limits.runCards)
            }
            starts.append(Int32(records.count))
            records.append(feed)
            records.append(ios ? (card.pinned ? 0 : 1) : (push ? 0 : 1))
            records.append(ios && read ? 1 : 0)
            Self.append(dateKey, to: &records)
            Self.append(orderKey, to: &records)
            records.append(title == nil ? 0 : 1)
            Self.append(Int32(cardCount).littleEndian, to: &records)
            Self.append(language.littleEndian, to: &records)
            records.append(flags)
            Self.append(languageSet.littleEndian, to: &records)
            Self.append(UInt32(titleLength).littleEndian, to: &records)
            Self.append(UInt32(codeLength).littleEndian, to: &records)
            if let title { records.append(contentsOf: title.utf8) }
            records.append(contentsOf: code.utf8)
            cardCount += 1
        }
    }

    /// A run's buffer: 64 bytes a card (a record is 41 bytes and its code, plus its title on Android).
    private var runBytes: Int { limits.runCards * 64 }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    /// Sorts the buffered records and appends them to the run file as one run.
    private func writeRun() {
        guard !starts.isEmpty else { return }
        let begin = runWriter.offset
        records.withUnsafeBytes { raw in
            let base = raw.baseAddress!
            // Feed by feed (a stable counting sort by the first byte), then each feed sorted: the cards of one feed
            // mostly come in its order already (a dump is sorted by date), which the standard sort finds.
            var counts = [Int](repeating: 0, count: 257)
            for start in starts { counts[Int(base.load(fromByteOffset: Int(start), as: UInt8.self)) + 1] += 1 }
            for feed in 1..<counts.count { counts[feed] += counts[feed - 1] }
            let bounds = counts
            byFeed.removeAll(keepingCapacity: true)
            byFeed.append(contentsOf: repeatElement(0, count: starts.count))
            for start in starts {
                let feed = Int(base.load(fromByteOffset: Int(start), as: UInt8.self))
                byFeed[counts[feed]] = start
                counts[feed] += 1
            }
            swap(&starts, &byFeed)
            starts.withUnsafeMutableBufferPointer { all in
                for feed in 0..<256 where bounds[feed + 1] - bounds[feed] > 1 {
                    var slice = UnsafeMutableBufferPointer(rebasing: all[bounds[feed]..<bounds[feed + 1]])
                    slice.sort { Self.precedes(base + Int($0), base + Int($1)) }
                }
            }
            for start in starts {
                let record = base + Int(start)
                runWriter.append(UnsafeRawBufferPointer(start: record, count: Self.length(of: record)))
            }
        }
        runWriter.flush()
        runs.append(begin..<runWriter.offset)
        records.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
    }

    static func length(of record: UnsafeRawPointer) -> Int {
        Record.header
            + Int(UInt32(littleEndian: record.loadUnaligned(fromByteOffset: Record.titleLength, as: UInt32.self)))
            + Int(UInt32(littleEndian: record.loadUnaligned(fromByteOffset: Record.codeLength, as: UInt32.self)))
    }

    /// The feed order of two records: ``FeedOrder``'s `sorted` (equal keys by card index), feeds one after another.
    static func precedes(_ l: UnsafeRawPointer, _ r: UnsafeRawPointer) -> Bool {
        let key = memcmp(l, r, Record.keyBytes)
        if key != 0 { return key < 0 }
        let lTitle = Int(UInt32(littleEndian: l.loadUnaligned(fromByteOffset: Record.titleLength, as: UInt32.self)))
        let rTitle = Int(UInt32(littleEndian: r.loadUnaligned(fromByteOffset: Record.titleLength, as: UInt32.self)))
        let lFlags = l.load(fromByteOffset: Record.flags, as: UInt8.self)
        let rFlags = r.load(fromByteOffset: Record.flags, as: UInt8.self)
        // Both have a title or neither (the key's last byte); Android's titles and both platforms' codes, descending.
        if l.load(fromByteOffset: Record.keyBytes - 1, as: UInt8.self) == 1 {
            let order = descending(
                UnsafeRawBufferPointer(start: l + Record.header, count: lTitle),
                UnsafeRawBufferPointer(start: r + Record.header, count: rTitle),
                ascii: (lFlags | rFlags) & Record.titleNotASCII == 0)
            if order != 0 { return order < 0 }
        }
        let lCode = Int(UInt32(littleEndian: l.loadUnaligned(fromByteOffset: Record.codeLength, as: UInt32.self)))
        let rCode = Int(UInt32(littleEndian: r.loadUnaligned(fromByteOffset: Record.codeLength, as: UInt32.self)))
        let order = descending(
            UnsafeRawBufferPointer(start: l + Record.header + lTitle, count: lCode),
            UnsafeRawBufferPointer(start: r + Record.header + rTitle, count: rCode),
            ascii: (lFlags | rFlags) & Record.codeNotASCII == 0)
        if order != 0 { return order < 0 }
        return l.loadUnaligned(fromByteOffset: Record.index, as: Int32.self)
            < r.loadUnaligned(fromByteOffset: Record.index, as: Int32.self)
    }

    /// -1 when `l` comes first in a descending order of strings, 1 when `r` does, 0 when Swift finds them equal.
    /// ASCII strings compare as bytes; others as Swift `String`s (canonical equivalence: two spellings of `é` are
    /// one code), exactly as ``FeedOrder`` compares them.
    static func descending(_ l: UnsafeRawBufferPointer, _ r: UnsafeRawBufferPointer, ascii: Bool) -> Int {
        let common = min(l.count, r.count)
        let bytes = common == 0 ? 0 : memcmp(l.baseAddress!, r.baseAddress!, common)
        if bytes == 0 && l.count == r.count { return 0 }
        if ascii { return bytes != 0 ? (bytes > 0 ? -1 : 1) : (l.count > r.count ? -1 : 1) }
        let left = String(decoding: l, as: UTF8.self)
        let right = String(decoding: r, as: UTF8.self)
        return left == right ? 0 : (left > right ? -1 : 1)
    }

    /// The positions file, or `nil` when a file failed (a full `$TMPDIR`).
    func finish() -> PositionFile? {
        writeRun()
        // The run buffers' memory is the merge's.
        records = []
        starts = []
        byFeed = []
        messageWriter.flush()
        guard !failed, let positions = SpillFile(limits, name: "feed-positions"),
            let scatter = SpillFile(limits, name: "feed-places")
        else { return nil }
        do throws(SpillError) {
            var walk = Walk(
                limits: limits, cardCount: cardCount, scatter: scatter, feedLanguages: feedLanguages,
                languageSets: languageSets.keys, languageCount: languageIDs.keys.count)
            try merge { (record) throws(SpillError) in try walk.place(record) }
            try walk.finish()
            try walk.writePositions(to: positions)
        } catch {
            failure = error.code
            return nil
        }
        return PositionFile(
            cards: positions, messages: messageWriter.file, cardCount: cardCount, messageCount: messageCount,
            languageNames: languageIDs.keys)
    }

    /// Hands `body` every record in feed order: the runs merged, each read through a buffer of its own (8 MB in all).
    private func merge(_ body: (UnsafeRawPointer) throws(SpillError) -> Void) throws(SpillError) {
        let capacity = max(1 << 12, min(1 << 20, (8 << 20) / max(runs.count, 1)))
        let readers = runs.map { SpillReader(runFile, range: $0, capacity: capacity) }
        // A binary heap of the runs not yet at their end, by their next record (then by run: equal records never
        // occur, every card index being one card's).
        var heap: [Int] = []
        for run in readers.indices where !readers[run].isAtEnd {
            try Self.load(readers[run])
            heap.append(run)
        }
        func before(_ a: Int, _ b: Int) -> Bool { Self.precedes(readers[a].current, readers[b].current) }
        func down(_ from: Int) {
            var parent = from
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { return }
                var child = left
                if left + 1 < heap.count, before(heap[left + 1], heap[left]) { child = left + 1 }
                guard before(heap[child], heap[parent]) else { return }
                heap.swapAt(child, parent)
                parent = child
            }
        }
        for node in stride(from: heap.count / 2 - 1, through: 0, by: -1) { down(node) }
        while let top = heap.first {
            try body(readers[top].current)
            readers[top].skip(Self.length(of: readers[top].current))
            if readers[top].isAtEnd {
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
            } else {
                try Self.load(readers[top])
            }
            down(0)
        }
    }

    /// Makes a reader's next record whole in its buffer.
    private static func load(_ reader: SpillReader) throws(SpillError) {
        try reader.ensure(Record.header)
        try reader.ensure(length(of: reader.current))
    }

    /// The walk of the merged records, feed by feed: counts each language's feed members as it goes and sends each
    /// card's places to its bucket of card indices (12 bytes a place: card, language or -1 for its own position,
    /// position), in blocks of a file; then orders each bucket in memory (``writePositions(to:)``).
    struct Walk {
        let limits: SpillLimits
        let cardCount: Int
        let scatter: SpillFile
        let feedLanguages: [[Int32]]
        let languageSets: [[Int32]]
        private var feed = -1
        /// Members so far of the feed of a device whose language no message has: language-less cards and the
        /// fallback card of each per-language message. The feed of a language has `shown + adjust[language]`.
        private var shown: Int32 = 0
        private var adjust: [Int32]
        /// Per bucket, what is not yet in the file, and the blocks that are.
        private var pending: [[UInt8]]
        private var blocks: [[Range<Int>]]
        /// The bytes a bucket gathers before they go to the file: 4 MB in all, 32 KB at most a bucket.
        private let block: Int

        init(
            limits: SpillLimits, cardCount: Int, scatter: SpillFile, feedLanguages: [[Int32]],
            languageSets: [[Int32]], languageCount: Int
        ) {
            self.limits = limits
            self.cardCount = cardCount
            self.scatter = scatter
            self.feedLanguages = feedLanguages
            self.languageSets = languageSets
            adjust = [Int32](repeating: 0, count: languageCount)
            let buckets = (cardCount + limits.bucketCards - 1) / limits.bucketCards
            pending = [[UInt8]](repeating: [], count: buckets)
            block = max(1 << 12, min(1 << 15, (4 << 20) / max(buckets, 1)))
            blocks = [[Range<Int>]](repeating: [], count: buckets)
        }

        /// Places the next card in feed order.
        mutating func place(_ record: UnsafeRawPointer) throws(SpillError) {
            let recordFeed = Int(record.load(as: UInt8.self))
            if recordFeed != feed {
                feed = recordFeed
                shown = 0
                for language in adjust.indices { adjust[language] = 0 }
            }
            let card = record.loadUnaligned(fromByteOffset: Record.index, as: Int32.self)
            let language = record.loadUnaligned(fromByteOffset: Record.language, as: Int32.self)
            let flags = record.load(fromByteOffset: Record.flags, as: UInt8.self)
            guard language >= 0 else {
                // Language-less: its position in the plain feed; a place in every language's feed too.
                try send(card, -1, shown)
                for other in feedLanguages[feed] { try send(card, other, shown + adjust[Int(other)]) }
                shown += 1
                return
            }
            let own = flags & Record.own != 0
            if own { try send(card, -1, shown + adjust[Int(language)]) }
            guard flags & Record.fallback != 0 else {
                if own { adjust[Int(language)] += 1 }
                return
            }
            // The card devices of the message's missing languages show: a place in each of their feeds, and a member
            // of the plain feed; not of its other languages' feeds (theirs are their own cards).
            let set = languageSets[Int(record.loadUnaligned(fromByteOffset: Record.languageSet, as: Int32.self))]
            for other in feedLanguages[feed] where !set.contains(other) {
                try send(card, other, shown + adjust[Int(other)])
            }
            shown += 1
            for other in set where !(own && other == language) { adjust[Int(other)] -= 1 }
        }

        private mutating func send(_ card: Int32, _ language: Int32, _ position: Int32) throws(SpillError) {
            let bucket = Int(card) / limits.bucketCards
            withUnsafeBytes(of: card.littleEndian) { pending[bucket].append(contentsOf: $0) }
            withUnsafeBytes(of: language.littleEndian) { pending[bucket].append(contentsOf: $0) }
            withUnsafeBytes(of: position.littleEndian) { pending[bucket].append(contentsOf: $0) }
            if pending[bucket].count >= block { try flush(bucket) }
        }

        private mutating func flush(_ bucket: Int) throws(SpillError) {
            guard !pending[bucket].isEmpty else { return }
            let begin = scatter.size
            if let code = pending[bucket].withUnsafeBytes({ scatter.append($0) }) { throw SpillError(code: code) }
            blocks[bucket].append(begin..<scatter.size)
            pending[bucket].removeAll(keepingCapacity: true)
        }

        /// Hands `body` each place a bucket was sent, in the order sent: the card (its index in the bucket), the
        /// language (-1: the card's own position) and the position.
        private func read(_ bucket: Int, first: Int, _ body: (Int, Int32, Int32) -> Void) throws(SpillError) {
            for block in blocks[bucket] {
                let reader = SpillReader(scatter, range: block, capacity: block.count)
                while !reader.isAtEnd {
                    let card = Int(try reader.int32()) - first
                    let language = try reader.int32()
                    body(card, language, try reader.int32())
                }
            }
        }

        mutating func finish() throws(SpillError) {
            for bucket in pending.indices { try flush(bucket) }
        }

        /// Writes every card's places in card index order: its position (-1: none), how many other places, then
        /// each (language, position) in the order ``FeedOrder`` lists them.
        func writePositions(to file: SpillFile) throws(SpillError) {
            var writer = SpillWriter(file, capacity: 1 << 20)
            for bucket in blocks.indices {
                let first = bucket * limits.bucketCards
                let count = min(limits.bucketCards, cardCount - first)
                var positions = [Int32](repeating: -1, count: count)
                // A counting sort of the other places by card (stable: each card's in the order sent, which is
                // FeedOrder's): first how many each card has, then each put after its card's earlier ones.
                var starts = [Int32](repeating: 0, count: count + 1)
                try read(bucket, first: first) { card, language, position in
                    if language < 0 { positions[card] = position } else { starts[card + 1] += 1 }
                }
                for card in 0..<count { starts[card + 1] += starts[card] }
                var filled = starts
                var others = [(language: Int32, position: Int32)](repeating: (0, 0), count: Int(starts[count]))
                if !others.isEmpty {
                    try read(bucket, first: first) { card, language, position in
                        guard language >= 0 else { return }
                        others[Int(filled[card])] = (language, position)
                        filled[card] += 1
                    }
                }
                for card in 0..<count {
                    writer.append(positions[card])
                    writer.append(starts[card + 1] - starts[card])
                    for place in others[Int(starts[card])..<Int(starts[card + 1])] {
                        writer.append(place.language)
                        writer.append(place.position)
                    }
                }
            }
            writer.flush()
            if let failure = writer.failure { throw SpillError(code: failure) }
        }
    }
}

/// The places of a run that spilled (``SpilledFeedOrder``), in two unlinked files read again by each walk: per card
/// in index order its position, then its places in other languages' feeds; per message its first card, read flag
/// and `sentAt`.
final class PositionFile: Sendable {
    let cards: SpillFile
    let messages: SpillFile
    let cardCount: Int
    let messageCount: Int
    let languageNames: [String]

    init(cards: SpillFile, messages: SpillFile, cardCount: Int, messageCount: Int, languageNames: [String]) {
        self.cards = cards
        self.messages = messages
        self.cardCount = cardCount
        self.messageCount = messageCount
        self.languageNames = languageNames
    }

    /// Reads the files from their start, a card at a time (bounded buffers: 128 KB).
    struct Reader {
        let file: PositionFile
        private let cards: SpillReader
        private let messages: SpillReader
        /// The index of the card the next record is.
        private var next = 0
        private var messagesRead = 0
        /// The message of the last card read, and the first card of the one after it.
        private var sentAt = FeedPositions.noDate
        private var read = false
        private var following = (first: Int.max, sentAt: FeedPositions.noDate, read: false)

        init(_ file: PositionFile) {
            self.file = file
            cards = SpillReader(file.cards, range: 0..<file.cards.size)
            messages = SpillReader(file.messages, range: 0..<file.messages.size)
        }

        /// The places of card `index`. Walks go forward; an earlier index reads the files from their start again.
        mutating func place(_ index: Int) throws(SpillError) -> (
            position: Int32, sentAt: Int64, read: Bool, others: [(language: Int32, position: Int32)]
        ) {
            if index < next { self = Reader(file) }
            if messagesRead == 0 && file.messageCount > 0 { try readMessage() }
            while next < index {
                _ = try cards.int32()
                let count = Int(try cards.int32())
                try cards.ensure(count * 8)
                cards.skip(count * 8)
                next += 1
            }
            let position = try cards.int32()
            let count = Int(try cards.int32())
            var others: [(language: Int32, position: Int32)] = []
            if count > 0 {
                others.reserveCapacity(count)
                for _ in 0..<count { others.append((try cards.int32(), try cards.int32())) }
            }
            next += 1
            while following.first <= index { try readMessage() }
            return (position, sentAt, read, others)
        }

        /// Takes the message after the current one as current, and reads the one after it.
        private mutating func readMessage() throws(SpillError) {
            (sentAt, read) = (following.sentAt, following.read)
            if messagesRead < file.messageCount {
                let first = Int(try messages.int32())
                let read = try messages.int32() != 0
                following = (first, try messages.int64(), read)
                messagesRead += 1
            } else {
                following = (Int.max, FeedPositions.noDate, false)
            }
        }
    }
}
