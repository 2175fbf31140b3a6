public import Findings
import StrictJSON

/// The stable finding codes this module emits. People grep and suppress them: never rename one.
public enum CardFindingCode {
    // MARK: input.* — reading files and recognising messages

    /// The whole input is empty (``InputError``). Error.
    public static let emptyInput = "input.empty"
    /// The whole input is larger than the reader's limit (``InputError``). Error.
    public static let tooLarge = "input.tooLarge"
    /// The whole input is JSON but neither an object nor an array (``InputError``). Error.
    public static let notACampaign = "input.notACampaign"
    /// The input is not JSON (``InputError``, with line and column), or one NDJSON line is not JSON (the
    /// other lines are still read). Error.
    public static let invalidJSON = "input.invalidJSON"
    /// An object is none of: createMessage request, inbox feed message, push payload. Error.
    public static let unrecognized = "input.unrecognized"
    /// An array element or NDJSON line that should be an object is something else. Error.
    public static let notObject = "input.notObject"
    /// A field of the input has the wrong JSON type (`"inbox_image": 5`, `"platforms": "ios"`). Warning.
    public static let inputWrongType = "input.wrongType"
    /// A source held no message at all (`{}`, `[]`, only unrecognised objects): the input is unusable
    /// (``InputError``; the CLI exits 2). Error.
    public static let noMessages = "input.noMessages"
    /// An input file could not be read to its end, or changed while it was being read (``InputError``; the CLI
    /// exits 2). Error.
    public static let unreadable = "input.unreadable"
    /// A duplicate object key (the last one wins, as in the SDK's JSONSerialization). Warning.
    public static let duplicateKey = "input.duplicateKey"
    /// A UTF-8 byte order mark at the start of the file. Info.
    public static let byteOrderMark = "input.byteOrderMark"
    /// A createMessage notification without `inbox_image`/`inbox_date`/`inbox_days`, or a push without
    /// `pw_inbox`: a plain push, it never reaches the inbox and has no card. Warning.
    public static let notInbox = "input.notInbox"
    /// `inbox_days` above 30 (the maximum), below 1, or not an integer. Warning.
    public static let inboxDays = "input.inboxDays"
    /// A feed message whose `action_params` is an object: the iOS SDK then sees no actionParams. Warning.
    public static let actionParamsObject = "input.actionParamsObject"
    /// `action_params` is a string that is not a JSON object: the SDK sees no actionParams. Warning.
    public static let actionParamsInvalid = "input.actionParamsInvalid"
    /// `u` (or createMessage `data`) is a string that is not a JSON object: the SDK ignores it. Warning.
    public static let customDataInvalid = "input.customDataInvalid"
    /// More findings than the budget of one message or input (hostile input): the rest are counted. Info.
    public static let inputFindingsTruncated = "input.findingsTruncated"
    /// A notification's `platforms` targets none of the platforms being resolved: no card. Info.
    public static let platformNotTargeted = "input.platformNotTargeted"
    /// `ios_title` or `android_header` is empty while `title` is set: the platform title wins (the docs: `title` is
    /// "ignored if platform-specific titles are specified"), so that platform's card shows no title. Warning.
    public static let emptyPlatformTitle = "input.emptyPlatformTitle"
    /// A URL the card uses holds a control character — a NUL, another C0 control byte (0x00–0x1F) or DEL — at the
    /// byte the message names: it is never fetched (curl would cut the request at a NUL and ask for what is left),
    /// and no SDK loads what it says. Error for a fetched asset (image, slide, poster, video, pass), which `check`
    /// then reports failed (`invalid-url`); warning for a button or slide link.
    public static let badURL = "input.badURL"
    /// Card keys (displayType, carousel, …) that reach the card only through `ios_root_params` /
    /// `android_root_params`, i.e. only on the push-delivered copy of the message. Warning.
    public static let rootParams = "input.rootParams"

    // MARK: input.* — visibility: whether the inbox shows the message at all (android-inbox.md §3)

    /// A feed message without one of `inbox_id, order, rt, text, action_type, status`: both SDKs drop it. Warning.
    public static let feedKeyMissing = "input.feedKeyMissing"
    /// A feed value Android cannot parse (`"action_type": "RichMedia"`, a non-integer `order`/`rt`/`status`): the
    /// message is lost on Android, and the exception is not caught per message. Warning.
    public static let feedValueInvalid = "input.feedValueInvalid"
    /// A feed `status` that is no Android status code (0–5). Warning.
    public static let statusUnknown = "input.statusUnknown"
    /// `status` 4 (deleted by the user), or 5 on Android: that inbox does not show the message. Info.
    public static let deleted = "input.deleted"
    /// The message has expired at `--at` (feed `rt`, push `inbox_params.rt`, createMessage `inbox_date`): the inbox
    /// does not show it. Warning.
    public static let expired = "input.expired"
    /// An expiry or send date that cannot be read (`inbox_date` not `YYYY-MM-DD`, a push `rt` in the other
    /// platform's format, a missing push `inbox_params.rt`): shown with a warning, or not shown, as that SDK does.
    /// Warning.
    public static let expiryInvalid = "input.expiryInvalid"
    /// createMessage `inbox_date` before `send_date`: the message expires before it is sent. Warning.
    public static let expiresBeforeSend = "input.expiresBeforeSend"

    // MARK: card.* — resolution

    /// The SDK does not render the kind the message asks for: classic instead (a missing payload), the heuristic's
    /// kind (a kind SDK 7.0 lacks), or the legacy row (a rich card on Android 6.11). Warning.
    public static let degraded = "card.degraded"
    /// A string `displayType` this SDK profile does not know: the heuristic decides (Android, heuristic off: the
    /// legacy row). Warning.
    public static let unknownDisplayType = "card.unknownDisplayType"
    /// A rich-payload or lookup key of the wrong type, skipped by the SDK's typed lookup. Warning.
    public static let wrongType = "card.wrongType"
    /// `--force-kind` decided the kind; degrade checks were skipped. Info.
    public static let forced = "card.forced"
    /// A forced kind misses what it needs and renders incomplete or empty. Warning.
    public static let forcedIncomplete = "card.forcedIncomplete"
    /// The forced kind does not exist in this SDK profile; it is ignored. Warning.
    public static let forceKindUnavailable = "card.forceKindUnavailable"
    /// A carousel slide without a usable `image` was dropped. Warning.
    public static let slideDropped = "card.slideDropped"
    /// More usable slides than the profile shows (7.2: five; Android 6.12: ten, 6.13 and 6.15: five): the rest were
    /// dropped.
    /// Warning.
    public static let slidesCapped = "card.slidesCapped"
    /// A slide `url` that does not parse or has no scheme: a tap runs the message's default action. Warning.
    public static let slideURLInvalid = "card.slideURLInvalid"
    /// A slide without a title: VoiceOver announces it only as "Slide". Info.
    public static let slideUntitled = "card.slideUntitled"
    /// `video` is not a usable descriptor (no object, no http/https `url`). Warning.
    public static let videoInvalid = "card.videoInvalid"
    /// A video without a poster: the card shows the play badge on an empty frame. Info.
    public static let videoNoPoster = "card.videoNoPoster"
    /// `wallet` holds no usable http/https pass URL. Warning.
    public static let walletInvalid = "card.walletInvalid"
    /// A card kind the platform cannot show: a wallet card on Android (always the classic card there). Warning.
    public static let platformLayout = "card.platformLayout"
    /// A button without a non-empty string `title` (or not an object) was dropped. Warning.
    public static let buttonDropped = "card.buttonDropped"
    /// A button `url` that does not parse or lacks a scheme (7.1+): the button becomes custom. Warning.
    public static let buttonURLInvalid = "card.buttonURLInvalid"
    /// `"action": "custom"` with a `url`: the docs promise custom, the SDK opens the URL. Warning.
    public static let buttonCustomWithURL = "card.buttonCustomWithURL"
    /// A button or slide URL the SDK refuses to open (iOS: file, javascript, data, facetime, facetime-audio;
    /// Android: file, javascript, data, intent). Warning.
    public static let unsafeURL = "card.unsafeURL"
    /// More than three buttons: iOS squeezes them all into one row, Android draws only the first three. Warning.
    public static let tooManyButtons = "card.tooManyButtons"
    /// Buttons on a kind that does not render them (only classic and captioned do; the legacy row never). Warning.
    public static let buttonsNotRendered = "card.buttonsNotRendered"
    /// `pinned` given as a type that does not pin: on iOS any string (`"true"` too), on Android a string other than
    /// `"true"` (any case), or another type. Warning.
    public static let pinnedNotBoolean = "card.pinnedNotBoolean"
    /// A pinned message drawn by a layout without a pin (the Android legacy row). Info.
    public static let pinnedNotRendered = "card.pinnedNotRendered"
    /// A per-language title/body lacks this language; the `en` text is used instead. Info.
    public static let languageFallback = "card.languageFallback"
    /// A per-language title/body lacks this language and has no `en`: the card has no such text. Warning.
    public static let languageMissing = "card.languageMissing"
    /// A classic card without a title or a body (classic expects title, body and icon). Info.
    public static let classicIncomplete = "card.classicIncomplete"
    /// More findings than the budget of one card (hostile input): the rest are counted. Info.
    public static let findingsTruncated = "card.findingsTruncated"
    /// The hero keys `attachment`/`b` hold a string that does not start with http:// or https:// (7.2: case-sensitive;
    /// Android: any case): the SDK skips it. Info.
    public static let heroIgnored = "card.heroIgnored"
    /// Android draws the legacy row: no known displayType and `richCardsHeuristicEnabled` off. Info.
    public static let legacyRow = "card.legacyRow"
    /// The message's own action (`l` link, `rm` rich media) replaces a destination the card shows: a video that
    /// never plays, a slide or button url that is never opened; or, on Android 6.15, a video card owns its row, so
    /// the message's own action never runs. Warning.
    public static let tapOverridden = "card.tapOverridden"
    /// A non-string value the Android SDK turns into text (org.json `optString`: `5` → "5", `null` → "null"). Warning.
    public static let stringified = "card.stringified"
}

/// Bounds on findings, so hostile input (a million broken slides or lines) cannot make a million findings.
enum FindingBudget {
    /// Findings kept for one card (message findings included); essential ones are always kept.
    static let perCard = 100
    /// Findings kept while reading one message.
    static let perMessage = 50
    /// Input-level findings kept for one input file.
    static let perInput = 1000
    /// Findings that say what a card renders as: kept whatever the budget.
    static let essential: Set<String> = [
        CardFindingCode.degraded, CardFindingCode.forced, CardFindingCode.forcedIncomplete,
        CardFindingCode.forceKindUnavailable, CardFindingCode.platformLayout, CardFindingCode.buttonsNotRendered,
        CardFindingCode.unknownDisplayType, CardFindingCode.slidesCapped, CardFindingCode.tooManyButtons,
        CardFindingCode.legacyRow, CardFindingCode.tapOverridden,
    ]
}

/// A finding together with the input it is about: `file#request.notifications[3]`, or the file alone.
public struct SourcedFinding: Sendable, Hashable {
    /// Source id of the message or file the finding is about.
    public var source: String
    /// The finding itself (already redacted).
    public var finding: Finding

    public init(source: String, finding: Finding) {
        self.source = source
        self.finding = finding
    }
}

extension Finding {
    /// A finding whose message passed through ``Redaction`` (URLs in messages may carry tokens).
    static func redacted(_ severity: Severity, _ code: String, _ message: String, path: String?) -> Finding {
        Finding(severity, code, Redaction.redactText(message), path: path)
    }
}

/// Redaction of values the resolver quotes (``Redaction`` does the work; these add length caps and
/// walk JSON payloads).
enum Redact {
    /// An input value quoted in a finding message: redacted as a URL (tokens in scheme-less URLs too, which
    /// ``text(_:)`` would not recognise) and cut to 200 characters so a huge value cannot bloat a report.
    static func value(_ value: String) -> String {
        let limit = 200
        guard value.utf8.count > limit else { return Redaction.redactURL(value) }
        return Redaction.redactURL(String(value.prefix(limit))) + "…"
    }

    /// Every string inside `value` through ``Redaction/redactURL(_:)`` (custom button payloads are free-form and may hold
    /// scheme-less URLs with tokens, which ``Redaction/redactText(_:)`` would not recognise).
    static func json(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(Redaction.redactURL(text))
        case .array(let elements): return .array(elements.map(json))
        case .object(let object): return .object(JSONObject(object.map { ($0.key, json($0.value)) }))
        case .null, .bool, .number: return value
        }
    }
}
