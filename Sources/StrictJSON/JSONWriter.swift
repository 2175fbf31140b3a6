/// Writes JSON text event by event (`beginObject`, `key`, `string`, …) into a byte buffer: the same bytes
/// ``JSONValue/serialized(pretty:)`` gives for the equivalent tree, without building the tree.
///
/// A report of 100,000 cards as one ``JSONValue`` costs a tree of millions of nodes, a 65 MB buffer, its copy
/// into a `String` and another into `Data`. The writer keeps one buffer and, when given a sink, hands it on
/// every ``flushThreshold`` bytes (checked when a container closes), so memory stays flat however long the
/// report is.
public struct JSONWriter {
    /// The text written and not yet handed to the sink.
    public private(set) var bytes: [UInt8] = []
    /// Two-space indentation and one member per line, as `serialized(pretty: true)`.
    public let pretty: Bool
    /// The buffer size at which the sink gets the text (when there is a sink).
    public let flushThreshold: Int
    private let sink: ((UnsafeRawBufferPointer) -> Void)?
    /// Open containers, innermost last: whether each is an array and whether it has a member yet.
    private var open: [(isArray: Bool, isEmpty: Bool)] = []
    /// A key was written; the next value is its member's value.
    private var afterKey = false

    /// A writer that keeps all of the text in ``bytes``.
    public init(pretty: Bool = false) {
        self.pretty = pretty
        self.flushThreshold = .max
        self.sink = nil
    }

    /// A writer that hands its text to `sink` in chunks of about `flushThreshold` bytes; call ``flush()`` at the end.
    public init(
        pretty: Bool = false, flushThreshold: Int = 1 << 16, sink: @escaping (UnsafeRawBufferPointer) -> Void
    ) {
        self.pretty = pretty
        self.flushThreshold = flushThreshold
        self.sink = sink
        bytes.reserveCapacity(flushThreshold + 4096)
    }

    /// Hands everything written so far to the sink (a writer without a sink keeps it in ``bytes``).
    public mutating func flush() {
        guard let sink, !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { sink($0) }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends raw bytes that are not JSON (such as the newline after a document). Only between documents.
    public mutating func raw(_ text: StaticString) {
        precondition(open.isEmpty, "raw text inside a JSON container")
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: containers

    public mutating func beginObject() {
        beginValue()
        bytes.append(UInt8(ascii: "{"))
        open.append((isArray: false, isEmpty: true))
    }

    public mutating func endObject() { close(UInt8(ascii: "}"), isArray: false) }

    public mutating func beginArray() {
        beginValue()
        bytes.append(UInt8(ascii: "["))
        open.append((isArray: true, isEmpty: true))
    }

    public mutating func endArray() { close(UInt8(ascii: "]"), isArray: true) }

    /// Starts a member of the innermost object whose key is only known at run time (``key(_:)`` for keys in the
    /// code); the next value written is the member's value.
    public mutating func key(string key: String) {
        precondition(open.last?.isArray == false && !afterKey, "a key outside an object, or two keys in a row")
        separate()
        JSONValue.writeString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
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
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    // MARK: values

    public mutating func string(_ value: String) {
        beginValue()
        JSONValue.writeString(value, to: &bytes)
    }

    /// The string, or `null` when it is `nil`.
    public mutating func string(_ value: String?) {
        guard let value else { return null() }
        string(value)
    }

    public mutating func int(_ value: Int) {
        beginValue()
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    public mutating func bool(_ value: Bool) {
        beginValue()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        beginValue()
        bytes.append(contentsOf: "null".utf8)
    }

    /// A whole value, written as ``JSONValue/serialized(pretty:)`` writes it at this depth.
    public mutating func value(_ value: JSONValue) {
        beginValue()
        value.write(to: &bytes, pretty: pretty, indent: open.count)
        flushIfFull()
    }

    // MARK: layout

    /// What comes before a value: nothing after a key or at the top level, else a comma and (pretty) a new line.
    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        guard !open.isEmpty else { return }
        precondition(open[open.count - 1].isArray, "a value in an object without a key")
        separate()
    }

    private mutating func separate() {
        let last = open.count - 1
        if open[last].isEmpty {
            open[last].isEmpty = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
        if pretty { JSONValue.newline(&bytes, open.count) }
    }

    private mutating func close(_ bracket: UInt8, isArray: Bool) {
        precondition(open.last?.isArray == isArray && !afterKey, "unbalanced \(Character(Unicode.Scalar(bracket)))")
        let level = open.removeLast()
        if pretty && !level.isEmpty { JSONValue.newline(&bytes, open.count) }
        bytes.append(bracket)
        flushIfFull()
    }

    private mutating func flushIfFull() {
        if bytes.count >= flushThreshold { flush() }
    }
}
