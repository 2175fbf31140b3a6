import Findings
import StrictJSON

/// Where each tap of a card goes: iOS 7.2 per `inboxkit-cards.md` §5 (the 7.2 `PushwooshInboxKitViewControllerTest`,
/// "Message with its own action"), Android per `android-inbox.md` §2.1 and §2.7–2.8 (Pushwoosh/pushwoosh-android-sdk:
/// `InboxAdapter.kt` @a9a39ef for 6.12.0–6.13.0 and @9357bd7 for 6.15.0, `RichCardViewHolder.kt` @9357bd7,
/// `InboxViewHolder` for the legacy row).
extension CardContext {
    /// The message's own action: its link `l` (createMessage `link`) or rich media `rm` (`rich_media`).
    ///
    /// With both, iOS is modelled as running the link. Android derives the message type from actionParams with
    /// `rm` first (`InboxPayloadDataProvider.getFromJson`: `rm` → RICH_MEDIA, else `l` → URL / DEEP_LINK;
    /// android-inbox.md §1.1), so there the rich media wins.
    func messageAction() -> (via: String, url: String?)? {
        guard let root else { return nil }
        let richMedia = hasRichMedia
        if platform == .android && richMedia { return ("richMedia", nil) }
        if case .string(let link)? = root.object["l"], !link.isEmpty { return ("link", link) }
        return richMedia ? ("richMedia", nil) : nil
    }

    /// What a plain row tap does: the message action, else open (mark read) the message.
    private func rowAction(_ own: (via: String, url: String?)?) -> TapAction {
        guard let own else { return TapAction(target: .row, action: .openMessage) }
        return TapAction(target: .row, action: .messageAction, url: own.url, via: own.via)
    }

    /// The message carries rich media (`rm`: a non-empty string, or an object).
    private var hasRichMedia: Bool {
        switch root?.object["rm"] {
        case .string(let text)?: !text.isEmpty
        case .object?: true
        default: false
        }
    }

    private func viaText(_ own: (via: String, url: String?)) -> String {
        own.via == "link" ? "its link (l)" : "its rich media (rm)"
    }

    mutating func iosTapActions(_ card: ResolvedCard, slides: [Slide], hasVideo: Bool) -> [TapAction] {
        let own = messageAction()
        let hasLink = own?.via == "link"
        let hasRM = hasRichMedia
        // The override rules are those of SDK 7.2's tests; earlier profiles are modelled without them.
        let overrides = profile >= .v7_2
        var actions: [TapAction] = []
        if card.resolved == .video && hasVideo {
            if overrides, let own, hasLink || hasRM {
                let note =
                    hasRM
                    ? "rm: the message action runs and no player opens"
                    : "l: the row tap is inferred from the poster tap (testVideoTap_messageWithLink_performsMessageAction)"
                actions.append(
                    TapAction(
                        target: .row, action: .messageAction, url: own.url, via: own.via, overridden: true, note: note))
                actions.append(
                    TapAction(target: .poster, action: .messageAction, url: own.url, via: own.via, overridden: true))
                add(
                    .warning, CardFindingCode.tapOverridden,
                    "the message carries \(viaText(own)): on SDK \(profile) a tap on this video card runs it instead "
                        + "of the player, so the video can never be played", path: nil)
            } else {
                actions.append(TapAction(target: .row, action: .playVideo))
                actions.append(TapAction(target: .poster, action: .playVideo))
            }
        } else {
            actions.append(rowAction(own))
        }
        appendSlideActions(slides, own: overrides && hasLink ? own : nil, into: &actions)
        appendButtonActions(card.buttons, own: overrides && (hasLink || hasRM) ? own : nil, into: &actions)
        if card.resolved == .wallet, card.assets.contains(where: { $0.role == .walletPass }) {
            actions.append(TapAction(target: .addToWallet, action: .addPass))
        }
        return actions
    }

    /// Android: the row, the video poster, the legacy row's `b` thumbnail, slides and the drawn buttons. The
    /// profiles share everything but what ``AndroidProfile/videoOwnsRow`` and
    /// ``AndroidProfile/buttonTapMarksOpened`` say.
    mutating func androidTapActions(_ card: ResolvedCard, slides: [Slide], hasVideo: Bool) -> [TapAction] {
        let own = messageAction()
        var actions: [TapAction] = []
        if card.resolved == .video && hasVideo {
            if androidProfile.videoOwnsRow {
                // 6.15.0 (`InboxAdapter.kt` @9357bd7, android-inbox.md §2.1): a card with a destination of its own
                // gets the row tap (`OwnRowDestination`); the video card's is its player, so `l`/`rm` never run.
                actions.append(
                    TapAction(
                        target: .row, action: .playVideo,
                        note: own == nil
                            ? "the video card owns the row (OwnRowDestination)"
                            : "the video card owns the row (OwnRowDestination): the message's own action never runs"))
                if let own {
                    add(
                        .warning, CardFindingCode.tapOverridden,
                        "the message carries \(viaText(own)), but on Android SDK \(androidProfile) a tap anywhere on a "
                            + "video card opens the player: the message action never runs", path: nil)
                }
            } else {
                // 6.12.0–6.13.0 (`InboxAdapter.kt` @a9a39ef, not stored at 2673c0a): the row click is the adapter's,
                // as for every card: the message's own action (`l`/`rm`), else the message opens. Only the poster
                // opens the player (`VideoInboxViewHolder`, §2.7), so both destinations are reachable.
                var row = rowAction(own)
                row.note = "outside the poster; from 6.15.0 the whole row opens the player (OwnRowDestination)"
                actions.append(row)
            }
            actions.append(TapAction(target: .poster, action: .playVideo))
        } else {
            actions.append(rowAction(own))
        }
        // The legacy row's `b` thumbnail opens the image full screen (`AttachmentActivity`: android-inbox.md §2.1
        // @a9a39ef/@2673c0a; android-assets.md §1: `InboxViewHolder.kt` @9357bd7). ≤ 6.11 has the same legacy row
        // (`TEXT_VIEW_TYPE`, §2.1 @b591d3c), so it gets the target too [INF: its thumbnail tap is not quoted].
        if card.resolved == .legacy, let banner = card.assets.first(where: { $0.role == .heroImage }) {
            actions.append(TapAction(target: .attachment, action: .openAttachment, url: banner.fetchURL))
        }
        appendSlideActions(slides, own: nil, into: &actions)
        let firstButton = actions.endIndex
        appendButtonActions(card.buttons, own: nil, into: &actions)
        if androidProfile.buttonTapMarksOpened {
            for index in actions[firstButton...].indices {
                actions[index].note = Self.markedOpenedNote(actions[index].action)
            }
        }
        return actions
    }

    /// 6.15.0's button tap (`RichCardViewHolder.kt` @9357bd7, android-inbox.md §2.7, §2.8): `markMessageOpened`
    /// first, whatever the button does; markRead then does nothing more, custom only logs, and a refused URL still
    /// counts as opened (`InboxCardOpenStatusTest.unsafeUrlButtonTap_marksOpenedAndOpensNothing`).
    private static func markedOpenedNote(_ action: TapAction.Action) -> String {
        switch action {
        case .markRead: "marks the message opened (markMessageOpened), not just read"
        case .custom: "marks the message opened (markMessageOpened); the SDK then only logs"
        case .refused: "opens nothing, but marks the message opened (markMessageOpened)"
        case .dismiss: "marks the message opened (markMessageOpened), then deletes it"
        default: "marks the message opened first (markMessageOpened)"
        }
    }

    /// Slides: their own url (unless the message action replaces it), else the row action.
    private mutating func appendSlideActions(
        _ slides: [Slide], own: (via: String, url: String?)?, into actions: inout [TapAction]
    ) {
        let rowOwn = messageAction()
        var overridden: [Int] = []
        for (position, slide) in slides.enumerated() {
            guard let url = slide.url else {
                var row = rowAction(rowOwn)
                row.target = .slide
                row.index = position
                actions.append(row)
                continue
            }
            if let own {
                overridden.append(position)
                actions.append(
                    TapAction(
                        target: .slide, index: position, action: .messageAction, url: own.url, via: own.via,
                        overridden: true))
            } else if refuses(url) {
                actions.append(TapAction(target: .slide, index: position, action: .refused, url: url))
            } else {
                actions.append(TapAction(target: .slide, index: position, action: .openURL, url: url))
            }
        }
        reportOverridden(overridden, what: "slide", on: "a slide tap", own: own)
    }

    /// Drawn buttons: openURL (unless the message action replaces it), dismiss, markRead, custom.
    private mutating func appendButtonActions(
        _ buttons: [CardButton], own: (via: String, url: String?)?, into actions: inout [TapAction]
    ) {
        var overridden: [Int] = []
        for (index, button) in buttons.enumerated() where button.rendered {
            switch button.action {
            case .openURL(let url):
                if let own {
                    overridden.append(index)
                    actions.append(
                        TapAction(
                            target: .button, index: index, action: .messageAction, url: own.url, via: own.via,
                            overridden: true))
                } else {
                    actions.append(
                        TapAction(target: .button, index: index, action: refuses(url) ? .refused : .openURL, url: url))
                }
            case .dismiss: actions.append(TapAction(target: .button, index: index, action: .dismiss))
            case .markRead: actions.append(TapAction(target: .button, index: index, action: .markRead))
            case .custom: actions.append(TapAction(target: .button, index: index, action: .custom))
            }
        }
        reportOverridden(overridden, what: "button", on: "an openURL button tap", own: own)
    }

    /// One `card.tapOverridden` naming the slides or buttons whose url the message's own action replaces.
    private mutating func reportOverridden(
        _ positions: [Int], what: String, on tap: String, own: (via: String, url: String?)?
    ) {
        guard let own, !positions.isEmpty else { return }
        add(
            .warning, CardFindingCode.tapOverridden,
            "\(what) url(s) \(positions.map(String.init).joined(separator: ", ")) never open: the message carries "
                + "\(viaText(own)), which SDK \(profile) runs on \(tap) instead", path: nil)
    }

    /// Whether the SDK refuses to open `url` (iOS: file, javascript, data, facetime; Android: `isSafeUrl`).
    private func refuses(_ url: String) -> Bool {
        platform == .android ? URLCheck.androidRefusal(url) != nil : URLCheck.unsafeScheme(url) != nil
    }
}
