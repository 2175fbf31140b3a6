import Foundation
import Testing
@testable import WalletPass

@Test func explore() throws {
    let verifier = try PassVerifier()
    let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/passes/corpus").standardized
    for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() {
        let result = verifier.verify(fileAt: dir.appendingPathComponent(name).path)
        print("== \(name) valid=\(result.valid) gen=\(result.signer?.issuingGeneration ?? "-")")
        for finding in result.findings { print("   \(finding.severity) \(finding.code) [\(finding.path ?? "")] \(finding.message)") }
    }
}
