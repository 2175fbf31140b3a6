public import Findings
import HTTPFetch
public import InboxCards

/// What a run has to fetch: every asset URL of the resolved cards once, however many cards share it
/// (10,000 messages with one hero image are one item), with every role it plays.
public struct AssetPlan: Sendable, Hashable {
    /// How an asset is retrieved.
    public enum Mode: String, Sendable, Hashable {
        /// Downloaded whole into the store: images, posters, passes.
        case download
        /// A video: probed by `check`, downloaded (file, or playlists and segments) only by `prefetch --video`.
        case video
        /// Reported, never fetched: button and slide links.
        case skip
    }

    /// One unique URL.
    public struct Item: Sendable, Hashable {
        /// The URL exactly as in the input (secrets included: fetch with it, never print it).
        public var url: String
        /// Every role the URL plays across the cards.
        public var roles: Set<AssetReference.Role>
        /// How it is retrieved. A URL that is both a video and an image (unlikely, but possible) is a video;
        /// a URL that is both fetched and a link is fetched.
        public var mode: Mode
        /// Why the URL is never requested, whatever its mode: `input.badURL` when it holds a control character
        /// (see ``AssetPlan/refusal(of:)``). ``AssetPlan/urls(_:)`` leaves such items out.
        public var refusal: Finding?
        /// The item belongs to another shard of a sharded run (``AssetPlan/sharded(_:)``): never retrieved here.
        public var otherShard = false

        /// Creates an item.
        public init(url: String, roles: Set<AssetReference.Role>, mode: Mode, refusal: Finding? = nil) {
            self.url = url
            self.roles = roles
            self.mode = mode
            self.refusal = refusal
        }
    }

    /// Unique by URL, in the order the URLs first appear in the cards.
    public var items: [Item]

    /// Creates a plan from items (see ``make(_:)`` for the usual way).
    public init(items: [Item]) { self.items = items }

    /// Deduplicates the assets of `cards` by their raw URL, merging roles. Empty URLs are left out.
    public static func make(_ cards: [ResolvedCard]) -> AssetPlan {
        var builder = Builder()
        for card in cards { builder.add(card) }
        return builder.plan
    }

    /// A plan built a card at a time (``make(_:)`` of cards that are not held).
    public struct Builder: Sendable {
        private var items: [Item] = []
        private var positions: [String: Int] = [:]

        public init() {}

        /// Adds the assets of the next card.
        public mutating func add(_ card: ResolvedCard) {
            for asset in card.assets where !asset.fetchURL.isEmpty {
                let mode = AssetPlan.mode(of: asset.role)
                if let position = positions[asset.fetchURL] {
                    items[position].roles.insert(asset.role)
                    items[position].mode = AssetPlan.stronger(items[position].mode, mode)
                } else {
                    positions[asset.fetchURL] = items.count
                    items.append(
                        Item(
                            url: asset.fetchURL, roles: [asset.role], mode: mode,
                            refusal: AssetPlan.refusal(of: asset.fetchURL)))
                }
            }
        }

        /// The plan of the cards added so far.
        public var plan: AssetPlan { AssetPlan(items: items) }
    }

    /// The URLs of one mode to retrieve, in plan order (refused URLs left out: see ``refusedAssets()``).
    public func urls(_ mode: Mode) -> [String] {
        items.filter { $0.mode == mode && $0.refusal == nil && !$0.otherShard }.map(\.url)
    }

    /// The items that would be fetched but are refused (``Item/refusal``): never requested.
    public var refused: [Item] { items.filter { $0.mode != .skip && $0.refusal != nil && !$0.otherShard } }

    /// A failed retrieval for every refused item, as the retriever would report a failure: no body, the outcome
    /// `invalid-url`, and the refusal as its finding. Reports list these with the retrieved assets.
    public func refusedAssets() -> [RetrievedAsset] {
        refused.map { item in
            RetrievedAsset(
                url: item.url, source: .missing,
                outcome: FetchOutcome(
                    url: item.url, kind: item.mode == .video ? .probe : .get, failure: .invalidURL,
                    errorText: item.refusal?.message),
                findings: item.refusal.map { [$0] } ?? [])
        }
    }

    /// Why `url` must never be requested, or `nil`: a C0 control byte or DEL in it (`input.badURL`). A NUL would
    /// cut the request line (`/png/a\0b` asks the server for `/png/a` while the report names the whole URL); the
    /// engine refuses these too, this says so before any request with the campaign's own finding code.
    public static func refusal(of url: String) -> Finding? {
        guard let (offset, byte) = ControlCharacters.first(in: url) else { return nil }
        return .error(
            CardFindingCode.badURL,
            "\(Redaction.redactURL(url)) holds the control character \(ControlCharacters.notation(byte)) at byte "
                + "\(offset): it is never requested")
    }

    static func mode(of role: AssetReference.Role) -> Mode {
        switch role {
        case .video: .video
        case .buttonLink, .slideLink: .skip
        case .heroImage, .avatar, .icon, .carouselSlide, .videoPoster, .walletPass: .download
        }
    }

    /// Video beats download beats skip: the more a URL is used for, the more it is fetched.
    private static func stronger(_ first: Mode, _ second: Mode) -> Mode {
        func rank(_ mode: Mode) -> Int {
            switch mode {
            case .skip: 0
            case .download: 1
            case .video: 2
            }
        }
        return rank(first) >= rank(second) ? first : second
    }
}
