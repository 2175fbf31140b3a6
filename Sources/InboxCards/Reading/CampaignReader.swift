import Findings
public import StrictJSON

/// The whole input is unusable: not JSON at all, empty, too large, or JSON that holds no objects.
/// The CLI exits 2 on it. Problems of single messages are findings instead.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the input is unusable.
    public enum Kind: Sendable, Hashable {
        /// Nothing but whitespace.
        case empty
        /// Larger than ``ReaderOptions/maxInputBytes``.
        case tooLarge(limit: Int)
        /// Not JSON (nor NDJSON with at least one readable line): the parser's reason and position.
        case invalidJSON(JSONParseError)
        /// Valid JSON whose top level is neither an object nor an array (e.g. `42`).
        case notACampaign(typeName: String)
        /// JSON that holds no message (`{}`, `[]`, an object of unknown keys): `reason` is the first error found
        /// in it, when there is one.
        case noMessages(reason: String?)
        /// A file that could not be read to its end, or that changed between two reads of it (a streamed input is
        /// read more than once).
        case unreadable(reason: String)
    }

    /// The input's name as given (`-` for standard input).
    public var source: String
    /// Why the input is unusable.
    public var kind: Kind

    public init(source: String, kind: Kind) {
        self.source = source
        self.kind = kind
    }

    /// The error as a finding (`input.invalidJSON`, `input.tooLarge`, `input.empty`, `input.notACampaign`) for
    /// reports that list it next to the other inputs' findings.
    public var finding: SourcedFinding {
        let code: String
        switch kind {
        case .empty: code = CardFindingCode.emptyInput
        case .tooLarge: code = CardFindingCode.tooLarge
        case .invalidJSON: code = CardFindingCode.invalidJSON
        case .notACampaign: code = CardFindingCode.notACampaign
        case .noMessages: code = CardFindingCode.noMessages
        case .unreadable: code = CardFindingCode.unreadable
        }
        let prefix = source + ": "
        let text = description.hasPrefix(prefix) ? String(description.dropFirst(prefix.count)) : description
        return SourcedFinding(source: source, finding: .redacted(.error, code, text, path: nil))
    }

    /// `demo.json: line 3, column 14: unexpected character 'x'`.
    public var description: String {
        switch kind {
        case .empty: "\(source): empty input, expected a JSON object, an array of objects or NDJSON"
        case .tooLarge(let limit): "\(source): input larger than \(limit) bytes"
        case .invalidJSON(let error): "\(source): \(error.description)"
        case .notACampaign(let typeName):
            "\(source): top-level JSON \(typeName), expected an object, an array of objects or NDJSON"
        case .noMessages(let reason):
            "\(source): no message in it"
                + (reason.map { ": \($0)" }
                    ?? ", expected a createMessage request, inbox feed messages or push payloads")
        case .unreadable(let reason): "\(source): \(reason)"
        }
    }
}

/// Limits of one read.
public struct ReaderOptions: Sendable, Hashable {
    /// Inputs larger than this are refused with ``InputError/Kind/tooLarge(limit:)``.
    public var maxInputBytes: Int
    /// Nesting deeper than this is an error (never a stack overflow), also inside `u`/`action_params` strings.
    public var maxDepth: Int

    public init(maxInputBytes: Int = 256 << 20, maxDepth: Int = 512) {
        self.maxInputBytes = maxInputBytes
        self.maxDepth = maxDepth
    }
}

/// Messages read from one or more inputs, and the findings about the inputs themselves.
public struct ReadBatch: Sendable, Hashable {
    /// Input names in read order.
    public var sources: [String] = []
    /// Every recognised message in input order, plain pushes included (``InboxMessage/reachesInbox``).
    public var messages: [InboxMessage] = []
    /// Findings that belong to no card: broken NDJSON lines, unrecognised objects, plain pushes, JSON warnings.
    public var findings: [SourcedFinding] = []

    public init() {}

    /// Appends another batch (reading several files).
    public mutating func append(_ other: ReadBatch) {
        // Taking over the first batch's arrays instead of copying them: a copy of 100,000 messages retains every
        // string in them.
        if sources.isEmpty { sources = other.sources } else { sources += other.sources }
        if messages.isEmpty { messages = other.messages } else { messages += other.messages }
        if findings.isEmpty { findings = other.findings } else { findings += other.findings }
    }
}

extension ReadBatch {
    /// The input of a read that found no message as unusable (exit 2): the `input.noMessages` finding goes, and
    /// the first error found in it, if any, becomes the reason (taken out of the findings).
    public mutating func noMessagesError(source: String) -> InputError {
        findings.removeAll { $0.finding.code == CardFindingCode.noMessages }
        let first = findings.firstIndex { $0.finding.severity == .error }
        let reason = first.map { findings.remove(at: $0).finding.message }
        return InputError(source: source, kind: .noMessages(reason: reason))
    }
}

/// Reads campaign inputs: createMessage requests, inbox feed messages and push payloads, recognised
/// per object, from a single object, an array or NDJSON.
public enum CampaignReader {
    /// Reads one input.
    ///
    /// A whole-document parse comes first. When that fails and the bytes look like NDJSON (the parser
    /// stopped at content after a first value, or every non-blank line starts with `{`), every line
    /// is parsed on its own: a broken line becomes an `input.invalidJSON` finding and the others are
    /// read. Records of an NDJSON file are numbered like array elements, counting non-blank lines.
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - source: the name as given (`-` for standard input); it starts every message's source id.
    ///   - observer: called with the messages read since its last call, every ``observedBatch`` of them and once
    ///     with the rest at the end, while the input is still being read (a caller can start work on them early).
    ///     It must not keep the slice: that would make the reader copy every message read so far on its next one.
    /// - Returns: the messages and input findings.
    /// - Throws: ``InputError`` when the input as a whole is unusable (the CLI exits 2).
    public static func read(
        bytes: [UInt8], source: String, options: ReaderOptions = .init(),
        observer: ((ArraySlice<InboxMessage>) -> Void)? = nil
    ) throws(InputError) -> ReadBatch {
        var reader = Reader(source: source, options: options)
        reader.observer = observer
        return try read(bytes: bytes, with: &reader)
    }

    /// What ``stream(_:options:message:)`` read: the input findings (``ReadBatch/messages`` is empty: each message
    /// went to the caller) and how many messages there were.
    public struct Streamed: Sendable {
        public var batch: ReadBatch
        public var messages: Int
    }

    /// Reads one input a message at a time: each message is handed to `message` as soon as it is read and not
    /// kept, so a caller that keeps none holds no more than the message being read. The same messages, in the same
    /// order and with the same findings, as ``read(bytes:source:options:observer:)`` of the input's bytes.
    ///
    /// An NDJSON file is read a chunk at a time and never held whole: a file whose first line is a JSON value of
    /// its own followed by more content is NDJSON to the whole-document reader too (its parse stops there with
    /// `trailingContent`). Every other file (one JSON document, a first line that is blank or broken) is read
    /// whole, as are bytes already in memory.
    /// - Throws: ``InputError`` when the input as a whole is unusable, or a file cannot be read.
    public static func stream(
        _ input: CampaignInput, options: ReaderOptions = .init(), message: (InboxMessage) -> Void
    ) throws(InputError) -> Streamed {
        try withoutActuallyEscaping(message) { (message) throws(InputError) -> Streamed in
            var reader = Reader(source: input.name, options: options)
            reader.sink = message
            switch input.storage {
            case .bytes(let bytes):
                let batch = try read(bytes: bytes, with: &reader)
                return Streamed(batch: batch, messages: reader.messageCount)
            case .file(let file):
                guard file.size <= options.maxInputBytes else {
                    throw InputError(source: input.name, kind: .tooLarge(limit: options.maxInputBytes))
                }
                let bytes: [UInt8]
                do throws(CampaignFile.ReadError) {
                    if try NDJSONFile.stream(file, options: options, into: &reader) {
                        return Streamed(batch: reader.finish(), messages: reader.messageCount)
                    }
                    bytes = try file.readAll()
                } catch {
                    throw InputError(source: input.name, kind: .unreadable(reason: "cannot read: \(error)"))
                }
                return Streamed(batch: try read(bytes: bytes, with: &reader), messages: reader.messageCount)
            }
        }
    }

    private static func read(bytes: [UInt8], with reader: inout Reader) throws(InputError) -> ReadBatch {
        let source = reader.source
        let options = reader.options
        guard bytes.count <= options.maxInputBytes else {
            throw InputError(source: source, kind: .tooLarge(limit: options.maxInputBytes))
        }
        guard bytes.contains(where: { !isWhitespace($0) }) else { throw InputError(source: source, kind: .empty) }
        let parseOptions = JSONParseOptions(maxDepth: options.maxDepth)
        reader.batch.sources.append(source)
        let document: (value: JSONValue, warnings: [JSONWarning])
        do {
            document = try JSON.parseDocument(bytes, options: parseOptions)
        } catch {
            guard error.kind == .trailingContent || looksLikeNDJSON(bytes) else {
                throw InputError(source: source, kind: .invalidJSON(error))
            }
            try reader.readLines(bytes, parseOptions: parseOptions)
            return reader.finish()
        }
        reader.note(document.warnings, lineOffset: 0)
        switch document.value {
        case .object(let object): reader.recognise(object, path: "")
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                reader.recogniseElement(element, path: JSONPath.index("", index))
            }
        default: throw InputError(source: source, kind: .notACampaign(typeName: document.value.typeName))
        }
        return reader.finish()
    }
    /// How many messages the observer of ``read(bytes:source:options:observer:)`` is handed at a time.
    public static let observedBatch = 256

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Two or more non-blank lines, each starting with `{`: a pretty-printed JSON document never looks like this.
    static func looksLikeNDJSON(_ bytes: [UInt8]) -> Bool {
        var lines = 0
        var atLineStart = true
        for byte in bytes {
            if byte == 0x0A {
                atLineStart = true
                continue
            }
            guard atLineStart, !isWhitespace(byte) else { continue }
            if byte != UInt8(ascii: "{") { return false }
            lines += 1
            atLineStart = false
        }
        return lines >= 2
    }
}

/// The state of one read: the batch being filled and the input's name.
struct Reader {
    let source: String
    let options: ReaderOptions
    var batch = ReadBatch()
    /// Input findings not kept because the input already has ``FindingBudget/perInput`` of them.
    var suppressed = 0
    /// Told about the messages as they are read (see ``CampaignReader/read(bytes:source:options:observer:)``).
    var observer: ((ArraySlice<InboxMessage>) -> Void)?
    /// Handed each message instead of ``batch`` keeping it (``CampaignReader/stream(_:options:message:)``).
    var sink: ((InboxMessage) -> Void)?
    /// Messages read, kept or handed to ``sink``.
    var messageCount = 0
    /// How many messages the observer has been handed.
    var observed = 0

    init(source: String, options: ReaderOptions) {
        self.source = source
        self.options = options
    }

    /// The batch, with a warning when the input held no message and nothing else was wrong with it.
    mutating func finish() -> ReadBatch {
        if let observer, observed < batch.messages.count { observer(batch.messages[observed...]) }
        if suppressed > 0 {
            batch.findings.append(
                SourcedFinding(
                    source: source,
                    finding: .info(
                        CardFindingCode.inputFindingsTruncated,
                        "\(suppressed) more findings not shown (at most \(FindingBudget.perInput) an input)",
                        path: nil)))
        }
        if messageCount == 0 {
            inputFinding(.error, CardFindingCode.noMessages, "\(source) holds no message", path: nil)
        }
        return batch
    }

    func sourceID(_ path: String) -> String { path.isEmpty ? source : source + "#" + path }

    mutating func inputFinding(_ severity: Severity, _ code: String, _ message: String, path: String?) {
        guard batch.findings.count < FindingBudget.perInput else {
            suppressed += 1
            return
        }
        batch.findings.append(
            SourcedFinding(
                source: sourceID(path ?? ""), finding: .redacted(severity, code, message, path: path)))
    }

    mutating func note(_ warnings: [JSONWarning], lineOffset: Int) {
        for warning in warnings {
            let line = warning.line + lineOffset
            switch warning.kind {
            case .byteOrderMark:
                inputFinding(.info, CardFindingCode.byteOrderMark, "UTF-8 byte order mark at the start", path: nil)
            case .duplicateKey(let key):
                inputFinding(
                    .warning, CardFindingCode.duplicateKey,
                    "line \(line), column \(warning.column): duplicate key \"\(key)\" (the last one wins)", path: nil)
            case .trailingComma:
                inputFinding(
                    .warning, CardFindingCode.invalidJSON, "line \(line), column \(warning.column): trailing comma",
                    path: nil)
            }
        }
    }

    /// What reading NDJSON lines has counted so far (``readLine(_:number:offset:state:parser:)``).
    struct LineState {
        /// Non-blank lines so far: the next one's record number.
        var record = 0
        /// Lines that parsed.
        var readable = 0
        var firstError: JSONParseError?
    }

    /// NDJSON: every non-blank line on its own. Throws when no line at all is readable.
    mutating func readLines(_ bytes: [UInt8], parseOptions: JSONParseOptions) throws(InputError) {
        var state = LineState()
        var lineNumber = 0
        var start = 0
        var parser = JSONDocumentParser(options: parseOptions)
        // Room for a message a line up front: growing an array of 100,000 messages doubles it 17 times.
        let newlines = bytes.withUnsafeBufferPointer { ByteScan.count(of: 0x0A, in: $0) }
        if sink == nil { batch.messages.reserveCapacity(batch.messages.count + newlines + 1) }
        while start <= bytes.count {
            lineNumber += 1
            let end = bytes.withUnsafeBufferPointer { ByteScan.firstIndex(of: 0x0A, in: $0, from: start) }
            bytes.withUnsafeBytes { raw in
                readLine(
                    UnsafeRawBufferPointer(rebasing: raw[start..<end]), number: lineNumber, offset: start,
                    state: &state, parser: &parser)
            }
            start = end + 1
        }
        if state.readable == 0, let firstError = state.firstError {
            throw InputError(source: source, kind: .invalidJSON(firstError))
        }
    }

    /// One NDJSON line (without its newline), line `number` of the input, starting `offset` bytes into it: a blank
    /// line is skipped, a broken one is an `input.invalidJSON` finding.
    mutating func readLine(
        _ line: UnsafeRawBufferPointer, number: Int, offset: Int, state: inout LineState,
        parser: inout JSONDocumentParser
    ) {
        guard line.contains(where: { !CampaignReader.isWhitespace($0) }) else { return }
        let path = JSONPath.index("", state.record)
        state.record += 1
        do {
            let (value, warnings) = try parser.parseDocument(line)
            state.readable += 1
            note(warnings, lineOffset: number - 1)
            recogniseElement(value, path: path)
        } catch {
            let shifted = JSONParseError(
                kind: error.kind, line: number, column: error.column, offset: offset + error.offset)
            if state.firstError == nil { state.firstError = shifted }
            inputFinding(.error, CardFindingCode.invalidJSON, "NDJSON \(shifted.description)", path: path)
        }
    }

    mutating func recogniseElement(_ value: JSONValue, path: String) {
        guard case .object(let object) = value else {
            inputFinding(
                .error, CardFindingCode.notObject, "expected a message object, found \(value.typeName)", path: path)
            return
        }
        recognise(object, path: path)
    }

    /// Decides per object what it is: a createMessage request, a feed (or a feed response), a push.
    mutating func recognise(_ object: JSONObject, path: String) {
        if let request = object["request"] {
            let requestPath = JSONPath.key(path, "request")
            guard case .object(let requestObject) = request else {
                wrongTypeInput(request, expected: "an object", path: requestPath)
                return
            }
            readNotifications(requestObject["notifications"], path: JSONPath.key(requestPath, "notifications"))
        } else if object["notifications"] != nil {
            // A request body without the `request` wrapper.
            readNotifications(object["notifications"], path: JSONPath.key(path, "notifications"))
        } else if object["inbox_id"] != nil || object["action_params"] != nil {
            append(FeedReader.read(object, id: sourceID(path), path: path, options: options))
        } else if object["pw_inbox"] != nil || object["aps"] != nil || object["inbox_params"] != nil {
            let message = PushReader.read(object, id: sourceID(path), path: path, options: options)
            if !message.reachesInbox {
                inputFinding(
                    .warning, CardFindingCode.notInbox,
                    "push payload without pw_inbox: a plain push that never reaches the inbox, no card", path: path)
            }
            append(message)
        } else if case .array(let messages)? = object["messages"] {
            readFeedList(messages, path: JSONPath.key(path, "messages"))
        } else if case .array(let messages)? = object["response"]?["messages"] {
            readFeedList(messages, path: JSONPath.key(JSONPath.key(path, "response"), "messages"))
        } else if Self.notificationKeys.contains(where: { object[$0] != nil }) {
            // A notification on its own (e.g. an array of notifications, or one copied out of a request).
            readNotification(object, path: path)
        } else {
            let keys = object.keys.prefix(8).map(Redact.value).joined(separator: ", ")
            inputFinding(
                .error, CardFindingCode.unrecognized,
                "not a createMessage request, an inbox feed message or a push payload "
                    + "(keys: \(keys.isEmpty ? "none" : keys))",
                path: path)
        }
    }

    mutating func readFeedList(_ messages: [JSONValue], path: String) {
        for (index, element) in messages.enumerated() {
            let elementPath = JSONPath.index(path, index)
            guard case .object(let object) = element else {
                inputFinding(
                    .error, CardFindingCode.notObject, "expected a feed message object, found \(element.typeName)",
                    path: elementPath)
                continue
            }
            append(
                FeedReader.read(object, id: sourceID(elementPath), path: elementPath, options: options))
        }
    }

    mutating func readNotifications(_ value: JSONValue?, path: String) {
        guard case .array(let notifications)? = value else {
            if let value {
                wrongTypeInput(value, expected: "an array", path: path)
            } else {
                inputFinding(
                    .error, CardFindingCode.unrecognized, "createMessage request without notifications", path: path)
            }
            return
        }
        if sink == nil { batch.messages.reserveCapacity(batch.messages.count + notifications.count) }
        for (index, element) in notifications.enumerated() {
            let elementPath = JSONPath.index(path, index)
            guard case .object(let object) = element else {
                inputFinding(
                    .error, CardFindingCode.notObject, "expected a notification object, found \(element.typeName)",
                    path: elementPath)
                continue
            }
            readNotification(object, path: elementPath)
        }
    }

    /// Keys only a createMessage notification has (feed messages and push payloads are recognised first).
    static let notificationKeys = ["ios_title", "content", "inbox_image", "inbox_days", "inbox_date", "send_date"]

    mutating func readNotification(_ object: JSONObject, path: String) {
        let message = NotificationReader.read(object, id: sourceID(path), path: path, options: options)
        if !message.reachesInbox {
            inputFinding(
                .warning, CardFindingCode.notInbox,
                "no inbox_image, inbox_date or inbox_days: a plain push that never reaches the inbox, no card",
                path: path)
        }
        append(message)
    }

    /// Adds a message, handing the observer the next ``CampaignReader/observedBatch`` when they are complete.
    mutating func append(_ message: InboxMessage) {
        messageCount += 1
        if let sink {
            sink(message)
            return
        }
        batch.messages.append(message)
        if let observer, batch.messages.count - observed >= CampaignReader.observedBatch {
            observer(batch.messages[observed...])
            observed = batch.messages.count
        }
    }

    mutating func wrongTypeInput(_ value: JSONValue, expected: String, path: String) {
        inputFinding(
            .error, CardFindingCode.inputWrongType, "\(path) is \(value.typeName), expected \(expected)", path: path)
    }
}

extension ReadBatch: CustomStringConvertible, CustomDebugStringConvertible {
    /// `2 sources, 12 messages, 1 findings`: message data (which may hold tokens) is never printed.
    public var description: String {
        "\(sources.count) sources, \(messages.count) messages, \(findings.count) findings"
    }
    public var debugDescription: String { description }
}
