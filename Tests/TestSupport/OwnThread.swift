import Foundation
import Testing

/// Runs each test it is attached to on a thread of its own, instead of the shared cooperative pool.
///
/// The pool has one thread per core, and Swift Testing queues every test of the run on it at once. A task that
/// resumes after an `await` (a fetch answered, a child exited, a sleep over) goes to the back of that queue: on a
/// 2-core CI machine a test of 50 sequential probes took a minute, the fixture server closed its idle keep-alive
/// connection meanwhile, and crash-test children finished their 20 s before the kill that was 250 ms away.
/// Tests that count connections, time a cancellation or race a child process use this trait; the kernel then
/// shares the cores fairly between their thread and the pool.
///
/// Attach to a suite (`@Suite(.ownThread)`, every test in it) or a test (`@Test(.ownThread)`). Structured child
/// tasks (`async let`, task groups) inherit the thread; an unstructured `Task {}` does not unless it is created
/// with `Task(executorPreference: OwnThread.current)`.
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope (testCase == nil for a suite) needs no thread: each test below it gets one.
        guard testCase != nil || !test.isSuite else {
            try await function()
            return
        }
        let executor = OwnThread(name: test.name)
        defer { executor.finish() }
        try await OwnThread.$current.withValue(executor) {
            try await withTaskExecutorPreference(executor) { try await function() }
        }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs the test (or every test of the suite) on a thread of its own; see ``OwnThreadTrait``.
    public static var ownThread: Self { OwnThreadTrait() }
}

/// A task executor with one dedicated thread that runs its jobs in order.
public final class OwnThread: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `finishing` and `exited` are only touched with `condition` locked.
    /// The executor of the test running now, for `Task(executorPreference:)`.
    @TaskLocal public static var current: OwnThread?

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finishing = false
    private var exited = false

    init(name: String) {
        let thread = Thread { [self] in loop() }
        thread.name = "test: " + String(name.prefix(40))
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        guard !exited else {
            condition.unlock()
            // The test is over and its thread gone: a late job (an unstructured task's tail) runs on the pool.
            globalConcurrentExecutor.enqueue(unowned)
            return
        }
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread exit once its queue is empty.
    func finish() {
        condition.lock()
        finishing = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finishing { condition.wait() }
            guard !jobs.isEmpty else {
                exited = true
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
