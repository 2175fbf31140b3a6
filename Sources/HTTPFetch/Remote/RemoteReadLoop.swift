internal import CCurl
import Findings
import Glibc
import Synchronization

/// The remote cache's reads: one thread driving one libcurl multi handle, as the fetch engine does for origin
/// requests, instead of a blocking thread per easy handle. At most ``RemoteCacheOptions/readConnections``
/// transfers run at once (connections are kept alive in the multi handle's cache); a read waits in a queue
/// otherwise. A batch (``Command/batch(_:_:)``) hands many reads over in one command, and their responses come back
/// in groups (``BatchChannel``): one wake-up per group instead of one hand-off per read.
///
/// A remote that fails once is not asked again in the run: the first response that is neither `2xx` nor `404`
/// (a transport failure, a timeout, `401`/`403`, `5xx`) trips the loop — every transfer still running is stopped
/// and every queued or later read answers at once with that same response, so the caller records one reason and
/// nothing waits for a second timeout. ``trip()`` does the same from outside (an upload found the remote down).
///
/// `@unchecked Sendable`: after `init`, every stored property except ``mailbox`` and ``tripped`` (both Sendable) is
/// read and written only on the loop's thread; other threads talk to it through the mailbox.
final class RemoteReadLoop: @unchecked Sendable {
    enum Command: Sendable {
        /// One read; `done` is called on the loop's thread with its response.
        case read(Transfer, done: @Sendable (Response) -> Void)
        /// Reads whose responses go to `channel`, as `(index in transfers, response)`.
        case batch([Transfer], BatchChannel<Response>)
        case shutdown
    }

    private enum Delivery {
        case single(@Sendable (Response) -> Void)
        case batch(BatchChannel<Response>, index: Int)
    }

    private struct Pending {
        let transfer: Transfer
        let delivery: Delivery
    }

    private final class Active {
        let handle: EasyHandle
        let context: TransferContext
        let delivery: Delivery

        init(handle: EasyHandle, context: TransferContext, delivery: Delivery) {
            self.handle = handle
            self.context = context
            self.delivery = delivery
        }
    }

    let mailbox: Mailbox<Command>
    /// Set once the remote failed (here or as ``trip()`` says): no read is started any more.
    private let tripped = Atomic(false)
    private let options: RemoteCacheOptions
    private let multi: MultiHandle
    /// The request headers (`--remote-header` and `Expect:`), one list for every transfer.
    private let headers: CurlStringList?
    private var queue = FIFO<Pending>()
    private var active: [UnsafeMutableRawPointer: Active] = [:]
    private var freeHandles: [EasyHandle] = []
    /// The response every read gets once the loop tripped (the first failure's), or at shutdown.
    private var failure: Response?
    private var stopping = false
    /// Batch responses not handed over yet (in groups, as the engine's).
    private var staged = BatchStaging<Response>()

    /// Creates the multi handle and starts the thread; `nil` when libcurl or the system cannot provide them.
    init?(options: RemoteCacheOptions) {
        EngineLoop.globalInit()
        guard let multi = MultiHandle() else { return nil }
        self.multi = multi
        self.options = options
        headers = CurlStringList(options.headers + ["Expect:"])
        mailbox = Mailbox(wakeup: MultiWakeup(pointer: multi.pointer))
        let connections = max(1, options.readConnections)
        multi.set(.maxTotalConnections, connections)
        multi.set(.maxConnects, max(connections * 2, 16))
        guard DetachedThread.start({ self.run() }) == 0 else { return nil }
    }

    /// Whether the loop stopped reading (a failure, or ``trip()``).
    var isTripped: Bool { tripped.load(ordering: .relaxed) }

    /// Stops starting reads (the remote was found unusable elsewhere); queued ones answer with a failure.
    func trip() { tripped.store(true, ordering: .relaxed) }

    /// Lets the thread end: what is queued or running answers with a failure.
    func stop() { _ = mailbox.post(.shutdown) }

    // MARK: The loop

    private func run() {
        while true {
            for command in mailbox.take() { handle(command) }
            if stopping { break }
            startQueued()
            var running: Int32 = 0
            curl_multi_perform(multi.pointer, &running)
            processCompletions()
            startQueued()
            if staged.isDue(running: active.count) { staged.flush() }
            var numfds: Int32 = 0
            let timeout = staged.due.map { Int32(max(0, min(1, $0 - now())) * 1000) + 1 } ?? 1000
            curl_multi_poll(multi.pointer, nil, 0, timeout, &numfds)
        }
        failure = failure ?? Response(status: 0, errorText: "the remote cache client was shut down")
        for command in mailbox.close() { handle(command) }
        stopAll()
        staged.flush()
        multi.cleanup()  // the mailbox is closed, so no thread can call curl_multi_wakeup on it any more
    }

    private func handle(_ command: Command) {
        switch command {
        case .read(let transfer, let done):
            queue.push(Pending(transfer: transfer, delivery: .single(done)))
        case .batch(let transfers, let channel):
            for (index, transfer) in transfers.enumerated() {
                queue.push(Pending(transfer: transfer, delivery: .batch(channel, index: index)))
            }
        case .shutdown:
            stopping = true
        }
        if stopping { answerQueued() }
    }

    private func startQueued() {
        if tripped.load(ordering: .relaxed) {
            if failure == nil { failure = Response(status: 0, errorText: "the remote cache was found unusable") }
            stopAll()
            return
        }
        while active.count < max(1, options.readConnections), let pending = queue.pop() {
            guard let handle = freeHandles.popLast() ?? EasyHandle() else {
                deliver(Response(status: 0, errorText: "curl_easy_init failed"), to: pending.delivery)
                continue
            }
            let context: TransferContext
            switch RemoteTransfers.prepare(handle, pending.transfer, options: options, headers: headers) {
            case .success(let prepared): context = prepared
            case .failure(let refusal):
                freeHandles.append(handle)
                deliver(refusal.response, to: pending.delivery)
                continue
            }
            guard curl_multi_add_handle(multi.pointer, handle.pointer) == CURLM_OK else {
                context.close()
                deliver(Response(status: 0, errorText: "curl_multi_add_handle failed"), to: pending.delivery)
                continue
            }
            active[handle.pointer] = Active(handle: handle, context: context, delivery: pending.delivery)
        }
    }

    private func processCompletions() {
        multi.removeFinished { pointer, code in
            guard let done = active.removeValue(forKey: pointer) else { return }
            let response = RemoteTransfers.response(done.handle, code: code, context: done.context)
            done.context.close()
            if freeHandles.count < max(1, options.readConnections) { freeHandles.append(done.handle) }
            if !(200..<300).contains(response.status), response.status != 404, failure == nil {
                // The remote failed: nothing more is asked of it in this run.
                failure = response
                tripped.store(true, ordering: .relaxed)
            }
            deliver(response, to: done.delivery)
        }
        if tripped.load(ordering: .relaxed) { stopAll() }
    }

    /// Stops every running transfer and answers it, and everything queued, with ``failure``.
    private func stopAll() {
        let failure = self.failure ?? Response(status: 0, errorText: "the remote cache was found unusable")
        for (pointer, running) in active {
            curl_multi_remove_handle(multi.pointer, pointer)
            running.context.close()
            deliver(failure, to: running.delivery)
        }
        active = [:]
        answerQueued()
    }

    private func answerQueued() {
        let failure = self.failure ?? Response(status: 0, errorText: "the remote cache client was shut down")
        while let pending = queue.pop() { deliver(failure, to: pending.delivery) }
    }

    private func deliver(_ response: Response, to delivery: Delivery) {
        switch delivery {
        case .single(let done):
            done(response)
        case .batch(let channel, let index):
            staged.stage(response, index: index, for: channel)
        }
    }
}
