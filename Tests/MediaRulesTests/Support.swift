import Findings
import Foundation
import MediaRules
import Testing

@testable import MediaProbe

/// One finding a rule table should give: its severity and stable code (the message is checked separately).
struct Expect: Hashable, Sendable, Comparable, CustomStringConvertible {
    var severity: Severity
    var code: String

    static func error(_ code: String) -> Expect { Expect(severity: .error, code: code) }
    static func warning(_ code: String) -> Expect { Expect(severity: .warning, code: code) }
    static func info(_ code: String) -> Expect { Expect(severity: .info, code: code) }

    /// Most severe first, then by code: the order ``expectations(_:)`` sorts findings into.
    static func < (lhs: Expect, rhs: Expect) -> Bool {
        lhs.severity != rhs.severity ? lhs.severity > rhs.severity : lhs.code < rhs.code
    }

    var description: String { "\(severity.rawValue) \(code)" }
}

/// "nothing", or the expected findings joined for a case name.
func describe(_ expected: [Expect]) -> String {
    expected.isEmpty ? "nothing" : expected.sorted().map(\.description).joined(separator: " + ")
}

/// Codes only iOS's rules give: an Android card must never carry one.
let iOSOnlyCodes: Set<String> = [
    ImageFindingCode.appTransportSecurity, VideoFindingCode.appTransportSecurity, ImageFindingCode.requiresNewerOS,
    ImageFindingCode.appleOptimizedPNG, ImageFindingCode.animated, ImageFindingCode.tooManyPixels,
    ImageFindingCode.largeDecodedMemory,
]

/// True for a code of Android's own rules (`image.android.*`, `video.android.*`).
func isAndroidCode(_ code: String) -> Bool { code.hasPrefix("image.android.") || code.hasPrefix("video.android.") }

/// Checks one platform's findings: exactly the expected codes and severities, every finding marked as that
/// platform's rule, none of the other platform's codes, and each of `mentions` somewhere in the messages.
func verify(
    _ findings: [Finding], are expected: [Expect], on platform: RulePlatform, mentioning mentions: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let actual = findings.map { Expect(severity: $0.severity, code: $0.code) }.sorted()
    #expect(actual == expected.sorted(), "\(findings.map(\.message))", sourceLocation: sourceLocation)
    for finding in findings {
        #expect(finding.platform == platform, "\(finding.code) not marked \(platform)", sourceLocation: sourceLocation)
        switch platform {
        case .ios:
            #expect(!isAndroidCode(finding.code), "iOS got \(finding.code)", sourceLocation: sourceLocation)
        case .android:
            #expect(!iOSOnlyCodes.contains(finding.code), "Android got \(finding.code)", sourceLocation: sourceLocation)
            #expect(
                !finding.message.contains("App Transport Security") && !finding.message.contains("AVPlayer"),
                "Android message reads like iOS: \(finding.message)", sourceLocation: sourceLocation)
        }
    }
    let text = findings.map(\.message).joined(separator: "\n")
    for mention in mentions {
        #expect(text.contains(mention), "no '\(mention)' in: \(text)", sourceLocation: sourceLocation)
    }
}

/// Image facts as a sniffer would report them, for rule tests that need no bytes.
func image(
    _ format: MediaFormat, width: Int? = 1000, height: Int? = 500, animated: Bool = false, frameCount: Int? = nil,
    cgbi: Bool = false
) -> ImageInfo {
    ImageInfo(
        format: format, width: width, height: height, animated: animated, frameCount: frameCount, byteCount: 4096,
        appleCgBI: cgbi, findings: [])
}

/// App settings at one iOS deployment target and one Android minSdk (targetSdk 35 unless given).
func app(
    ios: Int = 13, minSdk: Int = 23, targetSdk: Int = 35, ats: HostPatterns = .none, cleartext: HostPatterns = .none
) -> AppSettings {
    AppSettings(
        ios: IOSAppSettings(deploymentTarget: ios, atsExceptions: ats),
        android: AndroidAppSettings(minSdk: minSdk, targetSdk: targetSdk, cleartextHosts: cleartext))
}

/// Host patterns from a test literal (the literal is known to parse).
func hosts(_ list: [String], origin: String = "test") -> HostPatterns {
    do { return try HostPatterns(list, origin: origin) } catch { fatalError("bad test pattern: \(error)") }
}

/// A committed fixture from `Fixtures/media/` (made by `Fixtures/media/generate.sh`).
func mediaFixture(_ name: String) throws -> [UInt8] {
    let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let url = testsDirectory.appendingPathComponent("../../Fixtures/media/\(name)").standardizedFileURL
    return Array(try Data(contentsOf: url))
}
