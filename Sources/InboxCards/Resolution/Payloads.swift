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
        return (value, message.levels[level].path(of: key))
    }

    /// ``lookup(_:includeUserdata:expected:accept:)`` giving the index of the level the value was found in, so
    /// callers that only need the path for a finding build it only then.
    mutating func lookupLevel(
        _ key: String, includeUserdata: Bool = false, expected: String, accept: (JSONValue) -> Bool
    ) -> (value: JSONValue, level: Int)? {
        for (index, level) in message.levels.enumerated() where includeUserdata || level.name != .userdata {
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

    /// `carousel` → usable slides (non-empty string `image`), capped at five on 7.2, and the carousel's path.
    mutating func decodeCarousel() -> (slides: [Slide], path: String) {
        guard let (value, path) = lookup("carousel", expected: "an array", accept: { $0.arrayValue != nil }),
            case .array(let elements) = value
        else { return ([], "") }
        var slides: [Slide] = []
        var capped = 0
        for (index, element) in elements.enumerated() {
            // Paths are built only for findings; the slide keeps its index for the asset's path.
            func slidePath() -> String { JSONPath.index(path, index) }
            guard case .object(let object) = element else {
                add(
                    .warning, CardFindingCode.slideDropped,
                    "slide \(index) is \(element.typeName), not an object: dropped", path: slidePath())
                continue
            }
            guard case .string(let image)? = object["image"], !image.isEmpty else {
                add(
                    .warning, CardFindingCode.slideDropped,
                    "slide \(index) has no non-empty string image: dropped (it takes no slot)",
                    path: JSONPath.key(slidePath(), "image"))
                continue
            }
            if let cap = profile.slideCap, slides.count == cap {
                capped += 1
                continue
            }
            var title: String?
            title = optionalString(
                object["title"], name: "slide \(index) title", path: JSONPath.key(slidePath(), "title"))
            var url: String?
            switch object["url"] {
            case .string(let text)? where URLCheck.parses(text) && URLCheck.scheme(text) != nil:
                url = text
                if let scheme = URLCheck.unsafeScheme(text) {
                    add(
                        .warning, CardFindingCode.unsafeURL,
                        "slide \(index) url has scheme \(scheme): the SDK refuses to open it",
                        path: JSONPath.key(slidePath(), "url"))
                }
            case nil, .null?: break
            case let other?:
                let what =
                    other.stringValue.map { "\"\(Redact.value($0))\" does not parse or has no scheme" }
                    ?? "is \(other.typeName)"
                add(
                    .warning, CardFindingCode.slideURLInvalid,
                    "slide \(index) url \(what): a tap runs the message's default action",
                    path: JSONPath.key(slidePath(), "url"))
            }
            slides.append(Slide(image: image, title: title, url: url, jsonIndex: index))
        }
        if capped > 0 {
            add(
                .warning, CardFindingCode.slidesCapped,
                "\(slides.count + capped) usable slides: SDK \(profile) shows at most \(slides.count), "
                    + "\(capped) dropped",
                path: path)
        }
        return (slides, path)
    }

    /// `video` → the stream URL (http/https) and the optional poster.
    mutating func decodeVideo() -> (url: String, urlPath: String, poster: String?, posterPath: String)? {
        guard let (value, path) = lookup("video", expected: "an object", accept: { $0.objectValue != nil }),
            case .object(let object) = value
        else { return nil }
        let urlPath = JSONPath.key(path, "url")
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
        let posterPath = JSONPath.key(path, "poster")
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
            guard case .string(let title)? = object["title"], !title.isEmpty else {
                add(
                    .warning, CardFindingCode.buttonDropped, "button \(index) has no non-empty string title: dropped",
                    path: JSONPath.key(buttonPath, "title"))
                continue
            }
            let token = optionalString(
                object["action"], name: "button \(index) action", path: JSONPath.key(buttonPath, "action"))?
                .lowercased()
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
            add(
                .warning, CardFindingCode.tooManyButtons,
                "\(buttons.count) buttons: the docs allow three, the SDK squeezes all of them into one row", path: path)
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
