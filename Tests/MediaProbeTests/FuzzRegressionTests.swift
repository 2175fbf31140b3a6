import Findings
import Foundation
import MediaProbe
import Testing

/// Inputs `make fuzz` found crashing, committed under `Fixtures/fuzz/<target>/` (see Fuzz/README.md). Each is fed
/// through the same API as its fuzz target: it must come back as a value with findings, never a trap.
enum FuzzInputs {
    static func directory(_ target: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/fuzz/\(target)").standardizedFileURL
    }

    /// The file names under `Fixtures/fuzz/<target>/`, sorted (empty when the folder does not exist).
    static func names(_ target: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory(target).path)) ?? []).sorted()
    }

    static func bytes(_ target: String, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory(target).appendingPathComponent(name)))
    }
}

@Suite struct HLSFuzzRegressionTests {
    @Test func theFolderIsNotEmpty() {
        #expect(!FuzzInputs.names("hls").isEmpty)
    }

    @Test(arguments: FuzzInputs.names("hls"))
    func parsesWithFindings(_ name: String) throws {
        let playlist = HLSPlaylist.parse(
            bytes: try FuzzInputs.bytes("hls", name), baseURL: "https://cdn.example.com/video/master.m3u8")
        #expect(!playlist.findings.isEmpty, "\(name) parsed without any finding")
        // The report is what the CLI prints: it must serialise too.
        #expect(!playlist.json.serialized().isEmpty)
    }

    /// EXTINF:57777…7.5 (a 27-digit duration) trapped in `Int(duration)` while building the absurd-value warning.
    @Test func durationBeyondIntMaxIsAnAbsurdValue() throws {
        let playlist = HLSPlaylist.parse(
            bytes: try FuzzInputs.bytes("hls", "extinf-duration-beyond-int-max.m3u8"),
            baseURL: "https://cdn.example.com/video/media.m3u8")
        let absurd = playlist.findings.filter { $0.code == HLSFindingCode.absurdValue }
        #expect(absurd.count == 1)
        #expect(absurd.first?.message == "Line 6: a segment of 5.7777777777777776e+26 seconds is absurd.")
    }

    @Test(arguments: [
        ("#EXTM3U\n#EXTINF:99999999999999999999,\na.ts\n", "1e+20 seconds"),
        ("#EXTM3U\n#EXTINF:9999999999999999999999999999999999999999,\na.ts\n", "1e+40 seconds"),
        ("#EXTM3U\n#EXTINF:100000,\na.ts\n", "100000 seconds"),
    ])
    func hugeDurationsAreReportedNotTrapped(_ text: String, _ shown: String) {
        let playlist = HLSPlaylist.parse(text: text, baseURL: "https://cdn.example.com/v.m3u8")
        let messages = playlist.findings.filter { $0.code == HLSFindingCode.absurdValue }.map(\.message)
        #expect(messages.count == 1)
        #expect(messages.first?.contains(shown) == true, "\(messages)")
    }
}
