internal import CCurl
import Findings
import Glibc
import Synchronization

/// Where one waiter's outcome goes: its own task's continuation, or its slot in a batch.
enum Delivery: Sendable {
    case single(CheckedContinuation<FetchOutcome, Never>)
    case batch(BatchChannel<FetchOutcome>, index: Int)
}

/// A request handed from a caller's task to the engine thread.
struct Submission: Sendable {
    let id: UInt64
    let kind: FetchKind
    let url: String
    let validators: Validators
    let range: ClosedRange<Int>?
    let sink: (any FetchSink)?
    let delivery: Delivery
}

/// Many plain requests (no validators, range or sink) handed over in one command, as ``FetchEngine/fetchAll``
/// does: one mailbox entry and one wake-up instead of one per URL. Member `index` has waiter id `firstID + index`.
struct BatchSubmission: Sendable {
    let firstID: UInt64
    let kind: FetchKind
    let urls: [String]
    let channel: BatchChannel<FetchOutcome>
}

enum Command: Sendable {
    case submit(Submission)
    case submitBatch(BatchSubmission)
    case cancel(UInt64)
    /// Cancels every member of a batch still waiting (ids `first ..< first + count`).
    case cancelBatch(first: UInt64, count: Int)
    case shutdown(CheckedContinuation<Void, Never>?)
}

/// Outcomes of one batch, handed from the engine thread to the one task waiting for them a poll round at a
/// time: one resume per round instead of one per transfer, and none while the task is still busy with the
/// previous round's outcomes. Unlike `AsyncStream`, cancelling the waiting task does not close it: the engine
/// still delivers every member's (then `cancelled`) outcome, so none is lost. (The remote cache's read loop hands
/// its batch responses over the same way.)
final class BatchChannel<Outcome: Sendable>: Sendable {
    private struct State {
        var ready: [(Int, Outcome)] = []
        var waiter: CheckedContinuation<[(Int, Outcome)], Never>?
    }
    private let state = Mutex(State())

    /// From the engine thread: hands over `outcomes` (index in the batch, outcome).
    func deliver(_ outcomes: [(Int, Outcome)]) {
        let resume: (CheckedContinuation<[(Int, Outcome)], Never>, [(Int, Outcome)])? = state.withLock {
            state in
            if let waiter = state.waiter {
                state.waiter = nil
                if state.ready.isEmpty { return (waiter, outcomes) }
                state.ready += outcomes
                defer { state.ready = [] }
                return (waiter, state.ready)
            }
            state.ready += outcomes
            return nil
        }
        if let (waiter, outcomes) = resume { waiter.resume(returning: outcomes) }
    }

    /// The outcomes delivered since the last call, waiting for some when there are none yet. One caller at a time.
    func next() async -> [(Int, Outcome)] {
        await withCheckedContinuation { continuation in
            let ready: [(Int, Outcome)]? = state.withLock { state in
                guard !state.ready.isEmpty else {
                    state.waiter = continuation
                    return nil
                }
                defer { state.ready = [] }
                return state.ready
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// Batch outcomes staged on a loop's thread until they are handed over (``flush()``) in groups of at least
/// ``group``, or once the oldest has waited ``delay`` seconds, or when no transfer runs: each hand-over wakes the
/// batch's task on another thread — the core nginx or other work would use — so one per poll round (~2,000 for 10,000
/// small files) was measurable, while ~10 ms is nothing to a progress bar.
struct BatchStaging<Outcome: Sendable> {
    static var group: Int { 64 }
    static var delay: Double { 0.01 }
    private var staged: [(channel: BatchChannel<Outcome>, outcomes: [(Int, Outcome)])] = []
    private var count = 0
    /// When the oldest staged outcome was staged.
    private var since = 0.0

    /// Stages the outcome of member `index` of `channel`'s batch.
    mutating func stage(_ outcome: Outcome, index: Int, for channel: BatchChannel<Outcome>) {
        if count == 0 { since = now() }
        count += 1
        if let last = staged.indices.last, staged[last].channel === channel {
            staged[last].outcomes.append((index, outcome))
        } else if let position = staged.firstIndex(where: { $0.channel === channel }) {
            staged[position].outcomes.append((index, outcome))
        } else {
            staged.append((channel, [(index, outcome)]))
        }
    }

    /// Whether to hand the staged outcomes over now, with `running` transfers still running.
    func isDue(running: Int) -> Bool {
        count > 0 && (count >= Self.group || running == 0 || now() - since >= Self.delay)
    }

    /// When the staged outcomes must be handed over at the latest (monotonic seconds), or `nil` with none staged.
    var due: Double? { count > 0 ? since + Self.delay : nil }

    /// Hands every staged outcome to its batch's waiting task.
    mutating func flush() {
        guard count > 0 else { return }
        let batches = staged
        staged = []
        count = 0
        for batch in batches { batch.channel.deliver(batch.outcomes) }
    }
}

/// The multi handle's address, for `curl_multi_wakeup` from other threads.
///
/// `@unchecked Sendable`: `curl_multi_wakeup` is documented as callable from any thread, and ``Mailbox``
/// only calls it under its lock while not closed — the engine thread closes the mailbox (under the same lock)
/// before it cleans the multi handle up, so the pointer is never used after free.
struct MultiWakeup: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// Commands from any thread to the engine thread (or the remote cache's read loop).
final class Mailbox<Command: Sendable>: Sendable {
    private struct State {
        var commands: [Command] = []
        var closed = false

        /// Wakes the engine only when the mailbox goes from empty to non-empty: the engine takes everything
        /// queued at once, and a wake-up stays pending until its next `curl_multi_poll`, so a command queued
        /// behind others is seen in the same round. (Waking per command cost one `sendto` per URL, half of
        /// them `EAGAIN` on the full wake-up socket.)
        mutating func append(_ command: Command, wakeup: MultiWakeup) {
            commands.append(command)
            if commands.count == 1 { curl_multi_wakeup(wakeup.pointer) }
        }
    }
    private let state = Mutex(State())
    private let wakeup: MultiWakeup

    init(wakeup: MultiWakeup) { self.wakeup = wakeup }

    /// Queues `command` and wakes the engine thread; `false` when the engine has stopped.
    func post(_ command: Command) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.append(command, wakeup: wakeup)
            return true
        }
    }

    /// Queues a submission (single or batch) unless the caller's task is already cancelled (checked under the
    /// lock, so a cancellation is either seen here or posted after the submission — never lost between the two).
    func submit(_ command: Command) -> Bool {
        state.withLock { state in
            guard !state.closed, !Task.isCancelled else { return false }
            state.append(command, wakeup: wakeup)
            return true
        }
    }

    func take() -> [Command] {
        state.withLock { state in
            defer { state.commands = [] }
            return state.commands
        }
    }

    /// Closes the mailbox and returns what was still queued.
    func close() -> [Command] {
        state.withLock { state in
            state.closed = true
            defer { state.commands = [] }
            return state.commands
        }
    }
}

/// The engine thread: owns the multi handle, every easy handle and every flight.
///
/// `@unchecked Sendable`: after `init`, every stored property except ``mailbox`` (itself Sendable) is read
/// and written only on the engine thread started by ``start()``; other threads talk to it through the mailbox.
final class EngineLoop: @unchecked Sendable {
    let mailbox: Mailbox<Command>
    private let options: FetchOptions
    private let multi: MultiHandle
    private let connectTo: CurlStringList?

    private var flights: [FlightKey: Flight] = [:]
    private var waiterFlights: [UInt64: Flight] = [:]
    private var activeByHandle: [UnsafeMutableRawPointer: Flight] = [:]
    private var hosts: [String: HostSlot] = [:]
    private var activeCount = 0
    private var hostsWithQueue: [HostSlot] = []
    private var retryReady: [Flight] = []
    private var delayed: [(due: Double, flight: Flight)] = []
    private var freeHandles: [EasyHandle] = []
    private var freeHashers: [SHA256Hasher] = []
    private var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    private var stopping = false
    /// Batch outcomes not handed over yet (usually one batch at a time).
    private var staged = BatchStaging<FetchOutcome>()

    init(options: FetchOptions) throws(FetchEngineError) {
        EngineLoop.globalInit()
        guard let multi = MultiHandle() else { throw FetchEngineError("curl_multi_init failed") }
        self.multi = multi
        self.options = options
        if options.connectTo.isEmpty {
            connectTo = nil
        } else {
            guard let list = CurlStringList(options.connectTo) else { throw FetchEngineError("out of memory") }
            connectTo = list
        }
        mailbox = Mailbox(wakeup: MultiWakeup(pointer: multi.pointer))
        // Connection limits inside curl too, so redirected hops to other hosts stay bounded.
        multi.set(.maxTotalConnections, options.concurrency)
        multi.set(.maxHostConnections, options.hostConcurrency)
        multi.set(.maxConnects, max(options.concurrency * 2, 16))
        // Check once that this libcurl accepts every option the engine sets (e.g. HTTP/2 needs nghttp2).
        guard let probe = EasyHandle() else { throw FetchEngineError("curl_easy_init failed") }
        if let problem = configureShared(probe, everyOption: true) ?? attach(probe, to: nil) {
            throw FetchEngineError("libcurl rejected an option: \(problem)")
        }
        if !options.denyPrivate {
            // The check also set OPENSOCKETFUNCTION, which only deny-private uses: start this handle afresh.
            probe.reset()
            _ = configureShared(probe)
        }
        freeHandles.append(probe)
    }

    /// `curl_global_init` is not thread-safe and must run once before any other curl call.
    private static let globalInitDone: Bool = {
        curl_global_init(Int(CURL_GLOBAL_ALL))
        return true
    }()

    static func globalInit() { _ = globalInitDone }

    func start() throws(FetchEngineError) {
        let status = DetachedThread.start { self.run() }
        guard status == 0 else { throw FetchEngineError("cannot start the engine thread: error \(status)") }
    }

    // MARK: The loop

    private func run() {
        while true {
            for command in mailbox.take() { handle(command) }
            if stopping { break }
            promoteDueRetries()
            startQueued()
            var running: Int32 = 0
            curl_multi_perform(multi.pointer, &running)
            processCompletions()
            startQueued()
            if staged.isDue(running: activeCount) { staged.flush() }
            // A handle added (or re-added for a redirect or fallback) since the perform has curl's timeout at 0,
            // so this returns at once and the next perform starts it — one perform per wait, as the curl tool
            // does. (Performing again straight away instead polled every running transfer's socket once more for
            // nothing: curl_multi_perform checks each with its own poll.)
            var numfds: Int32 = 0
            curl_multi_poll(multi.pointer, nil, 0, pollTimeout(), &numfds)
        }
        for command in mailbox.close() { handle(command) }
        cancelEverything()
        staged.flush()
        multi.cleanup()  // the mailbox is closed, so no thread can call curl_multi_wakeup on it any more
        for waiter in shutdownWaiters { waiter.resume() }
        shutdownWaiters = []
    }

    /// Resumes a single caller at once; a batch member's outcome is staged.
    private func deliver(_ outcome: FetchOutcome, to delivery: Delivery) {
        switch delivery {
        case .single(let continuation):
            continuation.resume(returning: outcome)
        case .batch(let channel, let index):
            staged.stage(outcome, index: index, for: channel)
        }
    }

    private func pollTimeout() -> Int32 {
        var due = delayed.map(\.due).min()
        if let handOver = staged.due { due = min(due ?? .infinity, handOver) }  // hand them over in time
        if options.hostRate != nil, let next = hostsWithQueue.lazy.map(\.nextStart).min() {
            due = min(due ?? .infinity, next)  // a host held back by --host-rate starts its next transfer on time
        }
        guard let due else { return 1000 }
        return Int32(max(0, min(1000, (due - now()) * 1000 + 1)))
    }

    private func handle(_ command: Command) {
        switch command {
        case .submit(let submission):
            if stopping {
                deliver(cancelledOutcome(submission.url, submission.kind), to: submission.delivery)
            } else {
                submit(submission)
            }
        case .submitBatch(let batch):
            if !stopping {
                flights.reserveCapacity(flights.count + batch.urls.count)
                waiterFlights.reserveCapacity(waiterFlights.count + batch.urls.count)
            }
            for (index, url) in batch.urls.enumerated() {
                let delivery = Delivery.batch(batch.channel, index: index)
                if stopping {
                    deliver(cancelledOutcome(url, batch.kind), to: delivery)
                } else {
                    submit(
                        Submission(
                            id: batch.firstID + UInt64(index), kind: batch.kind, url: url, validators: Validators(),
                            range: nil, sink: nil, delivery: delivery))
                }
            }
        case .cancel(let id):
            cancelWaiter(id)
        case .cancelBatch(let first, let count):
            for index in 0..<count { cancelWaiter(first + UInt64(index)) }
        case .shutdown(let continuation):
            stopping = true
            if let continuation { shutdownWaiters.append(continuation) }
        }
    }

    private func submit(_ submission: Submission) {
        if let reason = URLCheck.controlCharacter(in: submission.url) {
            // Before the single-flight key (whose parts a control character separates) and before curl, which would
            // cut the URL at a NUL and request what is left of it.
            deliver(
                FetchOutcome(url: submission.url, kind: submission.kind, failure: .invalidURL, errorText: reason),
                to: submission.delivery)
            return
        }
        let validators = submission.validators
        // The single-flight key: what makes two calls the same request. A control character separates the
        // parts, as none can occur in a URL or a header value.
        var text = submission.kind.rawValue
        for part in [
            validators.etag, validators.lastModified, submission.range.map { "\($0.lowerBound)-\($0.upperBound)" },
            validators.authorization,
        ] {
            text += "\u{1}"
            text += part ?? ""
        }
        text += "\u{1}"
        text += submission.url
        let key = FlightKey(text)
        let waiter = Waiter(id: submission.id, delivery: submission.delivery, sink: submission.sink)
        if let flight = flights[key], flight.isJoinable {
            flight.waiters.append(waiter)
            waiterFlights[submission.id] = flight
            return
        }
        let parsed: URLCheck.Parsed
        switch URLCheck.parse(submission.url) {
        case .success(let value):
            parsed = value
        case .failure(.invalid(let reason)):
            deliver(
                FetchOutcome(url: submission.url, kind: submission.kind, failure: .invalidURL, errorText: reason),
                to: submission.delivery)
            return
        case .failure(.scheme(let reason)):
            deliver(
                FetchOutcome(url: submission.url, kind: submission.kind, failure: .scheme, errorText: reason),
                to: submission.delivery)
            return
        }
        let flight = Flight(
            key: key, url: submission.url, kind: submission.kind, validators: validators, range: submission.range,
            host: hostSlot(parsed.hostKey),
            options: options)
        flight.waiters.append(waiter)
        flights[key] = flight
        waiterFlights[submission.id] = flight
        enqueue(flight)
    }

    private func enqueue(_ flight: Flight) {
        flight.state = .queued
        let host = flight.host
        if !host.listed {
            host.listed = true
            hostsWithQueue.append(host)
        }
        host.queue.push(flight)
    }

    // MARK: Starting transfers within the limits

    private func hostSlot(_ key: String) -> HostSlot {
        if let host = hosts[key] { return host }
        let host = HostSlot(key: key)
        hosts[key] = host
        return host
    }

    private func hasCapacity(_ host: HostSlot) -> Bool {
        activeCount < options.concurrency && host.active < options.hostConcurrency
            && (options.hostRate == nil || now() >= host.nextStart)
    }

    /// Starts queued flights while the global and per-host limits allow; retries waiting for a slot go first.
    @discardableResult
    private func startQueued() -> Bool {
        var started = false
        var index = 0
        while index < retryReady.count, activeCount < options.concurrency {
            let flight = retryReady[index]
            if flight.state == .done {
                retryReady.remove(at: index)
            } else if hasCapacity(flight.host) {
                retryReady.remove(at: index)
                start(flight)
                started = true
            } else {
                index += 1
            }
        }
        var hostIndex = 0
        while hostIndex < hostsWithQueue.count, activeCount < options.concurrency {
            let host = hostsWithQueue[hostIndex]
            while hasCapacity(host), let flight = host.queue.pop() {
                guard flight.state == .queued else { continue }  // cancelled while queued
                start(flight)
                started = true
            }
            if host.queue.isEmpty {
                host.queue = FIFO()
                host.listed = false
                hostsWithQueue.remove(at: hostIndex)
            } else {
                hostIndex += 1
            }
        }
        return started
    }

    private func start(_ flight: Flight) {
        if flight.easy == nil {
            let easy: EasyHandle
            if let pooled = freeHandles.popLast() {
                easy = pooled
            } else {
                guard let fresh = EasyHandle() else {
                    finish(flight, failure: .connect, text: "curl_easy_init failed (out of memory)")
                    return
                }
                if let problem = configureShared(fresh) {
                    finish(flight, failure: .connect, text: "libcurl rejected an option: \(problem)")
                    return
                }
                easy = fresh
            }
            flight.easy = easy
            if flight.kind == .get, let hasher = freeHashers.popLast() { flight.lend(hasher) }
            if !flight.validators.isEmpty { flight.headerList = CurlStringList(flight.validators.headers) }
            if let problem = attach(easy, to: flight) {
                finish(flight, failure: .connect, text: "libcurl rejected an option: \(problem)")
                return
            }
        }
        flight.attempts += 1
        if flight.firstStart == nil { flight.firstStart = now() }
        activeCount += 1
        flight.host.active += 1
        if let rate = options.hostRate { flight.host.nextStart = now() + 1 / rate }
        flight.state = .active
        startHop(flight)
    }

    /// (Re)adds the flight's handle for its current URL and method, keeping its slot.
    private func startHop(_ flight: Flight) {
        guard let easy = flight.easy else { return }
        flight.resetHop()
        easy.set(.url, flight.currentURL)
        if !options.hostHeaders.isEmpty {
            // Per hop: a redirect to another host must not carry this host's token.
            let lines = flight.validators.headers + options.headers(for: flight.currentURL)
            flight.headerList = lines.isEmpty ? nil : CurlStringList(lines)
            easy.set(.httpHeaders, flight.headerList)
        }
        // https: wait for a connection being set up to the same host rather than open another, so HTTP/2
        // transfers multiplex over one connection (one TLS handshake instead of one per slot, several responses
        // per read), as `curl --parallel` does; ALPN says at the handshake whether it can, so HTTP/1.1 still
        // opens one connection per slot. Plain http never multiplexes here (HTTP/2 only over TLS), and there
        // libcurl 7.88 parked every later transfer to the host until a streaming first response ended.
        easy.set(.pipeWait, URLCheck.httpScheme(of: flight.currentURL) == "https" ? 1 : 0)
        if flight.usingGET {
            easy.set(.noBody, 0)
            easy.set(.httpGet, 1)
        } else {
            easy.set(.noBody, 1)
        }
        activeByHandle[easy.pointer] = flight
        let status = curl_multi_add_handle(multi.pointer, easy.pointer)
        if status != CURLM_OK {
            activeByHandle[easy.pointer] = nil
            releaseSlot(flight)
            finish(flight, failure: .connect, text: String(cString: curl_multi_strerror(status)))
        }
    }

    private func releaseSlot(_ flight: Flight) {
        activeCount -= 1
        flight.host.active -= 1
    }

    /// Sets the options every transfer shares, once per handle: a pooled handle keeps them, so starting a
    /// transfer only points it at its flight (``attach(_:to:)``) instead of `curl_easy_reset` and some 25
    /// `setopt`s (string copies and parses) per URL. `nil` when all were accepted, else the first rejected one.
    /// - Parameter everyOption: also set the options only deny-private uses (the engine's one-off check that
    ///   this libcurl accepts everything).
    private func configureShared(_ easy: EasyHandle, everyOption: Bool = false) -> String? {
        var problem: String?
        func check(_ code: CURLcode, _ what: String) {
            if code != CURLE_OK, problem == nil { problem = "\(what): \(CurlErrorClassifier.text(for: code))" }
        }
        check(easy.set(.noSignal, 1), "NOSIGNAL")
        check(easy.set(.noProgress, 0), "NOPROGRESS")
        check(easy.set(.followLocation, 0), "FOLLOWLOCATION")  // followed here, so every hop is recorded and checked
        check(easy.set(.protocols, "http,https"), "PROTOCOLS_STR")
        check(easy.set(.redirectProtocols, "http,https"), "REDIR_PROTOCOLS_STR")
        check(easy.set(.httpVersion, Int(CURL_HTTP_VERSION_2TLS)), "HTTP_VERSION")
        check(easy.set(.tcpKeepAlive, 1), "TCP_KEEPALIVE")
        // No CURLOPT_BUFFERSIZE: libcurl 7.88 refuses to change it on a reused handle whose receive buffer is
        // still allocated (CURLE_BAD_FUNCTION_ARGUMENT), which failed nearly every multiplexed HTTP/2 transfer
        // (found by `make bench`); the 16 KiB default only means more, smaller write callbacks.
        check(easy.set(.connectTimeoutMilliseconds, max(1, Int(options.timeout * 1000))), "CONNECTTIMEOUT_MS")
        check(easy.set(.lowSpeedLimit, max(1, options.lowSpeedLimit)), "LOW_SPEED_LIMIT")
        check(easy.set(.lowSpeedTime, max(1, Int(options.timeout.rounded(.up)))), "LOW_SPEED_TIME")
        check(easy.set(.verifyPeer, 1), "SSL_VERIFYPEER")
        check(easy.set(.verifyHost, 2), "SSL_VERIFYHOST")
        check(easy.set(.userAgent, options.userAgent), "USERAGENT")
        if let caFile = options.caFile { check(easy.set(.caFile, caFile), "CAINFO") }
        if let maxSize = options.maxSize { check(easy.set(.maxFileSize, Int64(maxSize)), "MAXFILESIZE_LARGE") }
        if let connectTo { check(easy.set(.connectTo, connectTo), "CONNECT_TO") }
        check(easy.setWriteFunction(flightWriteCallback), "WRITEFUNCTION")
        check(easy.setXferInfoFunction(flightXferInfoCallback), "XFERINFOFUNCTION")
        check(easy.setPrereqFunction(flightPrereqCallback), "PREREQFUNCTION")
        if options.denyPrivate || everyOption {
            // Refuse a non-public address before connecting to it (an unroutable private address would
            // otherwise end as a connect timeout); PREREQFUNCTION still checks every request, reused
            // connections included.
            check(easy.setOpenSocketFunction(flightOpenSocketCallback), "OPENSOCKETFUNCTION")
        }
        return problem
    }

    /// A CDN or WAF challenge instead of the asset: Cloudflare's `cf-mitigated: challenge`, AWS WAF's
    /// `x-amzn-waf-action` (challenge, captcha), or an HTML 403/503 Cloudflare served (`cf-ray`: its challenge or
    /// block page).
    static func isBotChallenge(status: Int, easy: EasyHandle) -> Bool {
        guard status == 403 || status == 429 || status == 503 else { return false }
        if easy.header("cf-mitigated")?.lowercased().contains("challenge") == true { return true }
        if let action = easy.header("x-amzn-waf-action")?.lowercased(), action == "challenge" || action == "captcha" {
            return true
        }
        let html = easy.header("Content-Type")?.lowercased().hasPrefix("text/html") == true
        return html && status != 429 && easy.header("cf-ray") != nil
    }

    /// Points a configured handle at `flight`'s callbacks, headers and range — or, with `nil`, at nothing, so
    /// a pooled handle never points at a finished flight. Every per-flight option is set each time (to `NULL`
    /// when unused), so nothing of the previous flight carries over; the URL and method are set per hop.
    private func attach(_ easy: EasyHandle, to flight: Flight?) -> String? {
        var problem: String?
        func check(_ code: CURLcode, _ what: String) {
            if code != CURLE_OK, problem == nil { problem = "\(what): \(CurlErrorClassifier.text(for: code))" }
        }
        check(easy.set(.httpHeaders, flight?.headerList), "HTTPHEADER")
        check(easy.set(.range, flight?.range.map { "\($0.lowerBound)-\($0.upperBound)" }), "RANGE")
        let user = flight.map { Unmanaged.passUnretained($0).toOpaque() }
        check(easy.set(.writeData, user), "WRITEDATA")
        check(easy.set(.xferInfoData, user), "XFERINFODATA")
        check(easy.set(.prereqData, user), "PREREQDATA")
        check(easy.set(.openSocketData, user), "OPENSOCKETDATA")
        return problem
    }

    // MARK: Completions: redirects, HEAD fallback, retries, outcomes

    /// Handles every finished hop curl reports (a redirect or fallback re-adds its handle for the next perform).
    private func processCompletions() {
        multi.removeFinished { handle, code in
            guard let flight = activeByHandle.removeValue(forKey: handle) else { return }
            completed(flight, code: code)
        }
    }

    /// Decides what a finished hop means. - Returns: `true` when the flight continues on its slot.
    @discardableResult
    private func completed(_ flight: Flight, code: CURLcode) -> Bool {
        guard let easy = flight.easy else { return false }
        let status = easy.info(.responseCode) ?? 0
        let cutOnPurpose = flight.flags.probeBodyCut || flight.flags.rangeComplete
        let responded = code == CURLE_OK || (code == CURLE_WRITE_ERROR && cutOnPurpose)
        var failure: FetchFailure?
        var text: String?
        if responded {
            if (300...399).contains(status), status != 304 {
                guard let location = easy.info(.redirectURL) else {
                    return fail(flight, .httpStatus, "HTTP \(status) without a usable Location")
                }
                flight.redirects.append(RedirectHop(url: flight.currentURL, status: status, location: location))
                guard URLCheck.isFetchableScheme(location) else {
                    return fail(flight, .scheme, "redirect to a non-http(s) URL \(location)")
                }
                guard flight.redirects.count <= options.maxRedirects else {
                    return fail(flight, .tooManyRedirects, "more than \(options.maxRedirects) redirects")
                }
                flight.currentURL = location
                startHop(flight)
                return true
            }
            if flight.kind == .probe, !flight.usingGET, [403, 404, 405, 501].contains(status) {
                return fallBackToGET(flight)
            }
            if status == 304, !flight.validators.isEmpty {
                releaseSlot(flight)
                finish(flight, failure: nil, text: nil, notModified: true)
                return false
            }
            if (200...299).contains(status) {
                releaseSlot(flight)
                finish(flight, failure: nil, text: nil)
                return false
            }
            failure = .httpStatus
            text = "HTTP \(status)"
        } else {
            let classified = CurlErrorClassifier.failure(for: code, flags: flight.flags)
            // A server that drops the connection on HEAD gets a GET — but a timeout does not (it would only
            // double the wait).
            if flight.kind == .probe, !flight.usingGET, classified == .reset, !flight.flags.cancelled {
                return fallBackToGET(flight)
            }
            failure = classified
            text = easy.errorText ?? CurlErrorClassifier.text(for: code)
            if classified == .privateAddress {
                text = "refused to talk to the non-public address \(flight.remoteAddress ?? "?") (deny-private)"
            }
            if classified == .tooLarge, let maxSize = options.maxSize {
                // curl only says "Failure writing output to destination" when the counted bytes passed the cap.
                text = "the body is larger than the \(maxSize)-byte limit (--max-size)"
            }
        }
        releaseSlot(flight)
        if let failure, failure.isRetryable(httpStatus: status == 0 ? nil : status),
            flight.attempts <= options.retries, !stopping
        {
            scheduleRetry(flight, retryAfter: easy.info(.retryAfter) ?? 0)
            return false
        }
        finish(flight, failure: failure, text: text)
        return false
    }

    private func fail(_ flight: Flight, _ failure: FetchFailure, _ text: String) -> Bool {
        releaseSlot(flight)
        finish(flight, failure: failure, text: text)
        return false
    }

    private func fallBackToGET(_ flight: Flight) -> Bool {
        flight.usingGET = true
        flight.usedFallback = true
        startHop(flight)
        return true
    }

    private func scheduleRetry(_ flight: Flight, retryAfter: Int64) {
        let backoff = options.retryBaseDelay * Double(1 << min(flight.attempts - 1, 20))
        let wait = retryAfter > 0 ? Double(retryAfter) : backoff
        flight.state = .waitingToRetry
        delayed.append((now() + min(wait, options.maxRetryDelay), flight))
    }

    private func promoteDueRetries() {
        guard !delayed.isEmpty else { return }
        let time = now()
        delayed.removeAll { entry in
            guard entry.due <= time else { return false }
            if entry.flight.state == .waitingToRetry {
                entry.flight.state = .queued
                retryReady.append(entry.flight)
            }
            return true
        }
    }

    /// Builds the outcome, settles every waiter's sink and resumes every waiter.
    private func finish(_ flight: Flight, failure: FetchFailure?, text: String?, notModified: Bool = false) {
        guard flight.state != .done else { return }
        flight.state = .done
        // One removal, not a look-up then a removal; a newer flight under the same key goes back.
        if let current = flights.removeValue(forKey: flight.key), current !== flight { flights[flight.key] = current }
        var outcome = FetchOutcome(url: flight.url, kind: flight.kind, failure: failure, errorText: text)
        outcome.notModified = notModified
        outcome.redirects = flight.redirects
        outcome.finalURL = Redaction.redactURL(flight.currentURL)
        outcome.attempts = max(1, flight.attempts)
        outcome.usedGETFallback = flight.usedFallback
        outcome.tlsVersion = flight.tlsVersion
        outcome.remoteAddress = flight.remoteAddress
        if let easy = flight.easy {
            let status = easy.info(.responseCode) ?? 0
            outcome.httpStatus = status > 0 ? status : nil
            outcome.contentType = easy.info(.contentType)
            outcome.contentLength = easy.info(.contentLength).flatMap { $0 >= 0 ? Int($0) : nil }
            if status > 0 {
                outcome.etag = easy.header("ETag")
                outcome.lastModified = easy.header("Last-Modified")
                outcome.cacheControl = easy.header("Cache-Control")
                outcome.contentRange = easy.header("Content-Range")
                outcome.acceptRanges = easy.header("Accept-Ranges")
                outcome.botChallenge = Self.isBotChallenge(status: status, easy: easy)
            }
            switch easy.info(.httpVersion) ?? 0 {
            case Int(CURL_HTTP_VERSION_1_0): outcome.httpVersion = "1.0"
            case Int(CURL_HTTP_VERSION_1_1): outcome.httpVersion = "1.1"
            case Int(CURL_HTTP_VERSION_2_0): outcome.httpVersion = "2"
            case Int(CURL_HTTP_VERSION_3): outcome.httpVersion = "3"
            default: break
            }
            func seconds(_ info: CurlOffTInfo) -> Double { Double(easy.info(info) ?? 0) / 1_000_000 }
            outcome.timings.dns = seconds(.nameLookupTime)
            outcome.timings.connect = seconds(.connectTime)
            outcome.timings.tls = seconds(.tlsTime)
            outcome.timings.firstByte = seconds(.firstByteTime)
            outcome.timings.total = seconds(.totalTime)
        }
        if let firstStart = flight.firstStart { outcome.timings.elapsed = now() - firstStart }
        var sha: String?
        if flight.kind == .get, failure == nil, !notModified {
            if !flight.deliveringBody { flight.startBody() }  // an empty 2xx body never reached the write callback
            sha = flight.hasher.finalize()
            outcome.sha256 = sha
            outcome.bytes = flight.bytes
        } else if flight.kind == .get, failure == nil {
            outcome.bytes = 0
        }
        for waiter in flight.waiters {
            waiterFlights[waiter.id] = nil
            var result = outcome
            if let (sinkFailure, sinkText) = waiter.sinkFailure {
                result.markFailed(sinkFailure, sinkText)
            } else if let sink = waiter.sink, waiter.begun {
                if failure == nil, let sha {
                    do {
                        try sink.finish(sha256: sha, bytes: flight.bytes)
                    } catch {
                        sink.abort()
                        result.markFailed(.sink, "the sink could not finish: \(error)")
                    }
                } else {
                    sink.abort()
                }
            }
            deliver(result, to: waiter.delivery)
        }
        flight.waiters = []
        recycle(flight)
    }

    private func recycle(_ flight: Flight) {
        if let hasher = flight.returnHasher(), freeHashers.count < options.concurrency { freeHashers.append(hasher) }
        guard let easy = flight.easy else { return }
        flight.easy = nil
        // Detach the flight first: a pooled handle must not point at a finished flight or its header list.
        let detached = attach(easy, to: nil) == nil
        flight.headerList = nil
        if detached, freeHandles.count < options.concurrency { freeHandles.append(easy) }
    }

    // MARK: Cancellation and shutdown

    private func cancelWaiter(_ id: UInt64) {
        guard let flight = waiterFlights.removeValue(forKey: id),
            let index = flight.waiters.firstIndex(where: { $0.id == id })
        else { return }  // already finished (or never submitted): nothing to do
        let waiter = flight.waiters.remove(at: index)
        if waiter.begun { waiter.sink?.abort() }
        deliver(cancelledOutcome(flight.url, flight.kind), to: waiter.delivery)
        if flight.waiters.isEmpty { cancelFlight(flight) }
    }

    private func cancelFlight(_ flight: Flight) {
        flight.flags.cancelled = true
        switch flight.state {
        case .active:
            // The xferinfo callback would abort it on curl's next progress call; removing it now frees the
            // slot at once and needs no further curl activity (an idle stalled transfer may have none).
            if let easy = flight.easy {
                curl_multi_remove_handle(multi.pointer, easy.pointer)
                activeByHandle[easy.pointer] = nil
            }
            releaseSlot(flight)
        case .queued, .waitingToRetry:
            break  // skipped when dequeued or promoted
        case .done:
            return
        }
        finish(flight, failure: .cancelled, text: "cancelled")
    }

    private func cancelEverything() {
        var all: [Flight] = Array(activeByHandle.values)
        for host in hostsWithQueue { all.append(contentsOf: host.queue.remaining) }
        all.append(contentsOf: retryReady)
        all.append(contentsOf: delayed.map(\.flight))
        for flight in all where flight.state != .done {
            flight.flags.cancelled = true
            if flight.state == .active, let easy = flight.easy {
                curl_multi_remove_handle(multi.pointer, easy.pointer)
                releaseSlot(flight)
            }
            finish(flight, failure: .cancelled, text: "the engine shut down")
        }
        activeByHandle = [:]
        for host in hostsWithQueue {
            host.queue = FIFO()
            host.listed = false
        }
        hostsWithQueue = []
        retryReady = []
        delayed = []
        flights = [:]
        freeHandles = []
    }

    private func cancelledOutcome(_ url: String, _ kind: FetchKind) -> FetchOutcome {
        FetchOutcome(url: url, kind: kind, failure: .cancelled, errorText: "cancelled")
    }

    /// Asks the loop to stop without waiting (from `FetchEngine.deinit`).
    func requestShutdown() { _ = mailbox.post(.shutdown(nil)) }
}

extension FetchOutcome {
    mutating func markFailed(_ failure: FetchFailure, _ text: String) {
        self.status = .failed
        self.failure = failure
        self.errorText = Redaction.redactText(text)
        self.sha256 = nil
    }
}

/// Monotonic seconds.
func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// A first-in first-out queue with O(1) amortised push and pop.
struct FIFO<Element> {
    private var items: [Element] = []
    private var head = 0

    var isEmpty: Bool { head >= items.count }
    var remaining: ArraySlice<Element> { items[head...] }

    mutating func push(_ element: Element) { items.append(element) }

    mutating func pop() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        head += 1
        if head > 1024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }
}
