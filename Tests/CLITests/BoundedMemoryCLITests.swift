import Foundation
import TestSupport
import Testing

/// Issue 29: a report of many thousand cards is written without holding them. Each format's peak RSS (GNU time's
/// `%M`, the child's own) over a feed of 6,000 messages (30,000 cards) stays within a few MiB of its peak over 600
/// (3,000 cards): holding the cards cost about 1.2 KB a card, 32 MB more at the larger feed. Every message degrades
/// (a banner without an image), so every card has findings, rows and results to write. One format at a time: the
/// children are CPU-bound for seconds, and the other tests' timeouts should not wait on them.
@Suite(.serialized) struct BoundedMemoryCLITests {
    static let time = "/usr/bin/time"
    static let everyProfile = ["--platform", "all", "--android-sdk", "all", "--at", "2026-12-01"]

    /// A feed of `count` banner messages without an image (each degrades on both platforms), as NDJSON.
    static func feed(_ count: Int, in directory: String) throws -> String {
        let path = directory + "/feed-\(count).ndjson"
        var text = ""
        for index in 0..<count {
            text += #"{"inbox_id":"m\#(index)","order":\#(index),"rt":4102444800,"action_type":0,"status":1,"#
            text += #""send_date":\#(1_764_400_000 + index),"title":"Offer \#(index % 50)","#
            text += #""text":"Thirty percent off","#
            text += #""action_params":"{\"displayType\":\"banner\"}"}"# + "\n"
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs the CLI under GNU time, its report into `output`: the exit status and the peak RSS in KiB.
    static func peak(_ arguments: [String], output: String) async throws -> (status: Int32, kib: Int) {
        let result = try await Child.run(
            time,
            ["-f", "maxrss=%M", CLI.productsDirectory.appendingPathComponent("inbox-assets").path] + arguments + [
                "-o", output,
            ])
        let line = result.errors.split(separator: "\n").last { $0.hasPrefix("maxrss=") } ?? ""
        return (result.status, Int(line.dropFirst("maxrss=".count)) ?? Int.max)
    }

    /// Runs a Python check of `file`; its error output (empty: passed).
    static func python(_ script: String, _ arguments: [String]) async throws -> String {
        let result = try await Child.run("/usr/bin/env", ["python3", "-c", script] + arguments)
        return result.status == 0 ? "" : result.errors + result.output
    }

    /// What a valid report of `cards` cards is, per format: a Python check of the written file.
    static let validity: [String: String] = [
        "json": """
        import json, sys
        report = json.load(open(sys.argv[1]))
        if "messages" in report:  # check: each message's entries, one card per SDK version
            cards = sum(len(entry["sdks"]) for message in report["messages"] for entry in message["cards"])
        else:
            cards = len(report["cards"])
        assert cards == int(sys.argv[2]) == report["summary"]["cards"], "card count"
        """,
        "ndjson": """
        import json, sys
        lines = [json.loads(line) for line in open(sys.argv[1])]
        assert sum(line["type"] == "card" for line in lines) == int(sys.argv[2]), "card lines"
        assert lines[-1]["type"] == "summary" and lines[-1]["cards"] == int(sys.argv[2]), "summary line"
        """,
        "sarif": """
        import json, sys
        log = json.load(open(sys.argv[1]))
        assert log["version"] == "2.1.0" and len(log["runs"][0]["results"]) > 0, "results"
        """,
        "junit": """
        import sys, xml.etree.ElementTree as tree
        root = tree.parse(sys.argv[1]).getroot()
        assert sum(1 for case in root.iter("testcase") if not case.get("name").endswith("[input]")) == int(sys.argv[2])
        """,
        "text": """
        import sys
        text = open(sys.argv[1]).read()
        assert text.count(" DEGRADED") >= int(sys.argv[2]), "a row per card"
        """,
        "markdown": """
        import sys
        text = open(sys.argv[1]).read()
        assert "… and " in text and len(text) < 65536, "bounded page"
        """,
    ]

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: time), "needs GNU time for max RSS"),
        arguments: [
            ["check", "json"], ["check", "ndjson"], ["check", "text"], ["check", "junit"], ["check", "sarif"],
            ["check", "markdown"], ["resolve", "json"], ["resolve", "ndjson"],
        ])
    func aTenTimesLargerFeedNeedsNoMoreMemory(_ run: [String]) async throws {
        let (command, format) = (run[0], run[1])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ia-bounded-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var arguments = [command, "--format", format] + Self.everyProfile
        if command == "check" { arguments += ["--no-store", "--fail-on", "never", "--quiet"] }
        var peaks: [Int] = []
        for count in [600, 6_000] {
            let output = directory + "/report-\(count).\(format)"
            let result = try await Self.peak(
                [command, try Self.feed(count, in: directory)] + arguments.dropFirst(), output: output)
            #expect(result.status == 0, "\(command) --format \(format) of \(count) messages")
            peaks.append(result.kib)
            if let script = Self.validity[format] {
                let errors = try await Self.python(script, [output, String(count * 5)])
                #expect(errors.isEmpty, "\(format) report of \(count) messages: \(errors)")
            }
            // The outputs that have a schema are valid against it: the JSON report and SARIF.
            let schema = [
                "json": command == "check" ? "docs/report.schema.json" : nil,
                "sarif": "Tests/Schemas/sarif-schema-2.1.0.json",
            ][format]
            if let schema = schema ?? nil, count == 600 {
                let errors = try await Self.python(
                    """
                    import json, sys, jsonschema
                    schema = json.load(open(sys.argv[1]))
                    jsonschema.validators.validator_for(schema)(schema).validate(json.load(open(sys.argv[2])))
                    """, [CLI.packageRoot.appendingPathComponent(schema).path, output])
                #expect(errors.isEmpty, "\(format) against \(schema): \(errors)")
            }
        }
        #expect(
            peaks[1] < peaks[0] + 12 * 1024,
            "\(command) --format \(format): \(peaks[0]) KiB for 3,000 cards, \(peaks[1]) KiB for 30,000")
    }
}
