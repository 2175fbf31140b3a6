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
    /// A source held no message at all. Warning.
    public static let noMessages = "input.noMessages"
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

    // MARK: card.* — resolution

    /// The SDK renders the card as classic instead of the kind it asked for. Warning.
    public static let degraded = "card.degraded"
    /// A string `displayType` this SDK profile does not know: the heuristic decides. Warning.
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
    /// 7.2 shows at most five slides; the rest were dropped. Warning.
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
    /// A rich card on a platform that cannot show it (wallet off iOS; any rich card on Android). Warning.
    public static let platformLayout = "card.platformLayout"
    /// A button without a non-empty string `title` (or not an object) was dropped. Warning.
    public static let buttonDropped = "card.buttonDropped"
    /// A button `url` that does not parse or lacks a scheme (7.1+): the button becomes custom. Warning.
    public static let buttonURLInvalid = "card.buttonURLInvalid"
    /// `"action": "custom"` with a `url`: the docs promise custom, the SDK opens the URL. Warning.
    public static let buttonCustomWithURL = "card.buttonCustomWithURL"
    /// A button or slide URL with a scheme the SDK refuses to open (file, javascript, data, facetime…). Warning.
    public static let unsafeURL = "card.unsafeURL"
    /// More than three buttons: the SDK squeezes them all into one row. Warning.
    public static let tooManyButtons = "card.tooManyButtons"
    /// Buttons on a kind (or platform) that does not render them. Warning.
    public static let buttonsNotRendered = "card.buttonsNotRendered"
    /// `pinned` given as a string (or another type): it does not pin. Warning.
    public static let pinnedNotBoolean = "card.pinnedNotBoolean"
    /// A pinned message on a platform without pinning. Info.
    public static let pinnedNotRendered = "card.pinnedNotRendered"
    /// A per-language title/body lacks this language; the `en` text is used instead. Info.
    public static let languageFallback = "card.languageFallback"
    /// A per-language title/body lacks this language and has no `en`: the card has no such text. Warning.
    public static let languageMissing = "card.languageMissing"
    /// A classic card without a title or a body (classic expects title, body and icon). Info.
    public static let classicIncomplete = "card.classicIncomplete"
    /// More findings than the budget of one card (hostile input): the rest are counted. Info.
    public static let findingsTruncated = "card.findingsTruncated"
    /// The 7.2 hero keys `attachment`/`b` hold a string that does not start with http:// or https://. Info.
    public static let heroIgnored = "card.heroIgnored"
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
