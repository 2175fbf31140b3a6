// libFuzzer target: the campaign reader, then the resolver over every profile and platform, then the report JSON.
// Built by Fuzz/build.sh with InboxCards, Findings and StrictJSON compiled in (see Fuzz/README.md).
import InboxCards
import StrictJSON

/// Every profile and both platforms, so each message goes through every resolution rule the CLI can select.
private let resolver = CardResolver(
    options: ResolveOptions(profiles: SDKProfile.allCases, platforms: [.ios, .android]))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCampaign(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    do {
        let batch = try CampaignReader.read(bytes: bytes, source: "fuzz.json")
        // Serialising walks every card and finding, which is what the CLI prints.
        _ = resolver.run(batch).json.serialized()
    } catch {
        // An unusable input is an expected outcome: it must still become a finding.
        _ = error.finding
    }
    return 0
}
