import Findings
import StrictJSON

/// The Android inbox (pushwoosh-inbox-ui), per `android-inbox.md` §2: `InboxCardKind.resolve` of 6.12.0
/// (a9a39ef) and 6.13.0 (2673c0a, unchanged in 6.15.0), and the legacy row of ≤ 6.11.
extension CardContext {
    /// `resolveHeroUrl`: root `attachment` (a non-empty string), then `getBannerUrl()` (`b`, any JSON type as
    /// its text), each only with an http(s) prefix (case-insensitive); then the icon.
    mutating func androidHero() -> (url: String, path: String)? {
        if let root {
            if case .string(let text)? = root.object["attachment"], !text.isEmpty {
                if URLCheck.hasHTTPPrefixIgnoringCase(text) { return (text, root.path(of: "attachment")) }
                add(
                    .info, CardFindingCode.heroIgnored,
                    "attachment \"\(Redact.value(text))\" does not start with http(s)://: the Android SDK skips it",
                    path: root.path(of: "attachment"))
            }
            if let banner = androidBanner(), !banner.url.isEmpty {
                if URLCheck.hasHTTPPrefixIgnoringCase(banner.url) { return banner }
                add(
                    .info, CardFindingCode.heroIgnored,
                    "b \"\(Redact.value(banner.url))\" does not start with http(s)://: the Android SDK skips it as hero",
                    path: banner.path)
            }
        }
        return androidIcon()
    }

    /// `getBannerUrl()`: `action_params.b` as text (`get("b").toString()`), whatever its JSON type.
    func androidBanner() -> (url: String, path: String)? {
        guard let root, let value = root.object["b"] else { return nil }
        return (Self.orgJSONText(value), root.path(of: "b"))
    }

    /// `resolveIconUrl`: `getImageUrl()` → root `image` → `u.image` (non-empty strings); never `attachment`, `b`
    /// or `userdata`.
    func androidIcon() -> (url: String, path: String)? {
        if let url = message.imageURL, !url.isEmpty { return (url, message.imagePath) }
        if let root, case .string(let url)? = root.object["image"], !url.isEmpty {
            return (url, root.path(of: "image"))
        }
        if let u = customData, case .string(let url)? = u.object["image"], !url.isEmpty {
            return (url, u.path(of: "image"))
        }
        return nil
    }

    /// `readDisplayType`: the first non-empty string of root → u → userdata, lowercased (not trimmed).
    mutating func androidDisplayType() -> (lowered: String, raw: String, level: Int)? {
        for (index, level) in levels.enumerated() {
            guard let value = level.object["displayType"], value != .null else { continue }
            if case .string(let raw) = value, !raw.isEmpty { return (raw.lowercased(), raw, index) }
            add(
                .warning, CardFindingCode.wrongType,
                "displayType is \(value.typeName == "string" ? "empty" : value.typeName), expected a non-empty string: "
                    + "the Android SDK skips it",
                path: level.path(of: "displayType"))
        }
        return nil
    }

    /// `isPinned`: root → u → userdata; the first Boolean, Number (`toInt() != 0`) or String
    /// (`equals("true", ignoreCase)`) decides, so `"yes"` is false and ends the lookup.
    mutating func androidPinned() -> Bool {
        for level in levels {
            switch level.object["pinned"] {
            case nil, .null?: continue
            case .bool(let value)?: return value
            case .number(let number)?:
                // Kotlin `Number.toInt()` truncates: 0.5 is 0, not pinned.
                let value = number.doubleValue
                return value.isFinite ? Int64(exactly: value.rounded(.towardZero)).map { $0 != 0 } ?? true : false
            case .string(let text)?:
                let pins = text.lowercased() == "true"
                if !pins {
                    add(
                        .warning, CardFindingCode.pinnedNotBoolean,
                        "pinned is the string \"\(Redact.value(text))\": the Android SDK pins only \"true\" "
                            + "(any case); this ends the lookup unpinned",
                        path: level.path(of: "pinned"))
                }
                return pins
            case let other?:
                add(
                    .warning, CardFindingCode.pinnedNotBoolean,
                    "pinned is \(other.typeName): the Android SDK ignores it", path: level.path(of: "pinned"))
            }
        }
        return false
    }

    mutating func resolveAndroid(heuristic heuristicEnabled: Bool) -> ResolvedCard {
        let profile = androidProfile
        let (title, body) = texts()
        let hasTitle = !(title ?? "").isEmpty
        // 6.13: `hasText = hasTitle && !message.isNullOrEmpty()`.
        let hasText = hasTitle && !(body ?? "").isEmpty
        let displayType = androidDisplayType()
        let known = displayType.flatMap { CardKind.named($0.lowered) }
        // Only a rich card has a hero (`resolveHeroUrl`); the legacy row draws `b` as it is, so looking for a hero
        // there would only add "skipped as hero" findings about a banner the row does show.
        let hero = profile.hasRichCards && (known != nil || heuristicEnabled) ? androidHero() : nil
        let hasHero = hero != nil

        var requested = CardKind.legacy
        var resolved = CardKind.legacy
        var carousel: (slides: [Slide], path: String)?
        var video: (url: String, urlPath: String, poster: String?, posterPath: String)?
        var reason: String?
        var sdkLog: String?
        var degraded = false
        func displayTypePath() -> String? { displayType.map { levels[$0.level].path(of: "displayType") } }

        if !profile.hasRichCards {
            // ≤ 6.11: `InboxAdapter` has the one TEXT_VIEW_TYPE. An explicit kind is a degrade of intent.
            if let known {
                requested = known
                degraded = true
                reason = "rich cards unknown to SDK \(profile)"
                add(
                    .warning, CardFindingCode.degraded,
                    "\(known) renders as the legacy row: Android SDK \(profile) has no rich cards (they came in 6.12)",
                    path: displayTypePath())
            }
        } else {
            if let known {
                requested = known
            } else if heuristicEnabled {
                if hasHero && !hasTitle {
                    requested = .banner
                } else if hasHero && (profile.requiresTitleAndBody ? hasText : true) {
                    requested = .captioned
                } else {
                    requested = .classic
                }
            }
            if let displayType, known == nil {
                reportUnknown(
                    displayType.raw, path: levels[displayType.level].path(of: "displayType"),
                    outcome: heuristicEnabled
                        ? "the Android heuristic picks \(requested)"
                        : "the Android SDK draws the legacy row (richCardsHeuristicEnabled is off)")
            }
            if requested == .legacy {
                if displayType == nil {
                    add(
                        .info, CardFindingCode.legacyRow,
                        "no displayType and richCardsHeuristicEnabled is off (the SDK default): the Android SDK draws "
                            + "the legacy row, not a card", path: nil)
                }
            } else {
                resolved = requested
                switch requested {
                case .banner:
                    if !hasHero { reason = "no image" }
                case .captioned:
                    if !hasHero {
                        reason = "no image"
                    } else if profile.requiresTitleAndBody && !hasText {
                        reason = "no title/body"
                    }
                case .carousel:
                    let decoded = decodeCarousel()
                    carousel = decoded
                    if profile.requiresTitleAndBody && !hasText {
                        reason = "no title/body"
                    } else if decoded.slides.isEmpty {
                        reason = "no slides"
                    }
                case .video:
                    video = decodeVideo()
                    if video == nil { reason = "no video descriptor" }
                case .wallet:
                    reason = "wallet cards are iOS-only"
                case .classic, .legacy:
                    break
                }
                if let why = reason {
                    resolved = .classic
                    degraded = true
                    sdkLog =
                        "Inbox card degraded — code=\(message.code ?? "null") displayType=\(displayType?.lowered ?? "null") "
                        + "hasImage=\(hasHero) \(requested)→classic (\(why))"
                    if requested == .wallet {
                        add(
                            .warning, CardFindingCode.platformLayout,
                            "wallet card on android: Apple Wallet cards are iOS-only, it renders as the classic card",
                            path: displayTypePath())
                    } else {
                        add(
                            .warning, CardFindingCode.degraded,
                            "\(requested) degrades to classic on Android SDK \(profile): \(why)",
                            path: displayTypePath())
                    }
                }
            }
        }

        var assets: [AssetReference] = []
        var slides: [Slide] = []
        var labels: [String] = []
        switch resolved {
        case .legacy:
            // The icon (`imageUrl`, or the style's default) and the `b` banner (a tap opens AttachmentActivity).
            if let icon = message.imageURL, !icon.isEmpty {
                assets.append(AssetReference(role: .icon, index: nil, fetchURL: icon, path: message.imagePath))
            }
            if let banner = androidBanner(), !banner.url.isEmpty, banner.url != "null" {
                assets.append(AssetReference(role: .heroImage, index: nil, fetchURL: banner.url, path: banner.path))
            }
        case .banner:
            if let hero {
                assets.append(AssetReference(role: .heroImage, index: nil, fetchURL: hero.url, path: hero.path))
            }
        case .captioned:
            if let hero {
                assets.append(AssetReference(role: .heroImage, index: nil, fetchURL: hero.url, path: hero.path))
            }
            // The round icon, hidden when it is the hero (`fillView_iconShownOnlyWhenDistinctFromHero`).
            if let icon = androidIcon(), icon.url != hero?.url {
                assets.append(AssetReference(role: .icon, index: nil, fetchURL: icon.url, path: icon.path))
            }
        case .classic:
            // The avatar: the icon chain, then the app icon, then the app's initial letter.
            if let icon = androidIcon() {
                assets.append(AssetReference(role: .avatar, index: nil, fetchURL: icon.url, path: icon.path))
            }
            var missing: [String] = []
            if !hasTitle { missing.append("title") }
            if (body ?? "").isEmpty { missing.append("body") }
            if !missing.isEmpty {
                add(
                    .info, CardFindingCode.classicIncomplete,
                    "classic card without \(missing.joined(separator: ", ")) (classic expects title and body)",
                    path: nil)
            }
        case .carousel:
            if let carousel {
                slides = carousel.slides
                labels = slideAssets(slides, carouselPath: carousel.path, into: &assets)
            }
        case .video:
            labels = ["Play video"]
            if let video {
                // The poster is `video.poster` only: no `imageUrl` fallback (VideoInboxViewHolder).
                videoAssets(
                    video, into: &assets,
                    withoutPoster: "the Android card shows the style's placeholder icon under the play badge")
            }
        case .wallet:
            break
        }

        // Buttons: only the classic and captioned holders call `renderButtons`, which draws the first three.
        let buttons = renderButtons(for: resolved, limit: 3, into: &assets)
        var pinned = androidPinned()
        if pinned && resolved == .legacy {
            add(.info, CardFindingCode.pinnedNotRendered, "pinned message: the legacy row shows no pin", path: nil)
            pinned = false
        }
        var card = ResolvedCard(
            id: message.id, code: message.code, sdk: nil, platform: .android, language: language,
            requested: requested, resolved: resolved, degraded: degraded, degradeReason: degraded ? reason : nil,
            sdkLog: sdkLog, forced: false, pinned: pinned, buttons: buttons, accessibilityLabels: labels,
            findings: [], assets: assets, title: title, body: body)
        card.androidSDK = profile
        card.slides = slideRecords
        card.tapActions = androidTapActions(card, slides: slides, hasVideo: video != nil)
        reportBadURLs(assets)
        card.findings = finalFindings
        return card
    }
}
