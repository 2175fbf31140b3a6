import Foundation
import Preflight
import TestSupport
import Testing

/// Headless Chromium (Debian `chromium`), run as a child process with its own throw-away profile.
enum Chromium {
    /// The browser, when installed. `.ci/run` installs it, so CI always runs the tests below.
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs chromium headless on `page` with `arguments`; returns its standard output.
    /// `--no-sandbox`: the sandbox needs user namespaces that CI containers running as root do not have.
    /// Killed after `timeout` seconds so a wedged browser fails the test instead of hanging it. Its output goes to a
    /// file, not a pipe: the browser's helper processes can keep a pipe open after the browser itself exits.
    static func run(_ arguments: [String], page: URL, in directory: URL, timeout: Double = 60) async throws
        -> Data
    {
        guard let path else { throw Failure(description: "chromium is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--hide-scrollbars", "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
            ] + arguments + [page.absoluteString]
        let outputURL = directory.appendingPathComponent("stdout-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil) else {
            throw Failure(description: "cannot create \(outputURL.path)")
        }
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.path  // chromium writes caches under $HOME
        process.environment = environment
        try process.run()
        guard await Child.wait(for: process, timeout: timeout) else {
            process.terminate()
            await Child.wait(for: process)
            throw Failure(description: "chromium did not finish within \(Int(timeout)) s")
        }
        guard process.terminationStatus == 0 else {
            throw Failure(description: "chromium exited with status \(process.terminationStatus)")
        }
        return try Data(contentsOf: outputURL)
    }

    /// Width and height from a PNG's IHDR chunk, `nil` when the bytes are not a PNG.
    static func pngSize(_ png: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](png.prefix(24))
        guard bytes.count == 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            bytes[12..<16].elementsEqual("IHDR".utf8)
        else { return nil }
        func be32(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }
}

@Suite(.serialized)
struct RenderChromiumTests {
    static let width = 480
    static let height = 2400

    /// A directory of its own for every test run, removed afterwards.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    static func screenshot(of html: String, named name: String, in directory: URL) async throws -> Data {
        let page = directory.appendingPathComponent("\(name).html")
        try html.write(to: page, atomically: true, encoding: .utf8)
        let png = directory.appendingPathComponent("\(name).png")
        _ = try await Chromium.run(
            ["--screenshot=\(png.path)", "--window-size=\(width),\(height)"], page: page, in: directory)
        return try Data(contentsOf: png)
    }

    // Skipped with this reason when the browser is missing (a developer machine); `.ci/run` installs `chromium`.
    @Test(.enabled(if: Chromium.path != nil, "chromium is not installed: apt-get install chromium"))
    func everyCardIsInTheDOM() async throws {
        let report = RenderFixtures.report()
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        let dom = try await Self.withTemporaryDirectory { directory in
            let page = directory.appendingPathComponent("report.html")
            try html.write(to: page, atomically: true, encoding: .utf8)
            return String(decoding: try await Chromium.run(["--dump-dom"], page: page, in: directory), as: UTF8.self)
        }
        #expect(dom.contains("<h1>Inbox preview</h1>"))
        #expect(dom.components(separatedBy: "<article ").count - 1 == report.cards.count)
        for card in report.cards {
            #expect(dom.contains("data-card-id=\"\(card.card.id)\""), "\(card.card.id) is not in the DOM")
        }
        #expect(!dom.contains("SECRET"))
        #expect(!dom.contains("<script"), "hostile button text became an element")
    }

    @Test(.enabled(if: Chromium.path != nil, "chromium is not installed: apt-get install chromium"))
    func screenshotIsNotBlank() async throws {
        let report = RenderFixtures.report()
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        // The same background, nothing on it: what a page that failed to draw looks like.
        let empty =
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body style=\"background:#f2f2f7\"></body></html>"
        let (shot, blank) = try await Self.withTemporaryDirectory { directory in
            (
                try await Self.screenshot(of: html, named: "report", in: directory),
                try await Self.screenshot(of: empty, named: "empty", in: directory)
            )
        }
        let size = try #require(Chromium.pngSize(shot), "the screenshot is not a PNG")
        #expect(size.width == Self.width && size.height == Self.height)
        #expect(Chromium.pngSize(blank) != nil)
        // A flat page compresses to almost nothing; cards, text and images do not.
        #expect(shot.count > blank.count * 10, "screenshot \(shot.count) B vs empty page \(blank.count) B")
    }
}
