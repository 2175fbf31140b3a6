// The inbox-assets executable: parse arguments, call the library, map outcomes to exit codes.
// Everything else lives in the library modules (see README "Architecture").
import ArgumentKit
import Foundation
import HTTPFetch

ProcessSetup.pinTimeZone()
CryptoLifetime.outliveExit()
StandardStreams.claim()
let parser = ArgumentParser(root: CommandTable.root, version: CommandTable.version)
let outcome = parser.parse(Array(CommandLine.arguments.dropFirst()))
let status: Int32
switch outcome {
case .help(let text):
    Console.out(text)
    status = ExitCode.success
case .version:
    Console.out(CommandTable.version + "\n")
    status = ExitCode.success
case .failure(let error):
    Console.err(error.rendered)
    status = ExitCode.usage
case .run(let invocation):
    status = await CommandTable.run(invocation)
}
exit(status)
