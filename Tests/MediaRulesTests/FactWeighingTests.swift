import Findings
import MediaProbe
import MediaRules
import Testing

/// The facts' own defects as each platform weighs them (`ImageRules.weigh`): A11, Glide never reads the
/// Content-Type, so a mismatched type is information on Android; G4, Glide downsamples at decode, so a heavy file
/// only costs data there and is information too. Every other defect keeps its severity; iOS keeps them all.
@Suite struct FactWeighingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var fact: Finding
        var android: Expect
        /// The note Android's rule adds to the message; nil when the Android finding is the platform-free fact
        /// itself (not marked `android`).
        var note: String?
        var testDescription: String {
            "\(fact.severity.rawValue) \(fact.code) → Android \(android)\(note == nil ? "" : " [android]")"
        }
    }

    static let sniffs = "Glide on Android sniffs the bytes and ignores the header."
    static let downsamples = "On Android only data is lost: Glide downsamples it to the cell."

    @Test(arguments: [
        Case(
            fact: .warning(
                ImageFindingCode.contentTypeMismatch, "Served as image/jpeg but the bytes are a PNG.", path: "p"),
            android: .info(ImageFindingCode.contentTypeMismatch), note: sniffs),
        Case(
            fact: .error(ImageFindingCode.contentTypeMismatch, "Served as text/html."),
            android: .info(ImageFindingCode.contentTypeMismatch), note: sniffs),
        Case(
            fact: .info(ImageFindingCode.contentTypeMismatch, "already information"),
            android: .info(ImageFindingCode.contentTypeMismatch), note: nil),
        Case(
            fact: .info(ImageFindingCode.contentTypeGeneric, "application/octet-stream"),
            android: .info(ImageFindingCode.contentTypeGeneric), note: nil),
        // G4: "many MB" is information on Android (Glide downsamples); iOS keeps the download-size warning.
        Case(
            fact: .warning(ImageFindingCode.tooManyBytes, "6 MiB", path: "p"),
            android: .info(ImageFindingCode.tooManyBytes), note: downsamples),
        Case(
            fact: .info(ImageFindingCode.tooManyBytes, "already information"),
            android: .info(ImageFindingCode.tooManyBytes), note: nil),
        Case(
            fact: .error(ImageFindingCode.truncated, "cut off"), android: .error(ImageFindingCode.truncated),
            note: nil),
        Case(fact: .error(ImageFindingCode.corrupt, "bad"), android: .error(ImageFindingCode.corrupt), note: nil),
    ])
    func weigh(_ testCase: Case) throws {
        let ios = ImageRules.weigh([testCase.fact], on: .ios)
        #expect(ios == [testCase.fact], "iOS keeps the facts as they are")
        let android = try #require(ImageRules.weigh([testCase.fact], on: .android).first)
        #expect(Expect(severity: android.severity, code: android.code) == testCase.android)
        #expect(android.path == testCase.fact.path)
        if let note = testCase.note {
            #expect(android.platform == .android)
            #expect(android.message == testCase.fact.message + " " + note)
        } else {
            #expect(android == testCase.fact)
        }
    }

    @Test func realBytesServedWithTheWrongType() throws {
        let png = try mediaFixture("image-64x48.png")
        let info = ImageSniffer.inspect(bytes: png, contentType: "image/jpeg")
        #expect(info.findings.map(\.code) == [ImageFindingCode.contentTypeMismatch])
        #expect(info.findings.first?.severity == .warning)
        #expect(ImageRules.weigh(info.findings, on: .android).map(\.severity) == [.info])
        #expect(ImageRules.weigh(info.findings, on: .ios).map(\.severity) == [.warning])
        #expect(ImageRules.weigh([], on: .android).isEmpty)
    }

    @Test func realBytesOverTheDownloadLimit() throws {
        let png = try mediaFixture("image-64x48.png")
        let info = ImageSniffer.inspect(bytes: png, contentType: "image/png", byteCount: (5 << 20) + 1)
        #expect(info.findings.map(\.code) == [ImageFindingCode.tooManyBytes])
        #expect(info.findings.first?.severity == .warning)
        let android = ImageRules.weigh(info.findings, on: .android)
        #expect(android.map(\.severity) == [.info])
        #expect(android.map(\.platform) == [.android])
        #expect(android.first?.message.hasSuffix(" " + Self.downsamples) == true)
        #expect(ImageRules.weigh(info.findings, on: .ios) == info.findings)
    }
}
