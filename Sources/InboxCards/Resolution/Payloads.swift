import Findings
import StrictJSON

/// A carousel slide that survived decoding.
struct Slide: Hashable {
    var image: String
    var title: String?
    var url: String?
    /// The slide's position in the input's `carousel` array (its paths are `carousel[jsonIndex].image`, `.url`).
    var jsonIndex: Int
}

/// The decoders of the rich payloads (inboxkit-cards.md "Payload decoders"), each reporting what it
/// dropped and why into the card's findings.
extension CardContext {
    /// The typed lookup the SDK does (`root[key] as? T ?? u[key] as? T ?? …`): the first level whose value
    /// has the expected type wins; a level with another type is skipped, which the product reports.
    /// `null` counts as absent. `userdata` is consulted only for `displayType` and `pinned`.
    mutating func lookup(
        _ key: String, includeUserdata: Bool = false, expected: String, accept: (JSONValue) -> Bool
    ) -> (value: JSONValue, path: String)? {
        guard
            let (value, level) = lookupLevel(
                key, includeUserdata: includeUserdata, expected: expected, accept: accept)
        else { return nil }
        return (value, levels[level].path(of: key))
    }

    /// ``lookup(_:includeUserdata:expected:accept:)`` giving the index of the level the value was found in, so
    /// callers that only need the path for a finding build it only then.
    mutating func lookupLevel(
        _ key: String, includeUserdata: Bool = false, expected: String, accept: (JSONValue) -> Bool
    ) -> (value: JSONValue, level: Int)? {
        for (index, level) in levels.enumerated() where includeUserdata || level.name != .userdata {
            guard let value = level.object[key], value != .null else { continue }
            if accept(value) { return (value, index) }
            let path = level.path(of: key)
            add(
                .warning, CardFindingCode.wrongType,
                "\(key) is \(value.typeName), expected \(expected): the SDK skips it", path: path)
        }
        return nil
    }

    /// An optional string member: empty counts as absent; another type is absent too, and reported.
    /// Name and path are built only for the finding.
    mutating func optionalString(
        _ value: JSONValue?, name: @autoclosure () -> String, path: @autoclosure () -> String
    ) -> String? {
        switch value {
        case .string(let text)?: return text.isEmpty ? nil : text
        case nil, .null?: return nil
        case let other?:
            add(
                .warning, CardFindingCode.wrongType, "\(name()) is \(other.typeName), expected a string: ignored",
                path: path())
            return nil
        }
    }

    /// What org.json's `optString` makes of a member (Android decoders): strings as they are, `null` as "null",
    /// other values as their JSON text; `nil` when absent. A non-string gets a `card.stringified` finding.
    mutating func orgJSONString(
        _ value: JSONValue?, name: @autoclosure () -> String, path: @autoclosure () -> String
    ) -> String? {
        switch value {
        case nil: return nil
        case .string(let text)?: return text
        case let other?:
            let text = Self.orgJSONText(other)
            add(
                .warning, CardFindingCode.stringified,
                "\(name()) is \(other.typeName): the Android SDK reads it as the text \"\(Redact.value(text))\"",
                path: path())
            return text
        }
    }

    /// org.json's text of a value (`optString`, `get(key).toString()`): a string as it is, `null` as "null",
    /// anything else as its JSON text (`5` → "5").
    static func orgJSONText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number): number.text
        case .array, .object: value.serialized()
        }
    }

    /// `carousel` → usable slides and the carousel's path; every element is recorded in ``slideRecords``.
    /// iOS: a non-empty string `image` (any string), at most five on 7.2. Android: an `image` with an http(s)
    /// prefix (case-insensitive; Glide would load `file://`), at most 10 (6.12) or 5 (6.13).
    mutating func decodeCarousel() -> (slides: [Slide], path: String) {
        slideRecords = []
        guard let (value, path) = lookup("carousel", expected: "an array", accept: { $0.arrayValue != nil }),
            case .array(let elements) = value
        else { return ([], "") }
        let android = platform == .android
        let cap: Int? = android ? androidProfile.slideCap : profile.slideCap
        var slides: [Slide] = []
        var capped = 0
        for (index, element) in elements.enumerated() {
            // Paths are built only for findings; the slide keeps its index for the asset's path.
            func slidePath() -> String { JSONPath.index(path, index) }
            func drop(_ reason: String, image: String? = nil, title: String? = nil) {
                slideRecords.append(
                    SlideRecord(
                        index: index, position: nil, image: image, title: title, url: nil, droppedReason: reason))
            }
            if android, let cap, slides.count == cap {
                // Android stops reading at the cap (`break`): later elements are not even looked at.
                capped += 1
                drop(
                    "beyond the \(cap)-slide cap", image: element["image"]?.stringValue,
                    title: element["title"]?.stringValue)
                continue
            }
            guard case .object(let object) = element else {
                add(
                    .warning, CardFindingCode.slideDropped,
                    "slide \(index) is \(element.typeName), not an object: dropped", path: slidePath())
                drop("not an object")
                continue
            }
            let image: String
            if android {
                // org.json `optString`: a non-string image becomes its text, which then fails the http(s) test.
                let text = object["image"].map(Self.orgJSONText) ?? ""
                guard !text.isEmpty, URLCheck.hasHTTPPrefixIgnoringCase(text) else {
                    let why = text.isEmpty ? "no non-empty string image" : "an image that is not http(s)"
                    add(
                        .warning, CardFindingCode.slideDropped,
                        "slide \(index) has \(why): the Android SDK drops it (it takes no slot)",
                        path: JSONPath.key(slidePath(), "image"))
                    drop(text.isEmpty ? "no image" : "image not http(s)", image: text.isEmpty ? nil : text)
                    continue
                }
                image = text
            } else {
                guard case .string(let text)? = object["image"], !text.isEmpty else {
                    add(
                        .warning, CardFindingCode.slideDropped,
                        "slide \(index) has no non-empty string image: dropped (it takes no slot)",
                        path: JSONPath.key(slidePath(), "image"))
                    drop("no image")
                    continue
                }
                image = text
                if let cap, slides.count == cap {
                    // Only usable slides take a slot; the rest are dropped.
                    capped += 1
                    drop("beyond the \(cap)-slide cap", image: image, title: object["title"]?.stringValue)
                    continue
                }
            }
            var title: String?
            if android {
                title = orgJSONString(
                    object["title"], name: "slide \(index) title", path: JSONPath.key(slidePath(), "title"))
                if title == "" { title = nil }
            } else {
                title = optionalString(
                    object["title"], name: "slide \(index) title", path: JSONPath.key(slidePath(), "title"))
            }
            let url = slideURL(object["url"], index: index, path: JSONPath.key(slidePath(), "url"))
            slideRecords.append(
                SlideRecord(
                    index: index, position: slides.count, image: image, title: title, url: url, droppedReason: nil))
            slides.append(Slide(image: image, title: title, url: url, jsonIndex: index))
        }
        if capped > 0, let cap {
            let text =
                android
                ? "Android SDK \(androidProfile) shows at most \(cap) slides and reads no further: "
                    + "\(capped) more element(s) dropped"
                : "\(slides.count + capped) usable slides: SDK \(profile) shows at most \(cap), \(capped) dropped"
            add(.warning, CardFindingCode.slidesCapped, text, path: path)
        }
        return (slides, path)
    }

    /// A slide's own tap target. iOS: kept when it parses and has a scheme. Android: kept when non-empty with a
    /// scheme (`Uri.parse(url).scheme != null`: any text before a `:`).
    private mutating func slideURL(_ value: JSONValue?, index: Int, path: @autoclosure () -> String) -> String? {
        if platform == .android {
            guard let text = orgJSONString(value, name: "slide \(index) url", path: path()), !text.isEmpty else {
                return nil
            }
            guard URLCheck.androidScheme(text) != nil else {
                add(
                    .warning, CardFindingCode.slideURLInvalid,
                    "slide \(index) url \"\(Redact.value(text))\" has no scheme: a tap runs the message's row action",
                    path: path())
                return nil
            }
            if let refusal = URLCheck.androidRefusal(text) {
                add(
                    .warning, CardFindingCode.unsafeURL,
                    "slide \(index) url has \(refusal): the Android SDK refuses to open it (isSafeUrl)", path: path())
            }
            return text
        }
        switch value {
        case .string(let text)? where URLCheck.parses(text) && URLCheck.scheme(text) != nil:
            if let scheme = URLCheck.unsafeScheme(text) {
                add(
                    .warning, CardFindingCode.unsafeURL,
                    "slide \(index) url has scheme \(scheme): the SDK refuses to open it", path: path())
            }
            return text
        case nil, .null?: return nil
        case let other?:
            let what =
                other.stringValue.map { "\"\(Redact.value($0))\" does not parse or has no scheme" }
                ?? "is \(other.typeName)"
            add(
                .warning, CardFindingCode.slideURLInvalid,
                "slide \(index) url \(what): a tap runs the message's default action", path: path())
            return nil
        }
    }

    /// `video` → the stream URL (http/https) and the optional poster. iOS: the url parses with an http(s) scheme;
    /// Android: an http(s) prefix, case-insensitive (`InboxVideoContent`).
    mutating func decodeVideo() -> (url: String, urlPath: String, poster: String?, posterPath: String)? {
        guard let (value, path) = lookup("video", expected: "an object", accept: { $0.objectValue != nil }),
            case .object(let object) = value
        else { return nil }
        let urlPath = JSONPath.key(path, "url")
        let posterPath = JSONPath.key(path, "poster")
        if platform == .android {
            let url = orgJSONString(object["url"], name: "video url", path: urlPath) ?? ""
            guard !url.isEmpty, URLCheck.hasHTTPPrefixIgnoringCase(url) else {
                let found = url.isEmpty ? "is missing or empty" : "\(Redact.value(url)) does not start with http(s)://"
                add(.warning, CardFindingCode.videoInvalid, "video url \(found): no video descriptor", path: urlPath)
                return nil
            }
            var poster = orgJSONString(object["poster"], name: "video poster", path: posterPath)
            if poster == "" { poster = nil }
            return (url, urlPath, poster, posterPath)
        }
        guard case .string(let url)? = object["url"], !url.isEmpty else {
            let found = object["url"].map { "is \($0.typeName)" } ?? "is missing"
            add(.warning, CardFindingCode.videoInvalid, "video url \(found): no video descriptor", path: urlPath)
            return nil
        }
        guard URLCheck.isHTTP(url) else {
            add(
                .warning, CardFindingCode.videoInvalid,
                "video url \(Redact.value(url)) is not an http/https URL: no video descriptor",
                path: urlPath)
            return nil
        }
        var poster: String?
        poster = optionalString(object["poster"], name: "video poster", path: posterPath)
        return (url, urlPath, poster, posterPath)
    }

    /// `wallet` → the pass URL: a URL string or `{"pass": url}`, http/https only.
    mutating func decodeWallet() -> (url: String, path: String)? {
        guard
            let (value, path) = lookup(
                "wallet", expected: "a URL string or {\"pass\": URL}",
                accept: { $0.stringValue != nil || $0.objectValue != nil })
        else { return nil }
        var url = value.stringValue
        var urlPath = path
        if case .object(let object) = value {
            urlPath = JSONPath.key(path, "pass")
            url = object["pass"]?.stringValue
        }
        guard let url, !url.isEmpty else {
            add(.warning, CardFindingCode.walletInvalid, "wallet has no pass URL string", path: urlPath)
            return nil
        }
        guard URLCheck.isHTTP(url) else {
            add(
                .warning, CardFindingCode.walletInvalid, "wallet pass \(Redact.value(url)) is not an http/https URL",
                path: urlPath)
            return nil
        }
        return (url, urlPath)
    }

    /// `buttons` → the buttons the SDK builds, reporting drops and unsafe or scheme-less URLs.
    /// - Parameter report: whether to report details (only for cards that render the buttons).
    mutating func decodeButtons(report: Bool) -> (buttons: [CardButton], paths: [String], path: String)? {
        let mark = findingMark
        guard let (value, path) = lookup("buttons", expected: "an array", accept: { $0.arrayValue != nil }),
            case .array(let elements) = value
        else { return nil }
        var buttons: [CardButton] = []
        var paths: [String] = []
        for (index, element) in elements.enumerated() {
            let buttonPath = JSONPath.index(path, index)
            guard case .object(let object) = element else {
                add(
                    .warning, CardFindingCode.buttonDropped, "button \(index) is \(element.typeName): dropped",
                    path: buttonPath)
                continue
            }
            let title: String
            let token: String?
            if platform == .android {
                // org.json `optString`: a number title is drawn as its text.
                let text =
                    orgJSONString(
                        object["title"], name: "button \(index) title", path: JSONPath.key(buttonPath, "title"))
                    ?? ""
                guard !text.isEmpty else {
                    add(
                        .warning, CardFindingCode.buttonDropped, "button \(index) has no non-empty title: dropped",
                        path: JSONPath.key(buttonPath, "title"))
                    continue
                }
                title = text
                token =
                    orgJSONString(
                        object["action"], name: "button \(index) action", path: JSONPath.key(buttonPath, "action"))?
                    .lowercased()
            } else {
                guard case .string(let text)? = object["title"], !text.isEmpty else {
                    add(
                        .warning, CardFindingCode.buttonDropped,
                        "button \(index) has no non-empty string title: dropped",
                        path: JSONPath.key(buttonPath, "title"))
                    continue
                }
                title = text
                token = optionalString(
                    object["action"], name: "button \(index) action", path: JSONPath.key(buttonPath, "action"))?
                    .lowercased()
            }
            let action: CardButton.Action
            if token == "dismiss" {
                action = .dismiss
            } else if token == "markread" {
                action = .markRead
            } else {
                action = buttonURLAction(object, index: index, path: buttonPath, token: token)
            }
            buttons.append(CardButton(title: title, action: action))
            paths.append(buttonPath)
        }
        if buttons.count > 3 {
            let what =
                platform == .android
                ? "the Android SDK draws the first three (MAX_BUTTONS), \(buttons.count - 3) never show"
                : "the docs allow three, the SDK squeezes all of them into one row"
            add(.warning, CardFindingCode.tooManyButtons, "\(buttons.count) buttons: \(what)", path: path)
        }
        if !report { rollBack(to: mark) }
        return (buttons, paths, path)
    }

    /// What a custom button hands the delegate: every key but `title` and `action`.
    private func payload(of object: JSONObject) -> JSONObject {
        JSONObject(object.filter { $0.key != "title" && $0.key != "action" }.map { ($0.key, $0.value) })
    }

    private mutating func buttonURLAction(
        _ object: JSONObject, index: Int, path: String, token: String?
    ) -> CardButton.Action {
        let urlPath = JSONPath.key(path, "url")
        if platform == .android {
            let url = orgJSONString(object["url"], name: "button \(index) url", path: urlPath) ?? ""
            guard !url.isEmpty else { return .custom(payload: payload(of: object)) }
            guard URLCheck.androidScheme(url) != nil else {
                add(
                    .warning, CardFindingCode.buttonURLInvalid,
                    "button \(index) url \(Redact.value(url)) has no scheme: the Android SDK makes it a custom button",
                    path: urlPath)
                return .custom(payload: payload(of: object))
            }
            if let refusal = URLCheck.androidRefusal(url) {
                add(
                    .warning, CardFindingCode.unsafeURL,
                    "button \(index) url has \(refusal): the Android SDK refuses to open it (isSafeUrl)", path: urlPath)
            }
            return .openURL(url)
        }
        guard case .string(let url)? = object["url"], !url.isEmpty else { return .custom(payload: payload(of: object)) }
        guard URLCheck.parses(url), !profile.buttonURLNeedsScheme || URLCheck.scheme(url) != nil else {
            add(
                .warning, CardFindingCode.buttonURLInvalid,
                "button \(index) url \(Redact.value(url)) does not parse\(profile.buttonURLNeedsScheme ? " or has no scheme" : ""): "
                    + "the SDK makes it a custom button", path: urlPath)
            return .custom(payload: payload(of: object))
        }
        if let scheme = URLCheck.unsafeScheme(url) {
            add(
                .warning, CardFindingCode.unsafeURL,
                "button \(index) url has scheme \(scheme): the SDK refuses to open it", path: urlPath)
        }
        if token == "custom" {
            add(
                .warning, CardFindingCode.buttonCustomWithURL,
                "button \(index) says action custom but has a url: the docs promise custom, the SDK opens the url",
                path: JSONPath.key(path, "action"))
        }
        return .openURL(url)
    }
}
