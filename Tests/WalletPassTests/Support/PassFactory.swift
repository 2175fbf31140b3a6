import Foundation

@testable import WalletPass

/// The pieces of a pass before zipping, so a test can sign a good pass and then break exactly one thing.
struct PassParts {
    /// Every file except manifest.json and signature, in archive order.
    var files: [(name: String, data: [UInt8])]
    var manifest: [UInt8]?
    var signature: [UInt8]?

    static let digester = Digester()

    /// A valid generic pass for the test PKI's leaf, signed with `options`.
    static func signed(
        passJSON: String = PassParts.standardPassJSON, extraFiles: [(String, [UInt8])] = [],
        signer: TestCertificate = TestPKI.leaf, options: SigningOptions = SigningOptions(chain: [TestPKI.intermediate])
    ) -> PassParts {
        var parts = PassParts(
            files: [
                ("pass.json", Array(passJSON.utf8)), ("icon.png", png(29, 29)), ("icon@2x.png", png(58, 58)),
                ("logo.png", png(160, 50)),
            ] + extraFiles,
            manifest: nil, signature: nil)
        parts.manifest = manifest(for: parts.files)
        parts.signature = TestPKI.sign(parts.manifest!, with: signer, options: options)
        return parts
    }

    /// manifest.json for `files`: name → lower-case hex SHA-1.
    static func manifest(for files: [(name: String, data: [UInt8])]) -> [UInt8] {
        let members = files.map { "\"\($0.name)\": \"\(Hex.encode(digester.sha1($0.data)))\"" }
        return Array(("{" + members.joined(separator: ", ") + "}").utf8)
    }

    /// The archive (stored entries: pass.json, manifest.json, signature first, then the rest).
    var archive: [UInt8] {
        var entries: [ZipWriter.Entry] = []
        if let json = files.first(where: { $0.name == "pass.json" }) { entries.append(.init(json.name, json.data)) }
        if let manifest { entries.append(.init("manifest.json", manifest)) }
        if let signature { entries.append(.init("signature", signature)) }
        for file in files where file.name != "pass.json" { entries.append(.init(file.name, file.data)) }
        return ZipWriter.archive(entries)
    }

    mutating func replace(_ name: String, with data: [UInt8]) {
        files = files.map { $0.name == name ? (name, data) : $0 }
    }

    static let standardPassJSON = """
        {
          "formatVersion": 1,
          "passTypeIdentifier": "\(TestPKI.passTypeIdentifier)",
          "teamIdentifier": "\(TestPKI.teamIdentifier)",
          "serialNumber": "TEST-0001",
          "organizationName": "Inbox Assets",
          "description": "Test pass",
          "expirationDate": "2026-12-31T23:59:00+01:00",
          "foregroundColor": "rgb(255, 255, 255)",
          "backgroundColor": "rgb(10, 20, 30)",
          "barcodes": [{"format": "PKBarcodeFormatQR", "message": "TEST-0001", "messageEncoding": "iso-8859-1"}],
          "generic": {
            "primaryFields": [{"key": "member", "label": "Member", "value": "Jane"}],
            "backFields": [{"key": "terms", "label": "Terms", "value": "None", "textAlignment": "PKTextAlignmentLeft"}]
          }
        }
        """

    /// The standard pass.json with `change` applied to its text (simple string replacement).
    static func passJSON(replacing target: String, with replacement: String) -> String {
        precondition(standardPassJSON.contains(target), "pass.json template lacks \(target)")
        return standardPassJSON.replacingOccurrences(of: target, with: replacement)
    }
}

/// A PNG header (signature, IHDR, IEND) of the given size: enough for a header sniffer, never decoded.
func png(_ width: Int, _ height: Int) -> [UInt8] {
    func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(CRC32.checksum(body)))
    }
    let header = be32(width) + be32(height) + [8, 6, 0, 0, 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IEND", [])
}
