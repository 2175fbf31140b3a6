import ArgumentKit
import Foundation
import Preflight

/// The CI options of `check`: `--baseline FILE` and `--write-baseline FILE`, and the ``Verdict`` they and
/// `--fail-on` make.
enum CICommand {
    static let checkOptions: [Option] =
        [
            .value(
                "baseline", "file",
                help: "Findings in this baseline file are known: reported, never failing the run; its entries no "
                    + "finding matches are listed as fixed."),
            .value(
                "write-baseline", "file",
                help: "Write the fingerprints of this run's findings (suppressed ones excepted) to this file, sorted, "
                    + "one a line."),
        ] + PlatformOptions.options

    /// `--fail-on`, the baseline file and the config's rules, as the verdict of this run.
    static func verdict(_ invocation: Invocation) throws(CommandFailure) -> Verdict {
        let policy = FailPolicy(rawValue: invocation.value("fail-on")!)!
        var baseline: Baseline? = nil
        if let path = invocation.value("baseline") {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandFailure(message: "cannot read the baseline '\(path)'", status: ExitCode.invalidInput)
            }
            do {
                baseline = try Baseline.parse(String(decoding: data, as: UTF8.self))
            } catch {
                throw CommandFailure(message: "baseline '\(path)': \(error)", status: ExitCode.invalidInput)
            }
        }
        // The output file of --write-baseline is checked before any work, as -o's.
        if let path = invocation.value("write-baseline") { _ = try OutputFile(path) }
        return Verdict(policy: policy, rules: try ConfigCommand.load(invocation).rules, baseline: baseline)
    }

    /// The version SARIF's `semanticVersion` names: the last word of `--version`'s line.
    static var sarifVersion: String { CommandTable.version.split(separator: " ").last.map(String.init) ?? "0" }

    /// `--write-baseline FILE`: the judged report's fingerprints.
    static func writeBaseline(_ invocation: Invocation, _ baseline: @autoclosure () -> Baseline) throws(CommandFailure)
    {
        guard let path = invocation.value("write-baseline") else { return }
        try OutputTarget.file(OutputFile(path)).write(baseline().text)
    }
}
