import Foundation
import TestSupport
import Testing

/// Hostile files and broken pipes (issue 17, items 1–3): what `-o` may replace, how inputs are bounded, and how
/// errors on the standard streams end a run. The built binary, run with the descriptors each case needs.
@Suite(.serialized) struct HostileIOTests {
    static let demo = CLI.fixture("campaigns/demo.json")
    static let binary = CLI.productsDirectory.appendingPathComponent("inbox-assets").path
    /// 300 MiB in KiB (`ru_maxrss`'s unit).
    static let rssBudget = 300 * 1024

    /// A fresh directory for one test; removed by the caller.
    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ia-hostile-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `check` of the demo campaign against an empty store (created here: `--offline` refuses a missing one),
    /// offline: quick, no network, a report of findings (exit 1).
    static func check(_ directory: String, _ extra: [String]) -> [String] {
        try? FileManager.default.createDirectory(atPath: directory + "/store", withIntermediateDirectories: true)
        return ["check", demo, "--offline", "--store", directory + "/store"] + extra
    }

    /// The file type `lstat` sees at `path` (`S_IFREG`, `S_IFIFO`, …), or `nil` when nothing is there.
    static func type(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    /// Runs `script` with `/bin/sh -c` in `directory`: `$IA` is the binary and `$DEMO` the demo campaign, for the
    /// redirections the harness cannot make (`>/dev/full`, `>&-`, `<&-`).
    static func sh(_ script: String, in directory: String) async throws -> ChildResult {
        var environment = ProcessInfo.processInfo.environment
        environment["IA"] = binary
        environment["DEMO"] = demo
        return try await Child.run("/bin/sh", ["-c", script], environment: environment, directory: directory)
    }

    // MARK: - Output paths

    @Test func outputOntoAFIFOIsRefusedAndLeftAlone() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/report.fifo"
        #expect(mkfifo(fifo, 0o644) == 0)
        let result = try await CLI.run(Self.check(directory, ["-o", fifo]))
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "Error: cannot write '\(fifo)': it is a FIFO, not a regular file (- writes to standard output)\n")
        #expect(result.stdout.isEmpty)
        #expect(Self.type(fifo) == S_IFIFO)
    }

    @Test func outputOntoASocketIsRefused() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/report.sock"
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(socket)
        try #require(bound == 0)
        let result = try await CLI.run(Self.check(directory, ["-o", path]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("it is a socket, not a regular file"))
        #expect(Self.type(path) == S_IFSOCK)
    }

    @Test func outputOntoADirectoryIsRefused() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/report"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let result = try await CLI.run(Self.check(directory, ["-o", target]))
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "Error: cannot write '\(target)': it is a directory, not a regular file (- writes to standard output)\n"
        )
        #expect(Self.type(target) == S_IFDIR)
        let slash = try await CLI.run(Self.check(directory, ["-o", directory + "/new/"]))
        #expect(slash.status == 2)
        #expect(slash.stderr.contains("the path names a directory"))
    }

    /// Whether this process may make device nodes (root with CAP_MKNOD; not in every container).
    static let canMakeDevices: Bool = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ia-mknod-\(UUID())").path
        var null = stat()
        guard stat("/dev/null", &null) == 0, mknod(path, S_IFCHR | 0o666, null.st_rdev) == 0 else { return false }
        unlink(path)
        return true
    }()

    @Test(.enabled(if: canMakeDevices, "needs root (CAP_MKNOD) to make a device node"))
    func outputOntoADeviceNodeIsRefusedAndTheNodeKept() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let node = directory + "/null"
        var null = stat()
        try #require(stat("/dev/null", &null) == 0)
        try #require(mknod(node, S_IFCHR | 0o666, null.st_rdev) == 0)
        let result = try await CLI.run(Self.check(directory, ["-o", node]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("it is a character device, not a regular file"))
        var after = stat()
        #expect(lstat(node, &after) == 0 && after.st_mode & S_IFMT == S_IFCHR && after.st_rdev == null.st_rdev)
    }

    @Test func outputOntoASymlinkToADeviceIsRefused() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let link = directory + "/report.txt"
        try #require(symlink("/dev/null", link) == 0)
        let result = try await CLI.run(Self.check(directory, ["-o", link]))
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "Error: cannot write '\(link)': it is a symbolic link to a character device; links are not followed (name the file itself)\n"
        )
        #expect(Self.type(link) == S_IFLNK)
        #expect(Self.type("/dev/null") == S_IFCHR)
        // /dev/stdout is a link too (to /proc/self/fd/1): refused, whatever standard output is.
        let stdout = try await CLI.run(Self.check(directory, ["-o", "/dev/stdout"]))
        #expect(stdout.status == 2)
        #expect(stdout.stderr.contains("it is a symbolic link"))
    }

    /// The choice README "Output paths" documents: a link is refused even when it points to a regular file, which
    /// is left as it was.
    @Test func outputOntoASymlinkToARegularFileIsRefused() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = directory + "/real.txt"
        let link = directory + "/report.txt"
        try "keep me\n".write(toFile: target, atomically: false, encoding: .utf8)
        try #require(symlink(target, link) == 0)
        let result = try await CLI.run(Self.check(directory, ["-o", link]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("it is a symbolic link to a regular file; links are not followed"))
        #expect(Self.type(link) == S_IFLNK)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me\n")
        let dangling = directory + "/dangling.txt"
        try #require(symlink(directory + "/nowhere", dangling) == 0)
        let danglingResult = try await CLI.run(Self.check(directory, ["-o", dangling]))
        #expect(danglingResult.status == 2)
        #expect(danglingResult.stderr.contains("it is a symbolic link that dangles"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/nowhere"))
    }

    /// The path is checked before the work: with an input FIFO that never gets data the run would wait a minute,
    /// and the store would be created.
    @Test func missingOutputDirectoryFailsBeforeAnyWork() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/input.fifo"
        #expect(mkfifo(fifo, 0o644) == 0)
        let started = Date()
        let result = try await CLI.run([
            "check", fifo, "--input-timeout", "60", "--store", directory + "/store", "-o", directory + "/no/such/r.txt",
        ])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "Error: cannot write '\(directory)/no/such/r.txt': directory '\(directory)/no/such': no such file or directory\n"
        )
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(!FileManager.default.fileExists(atPath: directory + "/store"))
    }

    @Test func outputReplacesARegularFileAtomicallyKeepingItsMode() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/report.json"
        try "old".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o640) == 0)
        var before = stat()
        try #require(stat(path, &before) == 0)
        let result = try await CLI.run(Self.check(directory, ["-o", path, "--format", "json"]))
        #expect(result.status == 1, "the demo's assets are not in the empty store: findings")
        #expect(result.stdout.isEmpty)
        var after = stat()
        try #require(lstat(path, &after) == 0)
        #expect(after.st_mode & S_IFMT == S_IFREG)
        #expect(after.st_mode & 0o777 == 0o640)
        #expect(after.st_ino != before.st_ino, "a new file renamed over the old one, not the old one rewritten")
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("{"))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "no temporary file is left behind")

        let fresh = directory + "/new.txt"
        let created = try await CLI.run(Self.check(directory, ["-o", fresh]))
        #expect(created.status == 1)
        #expect(Self.type(fresh) == S_IFREG)
        #expect(try String(contentsOfFile: fresh, encoding: .utf8).hasPrefix("inbox-assets check — 17 messages"))
    }

    @Test func outputDashIsStandardOutput() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await Self.sh(
            #"mkdir store && "$IA" check "$DEMO" --offline --store store -o -"#, in: directory)
        #expect(result.status == 1)
        #expect(result.output.hasPrefix("inbox-assets check — 17 messages"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/-"))
    }

    // MARK: - Bounded reads

    /// GNU time, which `make test` installs: it forks the binary itself, so `%M` is that child's own peak RSS. (A
    /// child spawned straight from the test process would not do: `wait4`'s `ru_maxrss` carries over the high-water
    /// mark of the process it was forked from, the test binary, hundreds of MiB by then.)
    static let time = "/usr/bin/time"
    static let canMeasureRSS = FileManager.default.isExecutableFile(atPath: time)

    @Test(arguments: [
        ("file /dev/zero", #""$IA" resolve /dev/zero"#),
        ("stdin from /dev/zero", #""$IA" resolve - </dev/zero"#),
        ("check /dev/zero", #""$IA" check /dev/zero --no-store"#),
        ("prefetch stdin", #""$IA" prefetch - --store store </dev/zero"#),
    ])
    func endlessInputStopsAtTheLimit(name: String, command: String) async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let measured = Self.canMeasureRSS ? "\(Self.time) -f %M -o rss " + command : command
        let result = try await Self.sh(measured + " >/dev/null", in: directory)
        #expect(result.status == 2, "\(name)")
        #expect(result.errors.contains("input larger than 256 MiB (--max-input)"), "\(name): \(result.errors)")
        if Self.canMeasureRSS {
            let text = try String(contentsOfFile: directory + "/rss", encoding: .utf8)
            let peak = try #require(Int(text.split(separator: "\n").last ?? ""), "\(text)")
            #expect(peak < Self.rssBudget, "\(name): peak RSS \(peak) KiB")
        }
    }

    @Test func maxInputIsConfigurable() async throws {
        let small = try await CLI.run(["resolve", Self.demo, "--max-input", "1K", "--format", "json"])
        #expect(small.status == 2)
        #expect(small.stderr.contains("input larger than 1 KiB (--max-input)"))
        #expect(small.stdout.contains(#""code": "input.tooLarge""#))
        let piped = try await CLI.run(["resolve", "-", "--max-input", "10"], stdin: String(repeating: " ", count: 11))
        #expect(piped.status == 2)
        #expect(piped.stderr.contains("-: input larger than 10 bytes"))
        let exact = try await CLI.run(["resolve", "-", "--max-input", "2"], stdin: "{}")
        #expect(!exact.stderr.contains("larger than"), "exactly the limit is accepted")
        let bad = try await CLI.run(["resolve", Self.demo, "--max-input", "0"])
        #expect(bad.status == 64)
    }

    @Test func fifoThatNeverGetsDataGivesUpAfterTheTimeout() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/campaign.json"
        #expect(mkfifo(fifo, 0o644) == 0)
        let started = Date()
        let result = try await CLI.run(["resolve", fifo, "--input-timeout", "1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 2)
        #expect(result.stderr == "Error: cannot read '\(fifo)': nothing arrived for 1 s (--input-timeout)\n")
        #expect(elapsed >= 0.9 && elapsed < 20)
        let bad = try await CLI.run(["resolve", fifo, "--input-timeout", "0"])
        #expect(bad.status == 64)
    }

    @Test func standardInputThatStallsGivesUp() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A writer that keeps the pipe open and sends nothing for 10 s.
        let result = try await Self.sh(#"sleep 10 | "$IA" resolve - --input-timeout 1"#, in: directory)
        #expect(result.status == 2)
        #expect(result.errors == "Error: cannot read standard input: nothing arrived for 1 s (--input-timeout)\n")
    }

    @Test func pipesAsDevFdInputsWork() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // What process substitution passes: /dev/fd/N naming a pipe.
        let piped = try await Self.sh(
            #"cat "$DEMO" | { exec 3<&0 0</dev/null; "$IA" resolve /dev/fd/3 --input-timeout 5; }"#, in: directory)
        #expect(piped.status == 0, "\(piped.errors)")
        #expect(piped.output.hasPrefix("inbox-assets resolve — 17 messages, 21 cards"))
        if FileManager.default.isExecutableFile(atPath: "/bin/bash") {
            var environment = ProcessInfo.processInfo.environment
            environment["IA"] = Self.binary
            environment["DEMO"] = Self.demo
            let substituted = try await Child.run(
                "/bin/bash", ["-c", #""$IA" resolve <(cat "$DEMO") --format json"#], environment: environment,
                directory: directory)
            #expect(substituted.status == 0, "\(substituted.errors)")
            #expect(substituted.output.contains(#""messages": 17"#))
        }
        // A named FIFO whose writer comes later is read once it does.
        let fifo = try await Self.sh(
            #"mkfifo f && { "$IA" resolve f --input-timeout 10 & sleep 1; cat "$DEMO" > f; wait $!; }"#, in: directory)
        #expect(fifo.status == 0, "\(fifo.errors)")
        #expect(fifo.output.hasPrefix("inbox-assets resolve — 17 messages"))
    }

    // MARK: - Output errors

    @Test(arguments: [
        ("resolve", #""$IA" resolve "$DEMO""#),
        ("resolve json", #""$IA" resolve "$DEMO" --format json"#),
        ("check", #"mkdir store && "$IA" check "$DEMO" --offline --store store"#),
        ("help", #""$IA" --help"#),
    ])
    func fullDiskOnStandardOutputIsExit74WithOneLine(name: String, command: String) async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await Self.sh(command + " >/dev/full", in: directory)
        #expect(result.status == 74, "\(name)")
        #expect(result.errors == "Error: cannot write standard output: no space left on device\n", "\(name)")
    }

    @Test func closedStandardOutputIsExit74() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let resolve = try await Self.sh(#""$IA" resolve "$DEMO" >&-"#, in: directory)
        #expect(resolve.status == 74)
        #expect(resolve.errors == "Error: cannot write standard output: bad file descriptor\n")
        // check knows before the work that its report has nowhere to go.
        let check = try await Self.sh(#""$IA" check "$DEMO" --offline --store store >&-"#, in: directory)
        #expect(check.status == 74)
        #expect(check.errors == "Error: cannot write standard output: bad file descriptor\n")
        #expect(!FileManager.default.fileExists(atPath: directory + "/store"))
        // ... and -o FILE does not need standard output; the file is not descriptor 1 either.
        let file = try await Self.sh(
            #"mkdir store && "$IA" check "$DEMO" --offline --store store -o r.txt >&-"#, in: directory)
        #expect(file.status == 1)
        #expect(try String(contentsOfFile: directory + "/r.txt", encoding: .utf8).hasPrefix("inbox-assets check"))
        // Nothing is said when standard error is closed too, and nothing crashes.
        let both = try await Self.sh(#""$IA" resolve "$DEMO" >&- 2>&-"#, in: directory)
        #expect(both.status == 74)
        #expect(both.stderr.isEmpty)
    }

    @Test func closedStandardInputWithDashIsExit2() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await Self.sh(#""$IA" resolve - <&-"#, in: directory)
        #expect(result.status == 2)
        #expect(result.errors == "Error: cannot read standard input: it is closed\n")
        let probe = try await Self.sh(#""$IA" probe - <&-"#, in: directory)
        #expect(probe.status == 2)
        #expect(probe.errors == "Error: cannot read standard input: it is closed\n")
        let file = try await Self.sh(#""$IA" resolve "$DEMO" <&-"#, in: directory)
        #expect(file.status == 0, "a closed standard input matters only to -")
    }

    /// EPIPE is quiet: exit 141 and nothing on stderr, also when SIGPIPE's default action is restored in the child
    /// (the binary ignores it itself, so it exits rather than being killed).
    @Test func readerGoneBeforeTheFirstWriteIsAQuiet141() async throws {
        let run = try await Spawned.runWithoutStdoutReader(["resolve", Self.demo])
        #expect(run.signal == nil, "ended by exit, not by SIGPIPE")
        #expect(run.exitStatus == 141)
        #expect(run.stderr.isEmpty)
    }

    @Test func readerClosedEarlyIsAQuiet141() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // 160 KB of JSON into a pipe whose reader leaves after 100 bytes: some write must fail with EPIPE.
        let result = try await Self.sh(
            #"{ "$IA" resolve "$DEMO" --sdk all --platform all --android-sdk all --format json; echo $? >status; } | head -c 100 >/dev/null"#,
            in: directory)
        #expect(result.status == 0)
        #expect(result.errors.isEmpty)
        #expect(try String(contentsOfFile: directory + "/status", encoding: .utf8) == "141\n")
    }
}

/// A child started with `posix_spawn`, for what `Process` does not offer: SIGPIPE at its default action (the
/// test process ignores it, and children inherit that) and a standard output pipe whose reader is already closed.
private struct Spawned {
    var exitStatus: Int32?
    var signal: Int32?
    var stderr: String

    /// Runs the binary with standard output a pipe nobody reads: its first write gets EPIPE.
    static func runWithoutStdoutReader(_ arguments: [String]) async throws -> Spawned {
        let directory = try HostileIOTests.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let errorsPath = directory + "/stderr"
        // Close-on-exec: a child another test starts meanwhile must not hold a reader of this pipe (see Spawning).
        let pipe = try #require(Spawning.descriptors())
        let ends = [pipe.read, pipe.write]
        close(ends[0])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addclose(&actions, ends[1])
        posix_spawn_file_actions_addopen(&actions, 2, errorsPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

        let argv = ([HostileIOTests.binary] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, HostileIOTests.binary, &actions, &attributes, argv, envp)
        close(ends[1])
        try #require(spawned == 0)
        let child = pid
        let status = await Child.offThePool { () -> Int32 in
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            return status
        }
        let signal = status & 0x7F
        return Spawned(
            exitStatus: signal == 0 ? (status >> 8) & 0xFF : nil, signal: signal == 0 ? nil : signal,
            stderr: (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "")
    }
}
