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
        var batch = ReadBatch()
        var unusable: [InputError] = []
        for input in inputs {
            do {
                var read = try CampaignReader.read(bytes: input.bytes, source: input.name, options: readerOptions)
                if read.messages.isEmpty {
                    // Nothing to resolve: unusable as a whole (exit 2); the first error found in it is the reason.
                    read.findings.removeAll { $0.finding.code == CardFindingCode.noMessages }
                    let first = read.findings.firstIndex { $0.finding.severity == .error }
                    let reason = first.map { read.findings.remove(at: $0).finding.message }
                    unusable.append(InputError(source: input.name, kind: .noMessages(reason: reason)))
                }
                batch.append(read)
            } catch {
                unusable.append(error)
            }
        }
        var run = CardResolver(options: options).run(batch)
        run.inputFindings += unusable.map(\.finding)
        return Outcome(run: run, unusableInputs: unusable, messages: keepingMessages ? batch.messages : [])
    }
}
