public import InboxCards
import WalletPass

/// The largest response body accepted, by what the body is for: the same cap whether the body goes to the store or
/// stays in memory, so an endless body can fill neither the disk nor the memory.
public struct BodyLimits: Sendable, Hashable {
    /// Images: hero, avatar, icon, carousel slides, video posters (64 MiB).
    public var image: Int
    /// Wallet passes: the pass reader's archive limit (``PassLimits/maxArchiveBytes``, 10 MiB); a larger pass could
    /// not be read anyway.
    public var pass: Int
    /// Video files, HLS playlists and segments, which `prefetch --video` streams into the store in bounded memory:
    /// `nil`, no limit.
    public var video: Int?

    /// Creates limits.
    public init(image: Int = 64 << 20, pass: Int = PassLimits().maxArchiveBytes, video: Int? = nil) {
        self.image = image
        self.pass = pass
        self.video = video
    }

    /// The defaults, or `maxSize` for every body (`--max-size`).
    public init(maxSize: Int?) {
        if let maxSize {
            self.init(image: maxSize, pass: maxSize, video: maxSize)
        } else {
            self.init()
        }
    }

    /// The limit for a URL that plays `roles`: the largest its roles allow (a video, or an image that is also a pass,
    /// needs the larger one).
    public func limit(for roles: Set<AssetReference.Role>) -> Int? {
        if roles.contains(.video) { return video }
        if roles.contains(where: { $0 != .walletPass && !$0.isLink }) { return image }
        return roles.contains(.walletPass) ? pass : image
    }
}

/// One URL to retrieve and the largest body accepted for it.
public struct AssetRequest: Sendable, Hashable {
    /// The raw URL (secrets included).
    public var url: String
    /// The most body bytes accepted, in the store or in memory; `nil` for no limit (streamed video bodies).
    public var maxBytes: Int?

    /// Creates a request.
    public init(url: String, maxBytes: Int?) {
        self.url = url
        self.maxBytes = maxBytes
    }
}

/// What ``AssetRetriever`` does when its store cannot be written (read-only mount, another user's directory, no
/// write permission, full disk).
public enum UnwritableStorePolicy: Sendable, Hashable {
    /// Go on without writing: read the stored copies, keep new downloads in memory for this run, and report one
    /// `store.readOnly` warning (``AssetRetriever/storeFinding``). For `check` and `export`.
    case keepInMemory
    /// Every write failure is the asset's `asset.storeFailed` error, with its ``RetrievedAsset/storeError``: for
    /// `prefetch`, whose whole job is writing.
    case fail
}

extension AssetPlan.Item {
    /// This URL's request, with the limit its roles allow.
    public func request(_ limits: BodyLimits) -> AssetRequest {
        AssetRequest(url: url, maxBytes: limits.limit(for: roles))
    }
}

extension AssetPlan {
    /// The requests of every URL to download, with their limits; refused URLs (``Item/refusal``) are left out: they
    /// are never requested (``refusedAssets()`` reports them).
    public func downloadRequests(_ limits: BodyLimits) -> [AssetRequest] {
        items.lazy.filter { $0.mode == .download && $0.refusal == nil && !$0.otherShard }.map { $0.request(limits) }
    }
}
