import Findings
import Foundation
import StrictJSON
import Testing

@testable import WalletPass

/// pass.json lint cases: a change to the standard pass.json and the finding it must produce.
struct LintCase: CustomTestStringConvertible, Sendable {
    var name: String
    var json: String
    var code: String?
    var severity: Severity?

    var testDescription: String { name }

    static func replacing(
        _ name: String, _ target: String, _ replacement: String, _ code: String?, _ severity: Severity? = .error
    )
        -> LintCase
    {
        LintCase(
            name: name, json: PassParts.passJSON(replacing: target, with: replacement), code: code, severity: severity)
    }

    static let all: [LintCase] = [
        .init(name: "the standard pass is clean", json: PassParts.standardPassJSON, code: nil),
        .init(name: "not JSON", json: "{\"formatVersion\": 1,", code: "pass.json.invalid", severity: .error),
        .init(name: "an array", json: "[1, 2]", code: "pass.json.notObject", severity: .error),
        .init(
            name: "deeply nested", json: String(repeating: "[", count: 100_000), code: "pass.json.invalid",
            severity: .error),
        .init(
            name: "byte order mark", json: "\u{FEFF}" + PassParts.standardPassJSON, code: "pass.json.bom",
            severity: .warning),
        replacing("trailing comma", "\"generic\": {", "\"voided\": false, \"generic\": {", nil),
        replacing(
            "trailing comma accepted with a warning", "\"Jane\"}]", "\"Jane\"},]", "pass.json.trailingComma", .warning),
        replacing("missing description", "\"description\": \"Test pass\",", "", "pass.json.missingKey"),
        replacing("formatVersion 2", "\"formatVersion\": 1", "\"formatVersion\": 2", "pass.json.formatVersion"),
        replacing(
            "formatVersion as string", "\"formatVersion\": 1", "\"formatVersion\": \"1\"", "pass.json.formatVersion"),
        replacing(
            "serialNumber as number", "\"serialNumber\": \"TEST-0001\"", "\"serialNumber\": 1", "pass.json.wrongType"),
        replacing("no style", "\"generic\": {", "\"notAStyle\": {", "pass.json.noStyle"),
        replacing("two styles", "\"generic\": {", "\"coupon\": {}, \"generic\": {", "pass.json.multipleStyles"),
        replacing(
            "boardingPass without transitType", "\"generic\": {", "\"boardingPass\": {", "pass.json.transitType"),
        replacing(
            "field without value", "\"label\": \"Member\", \"value\": \"Jane\"", "\"label\": \"Member\"",
            "pass.json.fieldInvalid"),
        replacing("duplicate field key", "\"key\": \"terms\"", "\"key\": \"member\"", "pass.json.fieldDuplicateKey"),
        replacing("unknown text alignment", "PKTextAlignmentLeft", "left", "pass.json.fieldEnum", .warning),
        replacing(
            "webServiceURL over http", "\"description\": \"Test pass\",",
            "\"description\": \"Test pass\", \"webServiceURL\": \"http://x.example/\", \"authenticationToken\": \"0123456789abcdef\",",
            "pass.json.webServiceUrl"),
        replacing(
            "short authenticationToken", "\"description\": \"Test pass\",",
            "\"description\": \"Test pass\", \"webServiceURL\": \"https://x.example/\", \"authenticationToken\": \"short\",",
            "pass.json.authenticationToken"),
        replacing(
            "webServiceURL without token", "\"description\": \"Test pass\",",
            "\"description\": \"Test pass\", \"webServiceURL\": \"https://x.example/\",", "pass.json.webServicePair"),
        replacing(
            "appLaunchURL without store ids", "\"description\": \"Test pass\",",
            "\"description\": \"Test pass\", \"appLaunchURL\": \"myapp://open\",", "pass.json.appLaunchUrl"),
        replacing("barcode without message", "\"message\": \"TEST-0001\", ", "", "pass.json.barcode"),
        replacing("unknown barcode format", "PKBarcodeFormatQR", "PKBarcodeFormatEAN13", "pass.json.barcode"),
        replacing("hex colour", "rgb(10, 20, 30)", "#0a141e", "pass.json.color", .warning),
        replacing("colour out of range", "rgb(10, 20, 30)", "rgb(10, 20, 300)", "pass.json.color", .warning),
        replacing(
            "date with milliseconds", "2026-12-31T23:59:00+01:00", "2026-12-31T23:59:00.000+01:00", "pass.json.date"),
        replacing("date with +0100", "2026-12-31T23:59:00+01:00", "2026-12-31T23:59:00+0100", "pass.json.date"),
        replacing("date in the past", "2026-12-31T23:59:00+01:00", "2020-01-01T00:00Z", "pass.json.expired", .warning),
        replacing(
            "nfc message over 64 bytes", "\"generic\": {",
            "\"nfc\": {\"message\": \"\(String(repeating: "x", count: 65))\"}, \"generic\": {", "pass.json.nfc"),
        replacing(
            "location without longitude", "\"generic\": {", "\"locations\": [{\"latitude\": 1.5}], \"generic\": {",
            "pass.json.location"),
        replacing(
            "beacon without UUID", "\"generic\": {", "\"beacons\": [{\"major\": 1}], \"generic\": {", "pass.json.beacon"
        ),
    ]
}

@Suite struct PassContentTests {
    @Test(arguments: LintCase.all)
    func lint(_ lintCase: LintCase) {
        let result = PassJSONLinter.lint(Array(lintCase.json.utf8), now: TestPKI.now, limits: PassLimits())
        if let code = lintCase.code {
            #expect(
                result.findings.contains { $0.code == code && $0.severity == lintCase.severity }, "\(result.findings)")
            #expect(result.findings.allSatisfy { $0.path == "pass.json" })
        } else {
            #expect(result.findings.isEmpty, "\(result.findings)")
        }
    }

    @Test func authenticationTokenNeverReachesAFinding() {
        let json = PassParts.passJSON(
            replacing: "\"description\": \"Test pass\",",
            with:
                "\"description\": \"Test pass\", \"webServiceURL\": \"http://x.example/?token=abc\", \"authenticationToken\": \"s3cr3t\","
        )
        let findings = PassJSONLinter.lint(Array(json.utf8), now: TestPKI.now, limits: PassLimits()).findings
        #expect(!findings.isEmpty)
        #expect(findings.allSatisfy { !$0.message.contains("s3cr3t") && !$0.message.contains("token=abc") })
    }

    @Test(arguments: [
        ("2025-06-01T12:00Z", "2025-06-01T12:00:00Z"),
        ("2025-06-01T12:00:30Z", "2025-06-01T12:00:30Z"),
        ("2025-06-01T14:00:00+02:00", "2025-06-01T12:00:00Z"),
        ("2025-06-01T07:30-04:30", "2025-06-01T12:00:00Z"),
        ("2024-02-29T23:59:59Z", "2024-02-29T23:59:59Z"), ("2025-01-01T00:30+01:00", "2024-12-31T23:30:00Z"),
    ])
    func w3cDatesParse(_ text: String, _ expected: String) {
        #expect(W3CDate.parse(text) == TestPKI.date(expected))
    }

    @Test(arguments: [
        "2025-06-01", "2025-06-01T12:00:00.000Z", "2025-06-01T12:00:00+0000", "2025-06-01T12:00:00ZZ",
        "2025-13-01T12:00Z", "2025-06-01 12:00Z", "", "2025-06-01T12:00:00", "2025-02-29T12:00Z", "2025-04-31T12:00Z",
        "2025-06-01T24:00Z",
    ])
    func w3cDatesRefused(_ text: String) {
        #expect(W3CDate.parse(text) == nil)
    }

    @Test func pngSizesComeFromTheHeader() {
        #expect(ImageChecker.pngSize(png(29, 58))! == (29, 58))
        #expect(ImageChecker.pngSize(Array("GIF89a-not-a-png-at-all-xx".utf8)) == nil)
        #expect(ImageChecker.pngSize(Array(png(1, 1).prefix(20))) == nil)
    }

    @Test(
        arguments: [
            ("icon.png", png(29, 29), nil),
            ("icon@2x.png", png(40, 40), "pass.image.size"),
            ("logo.png", png(400, 50), "pass.image.size"),
            ("strip.png", Array("<html>".utf8), "pass.image.notPng"),
            ("background.png", png(5000, 10), "pass.image.tooLarge"),
            ("thumbnail.png", png(90, 90), nil),
            ("strip.png", png(375, 98), "pass.image.unusedForStyle"),
        ] as [(String, [UInt8], String?)])
    func images(_ name: String, _ data: [UInt8], _ code: String?) {
        var entries = [ArchiveEntry(name: name, compressedSize: data.count, data: data)]
        if name != "icon.png" { entries.append(ArchiveEntry(name: "icon.png", compressedSize: 0, data: png(29, 29))) }
        let findings = ImageChecker.check(entries: entries, style: "generic", limits: PassLimits())
        #expect(findings.map(\.code) == (code.map { [$0] } ?? []), "\(findings)")
    }

    @Test func iconIsRequired() {
        let findings = ImageChecker.check(entries: [], style: "generic", limits: PassLimits())
        #expect(findings.map(\.code) == ["pass.image.iconMissing"])
    }

    static func utf16LE(_ text: String) -> [UInt8] {
        [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    static func utf16BE(_ text: String) -> [UInt8] {
        [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    @Test(
        arguments: [
            ("UTF-8", Array("\"a\" = \"b\";\n\"c\" = \"d\";".utf8)),
            (
                "UTF-8 with BOM and comments",
                [0xEF, 0xBB, 0xBF] + Array("/* x */\n// y\n\"a\"=\"b\"; \"c\" = \"d\";".utf8)
            ),
            ("UTF-16LE", utf16LE("\"a\" = \"b\";\n\"c\" = \"d\";")),
            ("UTF-16BE", utf16BE("\"a\" = \"b\"; /* c */ \"c\" = \"d\";")),
            ("escapes and bare keys", Array("a = \"b\";\n\"c\" = \"d\\\"\\n\";".utf8)),
        ] as [(String, [UInt8])])
    func stringsFilesParse(_ name: String, _ bytes: [UInt8]) throws {
        let text = try #require(StringsFile.decode(bytes))
        let pairs = try StringsFile.parse(text)
        #expect(pairs.map(\.key) == ["a", "c"])
        #expect(pairs.first?.value == "b")
    }

    @Test(
        arguments: [
            ("missing semicolon", Array("\"a\" = \"b\"".utf8), "pass.strings.invalid"),
            ("unterminated string", Array("\"a\" = \"b;".utf8), "pass.strings.invalid"),
            ("unterminated comment", Array("/* \"a\" = \"b\";".utf8), "pass.strings.invalid"),
            ("invalid UTF-8", [0x22, 0x61, 0x22, 0x3D, 0x22, 0xC3, 0x28, 0x22, 0x3B], "pass.strings.encoding"),
            ("odd UTF-16", [0xFF, 0xFE, 0x41], "pass.strings.encoding"),
        ] as [(String, [UInt8], String)])
    func badStringsFiles(_ name: String, _ bytes: [UInt8], _ code: String) {
        let findings = StringsFile.check(entries: [
            ArchiveEntry(name: "en.lproj/pass.strings", compressedSize: 0, data: bytes)
        ])
        #expect(findings.map(\.code) == [code], "\(findings)")
        #expect(findings.first?.path == "en.lproj/pass.strings")
    }

    @Test func localesMustCarryTheSameKeys() {
        let findings = StringsFile.check(entries: [
            ArchiveEntry(
                name: "en.lproj/pass.strings", compressedSize: 0, data: Array("\"a\" = \"A\"; \"b\" = \"B\";".utf8)),
            ArchiveEntry(name: "de.lproj/pass.strings", compressedSize: 0, data: Self.utf16LE("\"a\" = \"Ä\";")),
        ])
        #expect(findings.map(\.code) == ["pass.strings.missingKeys"])
        #expect(findings.first?.path == "de.lproj/pass.strings")
        #expect(findings.first?.message.contains("\"b\"") == true)
    }

    @Test func localizedPassVerifiesEndToEnd() {
        let parts = PassParts.signed(extraFiles: [
            ("en.lproj/pass.strings", Array("\"Member\" = \"Member\";".utf8)),
            ("fr.lproj/pass.strings", Self.utf16LE("\"Member\" = \"Membre\";")),
            ("fr.lproj/logo.png", png(160, 50)),
        ])
        let result = SignedPassTests.trusted.verify(bytes: parts.archive, source: "localized.pkpass")
        #expect(result.valid, "\(result.findings)")
        #expect(result.findings.isEmpty, "\(result.findings)")
    }

    @Test(arguments: [
        ("application/vnd.apple.pkpass", false), ("application/vnd.apple.pkpass; charset=binary", false),
        ("application/zip", true), ("application/octet-stream", true),
    ])
    func contentType(_ type: String, _ warns: Bool) {
        #expect((PassVerifier.checkContentType(type) != nil) == warns)
        #expect(PassVerifier.checkContentType(type, bundle: true) != nil)
        #expect(PassVerifier.checkContentType("application/vnd.apple.pkpasses", bundle: true) == nil)
    }

    @Test func derStringsAndKeyUsages() {
        #expect(DER.string(TestPKI.utf8String("pass.x")) == "pass.x")
        #expect(DER.string([0x0C, 0x05, 0x61]) == nil)  // length runs past the end
        #expect(DER.string([0x04, 0x01, 0x61]) == nil)  // an OCTET STRING is not text
        let usages: [UInt8] = [0x30, 0x0B, 0x06, 0x09] + DER.passTypeKeyUsage
        #expect(DER.objectIdentifiers(usages) == [DER.passTypeKeyUsage])
        #expect(DER.objectIdentifiers([0x30, 0x80, 0x00, 0x00]) == nil)  // indefinite length is not DER
    }

    @Test func manifestProblems() {
        let entries = [ArchiveEntry(name: "pass.json", compressedSize: 0, data: Array("{}".utf8))]
        func codes(_ manifest: String) -> [String] {
            ManifestChecker.check(
                manifest: Array(manifest.utf8), entries: entries, digester: PassParts.digester, limits: PassLimits()
            )
            .map(\.code)
        }
        let sha1 = Hex.encode(PassParts.digester.sha1(Array("{}".utf8)))
        #expect(codes("{\"pass.json\": \"\(sha1)\"}") == [])
        #expect(codes("{\"pass.json\": \"\(sha1.uppercased())\"}") == ["pass.manifest.uppercaseHash"])
        #expect(codes("{\"pass.json\": \"\(sha1)\", \"signature\": \"\(sha1)\"}") == ["pass.manifest.listsExcluded"])
        #expect(codes("{\"pass.json\": \"\(String(repeating: "ab", count: 32))\"}") == ["pass.manifest.invalidHash"])
        #expect(codes("{\"pass.json\": 12}") == ["pass.manifest.invalidHash"])
        #expect(codes("[]") == ["pass.manifest.notObject"])
        #expect(codes("{") == ["pass.manifest.invalidJson"])
        #expect(codes("{}") == ["pass.manifest.unlistedFile"])
    }
}

extension PassContentTests {
    @Test(arguments: [
        ("2024-06-27T18:06:53Z", "2024-06-27T18:06:53Z"), ("1999-01-02T03:04:05Z", "1999-01-02T03:04:05Z"),
        ("2038-01-19T03:14:08Z", "2038-01-19T03:14:08Z"),
    ])
    func datesFormatAsISO8601(_ input: String, _ expected: String) {
        #expect(formatDate(TestPKI.date(input)) == expected)
    }
}

extension PassContentTests {
    /// Every linted top-level key, given each JSON type it must not have: the lint names the key's rule.
    @Test(arguments: [
        ("description", "pass.json.wrongType"), ("organizationName", "pass.json.wrongType"),
        ("passTypeIdentifier", "pass.json.wrongType"), ("serialNumber", "pass.json.wrongType"),
        ("teamIdentifier", "pass.json.wrongType"), ("formatVersion", "pass.json.formatVersion"),
        ("generic", "pass.json.wrongType"), ("barcodes", "pass.json.barcode"), ("foregroundColor", "pass.json.color"),
        ("backgroundColor", "pass.json.color"), ("expirationDate", "pass.json.date"),
    ])
    func wrongTypes(_ key: String, _ code: String) throws {
        let object = try #require(try JSON.parse(PassParts.standardPassJSON).objectValue)
        let wrongValues: [JSONValue] = [.null, .bool(true), .int(7), .string("x"), .array([]), .object(JSONObject())]
        for wrong in wrongValues {
            var changed = object
            changed[key] = wrong
            let text = JSONValue.object(changed).serialized()
            let findings = PassJSONLinter.lint(Array(text.utf8), now: TestPKI.now, limits: PassLimits()).findings
            let acceptable =
                (key == "formatVersion" && wrong == .int(1)) || (key == "barcodes" && wrong == .array([]))
                || (key == "generic" && wrong == .object(JSONObject()))
            if !acceptable && !(wrong.stringValue != nil && code == "pass.json.wrongType") {
                #expect(findings.contains { $0.code == code }, "\(key) = \(wrong.serialized()): \(findings)")
            }
        }
    }
}
