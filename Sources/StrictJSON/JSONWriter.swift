/// Writes JSON text event by event (`beginObject`, `key`, `string`, …) into a byte buffer: the same bytes
/// ``JSONValue/serialized(pretty:)`` gives for the equivalent tree, without building the tree.
///
/// A report of 100,000 cards as one ``JSONValue`` costs a tree of millions of nodes, a 65 MB buffer, its copy
/// into a `String` and another into `Data`. The writer keeps one buffer and, when given a sink, hands it on
/// every ``flushThreshold`` bytes, so memory stays flat however long the report is. The buffer is raw memory
/// written through a pointer: a pretty report is tens of millions of short appends, and `Array.append`'s
/// checks were most of the writer's time.
///
/// The writer owns its buffer (it is not copyable, so two writers never share one).
public struct JSONWriter: ~Copyable {
    /// The text written and not yet handed to the sink.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: buffer.base, count: buffer.count)) }
    /// How many bytes ``bytes`` holds.
    public var count: Int { buffer.count }

    /// Calls `body` with the text written and not yet handed to the sink, without copying it.
    public func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: buffer.base, count: buffer.count))
    }
    /// Two-space indentation and one member per line, as `serialized(pretty: true)`.
    public let pretty: Bool
    /// Members whose value is `null` are left out (the key is held until its value comes): a compact document
    /// whose readers take a missing member for `null`. A ``value(_:)`` tree is written whole, its nulls included.
    public let omitsNullMembers: Bool
    /// The buffer size at which the sink gets the text (when there is a sink).
    public let flushThreshold: Int
    private let sink: ((UnsafeRawBufferPointer) -> Void)?
    private var buffer: Buffer
    /// Open containers, innermost last: whether each is an array and whether it has a member yet.
    private var open: [(isArray: Bool, isEmpty: Bool)] = []
    /// A key was written; the next value is its member's value.
    private var afterKey = false
    /// Under ``omitsNullMembers``: the key written last, not yet in the buffer.
    private var heldKey: HeldKey?
    /// Where each member of a top-level object starts, when ``marksMembers``.
    public private(set) var memberMarks: [MemberMark] = []
    /// Records ``memberMarks``.
    public let marksMembers: Bool

    /// Where a member of a top-level object starts in the text: its key's opening quote and its value's first
    /// byte. In compact text its key ends one byte before its value (the colon) and its value one byte before the
    /// next member's key (the comma) or the object's closing brace.
    public struct MemberMark: Sendable, Hashable {
        public var key: Int
        public var value: Int

        public init(key: Int, value: Int) {
            self.key = key
            self.value = value
        }
    }

    private enum HeldKey {
        case code(StaticString)
        case text(String)
    }

    /// A writer that keeps all of the text in ``bytes``.
    public init(pretty: Bool = false, omitsNullMembers: Bool = false, marksMembers: Bool = false) {
        self.pretty = pretty
        self.omitsNullMembers = omitsNullMembers
        self.marksMembers = marksMembers
        self.flushThreshold = .max
        self.sink = nil
        self.buffer = Buffer(capacity: 4096)
    }

    /// A writer that hands its text to `sink` in chunks of about `flushThreshold` bytes; call ``flush()`` at the end.
    public init(
        pretty: Bool = false, flushThreshold: Int = 1 << 16, sink: @escaping (UnsafeRawBufferPointer) -> Void
    ) {
        self.pretty = pretty
        self.omitsNullMembers = false
        self.marksMembers = false
        self.flushThreshold = flushThreshold
        self.sink = sink
        self.buffer = Buffer(capacity: flushThreshold + 4096)
    }

    /// Hands everything written so far to the sink (a writer without a sink keeps it in ``bytes``).
    public mutating func flush() {
        guard let sink, buffer.count > 0 else { return }
        sink(UnsafeRawBufferPointer(start: buffer.base, count: buffer.count))
        buffer.count = 0
    }

    /// Forgets the text written (between documents): the buffer is kept for the next one.
    public mutating func removeAll() {
        precondition(open.isEmpty, "removeAll inside a JSON container")
        buffer.count = 0
        memberMarks.removeAll(keepingCapacity: true)
    }

    /// Appends raw bytes that are not JSON (such as the newline after a document). Only between documents.
    public mutating func raw(_ text: StaticString) {
        precondition(open.isEmpty, "raw text inside a JSON container")
        buffer.append(text)
    }

    // MARK: containers

    public mutating func beginObject() {
        beginValue()
        buffer.append(UInt8(ascii: "{"))
        open.append((isArray: false, isEmpty: true))
    }

    public mutating func endObject() { close(UInt8(ascii: "}"), isArray: false) }

    public mutating func beginArray() {
        beginValue()
        buffer.append(UInt8(ascii: "["))
        open.append((isArray: true, isEmpty: true))
    }

    public mutating func endArray() { close(UInt8(ascii: "]"), isArray: true) }

    /// Starts a member of the innermost object whose key is only known at run time (``key(_:)`` for keys in the
    /// code); the next value written is the member's value.
    public mutating func key(string key: String) {
        precondition(open.last?.isArray == false && !afterKey, "a key outside an object, or two keys in a row")
        if omitsNullMembers {
            heldKey = .text(key)
            afterKey = true
            return
        }
        writeKey(string: key)
    }

    private mutating func writeKey(string key: String) {
        separate()
        let start = buffer.count
        buffer.appendString(key)
        buffer.append(UInt8(ascii: ":"))
        if pretty { buffer.append(UInt8(ascii: " ")) }
        afterKey = true
        if marksMembers && open.count == 1 { memberMarks.append(MemberMark(key: start, value: buffer.count)) }
    }

    /// Starts a member of the innermost object; the next value written is the member's value. The key is copied
    /// as it is when it needs no escape (keys written in the code never do).
    public mutating func key(_ key: StaticString) {
        guard key.hasPointerRepresentation else { return self.key(string: key.description) }
        let name = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        guard !name.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
            return self.key(string: key.description)
        }
        precondition(open.last?.isArray == false && !afterKey, "a key outside an object, or two keys in a row")
        if omitsNullMembers {
            heldKey = .code(key)
            afterKey = true
            return
        }
        writeKey(name)
    }

    private mutating func writeKey(_ name: UnsafeBufferPointer<UInt8>) {
        separate()
        let start = buffer.count
        buffer.reserve(name.count + 4)
        buffer.put(UInt8(ascii: "\""))
        buffer.put(name)
        buffer.put(UInt8(ascii: "\""))
        buffer.put(UInt8(ascii: ":"))
        if pretty { buffer.put(UInt8(ascii: " ")) }
        afterKey = true
        if marksMembers && open.count == 1 { memberMarks.append(MemberMark(key: start, value: buffer.count)) }
    }

    // MARK: values

    public mutating func string(_ value: String) {
        beginValue()
        buffer.appendString(value)
        flushIfFull()
    }

    /// The string, or `null` when it is `nil`.
    public mutating func string(_ value: String?) {
        guard let value else { return null() }
        string(value)
    }

    public mutating func int(_ value: Int) {
        beginValue()
        if value >= 0 && value < 10 {
            buffer.append(UInt8(ascii: "0") + UInt8(value))
        } else {
            var text = String(value)
            text.withUTF8 { buffer.append($0) }
        }
    }

    /// The integer, or `null` when it is `nil`.
    public mutating func int(_ value: Int?) {
        guard let value else { return null() }
        int(value)
    }

    /// The Boolean, or `null` when it is `nil`.
    public mutating func bool(_ value: Bool?) {
        guard let value else { return null() }
        bool(value)
    }

    public mutating func bool(_ value: Bool) {
        beginValue()
        buffer.append(value ? Self.trueText : Self.falseText)
    }

    public mutating func null() {
        if afterKey && omitsNullMembers {
            afterKey = false
            heldKey = nil
            return
        }
        beginValue()
        buffer.append(Self.nullText)
    }

    /// A whole value, written as ``JSONValue/serialized(pretty:)`` writes it at this depth.
    public mutating func value(_ value: JSONValue) {
        if omitsNullMembers, value == .null { return null() }
        beginValue()
        var text: [UInt8] = []
        value.write(to: &text, pretty: pretty, indent: open.count)
        text.withUnsafeBufferPointer { buffer.append($0) }
        flushIfFull()
    }

    /// A whole value already serialized (without the comma and new line that come before it): its bytes, as they are.
    /// Written by a writer of the same style at the same depth it reads as if this writer had written it; a compact
    /// value in a pretty document stays on one line (the check report's messages).
    public mutating func serialized(_ value: UnsafeRawBufferPointer) {
        beginValue()
        buffer.append(
            UnsafeBufferPointer(start: value.baseAddress?.assumingMemoryBound(to: UInt8.self), count: value.count))
        flushIfFull()
    }

    private static let trueText: StaticString = "true"
    private static let falseText: StaticString = "false"
    private static let nullText: StaticString = "null"

    // MARK: layout

    /// What comes before a value: nothing after a key or at the top level, else a comma and (pretty) a new line.
    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            switch heldKey {
            case .code(let key)?:
                heldKey = nil
                writeKey(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
                afterKey = false
            case .text(let key)?:
                heldKey = nil
                writeKey(string: key)
                afterKey = false
            case nil: break
            }
            return
        }
        guard !open.isEmpty else { return }
        precondition(open[open.count - 1].isArray, "a value in an object without a key")
        separate()
    }

    private mutating func separate() {
        let last = open.count - 1
        let first = open[last].isEmpty
        if first { open[last].isEmpty = false }
        let indent = pretty ? open.count * 2 + 1 : 0
        buffer.reserve(indent + 1)
        if !first { buffer.put(UInt8(ascii: ",")) }
        if pretty { buffer.putNewline(indent: indent - 1) }
    }

    private mutating func close(_ bracket: UInt8, isArray: Bool) {
        precondition(open.last?.isArray == isArray && !afterKey, "unbalanced \(Character(Unicode.Scalar(bracket)))")
        let level = open.removeLast()
        buffer.reserve(open.count * 2 + 2)
        if pretty && !level.isEmpty { buffer.putNewline(indent: open.count * 2) }
        buffer.put(bracket)
        flushIfFull()
    }

    private mutating func flushIfFull() {
        if buffer.count >= flushThreshold { flush() }
    }

    /// The writer's bytes: one allocation, freed with the writer. Unchecked writes (`put`) follow a `reserve`.
    private struct Buffer: ~Copyable {
        var base: UnsafeMutablePointer<UInt8>
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
        }

        deinit { base.deallocate() }

        /// Room for `extra` more bytes.
        @inline(__always)
        mutating func reserve(_ extra: Int) {
            if count + extra > capacity { grow(to: count + extra) }
        }

        private mutating func grow(to needed: Int) {
            let newCapacity = max(needed, capacity * 2)
            let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBase.update(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        @inline(__always)
        mutating func put(_ byte: UInt8) {
            base[count] = byte
            count += 1
        }

        @inline(__always)
        mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let start = bytes.baseAddress else { return }
            (base + count).update(from: start, count: bytes.count)
            count += bytes.count
        }

        mutating func append(_ byte: UInt8) {
            reserve(1)
            put(byte)
        }

        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            reserve(bytes.count)
            put(bytes)
        }

        mutating func append(_ text: StaticString) {
            append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        /// A newline and `indent` spaces.
        @inline(__always)
        mutating func putNewline(indent: Int) {
            base[count] = 0x0A
            (base + count + 1).initialize(repeating: UInt8(ascii: " "), count: indent)
            count += indent + 1
        }

        /// `string` quoted and escaped as ``JSONValue/serialized(pretty:)`` writes it.
        mutating func appendString(_ string: String) {
            var string = string
            string.withUTF8 { bytes in
                // Worst case every byte becomes `\u00XX`; reserving for plain text and growing on escapes keeps
                // the common case to one check.
                reserve(bytes.count + 2)
                put(UInt8(ascii: "\""))
                var runStart = 0
                for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                    put(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    var escaped: [UInt8] = []
                    JSONValue.writeEscaped(byte, to: &escaped)
                    reserve(escaped.count + bytes.count - index + 1)
                    escaped.withUnsafeBufferPointer { put($0) }
                    runStart = index + 1
                }
                put(UnsafeBufferPointer(rebasing: bytes[runStart...]))
                put(UInt8(ascii: "\""))
            }
        }
    }
}
