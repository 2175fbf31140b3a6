import FixtureServer
import Foundation
import StrictJSON
import Testing

/// Errors early and exact (issue 18 item 7): each mistake is caught before any work, with a precise message and
/// the documented exit code.
struct EarlyErrorCLITests {
    static let classic = #"{"request": {"notifications": [{"content": "b", "inbox_days": 1}]}}"#

    static func temporaryPath(_ stem: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ia-\(stem)-\(UUID())").path
    }

    /// A usage error: `Error: …` with "did you mean" when a name is close, the short usage line, where the help is.
    @Test(arguments: [
        (
            ["chek", "x.json"], "Error: Unknown subcommand 'chek'. Did you mean 'check'?",
            "Usage: inbox-assets <subcommand>", "  See 'inbox-assets help' for more information."
        ),
        (
            ["check", "--formt", "json", "x.json"], "Error: Unknown option '--formt'. Did you mean '--format'?",
            "Usage: inbox-assets check [<options>] <inputs> ...",
            "  See 'inbox-assets help check' for more information."
        ),
        (
            ["check"], "Error: Missing expected argument '<inputs> ...'",
            "Usage: inbox-assets check [<options>] <inputs> ...",
            "  See 'inbox-assets help check' for more information."
        ),
        (
            ["store", "lss"], "Error: Unknown subcommand 'lss'. Did you mean 'ls'?",
            "Usage: inbox-assets store <subcommand>", "  See 'inbox-assets help store' for more information."
        ),
        (
            ["resolve", "x.json", "--platfrom", "all"],
            "Error: Unknown option '--platfrom'. Did you mean '--platform'?",
            "Usage: inbox-assets resolve [<options>] <inputs> ...",
            "  See 'inbox-assets help resolve' for more information."
        ),
        (
            ["pass", "verify", "--trsut", "a.pem", "p.pkpass"],
            "Error: Unknown option '--trsut'. Did you mean '--trust'?",
            "Usage: inbox-assets pass verify [<options>] <paths> ...",
            "  See 'inbox-assets help pass verify' for more information."
        ),
        (
            ["help", "prefech"], "Error: Unknown subcommand 'prefech'. Did you mean 'prefetch'?",
            "Usage: inbox-assets <subcommand>", "  See 'inbox-assets help' for more information."
        ),
    ])
    func usageErrors(arguments: [String], error: String, usage: String, hint: String) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == [error, usage, hint, ""].joined(separator: "\n"))
    }

    /// The usage line of every command fits in 80 columns (the options are in its help).
    @Test func everyUsageLineIsShort() async throws {
        for command in [["check"], ["resolve"], ["prefetch"], ["export"], ["probe"], ["pass", "verify"]] {
            let result = try await CLI.run(command)
            #expect(result.status == 64)
            let usage = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("Usage: ") })
            #expect(usage.count <= 80, "\(usage)")
            #expect(usage.hasPrefix("Usage: inbox-assets \(command.joined(separator: " ")) [<options>] "))
        }
    }

    /// The commands that only read the store refuse one that does not exist, and do not create it.
    @Test(arguments: [
        ["store", "ls"], ["store", "stats"], ["store", "verify"], ["store", "ls", "--format", "json"],
        ["check", "-", "--offline"], ["export", "-", "--offline", "--out", "/tmp/ia-never-written"],
    ])
    func readersRefuseAMissingStore(arguments: [String]) async throws {
        let missing = Self.temporaryPath("typo")
        let result = try await CLI.run(arguments + ["--store", missing], stdin: Self.classic)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Error: no store at \(missing); run prefetch first or check --store\n")
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/ia-never-written"))
    }

    /// A store path that is a file is no store either; `check` without `--offline` (a writer) creates the store.
    @Test func aFileIsNoStoreAndWritersCreateIt() async throws {
        let file = Self.temporaryPath("file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let stats = try await CLI.run(["store", "stats", "--store", file])
        #expect(stats.status == 2)
        #expect(stats.stderr == "Error: no store at \(file) (not a directory); run prefetch first or check --store\n")

        let created = Self.temporaryPath("created")
        defer { try? FileManager.default.removeItem(atPath: created) }
        let check = try await CLI.run(["check", "-", "--store", created, "--quiet"], stdin: Self.classic)
        #expect(check.status == 0, "\(check.stderr)")
        let listed = try await CLI.run(["store", "ls", "--store", created])
        #expect(listed.status == 0, "\(listed.stderr)")
    }

    /// `{}`, `[]` and an object of unknown keys hold no message: exit 2 with one clear line, in resolve and check.
    @Test(arguments: [
        ("{}", "no message in it: not a createMessage request, an inbox feed message or a push payload (keys: none)"),
        ("[]", "no message in it, expected a createMessage request, inbox feed messages or push payloads"),
        (
            #"{"hello": 1}"#,
            "no message in it: not a createMessage request, an inbox feed message or a push payload (keys: hello)"
        ),
    ])
    func inputsWithoutMessagesExit2(input: String, message: String) async throws {
        for command in [["resolve", "-"], ["check", "-", "--no-store", "--quiet"]] {
            let result = try await CLI.run(command, stdin: input)
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr == "Error: -: \(message)\n", "\(command)")
            #expect(!result.stdout.contains("(at )"))
            #expect(result.stdout.contains("input.noMessages: \(message)"), "\(result.stdout)")
            let json = try await CLI.run(command + ["--format", "json"], stdin: input)
            #expect(try JSON.parse(json.stdout)["summary"]?["errors"] == 1, "\(command)")
        }
    }

    @Test func passInspectOfADirectoryExits2() async throws {
        let directory = CLI.fixture("media")
        let result = try await CLI.run(["pass", "inspect", directory])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "Error: cannot read '\(directory)': it is a directory; pass inspect shows one .pkpass file (pass "
                + "verify walks directories)\n")
    }

    /// `-o` in a missing directory is refused before any input is read: the missing input is never mentioned.
    @Test func outputPathIsCheckedBeforeAnyWork() async throws {
        let result = try await CLI.run(["check", "/nonexistent/campaign.json", "-o", "/missing/dir/report.html"])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "Error: cannot write '/missing/dir/report.html': directory '/missing/dir': no such file or directory\n"
        )
    }

    /// An unreadable input counts as an error in check's summary, as in resolve's.
    @Test func unreadableInputsCountAsErrors() async throws {
        let missing = Self.temporaryPath("missing") + ".json"
        let check = try await CLI.run(
            ["check", "-", missing, "--no-store", "--quiet", "--format", "json"], stdin: Self.classic)
        let resolve = try await CLI.run(["resolve", "-", missing, "--format", "json"], stdin: Self.classic)
        #expect(check.status == 2)
        #expect(resolve.status == 2)
        #expect(try JSON.parse(check.stdout)["summary"]?["errors"] == 1)
        #expect(try JSON.parse(resolve.stdout)["summary"]?["errors"] == 1)
        let text = try await CLI.run(["check", "-", missing, "--no-store", "--quiet"], stdin: Self.classic)
        #expect(text.stdout.contains(/\nerrors +1\n/), "\(text.stdout)")
    }

    /// The demo without a store: every body the server sent for an answer that worked (images, the pass, video
    /// ranges, HLS playlists, segments and keys) is counted in `bytesFetched`; only error pages (the demo's 404s,
    /// a few bytes each) are not.
    @Test func bytesFetchedIsWhatTheServerSent() async throws {
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let result = try await CLI.run([
            "check", "Fixtures/campaigns/demo.json", "--platform", "all", "--no-store", "--quiet", "--format", "json",
            "--retries", "0", "--connect-to", "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert",
            server.caFilePath!,
        ])
        #expect(result.status == 1, "\(result.stderr)")
        let sent = server.stats.bodyBytesSent
        let fetched = try #require(try JSON.parse(result.stdout)["summary"]?["bytesFetched"]?.numberValue?.intValue)
        #expect(fetched > 200 << 10)
        #expect(fetched <= sent && sent - fetched < 256, "\(fetched) B counted, \(sent) B sent")
    }

    /// `--no-store` downloads into memory; those bytes are counted as fetched.
    @Test func inMemoryDownloadsCountAsFetched() async throws {
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let image = "https://cdn.example.com/inbox/summer-sale.png"
        let campaign =
            #"{"request": {"notifications": [{"content": "b", "inbox_days": 1, "inbox_image": "\#(image)", "data": {"displayType": "banner"}}]}}"#
        let result = try await CLI.run(
            [
                "check", "-", "--no-store", "--quiet", "--format", "json", "--connect-to",
                "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!,
            ], stdin: campaign)
        #expect(result.status == 0, "\(result.stderr)")
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: CLI.fixture("www/inbox/summer-sale.png"))[.size] as? Int)
        #expect(size > 0)
        #expect(try JSON.parse(result.stdout)["summary"]?["bytesFetched"] == .int(size))
    }
}
