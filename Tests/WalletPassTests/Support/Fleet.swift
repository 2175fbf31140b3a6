import Foundation
import StrictJSON
import TestSupport

@testable import WalletPass

/// A scratch directory of passes signed by the test PKI, and the built `inbox-assets` run over it with the test
/// root (and intermediate) trusted and "now" at ``TestPKI/now``.
final class Fleet: @unchecked Sendable {
    // @unchecked Sendable: written by the test that made it before any child runs; read-only afterwards.
    let directory: String
    let trustArguments: [String]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/passes", withIntermediateDirectories: true)
        try Data(TestPKI.root.pem).write(to: URL(fileURLWithPath: directory + "/root.pem"))
        try Data(TestPKI.intermediate.der).write(to: URL(fileURLWithPath: directory + "/intermediate.der"))
        trustArguments = ["--trust", directory + "/root.pem", "--trust", directory + "/intermediate.der"]
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// The folder the passes go into.
    var passes: String { directory + "/passes" }

    /// Writes `bytes` as `passes/name` and returns its path.
    @discardableResult func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = passes + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `inbox-assets ARGS --trust root --trust intermediate --at AT`.
    func run(_ arguments: [String], at: String = "2025-07-01T00:00:00Z") async throws -> ChildResult {
        try await Child.run(Products.inboxAssets, arguments + trustArguments + ["--at", at])
    }

    /// A pass of the test PKI with its own serial number (and barcode message, unless `barcode` is given).
    static func pass(
        serial: String, barcode: String? = nil, extraJSON: String = "", signer: TestCertificate = TestPKI.leaf
    ) -> [UInt8] {
        let json = PassParts.standardPassJSON
            .replacingOccurrences(
                of: "\"serialNumber\": \"TEST-0001\"", with: "\"serialNumber\": \"\(serial)\"\(extraJSON)"
            )
            .replacingOccurrences(of: "\"message\": \"TEST-0001\"", with: "\"message\": \"\(barcode ?? serial)\"")
        return PassParts.signed(passJSON: json, signer: signer).archive
    }
}

extension ChildResult {
    /// Standard output as a JSON document.
    func json() throws -> JSONValue { try JSON.parse(output) }
}
