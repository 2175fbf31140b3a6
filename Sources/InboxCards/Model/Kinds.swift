public import Findings

/// The card layouts: the six InboxKit cells (also the Android rich cards, without wallet), and the Android
/// legacy row.
public enum CardKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case banner
    case captioned
    case classic
    case carousel
    case video
    case wallet
    /// The Android legacy inbox row (`InboxCardKind.DEFAULT`, `InboxAdapter.TEXT_VIEW_TYPE`): title, date, body,
    /// an icon and an optional `b` banner; no buttons, no pin. Every message on SDK ≤ 6.11; on 6.12+ every
    /// message without a known displayType while `richCardsHeuristicEnabled` is off. It is not `classic`.
    case legacy

    public var description: String { rawValue }

    /// The kinds a `displayType` (or `--force-kind`) can name; `legacy` is an outcome, never a request.
    public static let requestable: [CardKind] = [.banner, .captioned, .classic, .carousel, .video, .wallet]

    /// The kind a lowercased `displayType` names (`legacy` names none: it is no displayType value).
    static func named(_ lowered: String) -> CardKind? {
        guard let kind = CardKind(rawValue: lowered), kind != .legacy else { return nil }
        return kind
    }

    /// Only these kinds render the `buttons` row (on both platforms).
    var rendersButtons: Bool { self == .classic || self == .captioned }
}

/// A pushwoosh-inbox-ui (Android SDK) generation whose card rules the resolver reproduces (android-inbox.md §2).
///
/// The kind rules (which card a message becomes, the slide cap, what a card needs) are written once and compared
/// by rank, so a later profile shares them unless a rule says otherwise; 6.15 differs from 6.13 only in where taps
/// go (``videoOwnsRow``, ``buttonTapMarksOpened``).
public enum AndroidProfile: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// SDK ≤ 6.11: one legacy row for every message.
    case v6_11 = "6.11"
    /// SDK 6.12.0: rich cards; captioned needs only a hero, carousel only slides (at most 10).
    case v6_12 = "6.12"
    /// SDK 6.13.x (no 6.14 was found): captioned and carousel need a title and a body, at most 5 slides.
    case v6_13 = "6.13"
    /// SDK 6.15.0: the 6.13 card rules (`InboxCardKind.kt` is not changed at 9357bd7), new tap routing
    /// (`InboxAdapter.kt` and `RichCardViewHolder.kt` @9357bd7): a video card owns its row, a button tap marks the
    /// message opened.
    case v6_15 = "6.15"

    /// The profile used when none is asked for (the CLI's `--android-sdk` default): 6.13, not the newest.
    public static let latest: AndroidProfile = .v6_13

    public var description: String { rawValue }

    public static func < (lhs: AndroidProfile, rhs: AndroidProfile) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .v6_11: 0
        case .v6_12: 1
        case .v6_13: 2
        case .v6_15: 3
        }
    }

    /// 6.12 added the rich cards (`InboxCardKind.kt` first appears at a9a39ef).
    var hasRichCards: Bool { self >= .v6_12 }
    /// 6.13 made captioned and carousel require a title and a body (`hasText`).
    var requiresTitleAndBody: Bool { self >= .v6_13 }
    /// `InboxCarouselSlide.MAX_SLIDES`: 10 in 6.12, 5 from 6.13.
    var slideCap: Int { self >= .v6_13 ? 5 : 10 }
    /// 6.15.0 routes a video card's row tap to its player (`OwnRowDestination`, `InboxAdapter.kt` @9357bd7;
    /// android-inbox.md §2.1). Before, `InboxAdapter.kt` is a9a39ef's: a row tap outside the poster runs the row
    /// action.
    var videoOwnsRow: Bool { self >= .v6_15 }
    /// 6.15.0: every button tap first calls `PushwooshInbox.markMessageOpened`, also one whose URL is refused
    /// (`RichCardViewHolder.kt` @9357bd7, `InboxCardOpenStatusTest`; android-inbox.md §2.7, §2.8). Before, openURL,
    /// markRead and custom buttons mark the message read and a refused URL leaves it unread.
    var buttonTapMarksOpened: Bool { self >= .v6_15 }
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
        case .legacy: false
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
    /// The Android inbox (pushwoosh-inbox-ui): rich cards from SDK 6.12, the legacy row before.
    case android

    public var description: String { rawValue }

    /// The platform whose asset rules judge this card's assets (``Finding/platform``).
    public var rulePlatform: RulePlatform { self == .ios ? .ios : .android }

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

/// What the resolver produces: which profiles and platforms, an optional forced kind, and the moment the inbox
/// is looked at.
public struct ResolveOptions: Sendable, Hashable {
    /// SDK profiles to resolve every iOS card for (one card per profile), in output order.
    public var profiles: [SDKProfile]
    /// Platforms to resolve for, in output order.
    public var platforms: [Platform]
    /// The code-side `forceCellKind` (`--force-kind`): wins for every iOS message and skips every degrade check.
    /// Android has no equivalent; it is ignored there (and the run says so).
    public var forceKind: CardKind?
    /// Android SDK profiles to resolve every Android card for (one card per profile), in output order.
    public var androidProfiles: [AndroidProfile]
    /// `PushwooshInboxStyle.richCardsHeuristicEnabled` (`--android-heuristic`): off by default, as in the SDK.
    public var androidHeuristic: Bool
    /// The moment the inbox is looked at (`--at`), in seconds since 1970: messages that expired before it are not
    /// shown. `nil` = the time of the resolve.
    public var at: Int64?

    public init(
        profiles: [SDKProfile] = [.latest], platforms: [Platform] = [.ios], forceKind: CardKind? = nil,
        androidProfiles: [AndroidProfile] = [.latest], androidHeuristic: Bool = false, at: Int64? = nil
    ) {
        self.profiles = profiles
        self.platforms = platforms
        self.forceKind = forceKind
        self.androidProfiles = androidProfiles
        self.androidHeuristic = androidHeuristic
        self.at = at
    }

    /// `SDK 7.2; ios` — or with Android, `SDK 7.2; Android SDK 6.13; ios, android` (and `, heuristic on`): the
    /// profiles and platforms a report's header names.
    public var targetDescription: String {
        var parts: [String] = []
        if platforms.contains(.ios) { parts.append("SDK " + profiles.map(\.rawValue).joined(separator: ", ")) }
        if platforms.contains(.android) {
            parts.append(
                "Android SDK " + androidProfiles.map(\.rawValue).joined(separator: ", ")
                    + (androidHeuristic ? " (heuristic on)" : ""))
        }
        parts.append(platforms.map(\.rawValue).joined(separator: ", "))
        return parts.joined(separator: "; ")
    }
}
