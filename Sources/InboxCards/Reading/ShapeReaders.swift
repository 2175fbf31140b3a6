import Findings
import StrictJSON

/// Shared decoding of the fields every input shape has, collecting the message's findings.
struct FieldDecoder {
    let options: ReaderOptions
    private var kept: [Finding] = []
    private var suppressed = 0

    init(options: ReaderOptions) {
        self.options = options
    }

    mutating func add(_ severity: Severity, _ code: String, _ message: String, path: String) {
        guard kept.count < FindingBudget.perMessage else {
            suppressed += 1
            return
        }
        kept.append(.redacted(severity, code, message, path: path))
    }

    /// The message's findings, ending with one `input.findingsTruncated` when some were not kept.
    var findings: [Finding] {
        guard suppressed > 0 else { return kept }
        return kept + [
            .info(
                CardFindingCode.inputFindingsTruncated,
                "\(suppressed) more findings not shown (at most \(FindingBudget.perMessage) a message)", path: nil)
        ]
    }

    mutating func wrongType(_ value: JSONValue, expected: String, path: String) {
        add(.warning, CardFindingCode.inputWrongType, "\(path) is \(value.typeName), expected \(expected)", path: path)
    }

    /// A string field; `null` counts as absent, another type is a finding. Paths are autoclosures: they are
    /// only built when a finding needs them (reading stays allocation-light on clean input).
    mutating func string(_ value: JSONValue?, path: @autoclosure () -> String) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?:
            wrongType(other, expected: "a string", path: path())
            return nil
        }
    }

    /// A message code: a string, or a number written as its JSON text.
    mutating func code(_ value: JSONValue?, path: @autoclosure () -> String) -> String? {
        if case .number(let number)? = value { return number.text }
        return string(value, path: path())
    }

    /// A title or body: a string, or a per-language object of strings.
    mutating func text(_ value: JSONValue?, path: @autoclosure () -> String) -> MessageText? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return MessageText(plain: text)
        case .object(let object)?:
            var entries: [MessageText.Entry] = []
            for (language, value) in object {
                guard case .string(let text) = value else {
                    if value != .null { wrongType(value, expected: "a string", path: JSONPath.key(path(), language)) }
                    continue
                }
                if let existing = entries.firstIndex(where: { $0.language == language }) {
                    entries[existing].text = text  // duplicate key: the last one wins, as everywhere
                } else {
                    entries.append(MessageText.Entry(language: language, text: text))
                }
            }
            if entries.isEmpty {
                let location = path()
                add(.warning, CardFindingCode.inputWrongType, "\(location) has no per-language string", path: location)
                return nil
            }
            return MessageText(entries: entries)
        case let other?:
            wrongType(other, expected: "a string or a per-language object", path: path())
            return nil
        }
    }

    /// Custom data as the device gets it under `u`: an object, or a JSON-encoded object string.
    mutating func customData(
        _ value: JSONValue?, path makePath: @autoclosure () -> String
    ) -> (level: ParamLevel?, form: InboxMessage.CustomDataForm) {
        guard let value, !value.isNull else { return (nil, .absent) }  // most messages: no path built
        let path = makePath()
        switch value {
        case .null: return (nil, .absent)
        case .object(let object): return (ParamLevel(name: .u, object: object, path: path), .object)
        case .string(let text):
            guard let object = parseObject(text, path: path, code: CardFindingCode.customDataInvalid) else {
                return (nil, .jsonString)
            }
            return (ParamLevel(name: .u, object: object, path: path), .jsonString)
        case let other:
            add(
                .warning, CardFindingCode.customDataInvalid,
                "\(path) is \(other.typeName), expected an object or a JSON-encoded object: the SDK ignores it",
                path: path)
            return (nil, .absent)
        }
    }

    /// Parses a JSON-encoded object the SDK would decode with JSONSerialization; anything else is a finding.
    mutating func parseObject(_ text: String, path makePath: @autoclosure () -> String, code: String) -> JSONObject? {
        do {
            let value = try Self.parse(text, options: JSONParseOptions(maxDepth: options.maxDepth))
            guard case .object(let object) = value else {
                let path = makePath()
                add(
                    .warning, code,
                    "\(path) is a JSON string holding \(value.typeName), not an object: the SDK ignores it",
                    path: path)
                return nil
            }
            return object
        } catch {
            let path = makePath()
            add(
                .warning, code, "\(path) is a string that is not JSON (\(error.description)): the SDK ignores it",
                path: path)
            return nil
        }
    }

    /// Parses a string's UTF-8 in place when it is contiguous (native strings are), else from a copy.
    static func parse(_ text: String, options: JSONParseOptions) throws(JSONParseError) -> JSONValue {
        let inPlace: Result<JSONValue, JSONParseError>? = text.utf8.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try JSON.parse(UnsafeRawBufferPointer(buffer), options: options) }
        }
        guard let inPlace else { return try JSON.parse(text, options: options) }
        return try inPlace.get()
    }

    /// The `userdata` object at the actionParams root (only `displayType` and `pinned` look there).
    mutating func userdata(in root: ParamLevel) -> ParamLevel? {
        switch root.object["userdata"] {
        case .object(let object)?:
            return ParamLevel(name: .userdata, object: object, path: JSONPath.key(root.path, "userdata"))
        case nil, .null?: return nil
        case let other?:
            wrongType(other, expected: "an object", path: JSONPath.key(root.path, "userdata"))
            return nil
        }
    }

    /// root, u (object or JSON string), userdata — in the SDK's lookup order.
    mutating func levels(root: ParamLevel) -> (levels: [ParamLevel], form: InboxMessage.CustomDataForm) {
        var levels = [root]
        let (u, form) = customData(root.object["u"], path: JSONPath.key(root.path, "u"))
        if let u { levels.append(u) }
        if let userdata = userdata(in: root) { levels.append(userdata) }
        return (levels, form)
    }
}

/// A createMessage notification.
enum NotificationReader {
    /// Request fields whose values the device gets at the actionParams root, on both platforms.
    static let sharedRootFields = [("link", "l"), ("rich_media", "rm")]
    /// Keys the card rules read at the actionParams root: when one arrives through `*_root_params` only, the card
    /// depends on the push-delivered copy of the message.
    static let cardKeys: Set<String> = [
        "displayType", "carousel", "video", "wallet", "buttons", "pinned", "attachment", "image", "b", "u",
    ]

    static func read(_ object: JSONObject, id: String, path: String, options: ReaderOptions) -> InboxMessage {
        var decoder = FieldDecoder(options: options)
        func key(_ name: String) -> String { JSONPath.key(path, name) }

        let shared = decoder.text(object["title"], path: key("title"))
        // iOS shows `ios_title`, Android `android_header`, when they are set; `title` otherwise. "Ignored if
        // platform-specific titles are specified" (createMessage docs): an empty platform title is specified, so
        // it wins and the card has no title. That is the reading to warn about (the marketer meant `title`).
        var iosFindings: [Finding] = []
        var androidFindings: [Finding] = []
        let (iosTitle, iosTitlePath) = platformTitle(
            "ios_title", object: object, shared: shared, path: path, decoder: &decoder, findings: &iosFindings)
        let (androidTitle, androidTitlePath) = platformTitle(
            "android_header", object: object, shared: shared, path: path, decoder: &decoder,
            findings: &androidFindings)
        let body = decoder.text(object["content"], path: key("content"))
        let image = decoder.string(object["inbox_image"], path: key("inbox_image"))

        let eligible = ["inbox_image", "inbox_date", "inbox_days"].contains { name in
            guard let value = object[name] else { return false }
            return value != .null
        }
        var delivery = Delivery()
        checkInboxDays(object["inbox_days"], path: key("inbox_days"), decoder: &decoder)
        if let value = object["inbox_date"], value != .null {
            delivery.inboxDate = Delivery.Field(value: value, path: key("inbox_date"))
        }
        if let value = object["send_date"], value != .null {
            delivery.sendDate = Delivery.Field(value: value, path: key("send_date"))
        }

        // The device gets `data` as `u`, `link` as `l`, `rich_media` as `rm`; the iOS payload gets `ios_attachment`
        // as `attachment` and the `ios_root_params` keys at its root, the Android payload `android_banner` as `b`
        // and the `android_root_params` keys (help-centre "Push Notification payload keys").
        let (u, form) = decoder.customData(object["data"], path: key("data"))
        func root(platformField: (String, String), rootParams: String, findings: inout [Finding]) -> ParamLevel {
            var rootObject = JSONObject()
            var aliases: [String: String] = [:]
            var viaRootParams: [String] = []
            switch object[rootParams] {
            case .object(let params)?:
                for (name, value) in params where value != .null {
                    rootObject[name] = value
                    aliases[name] = JSONPath.key(key(rootParams), name)
                    if cardKeys.contains(name) { viaRootParams.append(name) }
                }
            case nil, .null?: break
            case let other?: decoder.wrongType(other, expected: "an object", path: key(rootParams))
            }
            for (field, rootKey) in sharedRootFields + [platformField] {
                if let value = object[field], value != .null {
                    rootObject[rootKey] = value
                    aliases[rootKey] = key(field)
                    viaRootParams.removeAll { $0 == rootKey }
                }
            }
            if !viaRootParams.isEmpty {
                findings.append(
                    .redacted(
                        .warning, CardFindingCode.rootParams,
                        "\(viaRootParams.joined(separator: ", ")) from \(rootParams) reach actionParams when the inbox "
                            + "entry comes from the push; whether the copy the inbox loads from the server carries "
                            + "them is not documented (unverified): the card may render differently from there",
                        path: key(rootParams)))
            }
            return ParamLevel(name: .root, object: rootObject, path: path, aliases: aliases)
        }
        var iosLevels = [
            root(platformField: ("ios_attachment", "attachment"), rootParams: "ios_root_params", findings: &iosFindings)
        ]
        var androidLevels = [
            root(platformField: ("android_banner", "b"), rootParams: "android_root_params", findings: &androidFindings)
        ]
        if let u {
            iosLevels.append(u)
            androidLevels.append(u)
        }

        let targets = targets(object["platforms"], path: key("platforms"), decoder: &decoder)
        var message = InboxMessage(
            id: id, shape: .createMessage, path: path, code: nil, title: iosTitle, body: body,
            imageURL: image, imagePath: key("inbox_image"), reachesInbox: eligible, targets: targets,
            customDataForm: form, findings: decoder.findings, levels: iosLevels, titlePath: iosTitlePath,
            bodyPath: key("content"))
        message.iosFindings = iosFindings
        message.android = AndroidReading(
            title: .some(androidTitle), body: nil, titlePath: androidTitlePath, bodyPath: nil, levels: androidLevels,
            findings: androidFindings)
        message.delivery = delivery
        return message
    }

    /// The title one platform shows: its own field (`ios_title`, `android_header`) when set, else `title`.
    private static func platformTitle(
        _ field: String, object: JSONObject, shared: MessageText?, path: String, decoder: inout FieldDecoder,
        findings: inout [Finding]
    ) -> (MessageText?, String) {
        let fieldPath = JSONPath.key(path, field)
        guard let own = decoder.text(object[field], path: fieldPath) else {
            return (shared, JSONPath.key(path, "title"))
        }
        if own.plain == "", shared != nil {
            findings.append(
                .redacted(
                    .warning, CardFindingCode.emptyPlatformTitle,
                    "\(field) is empty: \"title\" is ignored when a platform-specific title is specified "
                        + "(createMessage docs), so the card shows no title; remove \(field) to show title",
                    path: fieldPath))
        }
        return (own, fieldPath)
    }

    /// Pushwoosh keeps inbox messages at most 30 days.
    static func checkInboxDays(_ value: JSONValue?, path: String, decoder: inout FieldDecoder) {
        switch value {
        case nil, .null?: return
        case .number(let number)?:
            guard let days = number.intValue else {
                decoder.add(
                    .warning, CardFindingCode.inboxDays, "inbox_days \(number.text) is not a whole number", path: path)
                return
            }
            if days > 30 {
                decoder.add(
                    .warning, CardFindingCode.inboxDays,
                    "inbox_days \(days) is above the maximum of 30: the inbox keeps the message 30 days at most",
                    path: path)
            } else if days < 1 {
                decoder.add(.warning, CardFindingCode.inboxDays, "inbox_days \(days) is below 1", path: path)
            }
        case let other?:
            decoder.wrongType(other, expected: "a number of days (1–30)", path: path)
        }
    }

    /// `platforms` codes → the modelled platforms; absent (or unusable) = every platform of the app.
    static func targets(_ value: JSONValue?, path: String, decoder: inout FieldDecoder) -> Set<Platform>? {
        switch value {
        case nil, .null?: return nil
        case .array(let codes)?:
            var platforms = Set<Platform>()
            for (index, code) in codes.enumerated() {
                guard case .number(let number) = code, let value = number.intValue else {
                    decoder.wrongType(code, expected: "a platform code number", path: JSONPath.index(path, index))
                    continue
                }
                if let platform = Platform.fromPushwooshCode(value) { platforms.insert(platform) }
            }
            return platforms
        case let other?:
            decoder.wrongType(other, expected: "an array of platform codes", path: path)
            return nil
        }
    }
}

/// A message of the inbox feed (`getInboxMessages`).
enum FeedReader {
    /// The keys both SDKs require of a feed message (Android `InboxMessageInternal.setJsonObject`, iOS
    /// `validateDictionary`); a message without one is dropped.
    static let requiredKeys = ["inbox_id", "order", "rt", "text", "action_type", "status"]

    static func read(_ object: JSONObject, id: String, path: String, options: ReaderOptions) -> InboxMessage {
        var decoder = FieldDecoder(options: options)
        func key(_ name: String) -> String { JSONPath.key(path, name) }
        func paramsPath() -> String { key("action_params") }
        var levels: [ParamLevel] = []
        var androidLevels: [ParamLevel]?
        var iosFindings: [Finding] = []
        var form = InboxMessage.CustomDataForm.absent
        switch object["action_params"] {
        case nil, .null?: break
        case .string(let text)?:
            if let params = decoder.parseObject(text, path: paramsPath(), code: CardFindingCode.actionParamsInvalid) {
                (levels, form) = decoder.levels(
                    root: ParamLevel(name: .root, object: params, parent: path, key: "action_params"))
            }
        case .object(let params)?:
            // The wire format is a JSON string. The iOS SDK does not decode an object here; Android's org.json
            // `getString` returns the object's JSON text, which `InboxCardKind.parseActionParams` parses again.
            iosFindings.append(
                .redacted(
                    .warning, CardFindingCode.actionParamsObject,
                    "action_params is an object, not a JSON-encoded string: the iOS SDK sees no actionParams "
                        + "(no displayType, custom data, buttons or pinning); Android reads it", path: paramsPath()))
            (androidLevels, form) = decoder.levels(
                root: ParamLevel(name: .root, object: params, parent: path, key: "action_params"))
        case let other?:
            decoder.add(
                .warning, CardFindingCode.actionParamsInvalid,
                "action_params is \(other.typeName), expected a JSON-encoded object: the SDK sees no actionParams",
                path: paramsPath())
        }
        var delivery = Delivery()
        delivery.missingFeedKeys = requiredKeys.filter { object[$0] == nil }
        delivery.status = object["status"].map { Delivery.Field(value: $0, path: key("status")) }
        delivery.actionType = object["action_type"].map { Delivery.Field(value: $0, path: key("action_type")) }
        delivery.order = object["order"].map { Delivery.Field(value: $0, path: key("order")) }
        delivery.expiry = object["rt"].map { Delivery.Field(value: $0, path: key("rt")) }
        delivery.sendDate = object["send_date"].map { Delivery.Field(value: $0, path: key("send_date")) }
        var message = InboxMessage(
            id: id, shape: .feed, path: path, code: decoder.code(object["inbox_id"], path: key("inbox_id")),
            title: decoder.text(object["title"], path: key("title")),
            body: decoder.text(object["text"], path: key("text")),
            imageURL: decoder.string(object["image"], path: key("image")), imagePath: key("image"),
            reachesInbox: true, targets: nil, customDataForm: form, findings: decoder.findings, levels: levels,
            titlePath: key("title"), bodyPath: key("text"))
        message.iosFindings = iosFindings
        message.android.levels = androidLevels
        message.delivery = delivery
        return message
    }
}

/// The userInfo of a delivered push: `pw_inbox`, `inbox_params.image`, `aps.alert`, `u` at the root.
enum PushReader {
    static func read(_ object: JSONObject, id: String, path: String, options: ReaderOptions) -> InboxMessage {
        var decoder = FieldDecoder(options: options)
        func key(_ name: String) -> String { JSONPath.key(path, name) }
        var title: MessageText?
        var body: MessageText?
        let alertPath = JSONPath.key(key("aps"), "alert")
        var bodyPath = JSONPath.key(alertPath, "body")
        switch object["aps"] {
        case .object(let aps)?:
            switch aps["alert"] {
            case .object(let alert)?:
                title = decoder.text(alert["title"], path: JSONPath.key(alertPath, "title"))
                body = decoder.text(alert["body"], path: JSONPath.key(alertPath, "body"))
            case let other?:
                body = decoder.text(other, path: alertPath)
                bodyPath = alertPath
            case nil: break
            }
        case nil, .null?: break
        case let other?: decoder.wrongType(other, expected: "an object", path: key("aps"))
        }
        // `inbox_params` is an object in an iOS userInfo and a JSON string in an Android bundle.
        let paramsPath = key("inbox_params")
        var image: String?
        var delivery = Delivery()
        delivery.source = .push
        var params: JSONObject?
        switch object["inbox_params"] {
        case .object(let object)?: params = object
        case .string(let text)?:
            params = decoder.parseObject(text, path: paramsPath, code: CardFindingCode.inputWrongType)
        case nil, .null?: break
        case let other?: decoder.wrongType(other, expected: "an object", path: paramsPath)
        }
        if let params {
            image = decoder.string(params["image"], path: JSONPath.key(paramsPath, "image"))
            delivery.expiry = params["rt"].map { Delivery.Field(value: $0, path: JSONPath.key(paramsPath, "rt")) }
        }
        delivery.sendDate = object["send_date"].map { Delivery.Field(value: $0, path: key("send_date")) }
        let code = decoder.code(object["pw_inbox"], path: key("pw_inbox"))
        let (levels, form) = decoder.levels(root: ParamLevel(name: .root, object: object, path: path))
        // Android's `InboxPayloadDataProvider`: the title is the bundle's `header`, the body its `title`.
        let androidTitle = decoder.text(object["header"], path: key("header"))
        let androidBody = decoder.text(object["title"], path: key("title"))
        var message = InboxMessage(
            id: id, shape: .push, path: path, code: code, title: title, body: body, imageURL: image,
            imagePath: JSONPath.key(paramsPath, "image"), reachesInbox: code != nil, targets: nil,
            customDataForm: form, findings: decoder.findings, levels: levels,
            titlePath: JSONPath.key(alertPath, "title"),
            bodyPath: bodyPath)
        message.android = AndroidReading(
            title: .some(androidTitle), body: .some(androidBody), titlePath: key("header"), bodyPath: key("title"),
            levels: nil, findings: [])
        message.delivery = delivery
        return message
    }
}
