// libFuzzer target: the campaign reader, then the resolver over every profile and platform, then the report JSON.
// Built by Fuzz/build.sh with InboxCards, Findings and StrictJSON compiled in (see Fuzz/README.md).
import InboxCards
import StrictJSON

/// Every profile of both platforms, so each message goes through every resolution rule the CLI can select: the
/// resolver reads visibility against a fixed moment (deterministic runs).
private let resolver = CardResolver(
    options: ResolveOptions(
        profiles: SDKProfile.allCases, platforms: [.ios, .android], androidProfiles: AndroidProfile.allCases,
        at: 1_764_547_200))
/// The same with the Android heuristic switch on (it changes which Android decoders run).
private let heuristicResolver = CardResolver(
    options: ResolveOptions(
        platforms: [.android], androidProfiles: AndroidProfile.allCases, androidHeuristic: true, at: 1_764_547_200))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCampaign(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    do {
        let batch = try CampaignReader.read(bytes: bytes, source: "fuzz.json")
        // Serialising walks every card and finding, which is what the CLI prints.
        _ = resolver.run(batch).json.serialized()
        _ = heuristicResolver.run(batch).json.serialized()
    } catch {
        // An unusable input is an expected outcome: it must still become a finding.
        _ = error.finding
    }
    return 0
}
