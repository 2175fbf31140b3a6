public import Findings
public import StrictJSON

/// A URL a card uses, with the part it plays. The fetch stage downloads images, passes and posters,
/// probes videos, and only reports links.
public struct AssetReference: Sendable, Hashable {
    /// The part an asset plays in a card.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        /// The big image of a banner, captioned or wallet card (Android: the `b` banner).
        case heroImage
        /// The image a classic iOS card shows next to the text.
        case avatar
        /// The Android inbox icon (`imageUrl`).
        case icon
        /// Carousel slide image; `index` is the slide's position in the rendered carousel.
        case carouselSlide
        /// The video stream or file.
        case video
        /// The video poster image.
        case videoPoster
        /// The `.pkpass` URL of a wallet card.
        case walletPass
        /// An `openURL` button's target (`index` = rendered button position). Reported, not fetched.
        case buttonLink
        /// A slide's tap target (`index` = slide position). Reported, not fetched.
        case slideLink

        /// Links are reported; everything else is fetched and inspected.
        public var isLink: Bool { self == .buttonLink || self == .slideLink }
    }

    /// The part the asset plays.
    public var role: Role
    /// Position among the card's slides or buttons; `nil` for single assets.
    public var index: Int?
    /// The URL exactly as in the input, secrets included: for fetching only, never print it.
    public var fetchURL: String
    /// JSON path of the URL in the input.
    public var path: String {
        get { pathBelow.map { JSONPath.key(JSONPath.index(pathBase, $0.index), $0.key) } ?? pathBase }
        set {
            pathBase = newValue
            pathBelow = nil
        }
    }
    /// ``path`` in parts, joined only when read: a slide's or button's URL is `<base>[index].key`, and the base
    /// (`….carousel`) is one string for every slide of the card. Reports of resolve runs never read the paths.
    private var pathBase: String
    private var pathBelow: (index: Int, key: String)?

    public init(role: Role, index: Int?, fetchURL: String, path: String) {
        self.role = role
        self.index = index
        self.fetchURL = fetchURL
        self.pathBase = path
        self.pathBelow = nil
    }

    /// A reference whose path is `base[pathIndex].pathKey`.
    init(role: Role, index: Int?, fetchURL: String, base: String, pathIndex: Int, pathKey: String) {
        self.role = role
        self.index = index
        self.fetchURL = fetchURL
        self.pathBase = base
        self.pathBelow = (pathIndex, pathKey)
    }

    public static func == (lhs: AssetReference, rhs: AssetReference) -> Bool {
        lhs.role == rhs.role && lhs.index == rhs.index && lhs.fetchURL == rhs.fetchURL && lhs.path == rhs.path
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(role)
        hasher.combine(index)
        hasher.combine(fetchURL)
        hasher.combine(path)
    }

    /// The URL with secrets such as `token=` replaced by `REDACTED`: safe for every output.
    public var url: String { Redaction.redactURL(fetchURL) }

    /// `{"role", "index", "url"}` with the redacted URL, as in DESIGN.md "Report".
    public var json: JSONValue {
        .object(
            JSONObject([
                ("role", .string(role.rawValue)), ("index", index.map(JSONValue.int) ?? .null), ("url", .string(url)),
            ]))
    }

    /// Writes ``json`` without building it: the same bytes.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("role")
        writer.string(role.rawValue)
        writer.key("index")
        writer.int(index)
        writer.key("url")
        writer.string(url)
        writer.endObject()
    }
}

extension AssetReference: CustomStringConvertible, CustomDebugStringConvertible {
    /// `carouselSlide[1] https://…?token=REDACTED`: printing a reference never shows its secrets.
    public var description: String { "\(role.rawValue)\(index.map { "[\($0)]" } ?? "") \(url)" }
    public var debugDescription: String { description }
}

/// A rendered button of a classic or captioned card.
public struct CardButton: Sendable, Hashable {
    /// What a tap does.
    public enum Action: Sendable, Hashable {
        /// Opens the URL (the SDK refuses file/javascript/data/facetime schemes).
        case openURL(String)
        case dismiss
        case markRead
        /// Handed to the app's delegate with the payload: the button's keys except `title` and `action`.
        case custom(payload: JSONObject)

        /// The action's report name: `openURL`, `dismiss`, `markRead`, `custom`.
        public var name: String {
            switch self {
            case .openURL: "openURL"
            case .dismiss: "dismiss"
            case .markRead: "markRead"
            case .custom: "custom"
            }
        }
    }

    /// The visible label.
    public var title: String
    /// What a tap does.
    public var action: Action
    /// Whether the card draws the button: only classic and captioned cards draw buttons (Android: the first
    /// three). Buttons decoded on other kinds are listed with `rendered: false`.
    public var rendered: Bool

    public init(title: String, action: Action, rendered: Bool = true) {
        self.title = title
        self.action = action
        self.rendered = rendered
    }

    /// `{"title", "action", "url"?, "payload"?, "rendered"}` with URLs and URL-looking strings redacted.
    public var json: JSONValue {
        var object = JSONObject([("title", .string(Redaction.redactText(title))), ("action", .string(action.name))])
        switch action {
        case .openURL(let url): object["url"] = .string(Redaction.redactURL(url))
        case .custom(let payload): object["payload"] = Redact.json(.object(payload))
        case .dismiss, .markRead: break
        }
        object["rendered"] = .bool(rendered)
        return .object(object)
    }

    /// Writes ``json`` without building it: the same bytes.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("title")
        writer.string(Redaction.redactText(title))
        writer.key("action")
        writer.string(action.name)
        switch action {
        case .openURL(let url):
            writer.key("url")
            writer.string(Redaction.redactURL(url))
        case .custom(let payload):
            writer.key("payload")
            writer.value(Redact.json(.object(payload)))
        case .dismiss, .markRead: break
        }
        writer.key("rendered")
        writer.bool(rendered)
        writer.endObject()
    }
}

/// What one tap target of a card does (inboxkit-cards.md §5, android-inbox.md §2.1, §2.7): the row, the video
/// poster, a carousel slide, a button, the "Add to Apple Wallet" button, the Android legacy row's banner thumbnail.
public struct TapAction: Sendable, Hashable {
    /// Where the user taps.
    public enum Target: String, Sendable, Hashable {
        case row
        case poster
        case slide
        case button
        case addToWallet
        /// The Android legacy row's `b` banner thumbnail (`pw_attachment_preview`; android-assets.md §1, §5).
        case attachment
    }

    /// What the tap does.
    public enum Action: String, Sendable, Hashable {
        /// Opens `url` (a slide's or an openURL button's).
        case openURL
        case dismiss
        case markRead
        /// Hands the button's payload to the app.
        case custom
        /// Runs the message's own action: its link `l` or rich media `rm` (`url` says which).
        case messageAction
        /// Opens the message without an action of its own (marks it read/opened).
        case openMessage
        /// Opens the full-screen video player.
        case playVideo
        /// Downloads the pass (the system add sheet).
        case addPass
        /// Shows the image `url` full screen (Android `AttachmentActivity`, `fitCenter`).
        case openAttachment
        /// The SDK refuses the URL (unsafe or no scheme): nothing opens.
        case refused
    }

    public var target: Target
    /// The slide's or button's position; `nil` for the row, poster, wallet button and attachment.
    public var index: Int?
    public var action: Action
    /// The URL opened (`openURL`, `refused`, `messageAction` with a link, `openAttachment`), as in the input: never
    /// print it unredacted.
    public var url: String?
    /// `link` or `richMedia` for a message action.
    public var via: String?
    /// The card offers a destination here that the message's own action (`l`/`rm`) replaces (iOS 7.2), so the
    /// card's destination is never reached. (When a card's destination replaces the message action, as a video
    /// row on Android 6.15, `overridden` is false and ``note`` says so.)
    public var overridden: Bool
    /// What differs between the SDK versions of the profile, or why.
    public var note: String?

    public init(
        target: Target, index: Int? = nil, action: Action, url: String? = nil, via: String? = nil,
        overridden: Bool = false, note: String? = nil
    ) {
        self.target = target
        self.index = index
        self.action = action
        self.url = url
        self.via = via
        self.overridden = overridden
        self.note = note
    }

    /// `{"target", "index", "action", "url", "via", "overridden", "note"}` with the URL redacted.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("target", .string(target.rawValue)), ("index", index.map(JSONValue.int) ?? .null),
                ("action", .string(action.rawValue)), ("url", .optional(url.map(Redaction.redactURL))),
                ("via", .optional(via)), ("overridden", .bool(overridden)), ("note", .optional(note)),
            ]))
    }

    /// Writes ``json`` without building it: the same bytes.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("target")
        writer.string(target.rawValue)
        writer.key("index")
        writer.int(index)
        writer.key("action")
        writer.string(action.rawValue)
        writer.key("url")
        writer.string(url.map(Redaction.redactURL))
        writer.key("via")
        writer.string(via)
        writer.key("overridden")
        writer.bool(overridden)
        writer.key("note")
        writer.string(note)
        writer.endObject()
    }
}

extension TapAction: CustomStringConvertible, CustomDebugStringConvertible {
    /// The redacted JSON text: printing a tap target never shows the secrets of its URL.
    public var description: String { json.serialized() }
    public var debugDescription: String { description }
}

/// One element of a card's `carousel` array as the SDK decoded it: kept (with its position in the rendered
/// carousel) or dropped, and why.
public struct SlideRecord: Sendable, Hashable {
    /// The element's index in the input's `carousel` array.
    public var index: Int
    /// Its position among the rendered slides; `nil` when it was dropped.
    public var position: Int?
    public var image: String?
    public var title: String?
    /// The slide's own tap target; `nil` = a tap runs the row action.
    public var url: String?
    /// Why the SDK dropped it (`nil` when kept).
    public var droppedReason: String?

    public init(
        index: Int, position: Int?, image: String?, title: String?, url: String?, droppedReason: String?
    ) {
        self.index = index
        self.position = position
        self.image = image
        self.title = title
        self.url = url
        self.droppedReason = droppedReason
    }

    /// `{"index", "position", "image", "title", "url", "dropped", "reason"}`, redacted.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("index", .int(index)), ("position", position.map(JSONValue.int) ?? .null),
                ("image", .optional(image.map(Redaction.redactURL))),
                ("title", .optional(title.map(Redaction.redactText))),
                ("url", .optional(url.map(Redaction.redactURL))), ("dropped", .bool(droppedReason != nil)),
                ("reason", .optional(droppedReason)),
            ]))
    }

    /// Writes ``json`` without building it: the same bytes.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("index")
        writer.int(index)
        writer.key("position")
        writer.int(position)
        writer.key("image")
        writer.string(image.map(Redaction.redactURL))
        writer.key("title")
        writer.string(title.map(Redaction.redactText))
        writer.key("url")
        writer.string(url.map(Redaction.redactURL))
        writer.key("dropped")
        writer.bool(droppedReason != nil)
        writer.key("reason")
        writer.string(droppedReason)
        writer.endObject()
    }
}

extension CardButton: CustomStringConvertible, CustomDebugStringConvertible {
    /// The button's redacted JSON text: printing a button never shows the secrets of its URL.
    public var description: String { json.serialized() }
    public var debugDescription: String { description }
}

extension SlideRecord: CustomStringConvertible, CustomDebugStringConvertible {
    /// The redacted JSON text.
    public var description: String { json.serialized() }
    public var debugDescription: String { description }
}

/// A card's place in the feed of one device language.
public struct FeedPlace: Sendable, Hashable {
    public var language: String
    public var position: Int

    public init(language: String, position: Int) {
        self.language = language
        self.position = position
    }
}

/// The card one message becomes for one SDK profile, platform and language.
public struct ResolvedCard: Sendable, Hashable {
    /// The message's source id (`file#request.notifications[3]`).
    public var id: String
    /// The inbox message code (`?` in the SDK log when absent).
    public var code: String?
    /// The iOS SDK profile; `nil` for Android cards.
    public var sdk: SDKProfile?
    /// The Android SDK profile; `nil` for iOS cards.
    public var androidSDK: AndroidProfile? = nil
    /// The platform the card renders on.
    public var platform: Platform
    /// The language of a per-language title/body; `nil` when the message is not per-language.
    public var language: String?
    /// The kind the message asks for: forced kind, a valid `displayType`, or the heuristic's choice.
    public var requested: CardKind
    /// The kind that renders.
    public var resolved: CardKind
    /// The card does not render as ``requested``: as `classic` (a missing payload), as the heuristic's kind (a kind
    /// SDK 7.0 does not know) or as the legacy row (a rich card on Android 6.11).
    public var degraded: Bool
    /// Why (the exact SDK text such as `no title/body`, or the product's for a degrade of intent).
    public var degradeReason: String?
    /// The line the SDK logs about the card, to match device logs: the WARN line of a degraded card (iOS 7.1+,
    /// Android 6.12+), or the INFO line SDK 7.0 logs on every resolve.
    public var sdkLog: String?
    /// `--force-kind` decided the kind.
    public var forced: Bool
    /// The card shows a pin (iOS: and floats to the top of the feed; Android rich cards: a chip or icon, no
    /// sorting; the legacy row shows none and is never pinned).
    public var pinned: Bool
    /// Decoded buttons; ``CardButton/rendered`` says which the card draws.
    public var buttons: [CardButton]
    /// VoiceOver labels of the rich parts: slide captions (or "Slide"), "Play video".
    public var accessibilityLabels: [String]
    /// Everything noticed about the message and this card, most important first within each stage.
    public var findings: [Finding]
    /// URLs the rendered card uses (and its links).
    public var assets: [AssetReference]
    /// The title shown for this card's language (after the `en` fallback), for previews.
    public var title: String? = nil
    /// The body shown for this card's language (after the `en` fallback), for previews.
    public var body: String? = nil
    /// What each tap target does.
    public var tapActions: [TapAction] = []
    /// Every element of the `carousel` array the card reads, kept or dropped: cards that asked for a carousel (a
    /// degraded one too, to show why no slide was usable).
    public var slides: [SlideRecord] = []
    /// The card's place (0 = top) in its feed: the visible cards of one platform, profile and language, ordered as
    /// that SDK orders them (iOS: pinned, unread, newest; Android: source, send date, order). Set by
    /// ``CardResolver/run(_:)``.
    public var feedPosition: Int? = nil
    /// The card's place in the feeds of other device languages where it shows too: a card without a language in
    /// every language's feed, a per-language card (its `en` text, else its first language's) in the feeds of the
    /// languages its message lacks. Empty when the campaign has no per-language message. For previews; set with
    /// ``feedPosition``.
    public var otherFeedPositions: [FeedPlace] = []
    /// The send date the feed is sorted by (seconds since 1970; `--at` when the message has none). Set with
    /// ``feedPosition``.
    public var sentAt: Int64? = nil
    /// The SDK shows the message as unread (feed `status` other than 2 read and 3 opened; createMessage and push
    /// messages are new). Set with ``feedPosition``.
    public var unread: Bool = true

    /// The SDK profile's name for either platform (`7.2`, `6.13`).
    public var profileName: String? { sdk?.rawValue ?? androidSDK?.rawValue }

    /// The card in the report's key order: `id, code, sdk, platform, language, requested, resolved, degraded,
    /// degradeReason, sdkLog, findings, assets`, then `forced, pinned, buttons, accessibility, title, body,
    /// tapActions, slides, feedPosition`. `sdk` is the profile of either platform (`7.2`, `6.13`).
    public var json: JSONValue {
        .object(
            JSONObject([
                ("id", .string(id)),
                ("code", .optional(code)),
                ("sdk", .optional(profileName)),
                ("platform", .string(platform.rawValue)),
                ("language", .optional(language)),
                ("requested", .string(requested.rawValue)),
                ("resolved", .string(resolved.rawValue)),
                ("degraded", .bool(degraded)),
                ("degradeReason", .optional(degradeReason)),
                ("sdkLog", .optional(sdkLog)),
                ("findings", .array(findings.map(\.json))),
                ("assets", .array(assets.map(\.json))),
                ("forced", .bool(forced)),
                ("pinned", .bool(pinned)),
                ("buttons", .array(buttons.map(\.json))),
                ("accessibility", .array(accessibilityLabels.map { .string(Redaction.redactText($0)) })),
                ("title", .optional(title.map(Redaction.redactText))),
                ("body", .optional(body.map(Redaction.redactText))),
                ("tapActions", .array(tapActions.map(\.json))),
                ("slides", .array(slides.map(\.json))),
                ("feedPosition", feedPosition.map(JSONValue.int) ?? .null),
            ]))
    }

    /// Writes ``json`` without building it: the same bytes (a report of many cards is written card by card).
    public func write(to writer: inout JSONWriter) { write(to: &writer, type: nil) }

    /// Writes ``json`` with what a later stage adds: a leading `"type"` member (an NDJSON line), members after
    /// `sdkLog`, and its own `findings` and `assets` arrays' elements in place of the card's.
    public func write(
        to writer: inout JSONWriter, type: String?, afterSDKLog: ((inout JSONWriter) -> Void)? = nil,
        findings writeFindings: ((inout JSONWriter) -> Void)? = nil,
        assets writeAssets: ((inout JSONWriter) -> Void)? = nil
    ) {
        writer.beginObject()
        if let type {
            writer.key("type")
            writer.string(type)
        }
        writer.key("id")
        writer.string(id)
        writer.key("code")
        writer.string(code)
        writer.key("sdk")
        writer.string(profileName)
        writer.key("platform")
        writer.string(platform.rawValue)
        writer.key("language")
        writer.string(language)
        writer.key("requested")
        writer.string(requested.rawValue)
        writer.key("resolved")
        writer.string(resolved.rawValue)
        writer.key("degraded")
        writer.bool(degraded)
        writer.key("degradeReason")
        writer.string(degradeReason)
        writer.key("sdkLog")
        writer.string(sdkLog)
        afterSDKLog?(&writer)
        writer.key("findings")
        writer.beginArray()
        if let writeFindings {
            writeFindings(&writer)
        } else {
            for finding in findings { finding.write(to: &writer) }
        }
        writer.endArray()
        writer.key("assets")
        writer.beginArray()
        if let writeAssets {
            writeAssets(&writer)
        } else {
            for asset in assets { asset.write(to: &writer) }
        }
        writer.endArray()
        writer.key("forced")
        writer.bool(forced)
        writer.key("pinned")
        writer.bool(pinned)
        writer.key("buttons")
        writer.beginArray()
        for button in buttons { button.write(to: &writer) }
        writer.endArray()
        writer.key("accessibility")
        writer.beginArray()
        for label in accessibilityLabels { writer.string(Redaction.redactText(label)) }
        writer.endArray()
        writer.key("title")
        writer.string(title.map(Redaction.redactText))
        writer.key("body")
        writer.string(body.map(Redaction.redactText))
        writer.key("tapActions")
        writer.beginArray()
        for action in tapActions { action.write(to: &writer) }
        writer.endArray()
        writer.key("slides")
        writer.beginArray()
        for slide in slides { slide.write(to: &writer) }
        writer.endArray()
        writer.key("feedPosition")
        writer.int(feedPosition)
        writer.endObject()
    }
}

extension SourcedFinding {
    /// The finding's JSON with its `source` first.
    public var json: JSONValue {
        guard case .object(var object) = finding.json else { return finding.json }
        object = JSONObject([("source", .string(source))] + object.map { ($0.key, $0.value) })
        return .object(object)
    }

    /// Writes ``json`` without building it: the same bytes.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("source")
        writer.string(source)
        finding.writeMembers(to: &writer)
        writer.endObject()
    }
}

/// One resolve run: what was read, the findings about the inputs, and the cards.
public struct ResolveRun: Sendable, Hashable {
    /// The options the cards were resolved with.
    public var options: ResolveOptions
    /// Messages read (plain pushes included).
    public var messagesRead: Int
    /// Findings about the inputs (broken lines, unrecognised objects, plain pushes, untargeted platforms).
    public var inputFindings: [SourcedFinding]
    /// Every card, in message order, then language, platform, profile.
    public var cards: [ResolvedCard]

    public init(options: ResolveOptions, messagesRead: Int, inputFindings: [SourcedFinding], cards: [ResolvedCard]) {
        self.options = options
        self.messagesRead = messagesRead
        self.inputFindings = inputFindings
        self.cards = cards
    }

    /// Cards that render as classic instead of their requested kind.
    public var degradedCount: Int {
        var count = 0
        for index in cards.indices where cards[index].degraded { count += 1 }
        return count
    }

    /// Every finding of the run (input findings and card findings).
    public var allFindings: [Finding] { inputFindings.map(\.finding) + cards.flatMap(\.findings) }

    /// The highest severity among the run's findings (input and card findings), without collecting them; `nil`: none.
    public var maxSeverity: Severity? {
        var worst = inputFindings.lazy.map(\.finding).maxSeverity
        for index in cards.indices {
            guard let card = cards[index].findings.maxSeverity else { continue }
            worst = max(worst ?? card, card)
        }
        return worst
    }

    /// How many findings of the run (input and card findings) have exactly this severity, without collecting them.
    public func findingCount(_ severity: Severity) -> Int {
        var count = inputFindings.reduce(0) { $0 + ($1.finding.severity == severity ? 1 : 0) }
        // By index: `for card in cards` copies every card (a dozen retains) to read one array.
        for index in cards.indices { count += cards[index].findings.count(severity) }
        return count
    }

    /// `{"schemaVersion": 1, "summary": {…}, "findings": […], "cards": […]}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("schemaVersion", .int(1)), ("summary", .object(summary)),
                ("findings", .array(inputFindings.map(\.json))), ("cards", .array(cards.map(\.json))),
            ]))
    }

    /// The run as NDJSON (`resolve --format ndjson`): a `card` line per card, a `finding` line per input finding,
    /// then one `summary` line (`schemaVersion` and the counts of ``json``'s `summary`), each a compact object with
    /// its `"type"` first and then the members it has in ``json``.
    public func writeLines(to writer: inout JSONWriter) {
        Self.writeLines(counts, inputFindings: inputFindings, to: &writer) { visit in
            for index in cards.indices { visit(cards[index]) }
        }
    }

    /// The counts of ``json``'s `summary`.
    struct Counts {
        var messages: Int
        var cards: Int
        var degraded: Int
        var errors: Int
        var warnings: Int
    }

    var counts: Counts {
        Counts(
            messages: messagesRead, cards: cards.count, degraded: degradedCount, errors: findingCount(.error),
            warnings: findingCount(.warning))
    }

    /// ``writeLines(to:)`` of a run whose cards `cards` hands over one at a time.
    static func writeLines(
        _ counts: Counts, inputFindings: [SourcedFinding], to writer: inout JSONWriter,
        cards: ((ResolvedCard) -> Void) -> Void
    ) {
        writeLines(counts, inputFindings: inputFindings, to: &writer) { writer in
            cards { card in
                card.write(to: &writer, type: "card")
                writer.raw("\n")
            }
        }
    }

    /// ``writeLines(to:)`` of a run whose `card` lines `writeCards` writes itself.
    static func writeLines(
        _ counts: Counts, inputFindings: [SourcedFinding], to writer: inout JSONWriter,
        writeCards: (inout JSONWriter) -> Void
    ) {
        writeCards(&writer)
        for finding in inputFindings { NDJSON.line("finding", finding.json, to: &writer) }
        var summaryLine = JSONObject([("schemaVersion", .int(1))])
        for (key, value) in summary(counts) { summaryLine[key] = value }
        NDJSON.line("summary", .object(summaryLine), to: &writer)
    }

    /// ``json``'s `summary`: messages, cards, degraded, errors, warnings.
    var summary: JSONObject { Self.summary(counts) }

    static func summary(_ counts: Counts) -> JSONObject {
        JSONObject([
            ("messages", .int(counts.messages)), ("cards", .int(counts.cards)), ("degraded", .int(counts.degraded)),
            ("errors", .int(counts.errors)), ("warnings", .int(counts.warnings)),
        ])
    }

    /// Writes ``json`` without building it: the same bytes, card by card, so a writer with a sink streams the
    /// report instead of holding it.
    public func write(to writer: inout JSONWriter) {
        Self.write(counts, inputFindings: inputFindings, to: &writer) { visit in
            for index in cards.indices { visit(cards[index]) }
        }
    }

    /// ``write(to:)`` of a run whose cards `cards` hands over one at a time.
    static func write(
        _ counts: Counts, inputFindings: [SourcedFinding], to writer: inout JSONWriter,
        cards: ((ResolvedCard) -> Void) -> Void
    ) {
        write(counts, inputFindings: inputFindings, to: &writer) { writer in cards { $0.write(to: &writer) } }
    }

    /// ``write(to:)`` of a run whose cards `writeCards` writes into the `cards` array itself.
    static func write(
        _ counts: Counts, inputFindings: [SourcedFinding], to writer: inout JSONWriter,
        writeCards: (inout JSONWriter) -> Void
    ) {
        writer.beginObject()
        writer.key("schemaVersion")
        writer.int(1)
        writer.key("summary")
        writer.beginObject()
        writer.key("messages")
        writer.int(counts.messages)
        writer.key("cards")
        writer.int(counts.cards)
        writer.key("degraded")
        writer.int(counts.degraded)
        writer.key("errors")
        writer.int(counts.errors)
        writer.key("warnings")
        writer.int(counts.warnings)
        writer.endObject()
        writer.key("findings")
        writer.beginArray()
        for finding in inputFindings { finding.write(to: &writer) }
        writer.endArray()
        writer.key("cards")
        writer.beginArray()
        writeCards(&writer)
        writer.endArray()
        writer.endObject()
    }
}
