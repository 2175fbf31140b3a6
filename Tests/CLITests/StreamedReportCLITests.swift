import Foundation
import StrictJSON
import TestSupport
import Testing

/// `resolve -o FILE`, and `--format ndjson` for `resolve` and `check`: the reports written as they are made, into
/// standard output or a file renamed into place at the end (README "Output paths").
@Suite struct StreamedReportCLITests {
    static let demo = CLI.fixture("campaigns/demo.json")
    static let everyCard = ["--platform", "all", "--sdk", "all", "--android-sdk", "all", "--at", "2026-12-01"]

    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ia-streamed-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Parses NDJSON text: every line one object with a `type` first, the last line the summary.
    static func lines(_ text: String) throws -> [JSONValue] {
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.allSatisfy { $0.hasPrefix("{\"type\":\"") })
        let values = try lines.map { try JSON.parse(Array($0.utf8)) }
        #expect(values.last?["type"] == "summary")
        return values
    }

    /// `-o FILE` writes exactly what standard output gets, in every format, and leaves standard output empty.
    @Test(arguments: ["text", "json", "ndjson"])
    func resolveOutputIsWhatStandardOutputGets(format: String) async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/cards.\(format)"
        let printed = try await CLI.run(["resolve", Self.demo, "--format", format] + Self.everyCard)
        let written = try await CLI.run(["resolve", Self.demo, "--format", format, "-o", path] + Self.everyCard)
        #expect(written.status == printed.status)
        #expect(written.stdout.isEmpty)
        #expect(written.stderr.isEmpty)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == printed.stdout)
        #expect(!printed.stdout.isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "no temporary file is left behind")
    }

    /// Every card of the JSON document is one NDJSON line, in the same order, and the summary line has its counts.
    @Test func resolveNDJSONIsTheDocumentLineByLine() async throws {
        let json = try await CLI.run(["resolve", Self.demo, "--format", "json"] + Self.everyCard)
        let ndjson = try await CLI.run(["resolve", Self.demo, "--format", "ndjson"] + Self.everyCard)
        #expect(ndjson.status == json.status)
        let document = try JSON.parse(Array(json.stdout.utf8))
        let values = try Self.lines(ndjson.stdout)
        let cards = values.filter { $0["type"] == "card" }
        #expect(cards.count == document["cards"]?.arrayValue?.count)
        #expect(cards.count > 50)
        #expect(cards.map { $0["id"] } == document["cards"]?.arrayValue?.map { $0["id"] })
        #expect(values.filter { $0["type"] == "finding" }.count == document["findings"]?.arrayValue?.count)
        let summary = try #require(values.last)
        #expect(summary["schemaVersion"] == 1)
        #expect(summary["cards"] == document["summary"]?["cards"])
        #expect(summary["degraded"] == document["summary"]?["degraded"])
    }

    /// `check --format ndjson`: cards, input findings, then the summary whose `failing` the exit code follows.
    @Test(arguments: ["never", "warning"])
    func checkNDJSONAgreesWithTheExitCode(failOn: String) async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/store", withIntermediateDirectories: true)
        let arguments = [
            "check", Self.demo, "--offline", "--store", directory + "/store", "--format", "ndjson", "--fail-on", failOn,
            "--platform", "all",
        ]
        let result = try await CLI.run(arguments)
        let values = try Self.lines(result.stdout)
        let summary = try #require(values.last)
        #expect(summary["schemaVersion"] == 3)
        #expect(summary["failing"] == .bool(result.status == 1), "exit \(result.status)")
        #expect(result.status == (failOn == "never" ? 0 : 1))
        let cards = values.filter { $0["type"] == "card" }
        #expect(summary["cards"] == .int(cards.count))
        #expect(cards.contains { $0["platform"] == "android" } && cards.contains { $0["platform"] == "ios" })
        #expect(cards.allSatisfy { $0["assets"]?.arrayValue != nil && $0["broken"] != nil })
        // Every card's assets refer to an `asset` line, which comes before the cards.
        var table = JSONObject()
        for line in values where line["type"] == "asset" { table[line["key"]?.stringValue ?? ""] = line }
        let firstCard = try #require(values.firstIndex { $0["type"] == "card" })
        #expect(values[firstCard...].allSatisfy { $0["type"] != "asset" })
        let tableReport = JSONValue.object(JSONObject([("assets", .object(table))]))
        for card in cards {
            let joined = CheckReportJSON.assets(of: card, in: tableReport)
            #expect(joined.count == card["assets"]?.arrayValue?.count, "\(card["id"] ?? .null)")
        }
        // The same bytes into a file.
        let path = directory + "/report.ndjson"
        let written = try await CLI.run(arguments + ["-o", path])
        #expect(written.status == result.status)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == result.stdout)
    }

    /// A resolve report that cannot be written is known before any input is read: a FIFO at `-o` (exit 2), and a
    /// closed standard output (exit 74); a full disk while writing is exit 74 too.
    @Test func resolveOutputErrors() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/report.fifo"
        #expect(mkfifo(fifo, 0o644) == 0)
        let refused = try await CLI.run(["resolve", Self.demo, "-o", fifo])
        #expect(refused.status == 2)
        #expect(
            refused.stderr
                == "Error: cannot write '\(fifo)': it is a FIFO, not a regular file (- writes to standard output)\n")
        let missing = try await CLI.run(["resolve", Self.demo, "-o", directory + "/no/such/cards.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("directory '\(directory)/no/such': no such file or directory"))

        var environment = ProcessInfo.processInfo.environment
        environment["IA"] = CLI.productsDirectory.appendingPathComponent("inbox-assets").path
        environment["DEMO"] = Self.demo
        // An input FIFO nobody writes: a run that read it before noticing would wait out the minute.
        #expect(mkfifo(directory + "/input.fifo", 0o644) == 0)
        let started = Date()
        let closed = try await Child.run(
            "/bin/sh", ["-c", #""$IA" resolve input.fifo --input-timeout 60 >&-"#], environment: environment,
            directory: directory)
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(closed.status == 74)
        #expect(closed.errors == "Error: cannot write standard output: bad file descriptor\n")
        for format in ["text", "json", "ndjson"] {
            let full = try await Child.run(
                "/bin/sh", ["-c", #""$IA" resolve "$DEMO" --format "# + format + " >/dev/full"],
                environment: environment, directory: directory)
            #expect(full.status == 74, "\(format)")
            #expect(full.errors == "Error: cannot write standard output: no space left on device\n", "\(format)")
        }
    }

    /// `resolve` spools its cards in `$TMPDIR`; a `$TMPDIR` too small for them (a 64 KiB tmpfs), or one that cannot
    /// be written, makes it resolve them again instead: the same report, exit 0.
    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root and a permitted mount -t tmpfs"))
    func aFullTemporaryDirectoryResolvesTheCardsAgain() async throws {
        let mount = try TmpfsMount(size: "64k")
        defer { mount.unmount() }
        for format in ["json", "ndjson"] {
            let arguments = ["resolve", Self.demo, "--format", format] + Self.everyCard
            let usual = try await CLI.run(arguments)
            let full = try await CLI.run(arguments, environment: ["TMPDIR": mount.path])
            let missing = try await CLI.run(arguments, environment: ["TMPDIR": mount.path + "/no/such"])
            #expect(usual.stdout.utf8.count > 64 << 10, "the spool would not fit")
            for run in [full, missing] {
                #expect(run.status == usual.status)
                #expect(run.stdout == usual.stdout)
                #expect(run.stderr == usual.stderr)
            }
        }
    }
}
