import Findings
import StrictJSON

/// Where each tap of a card goes: iOS 7.2 per `inboxkit-cards.md` §5 (the 7.2 `PushwooshInboxKitViewControllerTest`,
/// "Message with its own action"), Android per `android-inbox.md` §2.7 (`InboxAdapter`, `VideoInboxViewHolder`,
/// `OwnRowDestination` of 6.15.0).
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

    mutating func androidTapActions(_ card: ResolvedCard, slides: [Slide], hasVideo: Bool) -> [TapAction] {
        let own = messageAction()
        var actions: [TapAction] = []
        if card.resolved == .video && hasVideo {
            if androidProfile >= .v6_13 {
                // 6.15.0: the video card owns the row (`OwnRowDestination`), so `l`/`rm` never run from it.
                actions.append(
                    TapAction(
                        target: .row, action: .playVideo,
                        note: own == nil
                            ? "6.15.0 (OwnRowDestination); 6.13.0 runs the row action outside the poster"
                            : "6.15.0 (OwnRowDestination): the message's own action never runs; 6.13.0 runs it "
                                + "outside the poster"))
                if let own {
                    add(
                        .warning, CardFindingCode.tapOverridden,
                        "the message carries \(viaText(own)), but from Android SDK 6.15 a tap anywhere on a video card "
                            + "opens the player: the message action never runs", path: nil)
                }
            } else {
                actions.append(rowAction(own))
            }
            actions.append(TapAction(target: .poster, action: .playVideo))
        } else {
            actions.append(rowAction(own))
        }
        appendSlideActions(slides, own: nil, into: &actions)
        appendButtonActions(card.buttons, own: nil, into: &actions)
        return actions
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
