// TEMPORARY stand-ins for the retrieval API (helper branch), deleted at merge. Not committed.
import AssetStore
import Findings
import Foundation
import HTTPFetch
import InboxCards
import StrictJSON

public struct AssetPlan: Sendable {
    public struct Item: Sendable {
        public var url: String; public var roles: Set<AssetReference.Role>; public var mode: Mode
    }
    public enum Mode: Sendable { case download, video, skip }
    public var items: [Item]
    public static func make(_ cards: [ResolvedCard]) -> AssetPlan { AssetPlan(items: []) }
}
public struct RetrievedAsset: Sendable {
    public enum Source: String, Sendable { case network, revalidated, store, memory, missing }
    public var url: String
    public var source: Source
    public var outcome: FetchOutcome?
    public var entry: StoreEntry?
    public var findings: [Finding]
    public var isOK: Bool
    public func body(limit: Int) -> [UInt8]? { nil }
}
public struct ProgressSnapshot: Sendable {
    public var done: Int; public var total: Int; public var bytes: Int; public var failed: Int
}
public struct VideoProbe: Sendable {
    public var url: String; public var isHLS: Bool; public var outcome: FetchOutcome?; public var findings: [Finding];
    public var json: JSONValue
}
public final class AssetRetriever: Sendable {
    public init(
        fetcher: any AssetFetching, store: AssetStore?, offline: Bool = false, memoryLimit: Int = 64 << 20,
        now: @escaping @Sendable () -> Date = Date.init
    ) {}
    public func retrieve(_ url: String) async -> RetrievedAsset { fatalError() }
    public func retrieveAll(_ urls: [String], progress: (@Sendable (ProgressSnapshot) -> Void)?) async
        -> [RetrievedAsset]
    { [] }
    public func probeVideo(_ url: String) async -> VideoProbe { fatalError() }
}
public enum JUnitReport { public static func render(_ report: CheckReport) -> String { "" } }
public enum HTMLReport {
    public static func render(_ report: CheckReport, image: (String) -> (bytes: [UInt8], contentType: String)?)
        -> String
    { "" }
}
