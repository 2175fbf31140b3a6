internal import CCurl
import Dispatch
import Findings
import Glibc
import Synchronization

/// How to reach a remote cache (`--remote-cache`, `--remote-header`, `--remote-timeout`, `--cacert`).
public struct RemoteCacheOptions: Sendable, Hashable {
    /// The base URL (`http(s)://[user:password@]host[:port][/prefix]`); basic auth from its userinfo.
    public var url: String
    /// Extra request headers, `Name: value` (already `${ENV}`-expanded).
    public var headers: [String]
    /// A PEM bundle of CAs to trust instead of the system's.
    public var caFile: String?
    /// Connect timeout and stall window in seconds, as the engine's ``FetchOptions/timeout``.
    public var timeout: Double
    /// Bytes per second below which a transfer counts as stalled (the engine's rule).
    public var lowSpeedLimit: Int
    /// Transfers at once for reads (GET), and separately for uploads (PUT).
    public var readConnections: Int
    public var uploadConnections: Int
    /// `false` for read-only runners (`--no-remote-upload`): ``put(_:body:)`` does nothing.
    public var uploads: Bool
    /// The `User-Agent` header.
    public var userAgent: String

    /// Options with the CLI's defaults (5 s, 1 KiB/s, 8 readers, 4 uploaders).
    public init(
        url: String, headers: [String] = [], caFile: String? = nil, timeout: Double = 5, lowSpeedLimit: Int = 1024,
        readConnections: Int = 8, uploadConnections: Int = 4, uploads: Bool = true,
        userAgent: String = "inbox-assets/1"
    ) {
        self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.headers = headers
        self.caFile = caFile
        self.timeout = timeout
        self.lowSpeedLimit = lowSpeedLimit
        self.readConnections = readConnections
        self.uploadConnections = uploadConnections
        self.uploads = uploads
        self.userAgent = userAgent
    }
}

/// Where a remote entry lives: the Bazel HTTP remote-cache protocol's two namespaces.
public enum RemotePath: Sendable, Hashable {
    /// `/ac/{hex}`: an action-cache record under a key that is a digest (of a URL, of a pass and its trust anchors…).
    case action(String)
    /// `/cas/{sha256}`: a blob named by the SHA-256 of its bytes.
    case blob(String)

    var path: String {
        switch self {
        case .action(let key): "/ac/" + key
        case .blob(let sha256): "/cas/" + sha256
        }
    }
}

/// The result of a remote GET.
public enum RemoteRead: Sendable, Hashable {
    /// `200`: the body reached the sink; its size and SHA-256 as received (check them: the server may lie). A body
    /// cut off past its `maxBytes` is a hit with the bytes counted so far and an empty SHA-256 (the sink was aborted).
    case hit(bytes: Int, sha256: String)
    /// `404`: not in the cache.
    case miss
    /// The remote is down, slow, refusing or broken (or was found to be earlier in the run): use the origin.
    case unavailable
}

/// A client of a Bazel HTTP remote cache (bazel-remote, nginx WebDAV, a GCS bucket): `GET`/`PUT {url}/ac/{key}` and
/// `{url}/cas/{sha256}`. Reads run on one thread with one libcurl multi handle (``RemoteReadLoop``: at most
/// ``RemoteCacheOptions/readConnections`` at once, many handed over in one batch by ``getAll(_:maxBytes:)``);
/// uploads on a separate bounded pool of threads with one easy handle each (connections kept alive per thread), so
/// a backlog of uploads never delays a read.
///
/// A remote is an optimisation, never a dependency: the first transport failure, timeout, `401`/`403` or `5xx` of a
/// read disables the client for the rest of the run (every later call answers ``RemoteRead/unavailable`` at once);
/// an upload refused (`401`/`403`/`405`/`413`/`507`, `5xx`) disables uploads only. ``problem`` is the first reason,
/// credentials redacted: the one warning a run reports. Nothing is thrown.
public final class RemoteCache: Sendable {
    /// The options, as given.
    public let options: RemoteCacheOptions
    /// `nil` when libcurl could not give it a multi handle or a thread: every read is then unavailable.
    private let reader: RemoteReadLoop?
    private let uploaders: WorkerPool
    private let state = Mutex(Health())

    private struct Health {
        var readsDisabled = false
        var uploadsDisabled = false
        var problem: String?
        var pendingUploads = 0
        var abandoned = false
        var uploaded = 0
    }

    /// Creates the client and starts its threads.
    public init(options: RemoteCacheOptions) {
        EngineLoop.globalInit()
        self.options = options
        reader = RemoteReadLoop(options: options)
        uploaders = WorkerPool(threads: max(1, options.uploadConnections), options: options)
    }

    deinit {
        reader?.stop()
        uploaders.stop()
    }

    /// The key of an asset URL's record: the SHA-256 of its exact bytes, lowercase hex (no secret leaves in it).
    public static func key(_ text: String) -> String {
        let hasher = SHA256Hasher()
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { hasher.update(UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
    }

    /// The first reason the remote could not be used in this run (redacted), or `nil`.
    public var problem: String? { state.withLock { $0.problem } }

    /// Uploads that finished with `2xx` in this run.
    public var uploadedCount: Int { state.withLock { $0.uploaded } }

    /// The base URL with credentials redacted, for messages.
    public var redactedURL: String { Redaction.redactURL(options.url) }

    // MARK: Reads

    /// `GET {url}/ac/{key}` or `/cas/{sha256}` streamed into `sink` (begun only on a `200`), hashed as it arrives.
    /// - Parameter maxBytes: a larger body is cut off and counted as unavailable (a record is small; a blob as large
    ///   as the asset's own limit).
    public func get(_ path: RemotePath, into sink: any FetchSink, maxBytes: Int?) async -> RemoteRead {
        if state.withLock({ $0.readsDisabled }) { return .unavailable }
        let response = await read(Transfer(url: options.url + path.path, upload: nil, sink: sink, maxBytes: maxBytes))
        return classify(response, path: path)
    }

    /// A small entry (an `/ac/` record) read whole into memory, up to `maxBytes` (default 1 MiB); `nil` on a miss,
    /// a larger entry, or when the remote is unavailable.
    public func get(_ path: RemotePath, maxBytes: Int = 1 << 20) async -> [UInt8]? {
        if state.withLock({ $0.readsDisabled }) { return nil }
        let sink = MemorySink(capacity: maxBytes)
        return whole(await read(Self.memoryTransfer(options.url + path.path, sink, maxBytes)), sink, path: path)
    }

    /// Small entries (`/ac/` records) read whole into memory, as ``get(_:maxBytes:)`` each, handed to the read loop
    /// in one batch: the responses come back in groups, not one hand-off per entry.
    /// - Returns: one answer per path, in order (`nil`: a miss, a larger entry, or the remote is unavailable).
    public func getAll(_ paths: [RemotePath], maxBytes: Int = 1 << 20) async -> [[UInt8]?] {
        guard !paths.isEmpty else { return [] }
        if state.withLock({ $0.readsDisabled }) { return paths.map { _ in nil } }
        let sinks = paths.map { _ in MemorySink(capacity: maxBytes) }
        let transfers = paths.indices.map { Self.memoryTransfer(options.url + paths[$0].path, sinks[$0], maxBytes) }
        let channel = BatchChannel<Response>()
        guard reader?.mailbox.post(.batch(transfers, channel)) == true else { return paths.map { _ in nil } }
        var answers = [[UInt8]?](repeating: nil, count: paths.count)
        var done = 0
        while done < paths.count {
            for (index, response) in await channel.next() {
                answers[index] = whole(response, sinks[index], path: paths[index])
                done += 1
            }
        }
        return answers
    }

    /// A GET into memory; records are not hashed (nothing checks their digest: what they carry is verified).
    private static func memoryTransfer(_ url: String, _ sink: MemorySink, _ maxBytes: Int) -> Transfer {
        Transfer(url: url, upload: nil, sink: sink, maxBytes: maxBytes, hashing: false)
    }

    /// The bytes of an entry read whole into `sink`, or `nil`.
    private func whole(_ response: Response, _ sink: MemorySink, path: RemotePath) -> [UInt8]? {
        guard case .hit = classify(response, path: path), !response.oversized else { return nil }
        return sink.bytes
    }

    /// Runs one read on the loop and waits for its response.
    private func read(_ transfer: Transfer) async -> Response {
        await withCheckedContinuation { (continuation: CheckedContinuation<Response, Never>) in
            let posted =
                reader?.mailbox.post(.read(transfer, done: { continuation.resume(returning: $0) })) ?? false
            if !posted { continuation.resume(returning: Self.notRunning) }
        }
    }

    private static let notRunning = Response(status: 0, errorText: "the remote cache client is not running")

    /// What a GET's response means; a remote that fails disables reads (and uploads) for the run.
    private func classify(_ response: Response, path: RemotePath) -> RemoteRead {
        switch response.status {
        case 200..<300:
            // More bytes than asked for: the caller sees a size that is not the one it expects (at least one more).
            if response.oversized { return .hit(bytes: response.bytes, sha256: "") }
            // The sink refused the bytes (a full disk): the remote is fine, this answer unusable.
            if response.failure != nil { return .unavailable }
            return .hit(bytes: response.bytes, sha256: response.sha256)
        case 404: return .miss
        default:
            disable(reads: true, reason: Self.reason(response, doing: "GET", path: path))
            return .unavailable
        }
    }

    /// Like ``get(_:maxBytes:)`` for a synchronous caller (a verifier on one of `--jobs` cores, whose verdict cache
    /// is a plain function): blocks the calling thread until the read loop answers. The loop is the client's own
    /// thread, never the Swift concurrency pool, so a blocked caller cannot starve it.
    public func getWaiting(_ path: RemotePath, maxBytes: Int = 1 << 20) -> [UInt8]? {
        if state.withLock({ $0.readsDisabled }) { return nil }
        let sink = MemorySink(capacity: maxBytes)
        let answer = Mutex<Response?>(nil)
        let done = DispatchSemaphore(value: 0)
        let transfer = Self.memoryTransfer(options.url + path.path, sink, maxBytes)
        let posted =
            reader?.mailbox.post(
                .read(
                    transfer,
                    done: { response in
                        answer.withLock { $0 = response }
                        done.signal()
                    })) ?? false
        if posted { done.wait() }
        return whole(answer.withLock { $0 } ?? Self.notRunning, sink, path: path)
    }

    // MARK: Uploads

    /// What an upload sends.
    public enum Body: Sendable, Hashable {
        case bytes([UInt8])
        /// A file's whole content (a store blob: immutable while it is read).
        case file(String)
    }

    /// `PUT`s each entry in order (blob before record, so a record never points at a missing blob), in the
    /// background on the upload pool; a failed step skips the rest. Returns at once. No-op with uploads off.
    public func put(_ steps: [(RemotePath, Body)]) {
        enqueueUpload { steps }
    }

    /// `PUT` of one entry whose bytes are made on the upload thread when its turn comes (`nil`: nothing to send), so
    /// a long queue of large bodies (record packs) is never in memory at once. Returns at once. No-op with uploads off.
    public func put(_ path: RemotePath, building body: @escaping @Sendable () -> [UInt8]?) {
        enqueueUpload { body().map { [(path, .bytes($0))] } ?? [] }
    }

    private func enqueueUpload(_ makeSteps: @escaping @Sendable () -> [(RemotePath, Body)]) {
        guard options.uploads else { return }
        let accepted = state.withLock { state -> Bool in
            guard !state.uploadsDisabled, !state.abandoned else { return false }
            state.pendingUploads += 1
            return true
        }
        guard accepted else { return }
        uploaders.enqueue { [self] handle in
            for (path, body) in makeSteps() {
                if state.withLock({ $0.uploadsDisabled || $0.abandoned }) { break }
                let response = WorkerPool.perform(
                    handle, Transfer(url: options.url + path.path, upload: body, sink: nil, maxBytes: nil),
                    options: options)
                if response.localFailure { break }  // the rest (the record) must not go without its blob
                guard (200..<300).contains(response.status) else {
                    disable(reads: response.status == 0, reason: Self.reason(response, doing: "PUT", path: path))
                    break
                }
                state.withLock { $0.uploaded += 1 }
            }
            state.withLock { $0.pendingUploads -= 1 }
        }
    }

    /// `PUT` of one entry and waiting for it (the generic action-cache write: a verdict record, say).
    /// - Returns: whether the remote stored it.
    public func putNow(_ path: RemotePath, body: Body) async -> Bool {
        guard options.uploads, !state.withLock({ $0.uploadsDisabled }) else { return false }
        let response = await uploaders.run(
            Transfer(url: options.url + path.path, upload: body, sink: nil, maxBytes: nil))
        if response.localFailure { return false }
        guard (200..<300).contains(response.status) else {
            disable(reads: response.status == 0, reason: Self.reason(response, doing: "PUT", path: path))
            return false
        }
        state.withLock { $0.uploaded += 1 }
        return true
    }

    /// Waits until every queued upload finished, at most `seconds`; then drops what is still queued.
    /// - Returns: how many uploads were left unfinished.
    @discardableResult
    public func finishUploads(within seconds: Double) async -> Int {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while state.withLock({ $0.pendingUploads }) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return state.withLock { state in
            state.abandoned = true
            return state.pendingUploads
        }
    }

    // MARK: Health

    private func disable(reads: Bool, reason: String) {
        state.withLock { state in
            if reads { state.readsDisabled = true }
            state.uploadsDisabled = true
            if state.problem == nil { state.problem = reason }
        }
        if reads { reader?.trip() }
    }

    private static func reason(_ response: Response, doing method: String, path: RemotePath) -> String {
        let what = "\(method) \(path.path.hasPrefix("/ac/") ? "/ac/" : "/cas/")…"
        if response.status == 0 {
            return Redaction.redactText("\(what) failed: \(response.errorText)")
        }
        let meaning: String
        switch response.status {
        case 401, 403: meaning = "refused"
        case 413, 507: meaning = "full"
        default: meaning = "failed"
        }
        return "\(what) \(meaning) (HTTP \(response.status))"
    }
}

// MARK: - Transfers

/// One request: a GET into `sink`, or a PUT of `upload`.
struct Transfer: Sendable {
    var url: String
    var upload: RemoteCache.Body?
    var sink: (any FetchSink)?
    var maxBytes: Int?
    /// Whether the body's SHA-256 is computed (``Response/sha256`` is empty without).
    var hashing = true
}

/// What came back: the HTTP status (0 for a transport failure, with curl's text), body size and hash.
struct Response: Sendable {
    var status: Int
    var errorText: String = ""
    var bytes: Int = 0
    var sha256: String = ""
    /// Why the sink stopped the body, when it did.
    var failure: String?
    /// The body went past the transfer's `maxBytes` (a remote blob larger than its record says).
    var oversized = false
    /// The upload's own body could not be read (a blob gc removed meanwhile): no fault of the remote.
    var localFailure = false
}

/// Threads, each with its own easy handle (connections kept alive per handle), taking closures from one queue.
final class WorkerPool: Sendable {
    typealias Job = @Sendable (EasyHandle) -> Void
    private let queue = JobQueue()
    private let options: RemoteCacheOptions

    init(threads: Int, options: RemoteCacheOptions) {
        self.options = options
        let queue = self.queue
        for _ in 0..<threads { _ = DetachedThread.start { queue.work() } }
    }

    func enqueue(_ job: @escaping Job) { queue.push(job) }

    /// Lets the threads end once the queue is empty.
    func stop() { queue.close() }

    /// Runs `transfer` on a worker and waits for its response.
    func run(_ transfer: Transfer) async -> Response {
        let options = self.options
        return await run { handle in Self.perform(handle, transfer, options: options) }
    }

    /// Runs `job` on a worker (blocking transfers on its handle) and waits for its result.
    func run<Result: Sendable>(_ job: @escaping @Sendable (EasyHandle) -> Result) async -> Result {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
            enqueue { handle in continuation.resume(returning: job(handle)) }
        }
    }

    /// One blocking transfer on `handle`.
    static func perform(_ handle: EasyHandle, _ transfer: Transfer, options: RemoteCacheOptions) -> Response {
        let headers = CurlStringList(options.headers + ["Expect:"])
        let context: TransferContext
        switch RemoteTransfers.prepare(handle, transfer, options: options, headers: headers) {
        case .success(let prepared): context = prepared
        case .failure(let refusal): return refusal.response
        }
        defer { context.close() }
        let code = handle.perform()
        withExtendedLifetime(headers) {}
        return RemoteTransfers.response(handle, code: code, context: context)
    }
}

/// A transfer that could not be started: its response.
struct TransferRefusal: Error {
    let response: Response
}

/// Setting a transfer up on an easy handle and reading its response, shared by the upload pool's blocking transfers
/// and the read loop's multi handle.
enum RemoteTransfers {
    /// Resets `handle` and sets every option `transfer` needs (the remote's timeouts, stall rule, CA file and
    /// headers, callbacks into the returned context). Keep `headers` alive until the transfer is done.
    /// - Returns: the transfer's context (close it when done), or the response of an upload whose body cannot be
    ///   read.
    static func prepare(
        _ handle: EasyHandle, _ transfer: Transfer, options: RemoteCacheOptions, headers: CurlStringList?
    ) -> Result<TransferContext, TransferRefusal> {
        handle.reset()
        handle.set(.url, transfer.url)
        handle.set(.noSignal, 1)
        handle.set(.protocols, "http,https")
        handle.set(.followLocation, 0)
        handle.set(.connectTimeoutMilliseconds, max(1, Int(options.timeout * 1000)))
        handle.set(.lowSpeedLimit, options.lowSpeedLimit)
        handle.set(.lowSpeedTime, max(1, Int(options.timeout.rounded(.up))))
        handle.set(.userAgent, options.userAgent)
        handle.set(.tcpKeepAlive, 1)
        if let caFile = options.caFile { handle.set(.caFile, caFile) }
        // No `Expect: 100-continue` round trip before a PUT body.
        handle.set(.httpHeaders, headers)
        let context = TransferContext(handle: handle, transfer: transfer)
        let pointer = Unmanaged.passUnretained(context).toOpaque()
        handle.setWriteFunction { data, size, count, user in
            let context = Unmanaged<TransferContext>.fromOpaque(user!).takeUnretainedValue()
            let chunk = UnsafeRawBufferPointer(start: data, count: size * count)
            return context.received(chunk) ? size * count : ia_writefunc_error()
        }
        handle.set(.writeData, pointer)
        if let upload = transfer.upload {
            guard let size = context.openUpload(upload) else {
                context.close()
                return .failure(
                    TransferRefusal(
                        response: Response(
                            status: 0, errorText: "cannot read the body to upload", localFailure: true)))
            }
            handle.set(.upload, 1)
            handle.set(.inFileSize, Int64(size))
            handle.setReadFunction { buffer, size, count, user in
                let context = Unmanaged<TransferContext>.fromOpaque(user!).takeUnretainedValue()
                return context.read(into: buffer!, max: size * count)
            }
            handle.set(.readData, pointer)
        }
        handle.clearError()
        return .success(context)
    }

    /// What a finished transfer (curl's result `code`) answered; tells the sink.
    static func response(_ handle: EasyHandle, code: CURLcode, context: TransferContext) -> Response {
        let status = handle.info(.responseCode) ?? 0
        if let failure = context.sinkFailure, (200..<300).contains(status) {
            return Response(status: status, bytes: context.bytes, failure: failure, oversized: context.oversized)
        }
        guard code == CURLE_OK else {
            let text = handle.errorText ?? String(cString: curl_easy_strerror(code))
            return Response(status: 0, errorText: text)
        }
        return context.finish(status: status)
    }
}

/// A blocking FIFO of jobs (pthread mutex and condition variable: the workers are plain threads, not tasks).
final class JobQueue: @unchecked Sendable {
    // @unchecked: every field is read and written under `mutex` only.
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var jobs = FIFO<WorkerPool.Job>()
    private var closed = false

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    func push(_ job: @escaping WorkerPool.Job) {
        pthread_mutex_lock(&mutex)
        jobs.push(job)
        pthread_cond_signal(&condition)
        pthread_mutex_unlock(&mutex)
    }

    func close() {
        pthread_mutex_lock(&mutex)
        closed = true
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }

    private func take() -> WorkerPool.Job? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while true {
            if let job = jobs.pop() { return job }
            if closed { return nil }
            pthread_cond_wait(&condition, &mutex)
        }
    }

    /// A worker thread's life: one easy handle, jobs until the queue closes.
    func work() {
        guard let handle = EasyHandle() else { return }
        while let job = take() { job(handle) }
    }
}

/// The state of one transfer, reached from curl's callbacks through `userdata`.
final class TransferContext {
    private let handle: EasyHandle
    private let transfer: Transfer
    private let hasher: SHA256Hasher?
    private(set) var bytes = 0
    private var begun = false
    private var discarding = false
    private(set) var sinkFailure: String?
    private(set) var oversized = false
    private var uploadBytes: [UInt8] = []
    private var uploadFD: Int32 = -1
    private var uploadOffset = 0

    init(handle: EasyHandle, transfer: Transfer) {
        self.handle = handle
        self.transfer = transfer
        hasher = transfer.hashing ? SHA256Hasher() : nil
    }

    /// A body chunk: to the sink on a 2xx, dropped otherwise (a 404 page is no blob).
    func received(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if discarding { return true }
        if !begun {
            begun = true
            let status = handle.info(.responseCode) ?? 0
            guard (200..<300).contains(status), let sink = transfer.sink else {
                discarding = true
                return true
            }
            do {
                // The declared size lets the sink allocate once; one over the limit is left to the count below,
                // which tells a body cut off for its size from a sink that failed.
                let declared = handle.info(.contentLength).flatMap { $0 >= 0 ? Int($0) : nil }
                try sink.begin(contentLength: declared.flatMap { $0 <= (transfer.maxBytes ?? .max) ? $0 : nil })
            } catch {
                sinkFailure = "\(error)"
                return false
            }
        }
        if let maxBytes = transfer.maxBytes, bytes + chunk.count > maxBytes {
            sinkFailure = "larger than \(maxBytes) bytes"
            oversized = true
            bytes += chunk.count
            transfer.sink?.abort()
            return false
        }
        do {
            try transfer.sink?.write(chunk)
        } catch {
            sinkFailure = "\(error)"
            return false
        }
        hasher?.update(chunk)
        bytes += chunk.count
        return true
    }

    /// The outcome of a finished transfer; tells the sink (an empty 2xx body is begun here).
    func finish(status: Int) -> Response {
        let digest = hasher?.finalize() ?? ""
        if (200..<300).contains(status), transfer.upload == nil, let sink = transfer.sink {
            do {
                if !begun { try sink.begin(contentLength: 0) }
                try sink.finish(sha256: digest, bytes: bytes)
            } catch {
                return Response(status: status, failure: "\(error)")
            }
        }
        return Response(status: status, bytes: bytes, sha256: digest)
    }

    /// Opens the body to send. - Returns: its size, or `nil` when the file cannot be read.
    func openUpload(_ body: RemoteCache.Body) -> Int? {
        switch body {
        case .bytes(let bytes):
            uploadBytes = bytes
            return bytes.count
        case .file(let path):
            uploadFD = open(path, O_RDONLY | O_CLOEXEC)
            var info = stat()
            guard uploadFD >= 0, fstat(uploadFD, &info) == 0 else { return nil }
            return Int(info.st_size)
        }
    }

    /// curl's read callback: the next bytes of the body.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        if uploadFD >= 0 {
            while true {
                let got = pread(uploadFD, buffer, max, off_t(uploadOffset))
                if got < 0, errno == EINTR { continue }
                guard got >= 0 else { return ia_readfunc_abort() }
                uploadOffset += got
                return got
            }
        }
        let count = min(max, uploadBytes.count - uploadOffset)
        uploadBytes.withUnsafeBytes { source in
            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + uploadOffset, byteCount: count)
        }
        uploadOffset += count
        return count
    }

    func close() {
        if uploadFD >= 0 { Glibc.close(uploadFD) }
        uploadFD = -1
    }
}
