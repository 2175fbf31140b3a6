public import InboxCards

/// `inbox-assets resolve` as a library call: read every input, resolve every message.
public struct ResolveJob: Sendable {
    public var options: ResolveOptions
    public var readerOptions: ReaderOptions

    public init(options: ResolveOptions, readerOptions: ReaderOptions = .init()) {
        self.options = options
        self.readerOptions = readerOptions
    }

    /// The outcome: the resolve run over every usable input, and the inputs that were unusable as a whole.
    public struct Outcome: Sendable {
        public var run: ResolveRun
        /// Inputs that are not JSON, empty or too large (the CLI prints them and exits 2).
        public var unusableInputs: [InputError]
        /// The messages the cards were resolved from, in input order, when ``run(_:keepingMessages:)`` was asked to
        /// keep them (else empty). A caller that exits when done (the CLI) keeps them so that it never pays for
        /// tearing down every message one by one; callers that go on working let them go at once.
        public var messages: [InboxMessage]
    }

    /// Reads and resolves `inputs` (name as given, bytes), in order. An unusable input does not stop the others.
    /// - Parameters:
    ///   - inputs: campaign files (name as given, bytes).
    ///   - keepingMessages: return the messages in ``Outcome/messages`` instead of freeing them here.
    public func run(_ inputs: [(name: String, bytes: [UInt8])], keepingMessages: Bool = false) -> Outcome {
        resolve(read(inputs), keepingMessages: keepingMessages)
    }

    /// The messages of every input, before any card is resolved (``run(_:keepingMessages:)`` is `read`, then
    /// ``resolve(_:keepingMessages:)``; ``run(_:keepingMessages:readingAheadWith:shard:)`` reads ahead as it reads).
    struct Read: Sendable {
        /// Every usable input's messages and input findings, in input order.
        var batch: ReadBatch
        /// Inputs that are not JSON, empty or too large.
        var unusable: [InputError]
    }

    /// ``run(_:keepingMessages:)`` for a run that retrieves the cards' assets next: while the inputs are read,
    /// `retriever` starts reading the remote's records of the messages' images (``AssetRetriever/readAhead(_:)``,
    /// every ``CampaignReader/observedBatch`` messages), so that those reads overlap the reading and resolving.
    public func run(
        _ inputs: [(name: String, bytes: [UInt8])], keepingMessages: Bool = false,
        readingAheadWith retriever: AssetRetriever, shard: Shard
    ) -> Outcome {
        let read = read(inputs) { messages in retriever.readAhead(Self.likelyAssetURLs(of: messages, in: shard)) }
        return resolve(read, keepingMessages: keepingMessages)
    }

    /// The image URLs of the messages that reach the inbox and belong to `shard`, in message order: the guess at
    /// what the plan will fetch (most cards show their message's image; the rest of the plan is read when it is
    /// known).
    private static func likelyAssetURLs(of messages: ArraySlice<InboxMessage>, in shard: Shard) -> [String] {
        messages.withUnsafeBufferPointer { messages in
            messages.indices.compactMap { likelyAssetURL(of: messages[$0], in: shard) }
        }
    }

    /// A message's image URL when it reaches the inbox and belongs to `shard` (``likelyAssetURLs(of:in:)``).
    static func likelyAssetURL(of message: InboxMessage, in shard: Shard) -> String? {
        guard message.reachesInbox, let url = message.imageURL, shard.contains(url) else { return nil }
        return url
    }

    /// Reads `inputs` in order. An unusable input does not stop the others.
    /// - Parameter observer: handed the messages as they are read (see
    ///   ``CampaignReader/read(bytes:source:options:observer:)``).
    func read(
        _ inputs: [(name: String, bytes: [UInt8])], observer: ((ArraySlice<InboxMessage>) -> Void)? = nil
    ) -> Read {
        var batch = ReadBatch()
        var unusable: [InputError] = []
        for input in inputs {
            do {
                var read = try CampaignReader.read(
                    bytes: input.bytes, source: input.name, options: readerOptions, observer: observer)
                // Nothing to resolve: unusable as a whole (exit 2).
                if read.messages.isEmpty { unusable.append(read.noMessagesError(source: input.name)) }
                batch.append(read)
            } catch {
                unusable.append(error)
            }
        }
        return Read(batch: batch, unusable: unusable)
    }

    /// Resolves what ``read(_:observer:)`` read.
    /// - Parameter keepingMessages: return the messages in ``Outcome/messages`` instead of freeing them here.
    func resolve(_ read: Read, keepingMessages: Bool = false) -> Outcome {
        var run = CardResolver(options: options).run(read.batch)
        run.inputFindings += read.unusable.map(\.finding)
        return Outcome(
            run: run, unusableInputs: read.unusable, messages: keepingMessages ? read.batch.messages : [])
    }
}
