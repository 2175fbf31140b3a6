// TEMPORARY stand-in for the video part of the retrieval API (helper branch). Not for main.
import Findings
import HTTPFetch
import StrictJSON

public struct VideoProbe: Sendable {
    public var url: String; public var isHLS: Bool; public var outcome: FetchOutcome?; public var findings: [Finding];
    public var json: JSONValue
}
extension AssetRetriever {
    public func probeVideo(_ url: String) async -> VideoProbe {
        VideoProbe(url: url, isHLS: false, outcome: nil, findings: [], json: nil)
    }
}
