public import InboxCards

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
