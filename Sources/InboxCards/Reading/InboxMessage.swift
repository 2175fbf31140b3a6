public import Findings
import StrictJSON

/// Which kind of input a message was read from.
public enum MessageShape: String, Sendable, Hashable {
    /// A notification of a createMessage request (`request.notifications[i]`).
    case createMessage
    /// A message of the inbox feed (`getInboxMessages`).
    case feed
    /// The userInfo of a delivered push.
    case push
}

/// A title or body: one string, or one string per language (`{"en": "…", "de": "…"}`).
public struct MessageText: Sendable, Hashable {
    /// One language's text.
    public struct Entry: Sendable, Hashable {
        /// The language key as written (`en`, `pt-BR`).
        public var language: String
        /// The text in that language.
        public var text: String
    }

    /// The text when it is not per-language.
    public var plain: String?
    /// The per-language texts in input order (empty when ``plain`` is set).
    public var entries: [Entry]

    /// Whether the text is given per language.
    public var isPerLanguage: Bool { plain == nil }

    init(plain: String) {
        self.plain = plain
        self.entries = []
    }

    init(entries: [Entry]) {
        self.plain = nil
        self.entries = entries
    }

    /// The fallback language used when a per-language text lacks the language being resolved.
    public static let fallbackLanguage = "en"

    /// The text shown for `language`: the plain text, the exact language, else the `en` text.
    /// - Returns: the text (nil when there is none) and whether the `en` fallback was used.
    func text(for language: String?) -> (text: String?, fellBack: Bool) {
        if let plain { return (plain, false) }
        guard let language else { return (entries.first?.text, false) }
        if let entry = entries.first(where: { $0.language == language }) { return (entry.text, false) }
        if let entry = entries.first(where: { $0.language == Self.fallbackLanguage }) { return (entry.text, true) }
        return (nil, false)
    }
}

/// What the Android SDK reads where it differs from iOS (android-inbox.md §1): the title and body it shows, the
/// actionParams it parses, and findings that hold on Android only. `nil` members mean "as on iOS".
struct AndroidReading: Sendable, Hashable {
    /// The title Android shows (createMessage `android_header` else `title`; push `header`); `nil` = iOS's.
    var title: MessageText??
    /// The body Android shows (push `title`); `nil` = iOS's.
    var body: MessageText??
    var titlePath: String?
    var bodyPath: String?
    /// actionParams as Android parses them; `nil` = as on iOS.
    var levels: [ParamLevel]?
    /// Findings that hold on Android only.
    var findings: [Finding] = []
}

/// The facts that decide whether an inbox shows a message, and its place in the feed (android-inbox.md §3, §4).
/// They are evaluated per platform at resolve time, against `--at`.
struct Delivery: Sendable, Hashable {
    /// Where the inbox entry came from: the service feed, a delivered push, or a createMessage request (which
    /// reaches the inbox as the feed's copy: it is ordered as a service message).
    enum Source: Sendable, Hashable {
        case service
        case push
    }

    /// A value as written in the input, with its JSON path (for findings).
    struct Field: Sendable, Hashable {
        var value: JSONValue
        var path: String
    }

    var source: Source = .service
    /// Required feed keys the message lacks (`inbox_id, order, rt, text, action_type, status`).
    var missingFeedKeys: [String] = []
    /// Feed `status`, `action_type`, `order`, `rt` as written (`nil` = absent).
    var status: Field?
    var actionType: Field?
    var order: Field?
    /// Feed `rt`, or a push's `inbox_params.rt`.
    var expiry: Field?
    /// Feed or push `send_date` (seconds), createMessage `send_date` as written.
    var sendDate: Field?
    /// createMessage `inbox_date` (`YYYY-MM-DD`) as written.
    var inboxDate: Field?
}

/// One level of actionParams the SDK looks values up in: the root, `u`, or `userdata`.
struct ParamLevel: Sendable, Hashable {
    enum Name: String, Sendable, Hashable {
        case root
        case u
        case userdata
    }

    var name: Name
    var object: JSONObject
    /// JSON path of this object inside the input file (it may descend into a JSON-encoded string).
    var path: String { key.map { JSONPath.key(parentPath, $0) } ?? parentPath }
    /// ``path`` in two parts, joined only when read (for findings and asset paths): a feed message's root is
    /// `[3]` + `action_params`, and most messages never need the joined path.
    private var parentPath: String
    private var key: String?
    /// For createMessage the root is synthetic: its keys come from differently named request fields.
    var aliases: [String: String]?

    init(name: Name, object: JSONObject, path: String, aliases: [String: String]? = nil) {
        self.name = name
        self.object = object
        self.parentPath = path
        self.key = nil
        self.aliases = aliases
    }

    /// The object at `parent.key`.
    init(name: Name, object: JSONObject, parent: String, key: String) {
        self.name = name
        self.object = object
        self.parentPath = parent
        self.key = key
        self.aliases = nil
    }

    func path(of key: String) -> String {
        if let alias = aliases?[key] { return alias }
        return JSONPath.key(path, key)
    }
}

/// A message as read from the input: what the SDK will see, and where each part came from.
///
/// `auth` and every other request field the device never sees are not kept.
public struct InboxMessage: Sendable, Hashable {
    /// Source id: `file#request.notifications[3]`, `file#[3]` (array element or NDJSON record), or the
    /// file name alone for a file that holds a single feed message or push payload.
    public var id: String
    /// What kind of input the message came from.
    public var shape: MessageShape
    /// JSON path of the message inside its file (empty for a single-object file).
    public var path: String
    /// The inbox message code (feed `inbox_id`, push `pw_inbox`); `nil` before sending (createMessage).
    public var code: String?
    /// Title (`ios_title` else `title`; feed `title`; push `aps.alert.title`).
    public var title: MessageText?
    /// Body (`content`; feed `text`; push `aps.alert` or `aps.alert.body`).
    public var body: MessageText?
    /// The message's `imageUrl` (createMessage `inbox_image`, feed `image`, push `inbox_params.image`).
    public var imageURL: String?
    /// Where ``imageURL`` came from.
    var imagePath: String
    /// `false` for a plain push (no `inbox_image`/`inbox_date`/`inbox_days`, or no `pw_inbox`): no card.
    public var reachesInbox: Bool
    /// The platforms the message targets (createMessage `platforms`); `nil` = every platform of the app.
    public var targets: Set<Platform>?
    /// How `u` reached the device (for reports): absent, an object, or a JSON-encoded string.
    public var customDataForm: CustomDataForm
    /// Problems found while reading this message; they are copied into every card of the message.
    public var findings: [Finding]

    /// actionParams as the SDK sees them, in lookup order: root, `u`, `userdata` (the iOS view; Android's is
    /// ``android`` when it differs).
    var levels: [ParamLevel]
    /// Where the title and body came from (for language findings).
    var titlePath = ""
    var bodyPath = ""
    /// Findings that hold on iOS only (they are copied into the iOS cards, not the Android ones).
    var iosFindings: [Finding] = []
    /// What the Android SDK reads of the message: its own title, body and actionParams (android-inbox.md §1).
    var android = AndroidReading()
    /// What decides whether the inbox shows the message at all, and where in the feed.
    var delivery = Delivery()

    /// How the custom data `u` (createMessage `data`) arrived.
    public enum CustomDataForm: String, Sendable, Hashable {
        case absent
        case object
        case jsonString
    }

    /// Every language of the per-language title and body, in input order (title's first).
    /// Empty when neither is per-language.
    public var languages: [String] {
        var result: [String] = []
        for text in [title, body] {
            guard let text, text.isPerLanguage else { continue }
            for entry in text.entries where !result.contains(entry.language) { result.append(entry.language) }
        }
        return result
    }

    /// The actionParams root the SDK sees (`nil` when it sees none).
    var root: ParamLevel? { levels.first { $0.name == .root } }
    /// The decoded `u` object (`nil` when absent or unusable).
    var customData: ParamLevel? { levels.first { $0.name == .u } }
}

extension InboxMessage: CustomStringConvertible, CustomDebugStringConvertible {
    /// `campaign.json#request.notifications[2] (createMessage, code ?)`: the message's data (which may hold
    /// tokens) is never printed.
    public var description: String { "\(id) (\(shape.rawValue), code \(code ?? "?"))" }
    public var debugDescription: String { description }
}
