/// The cell an image is drawn in: what the card does with it (crop, round, its size) on the platform that draws it.
/// Preflight maps a card's role and kind to it; MediaRules knows nothing of cards.
public enum ImageUse: String, Sendable, Hashable, CaseIterable {
    /// The banner card's hero (Android: `CenterCrop` + `RoundedCorners(16dp)`, required).
    case bannerHero
    /// The captioned card's hero (Android: `CenterCrop` + `RoundedCorners(16dp)`, required).
    case captionedHero
    /// An iOS wallet card's hero image.
    case walletHero
    /// Android's legacy row banner thumbnail `b` (40 dp, optional `centerCrop`; a tap opens it full screen).
    case legacyBanner
    /// The classic card's avatar (Android: 44 dp `CircleCrop`, required; the launcher icon on failure).
    case avatar
    /// The captioned card's round icon (Android: 32 dp `CircleCrop`, required).
    case captionedIcon
    /// The legacy row's icon (Android: 56 dp `CircleCrop`, required).
    case legacyIcon
    /// A carousel slide (Android: optional `centerCrop`).
    case carouselSlide
    /// A video card's poster (Android: optional `centerCrop`, the default icon on failure).
    case videoPoster

    /// Android: Glide applies a *required* transformation here (`transform(CenterCrop(), RoundedCorners(r))`,
    /// `transform(CircleCrop())`), which throws for an `Animatable` drawable: an animated WebP/AVIF fails to load
    /// (`DrawableTransformation` @ Glide v4.16.0; bumptech/glide#5441, #5001; android-assets.md §1).
    public var androidTransformRequired: Bool {
        switch self {
        case .bannerHero, .captionedHero, .avatar, .captionedIcon, .legacyIcon: true
        case .walletHero, .legacyBanner, .carouselSlide, .videoPoster: false
        }
    }

    /// A person's name for the cell in messages.
    public var described: String {
        switch self {
        case .bannerHero: "banner hero"
        case .captionedHero: "captioned hero"
        case .walletHero: "wallet hero"
        case .legacyBanner: "legacy row banner thumbnail"
        case .avatar: "classic avatar"
        case .captionedIcon: "captioned icon"
        case .legacyIcon: "legacy row icon"
        case .carouselSlide: "carousel slide"
        case .videoPoster: "video poster"
        }
    }
}
