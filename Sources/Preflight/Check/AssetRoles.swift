import Findings
public import InboxCards
public import MediaRules

/// Which assets each card kind needs (issue 6 "Roles"): a failing needed asset makes the card render
/// **broken**; any other failing asset only earns a warning, because the card still renders.
public enum AssetRoles {
    /// Whether a card that renders as `kind` breaks when an asset of `role` fails.
    ///
    /// - banner, captioned: the hero image is the card.
    /// - carousel: every slide (a failing slide shows an empty page in the gallery).
    /// - video: the stream or file (the poster only decorates; VoiceOver reads "Play video" either way).
    /// - wallet: the pass ("Add to Apple Wallet" fails); its optional hero image only decorates.
    /// - classic avatars, Android icons and posters: the card falls back to its placeholder.
    public static func isNeeded(_ role: AssetReference.Role, renderedAs kind: CardKind) -> Bool {
        switch role {
        case .heroImage: kind == .banner || kind == .captioned
        case .carouselSlide: kind == .carousel
        case .video: kind == .video
        case .walletPass: kind == .wallet
        case .avatar, .icon, .videoPoster, .buttonLink, .slideLink: false
        }
    }

    /// The cell an image of `role` is drawn in on a card that renders as `kind`; nil for what is not an image.
    public static func imageUse(_ role: AssetReference.Role, kind: CardKind) -> ImageUse? {
        switch role {
        case .heroImage:
            switch kind {
            case .banner: .bannerHero
            case .wallet: .walletHero
            case .legacy: .legacyBanner
            default: .captionedHero
            }
        case .avatar: .avatar
        case .icon: kind == .legacy ? .legacyIcon : .captionedIcon
        case .carouselSlide: .carouselSlide
        case .videoPoster: .videoPoster
        case .video, .walletPass, .buttonLink, .slideLink: nil
        }
    }

    /// The ``AssetCheck/failure`` of an image its platform does not show although its bytes are fine.
    static func failure(of finding: Finding) -> String {
        switch finding.code {
        case AndroidFindingCode.imageCleartext: "cleartext-blocked"
        case AndroidFindingCode.imageTooManyRedirects: "too-many-redirects"
        default: "unsupported-on-\(finding.platform?.rawValue ?? "platform")"
        }
    }

    /// Whether the role is an image the check sniffs.
    static func isImage(_ role: AssetReference.Role) -> Bool {
        switch role {
        case .heroImage, .avatar, .icon, .carouselSlide, .videoPoster: true
        case .video, .walletPass, .buttonLink, .slideLink: false
        }
    }

    /// A person's name for the role in messages.
    static func describe(_ role: AssetReference.Role, index: Int?) -> String {
        let position = index.map { " \($0 + 1)" } ?? ""
        switch role {
        case .heroImage: return "hero image"
        case .avatar: return "avatar image"
        case .icon: return "icon"
        case .carouselSlide: return "carousel slide\(position)"
        case .video: return "video"
        case .videoPoster: return "video poster"
        case .walletPass: return "wallet pass"
        case .buttonLink: return "button\(position) link"
        case .slideLink: return "slide\(position) link"
        }
    }
}
