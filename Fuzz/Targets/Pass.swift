// libFuzzer target: the full pass verification (archive reader, manifest, signature, pass.json lint, images),
// plus inspect (file list and certificates) and the .pkpasses bundle reader over the same bytes.
import Foundation
import StrictJSON
import WalletPass

/// One verifier for the whole run: it loads the bundled Apple certificates once. A fixed "now" keeps runs
/// reproducible (certificate validity and relevantDate checks depend on it).
private let verifier: PassVerifier = {
    do {
        return try PassVerifier(extraTrustCertificates: [], now: Date(timeIntervalSince1970: 1_750_000_000))
    } catch {
        fatalError("cannot create the verifier: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPass(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    let inspection = verifier.inspect(bytes: bytes, source: "fuzz.pkpass")
    _ = inspection.json.serialized()
    _ = verifier.verifyBundle(bytes: bytes, source: "fuzz.pkpasses").json.serialized()
    return 0
}
