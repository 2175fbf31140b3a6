import HTTPFetch

/// One of N deterministic slices of a run's assets (`--shard I/N`): an asset URL belongs to shard
/// `1 + (first 64 bits of SHA-256(URL), big-endian) mod N`. The same URL lands in the same shard on every machine and
/// in every run, so N workers (a CI matrix, an indexed Kubernetes Job) split the work with no coordinator, and their
/// shards cover every asset exactly once.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based: `1...count`.
    public let index: Int
    public let count: Int

    /// The whole run (`1/1`).
    public static let all = Shard(unchecked: 1, of: 1)

    /// - Returns: `nil` unless `1 <= index <= count`.
    public init?(_ index: Int, of count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.init(unchecked: index, of: count)
    }

    private init(unchecked index: Int, of count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `I/N` (`--shard 2/8`).
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
            let index = Int(parts[0]), let count = Int(parts[1]), count <= 1_000_000
        else { return nil }
        self.init(index, of: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The shard (1-based) `url` belongs to out of `count`.
    public static func of(_ url: String, count: Int) -> Int {
        guard count > 1 else { return 1 }
        let hex = RemoteCache.key(url).prefix(16)
        let value = UInt64(hex, radix: 16) ?? 0
        return Int(value % UInt64(count)) + 1
    }

    /// Whether this shard processes `url`.
    public func contains(_ url: String) -> Bool { count == 1 || Self.of(url, count: count) == index }
}

extension AssetPlan {
    /// The plan with every item outside `shard` marked ``Item/otherShard``: still listed (a check reports it as
    /// skipped, `source: "other-shard"`), never retrieved, probed or counted as failed.
    public func sharded(_ shard: Shard) -> AssetPlan {
        guard shard.count > 1 else { return self }
        var plan = self
        for index in plan.items.indices where plan.items[index].mode != .skip {
            plan.items[index].otherShard = !shard.contains(plan.items[index].url)
        }
        return plan
    }

    /// The skipped assets of other shards, as retrievals (``RetrievedAsset/Source/otherShard``).
    public func otherShardAssets() -> [RetrievedAsset] {
        items.filter(\.otherShard).map { RetrievedAsset(url: $0.url, source: .otherShard) }
    }
}
