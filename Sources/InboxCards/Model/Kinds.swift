/// The six InboxKit cell layouts.
public enum CardKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case banner
    case captioned
    case classic
    case carousel
    case video
    case wallet

    public var description: String { rawValue }

    /// Only these kinds render the `buttons` row.
    var rendersButtons: Bool { self == .classic || self == .captioned }
}

/// An InboxKit SDK generation whose card rules the resolver reproduces (inboxkit-cards.md §3).
public enum SDKProfile: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// SDK 7.0.40–7.0.45: banner, captioned and classic only; button urls need no scheme.
    case v7_0 = "7.0"
    /// SDK 7.1.2–7.1.3: adds carousel, video and wallet; captioned needs only an image; no slide cap.
    case v7_1 = "7.1"
    /// SDK 7.2.x (the documented behaviour): stricter captioned and carousel, 5-slide cap, hero from `attachment`/`b`.
    case v7_2 = "7.2"

    /// The profile the tool uses when none is asked for.
    public static let latest: SDKProfile = .v7_2

    public var description: String { rawValue }

    public static func < (lhs: SDKProfile, rhs: SDKProfile) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .v7_0: 0
        case .v7_1: 1
        case .v7_2: 2
        }
    }

    /// Whether a `displayType` (or `forceCellKind`) naming `kind` means anything to this SDK.
    public func knows(_ kind: CardKind) -> Bool {
        switch kind {
        case .banner, .captioned, .classic: true
        case .carousel, .video, .wallet: self >= .v7_1
        }
    }

    /// 7.2 made captioned and carousel require a title and a body.
    var requiresTitleAndBody: Bool { self >= .v7_2 }
    /// 7.2 caps a carousel at five usable slides.
    var slideCap: Int? { self >= .v7_2 ? 5 : nil }
    /// 7.2 takes a hero image from the root `attachment`/`b` keys first.
    var heroFromAttachment: Bool { self >= .v7_2 }
    /// From 7.1 on a button `url` must have a scheme to become `openURL`.
    var buttonURLNeedsScheme: Bool { self >= .v7_1 }
}

/// A device platform a card is resolved for.
public enum Platform: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// InboxKit (the iOS SDK, also Mac Catalyst).
    case ios
    /// The Android inbox: one fixed layout for every message.
    case android

    public var description: String { rawValue }

    /// The platform behind a createMessage `platforms` code, when the tool models it.
    ///
    /// 1 is iOS and 3 Android; 17 (Huawei) runs the Android SDK's inbox, so it counts as Android.
    /// The other codes (macOS, browsers, …) have no InboxKit and no Android inbox.
    public static func fromPushwooshCode(_ code: Int) -> Platform? {
        switch code {
        case 1: .ios
        case 3, 17: .android
        default: nil
        }
    }
}

/// What the resolver produces: which profiles and platforms, and an optional forced kind.
public struct ResolveOptions: Sendable, Hashable {
    /// SDK profiles to resolve every iOS card for (one card per profile), in output order.
    public var profiles: [SDKProfile]
    /// Platforms to resolve for, in output order.
    public var platforms: [Platform]
    /// The code-side `forceCellKind` (`--force-kind`): wins for every iOS message and skips every degrade check.
    public var forceKind: CardKind?

    public init(profiles: [SDKProfile] = [.latest], platforms: [Platform] = [.ios], forceKind: CardKind? = nil) {
        self.profiles = profiles
        self.platforms = platforms
        self.forceKind = forceKind
    }
}
