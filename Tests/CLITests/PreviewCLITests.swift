import FixtureServer
import Foundation
import Testing

/// `check --format html --app-name/--app-icon` (issue 18 item 2): the classic avatar as the SDK draws it.
struct PreviewCLITests {
    static let classic = #"{"request": {"notifications": [{"ios_title": "t", "content": "b", "inbox_days": 1}]}}"#

    static func html(_ extra: [String]) async throws -> CLIResult {
        try await CLI.run(["check", "-", "--no-store", "--quiet", "--format", "html"] + extra, stdin: classic)
    }

    @Test func appNameGivesTheInitial() async throws {
        let plain = try await Self.html([])
        #expect(plain.status == 0)
        #expect(plain.stdout.contains(">App</div>"), "no app name: a placeholder")
        let named = try await Self.html(["--app-name", "Zest"])
        #expect(named.status == 0)
        #expect(named.stdout.contains(">Z</div>"))
    }

    @Test func appIconFileIsTheAvatar() async throws {
        let icon = try await Self.html(["--app-icon", CLI.fixture("media/image-64x48.png")])
        #expect(icon.status == 0, "\(icon.stderr)")
        #expect(icon.stdout.contains(".app-icon{background-image:url(\"data:image/png;base64,"))
        #expect(icon.stdout.contains("<div class=\"avatar img app-icon\""))
    }

    @Test(arguments: [
        ("README.md", "Error: --app-icon 'README.md' is not a PNG, JPEG, GIF or WebP image\n"),
        ("/nonexistent/icon.png", "Error: cannot read '/nonexistent/icon.png': no such file\n"),
    ])
    func unusableIconFileExits2BeforeAnyWork(path: String, message: String) async throws {
        let result = try await Self.html(["--app-icon", path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == message)
    }

    @Test func appIconURLIsFetched() async throws {
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let result = try await Self.html([
            "--app-icon", "https://cdn.example.com/inbox/summer-sale.png", "--connect-to",
            "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(".app-icon{background-image:url(\"data:image/png;base64,"))
        let missing = try await Self.html([
            "--app-icon", "https://cdn.example.com/status/404", "--connect-to",
            "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!, "--retries", "0",
        ])
        #expect(missing.status == 0)
        #expect(missing.stderr.contains("warning: --app-icon https://cdn.example.com/status/404: http-status"))
        #expect(!missing.stdout.contains(".app-icon{"))
    }
}
