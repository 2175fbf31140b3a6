import FixtureServer
import Foundation
import TestSupport
import Testing

/// The terminal report fits (issue 18 item 6): the card table at 80 and 200 columns (`COLUMNS`), no limit when
/// piped, and the progress line through a pseudo-terminal of a given width.
@Suite(.serialized) struct TerminalWidthCLITests {
    static let demo = "Fixtures/campaigns/demo.json"

    /// `check` of the demo on both platforms against the fixture server, without a store (the same bytes every
    /// run), judged at a fixed date.
    static func checkDemo(_ server: FixtureServer, environment: [String: String]) async throws -> CLIResult {
        try await CLI.run(
            [
                "check", demo, "--platform", "all", "--no-store", "--quiet", "--at", "2026-12-01",
                "--connect-to", "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!,
            ], environment: environment)
    }

    /// The card table: from its header to the first blank line.
    static func table(_ report: String) -> String {
        let lines = report.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("CARD ") }) else { return "" }
        let end = lines[start...].firstIndex(where: \.isEmpty) ?? lines.endIndex
        return lines[start..<end].joined(separator: "\n") + "\n"
    }

    @Test(arguments: [80, 200])
    func cardTableFitsAndIsPinned(columns: Int) async throws {
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let result = try await Self.checkDemo(server, environment: ["COLUMNS": "\(columns)"])
        #expect(result.status == 1, "\(result.stderr)")
        let table = Self.table(result.stdout)
        for line in table.split(separator: "\n") { #expect(line.count <= columns, "\(line)") }
        let expected = try String(contentsOfFile: CLI.fixture("expected/demo-check-\(columns).txt"), encoding: .utf8)
        #expect(table == expected)
        // Whatever the width, the findings name every card by its full id.
        #expect(
            result.stdout.contains(
                "\n  Fixtures/campaigns/demo.json#request.notifications[11] [7.2 ios en] BROKEN FAILING\n"))
    }

    /// `resolve`'s card table gives way like check's: every line fits, the rows stay in order with their kinds, the
    /// findings keep full ids; piped (no `COLUMNS`) it is the golden, whole.
    @Test(arguments: [40, 60, 80, 120])
    func resolveTableFits(columns: Int) async throws {
        let fitted = try await CLI.run(["resolve", Self.demo], environment: ["COLUMNS": "\(columns)"])
        let piped = try await CLI.run(["resolve", Self.demo])
        #expect(fitted.status == piped.status)
        let table = Self.table(fitted.stdout).split(separator: "\n")
        let whole = Self.table(piped.stdout).split(separator: "\n")
        #expect(table.count == whole.count && table.count == 22)
        for line in table { #expect(line.count <= max(columns, 57), "\(line)") }
        func change(_ line: Substring) -> Substring? { line.firstMatch(of: /[a-z]+ → [a-z]+/).map { line[$0.range] } }
        #expect(table.dropFirst().map(change) == whole.dropFirst().map(change))
        #expect(table.dropFirst().allSatisfy { change($0) != nil })
        #expect(fitted.stdout.contains("\n  Fixtures/campaigns/demo.json#request.notifications[9] [7.2 ios]"))
        #expect(Self.table(piped.stdout).contains("Fixtures/campaigns/demo.json#request.notifications[9]   7.2"))
    }

    /// Piped without `COLUMNS`: no limit, every id and title whole.
    @Test func pipedTableIsWhole() async throws {
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let result = try await Self.checkDemo(server, environment: [:])
        let table = Self.table(result.stdout)
        #expect(table.hasPrefix("CARD                                                    TITLE "))
        #expect(table.contains("Fixtures/campaigns/demo.json#request.notifications[11]  Gift guide "))
        #expect(table.contains("carousel slide 4: HTTP 404\n"))
        let wide = try await Self.checkDemo(server, environment: ["COLUMNS": "400"])
        #expect(Self.table(wide.stdout) == table)
    }

    /// Runs `inbox-assets ARGS` with standard error on a pseudo-terminal `columns` wide (python3's pty), standard
    /// output in a file; returns what the terminal received.
    static func onTerminal(columns: Int, _ arguments: [String]) async throws -> (status: Int32, terminal: String) {
        let script = """
            import fcntl, os, struct, subprocess, sys, termios
            master, slave = os.openpty()
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, int(sys.argv[1]), 0, 0))
            with open(os.devnull, "wb") as out:
                child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=out, stderr=slave)
            os.close(slave)
            data = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                data += chunk
            sys.stdout.buffer.write(data)
            sys.exit(child.wait())
            """
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "COLUMNS")
        let binary = CLI.productsDirectory.appendingPathComponent("inbox-assets").path
        let result = try await Child.run(
            "/usr/bin/python3", ["-c", script, "\(columns)", binary] + arguments, environment: environment,
            directory: CLI.packageRoot.path)
        return (result.status, result.output)
    }

    /// Eight images answered one after another, 250 ms apart: the progress line is redrawn several times.
    static func slowCampaign(_ server: FixtureServer) -> [String] {
        let notifications = (0..<8).map { index in
            #"{"content": "b", "inbox_days": 1, "inbox_image": "https://cdn.example.com/delay/250/inbox/summer-sale.png?n=\#(index)", "data": {"displayType": "banner"}}"#
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ia-slow-\(UUID()).json").path
        _ = FileManager.default.createFile(
            atPath: path,
            contents: Data(#"{"request": {"notifications": [\#(notifications.joined(separator: ","))]}}"#.utf8))
        return [
            "check", path, "--no-store", "--concurrency", "1", "--connect-to",
            "cdn.example.com:443:127.0.0.1:\(server.httpsPort!)", "--cacert", server.caFilePath!,
        ]
    }

    @Test(arguments: [30, 100])
    func progressLineFitsTheTerminal(columns: Int) async throws {
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let arguments = Self.slowCampaign(server)
        defer { try? FileManager.default.removeItem(atPath: arguments[1]) }
        let (status, terminal) = try await Self.onTerminal(columns: columns, arguments)
        #expect(status == 0, "\(terminal)")
        let erase = "\r\u{1B}[2K"
        #expect(terminal.hasSuffix(erase), "the line is erased at the end")
        let lines = terminal.components(separatedBy: erase).filter { !$0.isEmpty }
        #expect(lines.count >= 3, "\(lines)")
        for line in lines {
            #expect(line.count < columns, "\(line)")
            #expect(!line.contains("\n"))
            #expect(line.hasPrefix("assets "))
        }
        #expect(lines.last?.hasPrefix("assets 8/8 100%") == true, "\(lines)")
        #expect(lines.contains { $0.contains("%") && !$0.contains("8/8") })
        if columns >= 100 {
            #expect(lines.contains { $0.contains("ETA 0:0") }, "\(lines)")
            #expect(lines.last?.contains("/s") == true)
        }
    }

    /// `--quiet` draws nothing, whatever the terminal.
    @Test func quietDrawsNothing() async throws {
        let server = try FixtureServer(root: CLI.fixture("www"))
        defer { server.stop() }
        let arguments = Self.slowCampaign(server)
        defer { try? FileManager.default.removeItem(atPath: arguments[1]) }
        let (status, terminal) = try await Self.onTerminal(columns: 80, arguments + ["--quiet"])
        #expect(status == 0)
        #expect(terminal.isEmpty)
    }
}
