internal import CCurl
internal import COpenSSL
import Glibc

/// One caller waiting for a flight's outcome, with its own sink.
struct Waiter {
    let id: UInt64
    let delivery: Delivery
    let sink: (any FetchSink)?
    /// `begin` succeeded, so the sink is owed `finish` or `abort`.
    var begun = false
    /// The sink threw: this waiter's outcome fails with this, whatever the transfer does.
    var sinkFailure: (failure: FetchFailure, text: String)?
}

/// One scheme+host+port (`URLCheck.Parsed.hostKey`): how many of its transfers run and which wait for a slot.
/// Looked up by name once per submission; flights keep a reference, so starting, queueing and finishing do
/// not hash the name again. Engine-thread only; kept for the engine's lifetime (a flight waiting to retry
/// still counts against its host's slot, so a host must never get a second one).
final class HostSlot {
    let key: String
    var active = 0
    var queue = FIFO<Flight>()
    /// In the engine's list of hosts with a queue.
    var listed = false
    /// With a per-host rate (``FetchOptions/hostRate``): the engine-clock time the next transfer may start.
    var nextStart = 0.0

    init(key: String) { self.key = key }
}

/// The single-flight key (what makes two calls the same request) with its hash computed once: removing a
/// finished flight from the engine's table moves its neighbours, and rehashing each one's URL-long key
/// showed in the profile.
struct FlightKey: Hashable {
    let text: String
    private let hash: Int

    init(_ text: String) {
        self.text = text
        hash = text.hashValue
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.hash == rhs.hash && lhs.text == rhs.text }
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}

/// One request in flight: single-flight shares it between every caller of the same URL (and kind and
/// validators). Engine-thread only; curl's callbacks reach it through an unretained pointer, which is safe
/// because the engine's tables keep it alive while its easy handle is in the multi handle.
final class Flight {
    enum State {
        case queued
        case active
        case waitingToRetry
        case done
    }

    let key: FlightKey
    let url: String
    let kind: FetchKind
    let validators: Validators
    /// For a ranged GET: the bytes asked for.
    let range: ClosedRange<Int>?
    /// Its scheme+host+port's slot count and queue (the per-host limit).
    let host: HostSlot
    let options: FetchOptions
    var waiters: [Waiter] = []
    var state = State.queued

    var easy: EasyHandle?
    /// Owned here because curl keeps only a pointer to the header list.
    var headerList: CurlStringList?
    var currentURL: String
    /// A probe that fell back from HEAD to GET.
    var usingGET: Bool
    var usedFallback = false
    var redirects: [RedirectHop] = []
    var attempts = 0
    var firstStart: Double?

    // Per-hop state, reset by `resetHop()`.
    var flags = TransferFlags()
    var responseStarted = false
    var deliveringBody = false
    var bytes = 0
    var tlsVersion: String?
    var remoteAddress: String?

    /// Once any sink saw `begin`, a new caller cannot join (it would miss bytes).
    var bodyEverDelivered = false
    /// A GET's body hasher, lent by the engine from its pool (``lend(_:)``) and given back when the flight is done.
    private var lentHasher: SHA256Hasher?
    var hasher: SHA256Hasher {
        if let lentHasher { return lentHasher }
        let hasher = SHA256Hasher()
        lentHasher = hasher
        return hasher
    }

    func lend(_ hasher: SHA256Hasher) { lentHasher = hasher }

    /// Gives the hasher back (it is reset when the next body starts).
    func returnHasher() -> SHA256Hasher? {
        defer { lentHasher = nil }
        return lentHasher
    }

    init(
        key: FlightKey, url: String, kind: FetchKind, validators: Validators, range: ClosedRange<Int>? = nil,
        host: HostSlot, options: FetchOptions
    ) {
        self.key = key
        self.url = url
        self.kind = kind
        self.validators = validators
        self.range = range
        self.host = host
        self.options = options
        self.currentURL = url
        self.usingGET = kind == .get
    }

    var isJoinable: Bool { state != .done && (kind == .probe || !bodyEverDelivered) }

    func resetHop() {
        flags = TransferFlags()
        responseStarted = false
        deliveringBody = false
        bytes = 0
        easy?.clearError()
    }

    // MARK: Called from curl callbacks (on the engine thread, inside curl_multi_perform)

    /// The write callback: counts, caps, hashes and fans the body out to the sinks.
    /// - Returns: `count` to go on, anything else to abort the transfer.
    func receive(_ chunk: UnsafeRawBufferPointer) -> Int {
        if !responseStarted {
            responseStarted = true
            if kind == .probe {
                // A probe's GET fallback needs the status and headers only: stop at the first body byte.
                flags.probeBodyCut = true
                return ia_writefunc_error()
            }
            let status = easy?.info(.responseCode) ?? 0
            deliveringBody = (200...299).contains(status)
            if deliveringBody {
                startBody()
                if flags.sinkFailed || flags.tooLarge { return ia_writefunc_error() }
            }
        }
        var chunk = chunk
        if deliveringBody, let range {
            // A server may ignore Range and answer 200 with everything: keep only what was asked for.
            let wanted = range.count - bytes
            if chunk.count > wanted {
                chunk = UnsafeRawBufferPointer(rebasing: chunk[..<max(0, wanted)])
                flags.rangeComplete = true
            }
        }
        bytes += chunk.count
        if let maxSize = options.maxSize, bytes > maxSize {
            flags.tooLarge = true
            return ia_writefunc_error()
        }
        guard deliveringBody else { return chunk.count }
        hasher.update(chunk)
        var alive = 0
        for index in waiters.indices where waiters[index].sinkFailure == nil {
            guard let sink = waiters[index].sink else { continue }
            do {
                try sink.write(chunk)
                alive += 1
            } catch {
                sinkThrew(index, error)
            }
        }
        if alive == 0 && waiters.contains(where: { $0.sink != nil }) {
            flags.sinkFailed = true
            return ia_writefunc_error()
        }
        // Stopping with a write error once the range is complete: curl has no "done, close quietly" return.
        return flags.rangeComplete ? ia_writefunc_error() : chunk.count
    }

    /// Tells every sink a body starts (also for an empty 2xx body, which never reaches the write callback).
    func startBody() {
        hasher.reset()
        bytes = 0
        bodyEverDelivered = true
        deliveringBody = true
        let declared = easy?.info(.contentLength).flatMap { $0 >= 0 ? Int($0) : nil }
        for index in waiters.indices where waiters[index].sinkFailure == nil {
            guard let sink = waiters[index].sink else { continue }
            do {
                try sink.begin(contentLength: declared)
                waiters[index].begun = true
            } catch {
                sinkThrew(index, error)
            }
        }
        if waiters.contains(where: { $0.sink != nil }), waiters.allSatisfy({ $0.sink == nil || $0.sinkFailure != nil })
        {
            flags.sinkFailed = true
        }
    }

    private func sinkThrew(_ index: Int, _ error: any Error) {
        if let capacity = error as? SinkCapacityExceeded {
            waiters[index].sinkFailure = (.tooLarge, "the body is larger than the \(capacity.limit)-byte limit")
        } else {
            waiters[index].sinkFailure = (.sink, "the sink failed: \(error)")
        }
        if waiters[index].begun {
            waiters[index].sink?.abort()
            waiters[index].begun = false
        }
    }

    /// The pre-request callback: the connection is made (or reused) — check the address actually connected.
    func connected(to address: String) -> Int32 {
        remoteAddress = address
        if let session = easy?.info(.tlsSession)?.assumingMemoryBound(to: curl_tlssessioninfo.self).pointee,
            session.backend == CURLSSLBACKEND_OPENSSL, let ssl = session.internals
        {
            tlsVersion = String(validatingCString: SSL_get_version(OpaquePointer(ssl)))
        }
        if options.denyPrivate, AddressPolicy.isPrivate(address) {
            flags.privateAddress = true
            return ia_prereqfunc_abort()
        }
        return ia_prereqfunc_ok()
    }
}

extension Flight {
    /// The open-socket callback: with deny-private, refuse a non-public address before connecting to it.
    func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let family = address.pointee.family
        if options.denyPrivate {
            let text = Self.addressText(address)
            if AddressPolicy.isPrivate(text) {
                flags.privateAddress = true
                remoteAddress = text
                return ia_socket_bad()
            }
        }
        return socket(family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
    }

    /// The numeric address in a `curl_sockaddr` (its `addr` member is as long as the family needs).
    private static func addressText(_ address: UnsafeMutablePointer<curl_sockaddr>) -> String {
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return "" }
        let raw = UnsafeRawPointer(address) + offset
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch address.pointee.family {
        case AF_INET:
            var ip = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            guard inet_ntop(AF_INET, &ip, &buffer, socklen_t(buffer.count)) != nil else { return "" }
        case AF_INET6:
            var ip = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            guard inet_ntop(AF_INET6, &ip, &buffer, socklen_t(buffer.count)) != nil else { return "" }
        default:
            return ""
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

// C callbacks: no captures, so they convert to C function pointers; the user pointer is the Flight.

let flightWriteCallback: curl_write_callback = { data, size, count, user in
    guard let user else { return 0 }
    let flight = Unmanaged<Flight>.fromOpaque(user).takeUnretainedValue()
    return flight.receive(UnsafeRawBufferPointer(start: data, count: size * count))
}

let flightXferInfoCallback: curl_xferinfo_callback = { user, _, _, _, _ in
    guard let user else { return 1 }
    // Cancellation and shutdown reach curl here: a non-zero return aborts with CURLE_ABORTED_BY_CALLBACK.
    return Unmanaged<Flight>.fromOpaque(user).takeUnretainedValue().flags.cancelled ? 1 : 0
}

let flightPrereqCallback: curl_prereq_callback = { user, primaryIP, _, _, _ in
    guard let user, let primaryIP else { return ia_prereqfunc_abort() }
    let address = String(validatingCString: primaryIP) ?? ""
    return Unmanaged<Flight>.fromOpaque(user).takeUnretainedValue().connected(to: address)
}

let flightOpenSocketCallback: curl_opensocket_callback = { user, _, address in
    guard let user, let address else { return ia_socket_bad() }
    return Unmanaged<Flight>.fromOpaque(user).takeUnretainedValue().openSocket(address)
}
