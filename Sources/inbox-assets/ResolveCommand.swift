import ArgumentKit
import InboxCards
import Preflight

/// `inbox-assets resolve`: read inputs, resolve cards, print the report, map findings to the exit code.
enum ResolveCommand {
    static func run(_ invocation: Invocation) throws -> Int32 {
        let operands = invocation.positional("inputs")
        if operands.filter({ $0 == "-" }).count > 1 {
            throw invocation.usageError("Standard input ('-') can be given only once")
        }
        let profiles: [SDKProfile] =
            invocation.value("sdk") == "all" ? SDKProfile.allCases : [SDKProfile(rawValue: invocation.value("sdk")!)!]
        let platforms: [Platform] =
            invocation.value("platform") == "all"
            ? Platform.allCases : [Platform(rawValue: invocation.value("platform")!)!]
        let options = ResolveOptions(
            profiles: profiles, platforms: platforms, forceKind: invocation.value("force-kind").flatMap(CardKind.init))
        let failPolicy = FailPolicy(rawValue: invocation.value("fail-on")!)!

        var inputs: [(name: String, bytes: [UInt8])] = []
        var unreadable: [CommandFailure] = []
        for operand in operands {
            do {
                inputs.append((operand, try InputFiles.read(operand)))
            } catch {
                unreadable.append(error)
            }
        }
        var outcome = ResolveJob(options: options).run(inputs)
        outcome.run.inputFindings += unreadable.map(\.finding)

        switch invocation.value("format") {
        case "json": Console.out(outcome.run.json.serialized(pretty: true) + "\n")
        default: Console.out(ResolveTextReport.render(outcome.run, style: TextStyle(color: Console.stdoutWantsColor)))
        }
        for failure in unreadable { Console.err("Error: \(failure.message)\n") }
        for error in outcome.unusableInputs { Console.err("Error: \(error.description)\n") }
        if !unreadable.isEmpty || !outcome.unusableInputs.isEmpty { return ExitCode.invalidInput }
        return failPolicy.fails(findings: outcome.run.allFindings, degradedCards: outcome.run.degradedCount)
            ? ExitCode.findings : ExitCode.success
    }
}
