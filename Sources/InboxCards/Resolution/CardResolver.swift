import Findings
import StrictJSON

#if canImport(Glibc)
    import Glibc
#endif

/// Works out the card each message becomes, per SDK profile × platform × language, exactly as
/// InboxKit (`inboxkit-cards.md`) and the Android inbox-ui (`android-inbox.md`) do.
///
/// Decisions the reference leaves open, made here:
/// - A createMessage notification whose `platforms` excludes a platform gets no card for it; when it
///   targets none of the resolved platforms the run reports `input.platformNotTargeted`.
/// - A per-language title or body lacking the language being resolved shows its `en` text
///   (`card.languageFallback`), else nothing (`card.languageMissing`).
/// - Android cards are produced per message, language and Android profile (`androidSDK`; `android-inbox.md`):
///   no forced kind there; `legacy` is the legacy row. Messages an inbox does not show (``Visibility``) get no
///   card on that platform.
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

    /// The moment visibility is judged at: `--at`, else now.
    var moment: Int64 { options.at ?? Int64(time(nil)) }

    /// Cards of every message the inbox shows, in message order, then language, platform, profile.
    public func resolve(_ messages: [InboxMessage]) -> [ResolvedCard] {
        var cards: [ResolvedCard] = []
        cards.reserveCapacity(messages.count * options.profiles.count)
        var ignored: [SourcedFinding] = []
        let at = moment
        for message in messages { _ = resolve(message, at: at, into: &cards, findings: &ignored) }
        return cards
    }

    /// The cards of one message (none for a plain push, an untargeted platform or a message the inbox hides).
    public func resolve(_ message: InboxMessage) -> [ResolvedCard] {
        var cards: [ResolvedCard] = []
        var ignored: [SourcedFinding] = []
        _ = resolve(message, at: moment, into: &cards, findings: &ignored)
        return cards
    }

    /// Resolves a whole read: cards (with their ``ResolvedCard/feedPosition``) plus the input findings:
    /// `input.platformNotTargeted` for messages that target none of the resolved platforms, and the visibility
    /// findings of messages an inbox does not show.
    public func run(_ batch: ReadBatch) -> ResolveRun {
        var cards: [ResolvedCard] = []
        cards.reserveCapacity(batch.messages.count * options.profiles.count)
        var inputFindings = batch.findings + runFindings
        let at = moment
        var order = FeedOrder()
        // Through the buffer: `for message in batch.messages` copies every message (a dozen retains) first.
        batch.messages.withUnsafeBufferPointer { messages in
            for index in messages.indices {
                let before = cards.count
                resolve(messages[index], at: at, into: &cards, inputFindings: &inputFindings)
                order.add(messages[index], cards: cards[before...], at: at)
            }
        }
        order.assignPositions(to: &cards)
        return ResolveRun(
            options: options, messagesRead: batch.messages.count, inputFindings: inputFindings, cards: cards)
    }

    /// The findings about the options themselves, which a run lists before its messages' (`--force-kind` with
    /// Android cards).
    var runFindings: [SourcedFinding] {
        guard let forced = options.forceKind, options.platforms.contains(.android) else { return [] }
        return [
            SourcedFinding(
                source: "--force-kind",
                finding: .info(
                    CardFindingCode.forceKindUnavailable,
                    "forceCellKind (\(forced)) is an InboxKit (iOS) setting: the Android SDK has no equivalent, "
                        + "Android cards are resolved without it", path: nil))
        ]
    }

    /// Appends the cards of `message` (none for a plain push, an untargeted platform or a message the inbox
    /// hides), without their feed positions, and the findings about it that belong to no card: the visibility
    /// findings of a platform whose inbox hides it, `input.platformNotTargeted`.
    func resolve(
        _ message: InboxMessage, at: Int64, into cards: inout [ResolvedCard], inputFindings: inout [SourcedFinding]
    ) {
        guard message.reachesInbox else { return }
        if !resolve(message, at: at, into: &cards, findings: &inputFindings) {
            let wanted = options.platforms.map(\.rawValue).joined(separator: ", ")
            inputFindings.append(
                SourcedFinding(
                    source: message.id,
                    finding: .info(
                        CardFindingCode.platformNotTargeted,
                        "platforms targets none of the resolved platforms (\(wanted)): no card",
                        path: JSONPath.key(message.path, "platforms"))))
        }
    }

    /// Appends the message's cards; a platform whose inbox does not show the message gets none, and its reason
    /// goes to `findings`. Returns whether the message targets any of the resolved platforms.
    private func resolve(
        _ message: InboxMessage, at: Int64, into cards: inout [ResolvedCard], findings: inout [SourcedFinding]
    ) -> Bool {
        guard message.reachesInbox else { return true }
        var targeted = false
        var visibility: [Platform: Visibility.Verdict] = [:]
        for platform in options.platforms where message.targets?.contains(platform) ?? true {
            targeted = true
            let verdict = Visibility.judge(message, on: platform, at: at)
            visibility[platform] = verdict
            if !verdict.shown {
                findings += verdict.findings.map { SourcedFinding(source: message.id, finding: $0) }
            }
        }
        let languages = message.languages
        let count = max(languages.count, 1)
        for position in 0..<count {
            let language = languages.isEmpty ? nil : languages[position]
            for platform in options.platforms {
                guard let verdict = visibility[platform], verdict.shown else { continue }
                switch platform {
                case .ios:
                    for profile in options.profiles {
                        var context = CardContext(
                            message: message, platform: .ios, profile: profile, language: language,
                            extra: verdict.findings)
                        cards.append(context.resolveIOS(forceKind: options.forceKind))
                    }
                case .android:
                    for profile in options.androidProfiles {
                        var context = CardContext(
                            message: message, platform: .android, profile: .latest, androidProfile: profile,
                            language: language, extra: verdict.findings)
                        cards.append(context.resolveAndroid(heuristic: options.androidHeuristic))
                    }
                }
            }
        }
        return targeted
    }
}

/// The state of resolving one card: the message, the profile, and the findings so far.
struct CardContext {
    let message: InboxMessage
    let platform: Platform
    let profile: SDKProfile
    /// The Android profile (Android cards only).
    let androidProfile: AndroidProfile
    let language: String?
    /// actionParams as this platform's SDK sees them, in lookup order.
    let levels: [ParamLevel]
    var findings: [Finding]
    /// Findings not kept because the card already has ``FindingBudget/perCard`` of them.
    var suppressed = 0
    /// Every element of the `carousel` array the last ``decodeCarousel()`` read, kept or dropped.
    var slideRecords: [SlideRecord] = []

    init(
        message: InboxMessage, platform: Platform, profile: SDKProfile, androidProfile: AndroidProfile = .latest,
        language: String?, extra: [Finding] = []
    ) {
        self.message = message
        self.platform = platform
        self.profile = profile
        self.androidProfile = androidProfile
        self.language = language
        switch platform {
        case .ios:
            self.levels = message.levels
            self.findings = message.findings + message.iosFindings + extra
        case .android:
            self.levels = message.android.levels ?? message.levels
            self.findings = message.findings + message.android.findings + extra
        }
    }

    /// The actionParams root this SDK sees (`nil` when it sees none).
    var root: ParamLevel? { levels.first { $0.name == .root } }
    /// The decoded `u` object (`nil` when absent or unusable).
    var customData: ParamLevel? { levels.first { $0.name == .u } }

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
        var title = (message.title, message.titlePath)
        var body = (message.body, message.bodyPath)
        if platform == .android {
            if let own = message.android.title { title = (own, message.android.titlePath ?? title.1) }
            if let own = message.android.body { body = (own, message.android.bodyPath ?? body.1) }
        }
        return (text(title.0, name: "title", path: title.1), text(body.0, name: "body", path: body.1))
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
    /// `imageUrl`, root `image`, `u.image` (7.0: `imageUrl` only). Any non-empty string counts (no URL check).
    mutating func image() -> (url: String, path: String)? {
        if profile == .v7_0 {
            guard let url = message.imageURL, !url.isEmpty else { return nil }
            return (url, message.imagePath)
        }
        let root = self.root
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
        if let u = customData, let url = nonEmptyString(u, "image") { return (url, u.path(of: "image")) }
        return nil
    }

    mutating func nonEmptyString(_ level: ParamLevel, _ key: String) -> String? {
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

    func path(ofDisplayTypeIn level: Int) -> String { levels[level].path(of: "displayType") }

    /// `pinned`: bool or number only; the first such value decides (an explicit `false` ends the lookup).
    mutating func pinned() -> Bool {
        for level in levels {
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
        // A kind the profile does not know (carousel on 7.0): the SDK renders the heuristic's kind, which is a
        // degrade of what the marketer asked for, though the SDK logs none.
        var unknownToProfile: CardKind?
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
            if let lowered, let kind = CardKind.named(lowered), profile.knows(kind) {
                requested = kind
            } else {
                requested = heuristic(hasImage: hasImage, hasTitle: hasTitle, hasBody: hasBody)
                if displayType != nil, let kind = CardKind.named(lowered ?? ""), !profile.knows(kind) {
                    unknownToProfile = kind
                } else if let displayType {
                    reportUnknown(
                        displayType.raw, path: path(ofDisplayTypeIn: displayType.level),
                        outcome: "the heuristic picks \(requested)")
                }
            }
        }
        // What the SDK itself asked for (the heuristic's kind when the displayType is unknown to it).
        let sdkRequested = requested

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
        case .classic, .legacy:
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
                if profile != .v7_0 {
                    sdkLog =
                        "Inbox cell degraded — code=\(message.code ?? "?") displayType=\(lowered ?? "nil") "
                        + "hasImage=\(hasImage) \(requested)→\(resolved) (\(why))"
                }
                add(
                    .warning, CardFindingCode.degraded, "\(requested) degrades to classic: \(why)",
                    path: displayType.map { path(ofDisplayTypeIn: $0.level) })
            }
        }
        if let asked = unknownToProfile, let displayType {
            // The intent degrade: requested is what the marketer asked for, resolved what the heuristic renders.
            let why = "\(asked) unknown to SDK \(profile)"
            add(
                .warning, CardFindingCode.degraded,
                "\(asked) degrades to \(resolved): SDK \(profile) has no \(asked) card (it came in 7.1), "
                    + "the heuristic decides",
                path: path(ofDisplayTypeIn: displayType.level))
            requested = asked
            degraded = true
            reason = reason.map { "\(why); \($0)" } ?? why
        }
        if profile == .v7_0 {
            // 7.0 logs INFO on every resolve (7.0.45 `defaultCellKindResolver`), naming the displayType it read.
            let note = resolved != sdkRequested ? " (degraded from \(sdkRequested) — no imageUrl)" : ""
            sdkLog =
                "Inbox cell resolve — code=\(message.code ?? "?") displayType=\(lowered ?? "nil") → kind=\(resolved)"
                + note
        }

        var assets: [AssetReference] = []
        var labels: [String] = []
        switch resolved {
        case .banner, .captioned:
            if let image {
                assets.append(AssetReference(role: .heroImage, index: nil, fetchURL: image.url, path: image.path))
            }
        case .classic, .legacy:
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
                videoAssets(video, into: &assets, withoutPoster: "the \"Play video\" button shows an empty frame")
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
        var card = ResolvedCard(
            id: message.id, code: message.code, sdk: profile, platform: .ios, language: language,
            requested: requested, resolved: resolved, degraded: degraded, degradeReason: degraded ? reason : nil,
            sdkLog: sdkLog, forced: forced, pinned: pinned, buttons: buttons, accessibilityLabels: labels,
            findings: [], assets: assets, title: title, body: body)
        card.slides = slideRecords
        card.tapActions = iosTapActions(card, slides: resolved == .carousel ? slides : [], hasVideo: video != nil)
        reportBadURLs(assets)
        card.findings = finalFindings
        return card
    }

    /// `input.badURL` for every URL of the card holding a control character (the plan never fetches those): an error
    /// for what the card fetches, a warning for its links. One byte scan per URL; clean cards allocate nothing.
    mutating func reportBadURLs(_ assets: [AssetReference]) {
        for asset in assets {
            guard let (offset, byte) = ControlCharacters.first(in: asset.fetchURL) else { continue }
            let what = "\(asset.role.rawValue)\(asset.index.map { "[\($0)]" } ?? "")"
            let control = "the control character \(ControlCharacters.notation(byte)) at byte \(offset)"
            if asset.role.isLink {
                add(
                    .warning, CardFindingCode.badURL,
                    "\(what) \(Redact.value(asset.fetchURL)) holds \(control): the SDK cannot open it as written",
                    path: asset.path)
            } else {
                add(
                    .error, CardFindingCode.badURL,
                    "\(what) \(Redact.value(asset.fetchURL)) holds \(control): it is never fetched (a request "
                        + "would be cut there) and no SDK loads what it says",
                    path: asset.path)
            }
        }
    }

    /// The stream and its poster (both platforms take the poster from `video.poster` only).
    mutating func videoAssets(
        _ video: (url: String, urlPath: String, poster: String?, posterPath: String),
        into assets: inout [AssetReference], withoutPoster: String
    ) {
        assets.append(AssetReference(role: .video, index: nil, fetchURL: video.url, path: video.urlPath))
        if let poster = video.poster {
            assets.append(AssetReference(role: .videoPoster, index: nil, fetchURL: poster, path: video.posterPath))
        } else {
            add(.info, CardFindingCode.videoNoPoster, "video without poster: \(withoutPoster)", path: video.urlPath)
        }
    }

    mutating func reportUnknown(_ raw: String, path: String, outcome: String) {
        let lowered = raw.lowercased()
        let why: String
        if CardKind.named(String(lowered.trimmingWhitespace())) != nil {
            why = "the SDK lowercases displayType but does not trim it"
        } else {
            why = "not a card kind"
        }
        add(
            .warning, CardFindingCode.unknownDisplayType,
            "displayType \"\(Redact.value(raw))\" is unknown (\(why)): \(outcome)", path: path)
    }

    mutating func slideAssets(
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

    /// The decoded buttons: drawn on a classic/captioned card (with their links; Android draws the first
    /// `limit`), listed with `rendered: false` on other kinds, which get one `buttonsNotRendered`.
    mutating func renderButtons(
        for kind: CardKind, limit: Int? = nil, into assets: inout [AssetReference]
    ) -> [CardButton] {
        let renders = kind.rendersButtons
        guard let decoded = decodeButtons(report: renders), !decoded.buttons.isEmpty else { return [] }
        guard renders else {
            add(
                .warning, CardFindingCode.buttonsNotRendered,
                "\(decoded.buttons.count) button(s) not rendered: only classic and captioned cards show buttons, "
                    + "this one is \(kind == .legacy ? "the legacy row" : kind.rawValue)",
                path: decoded.path)
            return decoded.buttons.map { CardButton(title: $0.title, action: $0.action, rendered: false) }
        }
        var buttons = decoded.buttons
        for (index, button) in buttons.enumerated() {
            if let limit, index >= limit {
                buttons[index].rendered = false
                continue
            }
            if case .openURL(let url) = button.action {
                assets.append(
                    AssetReference(
                        role: .buttonLink, index: index, fetchURL: url, path: JSONPath.key(decoded.paths[index], "url"))
                )
            }
        }
        return buttons
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
