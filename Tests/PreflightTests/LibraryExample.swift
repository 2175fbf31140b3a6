import Foundation
import HTTPFetch
import Preflight
import WalletPass

/// Runs the whole pre-flight on one campaign file and returns the report (the same model every format renders).
func preflight(campaign path: String, network: FetchOptions) async throws -> CheckReport {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let engine = try FetchEngine(options: network)
    let pipeline = CheckPipeline(
        options: CheckOptions(),  // SDK 7.2 on iOS, as `check` without options
        retriever: AssetRetriever(fetcher: engine, store: nil),  // or an AssetStore to keep and revalidate assets
        passVerifier: try PassVerifier())  // Apple's anchors are built in
    let outcome = await pipeline.run([(name: path, bytes: bytes)])
    await engine.shutdown()
    return outcome.report
}
