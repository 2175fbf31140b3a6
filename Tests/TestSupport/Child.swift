import Foundation

/// What a finished child process left behind.
public struct ChildResult: Sendable {
    public var status: Int32
    public var reason: Process.TerminationReason
    public var stdout: Data
    public var stderr: Data

    /// Standard output as UTF-8 text (invalid bytes replaced).
    public var output: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as UTF-8 text (invalid bytes replaced).
    public var errors: String { String(decoding: stderr, as: UTF8.self) }
}

/// Child processes for tests, awaited without holding a Swift concurrency thread.
///
/// The test binary runs every suite on the cooperative pool, which has one thread per core. A test that blocks in
/// `waitUntilExit()` or a pipe read holds one of those threads for as long as the child runs, and on a 2-core CI
/// machine two such tests starve every async test: tests that count connections saw the fixture server close an
/// idle keep-alive connection because the test task could not run for 30 s. These helpers wait on Dispatch and
/// suspend the task instead.
public enum Child {
    /// How many children ``run(_:_:stdin:environment:directory:timeout:)`` lets run at once. Blocking waits used
    /// to cap this by accident (one child per pool thread); without a cap every CLI test would start its child
    /// at once and a 2-core machine would spend minutes on dozens of processes while timing-sensitive tests wait.
    public static let width = max(2, ProcessInfo.processInfo.activeProcessorCount)
    private static let slots = Slots(width)
    /// Writing to a child that has exited must be an error, not the end of the test process.
    private static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// The exit status of a command that finishes at once (`mount`, `umount`), output discarded; -1 when it cannot
    /// start. Blocking on purpose: test setup and `deinit` cannot await, and these commands take milliseconds, so
    /// the pool thread they hold is not the starvation ``run(_:_:stdin:environment:directory:timeout:)`` avoids.
    public static func quickStatus(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? Spawning.run(process)) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs `executable` with `arguments` to its end: standard input from `stdin` (closed after writing), both
    /// output pipes drained at once (a large output cannot fill one pipe and stall the child).
    /// - Parameters:
    ///   - environment: the child's whole environment; `nil` inherits this process's.
    ///   - directory: the working directory; `nil` inherits this process's.
    ///   - timeout: seconds before the child is killed (`SIGKILL`) and ``ChildError/timedOut`` thrown.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil,
        directory: String? = nil, timeout: Double = 300
    ) async throws -> ChildResult {
        await slots.acquire()
        do {
            let result = try await launch(executable, arguments, stdin, environment, directory, timeout)
            await slots.release()
            return result
        } catch {
            await slots.release()
            throw error
        }
    }

    private static func launch(
        _ executable: String, _ arguments: [String], _ stdin: Data?, _ environment: [String: String]?,
        _ directory: String?, _ timeout: Double
    ) async throws -> ChildResult {
        _ = ignoreSIGPIPE
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Spawning.pipe()
        let err = Spawning.pipe()
        let input = Spawning.pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let exited = DispatchGroup()
        exited.enter()
        process.terminationHandler = { _ in exited.leave() }
        let started = Date()
        try Spawning.run(process)
        let drained = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: drained) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: drained) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let writer = input.fileHandleForWriting
        DispatchQueue.global().async(group: drained) {
            // A child that exits without reading all of its input gives EPIPE here (SIGPIPE is ignored).
            if let stdin { try? writer.write(contentsOf: stdin) }
            try? writer.close()
        }
        let pid = process.processIdentifier
        let killer = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + min(timeout, 86_400), execute: killer)
        await notified(exited)
        killer.cancel()
        await notified(drained)
        if process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGKILL,
            Date().timeIntervalSince(started) >= timeout
        {
            throw ChildError.timedOut(executable: executable, seconds: timeout)
        }
        return ChildResult(
            status: process.terminationStatus, reason: process.terminationReason, stdout: outData, stderr: errData)
    }

    /// Waits for a process started elsewhere (`Process.run()`) to exit, polling every 5 ms instead of blocking
    /// a thread; `false` when it is still running after `timeout` seconds.
    @discardableResult
    public static func wait(for process: Process, timeout: Double = .infinity) async -> Bool {
        let deadline = Date().addingTimeInterval(min(timeout, 86_400))
        while process.isRunning {
            guard Date() < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        process.waitUntilExit()  // returns at once: the exit was already seen; this settles terminationStatus
        return true
    }

    /// SHA-256 of a file in hex, by coreutils' `sha256sum` (an implementation independent of the OpenSSL one
    /// the code under test uses).
    public static func sha256sum(_ path: String) async throws -> String {
        let result = try await run("/usr/bin/sha256sum", [path])
        guard result.status == 0 else { throw ChildError.failed(executable: "sha256sum", output: result.errors) }
        return String(result.output.prefix(64))
    }

    /// Runs blocking work (a read from a child's pipe, a `waitpid`) on a Dispatch thread and suspends the test task
    /// until it is done.
    public static func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }

    /// Sleeps the task, not the thread.
    public static func pause(seconds: Double) async {
        try? await Task.sleep(for: .milliseconds(Int((seconds * 1000).rounded())))
    }

    private static func notified(_ group: DispatchGroup) async {
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
    }
}

/// Why a ``Child`` helper gave up.
public enum ChildError: Error, CustomStringConvertible {
    case timedOut(executable: String, seconds: Double)
    case failed(executable: String, output: String)

    public var description: String {
        switch self {
        case .timedOut(let executable, let seconds): "\(executable) did not finish within \(seconds) s (killed)"
        case .failed(let executable, let output): "\(executable) failed: \(output)"
        }
    }
}

/// A counting semaphore for tasks: ``acquire()`` suspends (no thread is held) until a slot is free.
private actor Slots {
    private var free: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(_ width: Int) { free = width }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            free += 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}
