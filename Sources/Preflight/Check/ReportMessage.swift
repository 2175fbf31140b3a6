import StrictJSON

#if canImport(Glibc)
    import Glibc
#endif

/// One element of the JSON report's `messages` (schemaVersion 3): the cards of one message, gathered as they are
/// checked (each written compact, its null members left out) and written together as one compact line.
///
/// A message's cards mostly say the same thing on every SDK profile and platform, and schemaVersion 2 repeated it
/// on each (2 KB a card). Here cards that differ only in their SDK version are one entry with every version in
/// `sdks`, and the members every entry shares are written once on the message; an entry keeps what differs, and
/// always its `platform` and `sdks`. A card as schemaVersion 2 had it is the message's members (but `cards`) with
/// one entry's members over them and `sdk` one of its `sdks`
/// (`jq '.messages[] | (del(.cards)) as $m | .cards[] | . as $c | .sdks[] | $m + ($c | del(.sdks)) + {sdk: .}'`).
///
/// Members are compared and copied as bytes of the cards' text (where each starts: the writer's
/// ``JSONWriter/memberMarks``), never parsed: a report of 500,000 cards regroups 100,000 messages.
struct ReportMessage: ~Copyable {
    /// The id of the message whose cards are gathered (a message's cards come one after another).
    private(set) var id: String?
    /// The gathered cards, one after another.
    private var text = JSONWriter(omitsNullMembers: true, marksMembers: true)
    /// Where each card's text ends.
    private var ends: [Int] = []
    /// Scratch: the cards' members, the entries, the message's text.
    private var members: [Member] = []
    private var output: [UInt8] = []

    /// Whether a card is gathered.
    var isEmpty: Bool { ends.isEmpty }

    /// Adds a card of message `id`, written by `write` into a compact writer that leaves null members out.
    mutating func add(id: String, _ write: (inout JSONWriter) -> Void) {
        self.id = id
        write(&text)
        ends.append(text.count)
    }

    /// Starts again with no card.
    mutating func removeAll() {
        id = nil
        text.removeAll()
        ends.removeAll(keepingCapacity: true)
    }

    /// One member of a card: where its key (quoted) and its value are in the text.
    private struct Member {
        var key: Range<Int>
        var value: Range<Int>
    }

    /// The cards that differ only in `sdk`: their other members (indices into ``members``) in order, where `sdk`
    /// was among them, and each card's `sdk` value (its range in the text; nil when it had none: `null`).
    private struct Entry {
        var members: Range<Int>
        var sdkSlot: Int?
        var sdks: [Range<Int>?]
    }

    private static let sdkKey: StaticString = "\"sdk\""
    private static let platformKey: StaticString = "\"platform\""

    /// Calls `body` with the message as one compact object: the shared members, then `"cards":[…]`.
    mutating func serialize(_ body: (UnsafeRawBufferPointer) -> Void) {
        // The scratch arrays as locals while the text is borrowed (their storage kept for the next message).
        var members = self.members
        var output = self.output
        self.members = []
        self.output = []
        defer {
            self.members = members
            self.output = output
        }
        members.removeAll(keepingCapacity: true)
        output.removeAll(keepingCapacity: true)
        let ends = ends
        let marks = text.memberMarks
        text.withUnsafeBytes { text in
            var entries: [Entry] = []
            var mark = 0
            for end in ends {
                let first = members.count
                var sdk: Range<Int>?
                var slot: Int?
                // The card's members: its marks, each value ending at the next member's comma or the closing brace.
                while mark < marks.count, marks[mark].key < end {
                    let valueEnd = mark + 1 < marks.count && marks[mark + 1].key < end ? marks[mark + 1].key : end
                    let member = Member(
                        key: marks[mark].key..<marks[mark].value - 1, value: marks[mark].value..<valueEnd - 1)
                    mark += 1
                    if Self.equal(text, member.key, Self.sdkKey) {
                        sdk = member.value
                        slot = members.count - first
                    } else {
                        members.append(member)
                    }
                }
                let card = first..<members.count
                if let same = entries.firstIndex(where: { Self.equal(text, members[$0.members], members[card]) }) {
                    entries[same].sdks.append(sdk)
                    members.removeSubrange(card)
                } else {
                    entries.append(Entry(members: card, sdkSlot: slot, sdks: [sdk]))
                }
            }
            guard let first = entries.first else { return }
            // The first entry's members that every other entry has too (most often at the same place), and where.
            var shared = [Bool](repeating: false, count: members.count)
            var matches: [Int] = []
            for index in first.members where !Self.equal(text, members[index].key, Self.platformKey) {
                let member = members[index]
                matches.removeAll(keepingCapacity: true)
                for entry in entries.dropFirst() {
                    let place = entry.members.lowerBound + (index - first.members.lowerBound)
                    if place < entry.members.upperBound, Self.equal(text, members[place], member) {
                        matches.append(place)
                    } else if let found = entry.members.first(where: { Self.equal(text, members[$0], member) }) {
                        matches.append(found)
                    } else {
                        break
                    }
                }
                guard matches.count == entries.count - 1 else { continue }
                shared[index] = true
                for place in matches { shared[place] = true }
            }
            output.append(UInt8(ascii: "{"))
            for index in first.members where shared[index] { Self.append(members[index], of: text, to: &output) }
            Self.append("\"cards\":[", to: &output)
            for (position, entry) in entries.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                output.append(UInt8(ascii: "{"))
                let slot = entry.sdkSlot ?? 0
                for (offset, index) in entry.members.enumerated() {
                    if offset == slot { Self.appendSDKs(entry.sdks, of: text, to: &output) }
                    if !shared[index] { Self.append(members[index], of: text, to: &output) }
                }
                if slot >= entry.members.count { Self.appendSDKs(entry.sdks, of: text, to: &output) }
                // Every member is followed by a comma: the last one's becomes the entry's end.
                output[output.count - 1] = UInt8(ascii: "}")
            }
            Self.append("]}", to: &output)
        }
        output.withUnsafeBytes(body)
    }

    /// Whether two members have the same key and value.
    private static func equal(
        _ text: UnsafeBufferPointer<UInt8>, _ a: Member, _ b: Member
    ) -> Bool {
        equal(text, a.key, b.key) && equal(text, a.value, b.value)
    }

    /// Whether two runs of members are equal member by member.
    private static func equal(
        _ text: UnsafeBufferPointer<UInt8>, _ a: ArraySlice<Member>, _ b: ArraySlice<Member>
    ) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { equal(text, $0, $1) }
    }

    private static func equal(_ text: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: Range<Int>) -> Bool {
        a.count == b.count && memcmp(text.baseAddress! + a.lowerBound, text.baseAddress! + b.lowerBound, a.count) == 0
    }

    private static func equal(_ text: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: StaticString) -> Bool {
        a.count == b.utf8CodeUnitCount && memcmp(text.baseAddress! + a.lowerBound, b.utf8Start, a.count) == 0
    }

    private static func append(
        _ member: Member, of text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]
    ) {
        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[member.key]))
        output.append(UInt8(ascii: ":"))
        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[member.value]))
        output.append(UInt8(ascii: ","))
    }

    private static func append(_ literal: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private static func appendSDKs(
        _ sdks: [Range<Int>?], of text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]
    ) {
        append("\"sdks\":[", to: &output)
        for (index, sdk) in sdks.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            if let sdk {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: text[sdk]))
            } else {
                append("null", to: &output)
            }
        }
        append("],", to: &output)
    }
}
