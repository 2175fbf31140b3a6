import Findings
import StrictJSON

/// Works out the card each message becomes, per SDK profile × platform × language, exactly as
/// InboxKit does (`inboxkit-cards.md`).
///
/// Decisions the reference leaves open, made here:
/// - A createMessage notification whose `platforms` excludes a platform gets no card for it; when it
///   targets none of the resolved platforms the run reports `input.platformNotTargeted`.
/// - A per-language title or body lacking the language being resolved shows its `en` text
///   (`card.languageFallback`), else nothing (`card.languageMissing`).
/// - Android cards are produced once per message and language (`sdk` is `nil`): the Android inbox has no
///   profiles, no displayType and no forced kind. `requested` is the explicit displayType (else classic), and
///   the card is degraded when that is anything but classic.
/// - Lookups are typed, like the SDK's `as? T` chains: a value of the wrong type at one level is skipped
///   (`card.wrongType`) and the next level is tried. That is why an explicit `pinned: false` ends the
///   lookup while the string `"true"` does not.
public struct CardResolver: Sendable {
    /// Profiles, platforms and forced kind to resolve with.
    public var options: ResolveOptions

    /// A resolver; the default resolves for SDK 7.2 on iOS.
    public init(options: ResolveOptions = .init()) {
        self.options = options
    }

    /// Cards of every message that reaches the inbox, in message order, then language, platform, profile.
    public func resolve(_ messages: [InboxMessage]) -> [ResolvedCard] {
        var cards: [ResolvedCard] = []
        cards.reserveCapacity(messages.count * options.profiles.count)
        for message in messages { resolve(message, into: &cards) }
        return cards
    }

    /// The cards of one message (none for a plain push or an untargeted platform).
    public func resolve(_ message: InboxMessage) -> [ResolvedCard] {
        var cards: [ResolvedCard] = []
        resolve(message, into: &cards)
        return cards
    }

    /// Resolves a whole read: cards plus the input findings (and `input.platformNotTargeted` for messages
    /// that target none of the resolved platforms).
    public func run(_ batch: ReadBatch) -> ResolveRun {
        var cards: [ResolvedCard] = []
        cards.reserveCapacity(batch.messages.count * options.profiles.count)
        var inputFindings = batch.findings
        // Through the buffer: `for message in batch.messages` copies every message (a dozen retains) first.
        batch.messages.withUnsafeBufferPointer { messages in
            for index in messages.indices where messages[index].reachesInbox {
                let before = cards.count
                resolve(messages[index], into: &cards)
                if cards.count == before {
                    let wanted = options.platforms.map(\.rawValue).joined(separator: ", ")
                    inputFindings.append(
                        SourcedFinding(
                            source: messages[index].id,
                            finding: .info(
                                CardFindingCode.platformNotTargeted,
                                "platforms targets none of the resolved platforms (\(wanted)): no card",
                                path: JSONPath.key(messages[index].path, "platforms"))))
                }
            }
        }
        return ResolveRun(
            options: options, messagesRead: batch.messages.count, inputFindings: inputFindings, cards: cards)
    }

    private func resolve(_ message: InboxMessage, into cards: inout [ResolvedCard]) {
        guard message.reachesInbox else { return }
        let languages = message.languages
        let count = max(languages.count, 1)
        for position in 0..<count {
            let language = languages.isEmpty ? nil : languages[position]
            for platform in options.platforms where message.targets?.contains(platform) ?? true {
                switch platform {
                case .ios:
                    for profile in options.profiles {
                        var context = CardContext(message: message, profile: profile, language: language)
                        cards.append(context.resolveIOS(forceKind: options.forceKind))
                    }
                case .android:
                    var context = CardContext(message: message, profile: .latest, language: language)
                    cards.append(context.resolveAndroid())
                }
            }
        }
    }
}

/// The state of resolving one card: the message, the profile, and the findings so far.
struct CardContext {
    let message: InboxMessage
    let profile: SDKProfile
    let language: String?
    var findings: [Finding]
    /// Findings not kept because the card already has ``FindingBudget/perCard`` of them.
    var suppressed = 0

    init(message: InboxMessage, profile: SDKProfile, language: String?) {
        self.message = message
        self.profile = profile
        self.language = language
        self.findings = message.findings
    }

    /// Adds a finding unless the card's budget is spent; the findings that say what the card renders as
    /// are always kept.
    mutating func add(_ severity: Severity, _ code: String, _ message: String, path: String?) {
        guard findings.count < FindingBudget.perCard || FindingBudget.essential.contains(code) else {
            suppressed += 1
            return
        }
        findings.append(.redacted(severity, code, message, path: path))
    }

    /// A point to roll findings back to (decoding that must stay silent, e.g. buttons a kind does not render).
    var findingMark: (count: Int, suppressed: Int) { (findings.count, suppressed) }

    mutating func rollBack(to mark: (count: Int, suppressed: Int)) {
        findings.removeSubrange(mark.count...)
        suppressed = mark.suppressed
    }

    /// The card's findings, ending with one `card.findingsTruncated` when some were not kept.
    var finalFindings: [Finding] {
        guard suppressed > 0 else { return findings }
        return findings + [
            .info(
                CardFindingCode.findingsTruncated,
                "\(suppressed) more findings not shown (at most \(FindingBudget.perCard) a card)", path: nil)
        ]
    }

    // MARK: Message facts

    /// The title and body shown for this card's language, reporting fallbacks.
    mutating func texts() -> (title: String?, body: String?) {
        (
            text(message.title, name: "title", path: message.titlePath),
            text(message.body, name: "body", path: message.bodyPath)
        )
    }

    private mutating func text(_ text: MessageText?, name: String, path: String) -> String? {
        guard let text else { return nil }
        let (value, fellBack) = text.text(for: language)
        if let language, text.isPerLanguage {
            if fellBack {
                add(
                    .info, CardFindingCode.languageFallback,
                    "no \(Redact.value(language)) \(name): the \(MessageText.fallbackLanguage) text is shown",
                    path: path)
            } else if value == nil {
                add(
                    .warning, CardFindingCode.languageMissing,
                    "no \(Redact.value(language)) \(name) and no \(MessageText.fallbackLanguage) fallback: the card has no \(name)",
                    path: path)
            }
        }
        return value
    }

    /// The message image in the SDK's order: (7.2) `attachment`, `b` with an http(s) prefix; then
    /// `imageUrl`, root `image`, `u.image`. Any non-empty string counts (no URL check).
    mutating func image() -> (url: String, path: String)? {
        let root = message.root
        if profile.heroFromAttachment, let root {
            for key in ["attachment", "b"] {
                guard let text = nonEmptyString(root, key) else { continue }
                if URLCheck.hasHTTPPrefix(text) { return (text, root.path(of: key)) }
                add(
                    .info, CardFindingCode.heroIgnored,
                    "\(key) \"\(Redact.value(text))\" does not start with http:// or https://: SDK \(profile) ignores it as hero",
                    path: root.path(of: key))
            }
        }
        if let url = message.imageURL, !url.isEmpty { return (url, message.imagePath) }
        if let root, let url = nonEmptyString(root, "image") { return (url, root.path(of: "image")) }
        if let u = message.customData, let url = nonEmptyString(u, "image") { return (url, u.path(of: "image")) }
        return nil
    }

    private mutating func nonEmptyString(_ level: ParamLevel, _ key: String) -> String? {
        switch level.object[key] {
        case .string(let text)?: return text.isEmpty ? nil : text
        case nil, .null?: return nil
        case let other?:
            add(
                .warning, CardFindingCode.wrongType, "\(key) is \(other.typeName), expected a string: the SDK skips it",
                path: level.path(of: key))
            return nil
        }
    }

    /// `displayType`: the first string in root → u → userdata; lowercased, never trimmed. The path is only
    /// needed for findings: `path(ofDisplayTypeIn:)` builds it from the level.
    mutating func displayType() -> (raw: String, level: Int)? {
        guard
            let (value, level) = lookupLevel(
                "displayType", includeUserdata: true, expected: "a string", accept: { $0.stringValue != nil }),
            case .string(let raw) = value
        else { return nil }
        return (raw, level)
    }

    func path(ofDisplayTypeIn level: Int) -> String { message.levels[level].path(of: "displayType") }

    /// `pinned`: bool or number only; the first such value decides (an explicit `false` ends the lookup).
    mutating func pinned() -> Bool {
        for level in message.levels {
            switch level.object["pinned"] {
            case nil, .null?: continue
            case .bool(let value)?: return value
            case .number(let number)?: return number.doubleValue != 0
            case .string(let text)?:
                add(
                    .warning, CardFindingCode.pinnedNotBoolean,
                    "pinned is the string \"\(Redact.value(text))\": only true or 1 pin a message",
                    path: level.path(of: "pinned"))
            case let other?:
                add(
                    .warning, CardFindingCode.pinnedNotBoolean,
                    "pinned is \(other.typeName): only true or 1 pin a message", path: level.path(of: "pinned"))
            }
        }
        return false
    }

    func heuristic(hasImage: Bool, hasTitle: Bool, hasBody: Bool) -> CardKind {
        if hasImage && !hasTitle { return .banner }
        if hasImage && hasTitle && (hasBody || !profile.requiresTitleAndBody) { return .captioned }
        return .classic
    }

    // MARK: iOS

    mutating func resolveIOS(forceKind: CardKind?) -> ResolvedCard {
        let (title, body) = texts()
        let hasTitle = !(title ?? "").isEmpty
        let hasBody = !(body ?? "").isEmpty
        let image = image()
        let hasImage = image != nil
        let displayType = displayType()
        let lowered = displayType?.raw.lowercased()

        var requested = CardKind.classic
        var forced = false
        if let forceKind {
            if profile.knows(forceKind) {
                requested = forceKind
                forced = true
                add(
                    .info, CardFindingCode.forced,
                    "forceCellKind \(forceKind): displayType and every degrade check are skipped", path: nil)
            } else {
                add(
                    .warning, CardFindingCode.forceKindUnavailable,
                    "forceCellKind \(forceKind) does not exist in SDK \(profile): ignored", path: nil)
            }
        }
        if !forced {
            if let lowered, let kind = CardKind(rawValue: lowered), profile.knows(kind) {
                requested = kind
            } else {
                requested = heuristic(hasImage: hasImage, hasTitle: hasTitle, hasBody: hasBody)
                if let displayType {
                    reportUnknown(displayType.raw, path: path(ofDisplayTypeIn: displayType.level), heuristic: requested)
                }
            }
        }

        var slides: [Slide] = []
        var carouselPath = ""
        var video: (url: String, urlPath: String, poster: String?, posterPath: String)?
        var pass: (url: String, path: String)?
        var reason: String?
        let titleAndBody = hasTitle && hasBody
        switch requested {
        case .banner:
            if !hasImage { reason = "no imageUrl" }
        case .captioned:
            if !hasImage {
                reason = "no imageUrl"
            } else if profile.requiresTitleAndBody && !titleAndBody {
                reason = "no title/body"
            }
        case .classic:
            break
        case .carousel:
            (slides, carouselPath) = decodeCarousel()
            if slides.isEmpty {
                reason = "no slides"
            } else if profile.requiresTitleAndBody && !titleAndBody {
                reason = "no title/body"
            }
        case .video:
            video = decodeVideo()
            if video == nil { reason = "no video descriptor" }
        case .wallet:
            pass = decodeWallet()
            if pass == nil { reason = "no pass URL" }
        }

        var resolved = requested
        var degraded = false
        var sdkLog: String?
        if let why = reason {
            if forced {
                add(
                    .warning, CardFindingCode.forcedIncomplete,
                    "forced \(requested) renders incomplete or empty (\(why)); "
                        + "without the force it would degrade to classic",
                    path: nil)
                reason = nil
            } else {
                resolved = .classic
                degraded = true
                sdkLog =
                    "Inbox cell degraded — code=\(message.code ?? "?") displayType=\(lowered ?? "nil") "
                    + "hasImage=\(hasImage) \(requested)→\(resolved) (\(why))"
                add(
                    .warning, CardFindingCode.degraded, "\(requested) degrades to classic: \(why)",
                    path: displayType.map { path(ofDisplayTypeIn: $0.level) })
            }
        }

        var assets: [AssetReference] = []
        var labels: [String] = []
        switch resolved {
        case .banner, .captioned:
            if let image {
                assets.append(AssetReference(role: .heroImage, index: nil, fetchURL: image.url, path: image.path))
            }
        case .classic:
            if let image {
                assets.append(AssetReference(role: .avatar, index: nil, fetchURL: image.url, path: image.path))
            }
            var missing: [String] = []
            if !hasTitle { missing.append("title") }
            if !hasBody { missing.append("body") }
            if !hasImage { missing.append("icon image") }
            if !missing.isEmpty {
                add(
                    .info, CardFindingCode.classicIncomplete,
                    "classic card without \(missing.joined(separator: ", ")) (classic expects title, body and icon)",
                    path: nil)
            }
        case .carousel:
            labels = slideAssets(slides, carouselPath: carouselPath, into: &assets)
        case .video:
            labels = ["Play video"]
            if let video {
                assets.append(AssetReference(role: .video, index: nil, fetchURL: video.url, path: video.urlPath))
                if let poster = video.poster {
                    assets.append(
                        AssetReference(role: .videoPoster, index: nil, fetchURL: poster, path: video.posterPath))
                } else {
                    add(
                        .info, CardFindingCode.videoNoPoster,
                        "video without poster: the \"Play video\" button shows an empty frame", path: video.urlPath)
                }
            }
        case .wallet:
            if let image {
                assets.append(AssetReference(role: .heroImage, index: nil, fetchURL: image.url, path: image.path))
            }
            if let pass {
                assets.append(AssetReference(role: .walletPass, index: nil, fetchURL: pass.url, path: pass.path))
            }
        }

        let buttons = renderButtons(for: resolved, into: &assets)
        let pinned = pinned()
        return ResolvedCard(
            id: message.id, code: message.code, sdk: profile, platform: .ios, language: language,
            requested: requested, resolved: resolved, degraded: degraded, degradeReason: degraded ? reason : nil,
            sdkLog: sdkLog, forced: forced, pinned: pinned, buttons: buttons, accessibilityLabels: labels,
            findings: finalFindings, assets: assets, title: title, body: body)
    }

    private mutating func reportUnknown(_ raw: String, path: String, heuristic: CardKind) {
        let lowered = raw.lowercased()
        let why: String
        if let kind = CardKind(rawValue: lowered), !profile.knows(kind) {
            why = "SDK \(profile) has no \(kind) card (it came in 7.1)"
        } else if CardKind(rawValue: String(lowered.trimmingWhitespace())) != nil {
            why = "the SDK lowercases displayType but does not trim it"
        } else {
            why = "not a card kind"
        }
        add(
            .warning, CardFindingCode.unknownDisplayType,
            "displayType \"\(Redact.value(raw))\" is unknown (\(why)): the heuristic picks \(heuristic)", path: path)
    }

    private mutating func slideAssets(
        _ slides: [Slide], carouselPath: String, into assets: inout [AssetReference]
    ) -> [String] {
        var labels: [String] = []
        var untitled = 0
        for (index, slide) in slides.enumerated() {
            assets.append(
                AssetReference(
                    role: .carouselSlide, index: index, fetchURL: slide.image, base: carouselPath,
                    pathIndex: slide.jsonIndex, pathKey: "image"))
            if let url = slide.url {
                assets.append(
                    AssetReference(
                        role: .slideLink, index: index, fetchURL: url, base: carouselPath, pathIndex: slide.jsonIndex,
                        pathKey: "url"))
            }
            if let title = slide.title {
                labels.append(title)
            } else {
                labels.append("Slide")
                untitled += 1
            }
        }
        if untitled > 0 {
            add(
                .info, CardFindingCode.slideUntitled,
                "\(untitled) of \(slides.count) slides have no title: VoiceOver announces them only as \"Slide\"",
                path: nil)
        }
        return labels
    }

    /// Buttons of a classic/captioned card (with their links); for other kinds one `buttonsNotRendered`.
    private mutating func renderButtons(for kind: CardKind, into assets: inout [AssetReference]) -> [CardButton] {
        let renders = kind.rendersButtons
        guard let decoded = decodeButtons(report: renders), !decoded.buttons.isEmpty else { return [] }
        guard renders else {
            add(
                .warning, CardFindingCode.buttonsNotRendered,
                "\(decoded.buttons.count) button(s) not rendered: only classic and captioned cards show buttons, "
                    + "this one is \(kind)",
                path: decoded.path)
            return []
        }
        for (index, button) in decoded.buttons.enumerated() {
            if case .openURL(let url) = button.action {
                assets.append(
                    AssetReference(
                        role: .buttonLink, index: index, fetchURL: url, path: JSONPath.key(decoded.paths[index], "url"))
                )
            }
        }
        return decoded.buttons
    }

    // MARK: Android

    /// The Android inbox: one layout (icon from `imageUrl`, optional banner from `b`), no displayType, no rich
    /// cards, no buttons, no pinning, no wallet.
    mutating func resolveAndroid() -> ResolvedCard {
        let (title, body) = texts()  // the one layout shows whatever title and body exist
        // What the message asks InboxKit for (an explicit displayType), to say what Android makes of it.
        // The InboxKit heuristic is not applied: without a displayType nothing was asked for but the plain
        // layout. Lookup warnings are iOS matters and stay out of the Android card.
        let mark = findingMark
        let lowered = displayType()?.raw.lowercased()
        rollBack(to: mark)
        let requested = lowered.flatMap { CardKind(rawValue: $0) } ?? .classic
        let degraded = requested != .classic
        var reason: String?
        if requested == .wallet {
            reason = "Apple Wallet cards are iOS only"
            add(
                .warning, CardFindingCode.platformLayout,
                "wallet card on android: Apple Wallet cards are iOS only, it renders as the classic Android layout",
                path: nil)
        } else if degraded {
            reason = "the Android inbox has one layout"
            add(
                .warning, CardFindingCode.platformLayout,
                "\(requested) card on android renders as the one Android inbox layout (icon, title, text)", path: nil)
        }

        var assets: [AssetReference] = []
        if let icon = message.imageURL, !icon.isEmpty {
            assets.append(AssetReference(role: .icon, index: nil, fetchURL: icon, path: message.imagePath))
        }
        if let root = message.root, case .string(let banner)? = root.object["b"], !banner.isEmpty {
            assets.append(AssetReference(role: .heroImage, index: nil, fetchURL: banner, path: root.path(of: "b")))
        }
        let before = findingMark
        let buttons = decodeButtons(report: false)
        let pinned = pinned()
        rollBack(to: before)
        if let buttons, !buttons.buttons.isEmpty {
            add(
                .warning, CardFindingCode.buttonsNotRendered,
                "\(buttons.buttons.count) button(s) not rendered: the Android inbox has no buttons", path: buttons.path)
        }
        if pinned {
            add(.info, CardFindingCode.pinnedNotRendered, "pinned message: the Android inbox has no pinning", path: nil)
        }
        return ResolvedCard(
            id: message.id, code: message.code, sdk: nil, platform: .android, language: language,
            requested: requested, resolved: .classic, degraded: degraded, degradeReason: reason, sdkLog: nil,
            forced: false, pinned: false, buttons: [], accessibilityLabels: [], findings: finalFindings,
            assets: assets, title: title, body: body)
    }
}

extension String {
    /// Trims ASCII whitespace (only used to explain why `" banner"` is unknown).
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
