internal import COpenSSL
import Glibc

/// One accepted client socket, plain or TLS, owned by exactly one connection thread.
///
/// Owns the file descriptor and the `SSL` object; ``close()`` or ``reset()`` releases both (the server's
/// registry is told first, so `stop()` never shuts down a descriptor number that was reused).
final class ClientConnection {
    let fd: Int32
    private var ssl: OpaquePointer?
    private var closed = false
    private let onClose: (Int32) -> Void

    /// Wraps an accepted socket; for TLS, runs the handshake (a failed handshake is the client's choice).
    init?(fd: Int32, tls: ServerTLSContext?, idleTimeout: Double, onClose: @escaping (Int32) -> Void) {
        self.fd = fd
        self.onClose = onClose
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        // An idle keep-alive client must not hold a thread forever; stop() also shuts sockets down.
        let whole = idleTimeout.rounded(.down)
        var idle = timeval(tv_sec: Int(whole), tv_usec: Int((idleTimeout - whole) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        if let tls {
            guard let ssl = SSL_new(tls.context) else {
                close()
                return nil
            }
            self.ssl = ssl
            SSL_set_fd(ssl, fd)
            guard SSL_accept(ssl) == 1 else {
                ERR_clear_error()
                close()
                return nil
            }
        }
    }

    deinit { close() }

    /// Reads what is available into `buffer`.
    /// - Returns: bytes read, 0 at end of stream, -1 on error or idle timeout.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !closed, let base = buffer.baseAddress else { return -1 }
        if let ssl {
            let count = SSL_read(ssl, base, Int32(clamping: buffer.count))
            if count > 0 { return Int(count) }
            let error = SSL_get_error(ssl, count)
            ERR_clear_error()
            return error == SSL_ERROR_ZERO_RETURN ? 0 : -1
        }
        while true {
            let count = recv(fd, base, buffer.count, 0)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            return -1
        }
    }

    /// Writes all of `bytes`.
    /// - Returns: `false` when the client went away.
    @discardableResult
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !closed, var base = bytes.baseAddress else { return bytes.isEmpty }
        var remaining = bytes.count
        while remaining > 0 {
            let count: Int
            if let ssl {
                let written = SSL_write(ssl, base, Int32(clamping: remaining))
                if written <= 0 {
                    ERR_clear_error()
                    return false
                }
                count = Int(written)
            } else {
                count = send(fd, base, remaining, Int32(MSG_NOSIGNAL))
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
            }
            base += count
            remaining -= count
        }
        return true
    }

    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { write($0) } }

    /// Ends the connection with a TCP reset (RST) instead of an orderly close: the "reset mid-body" fault.
    func reset() {
        guard !closed else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        if let ssl {
            SSL_free(ssl)
            self.ssl = nil
        }
        close()
    }

    /// Closes after an error answer sent before the request was fully read (400, 431): stop writing, then
    /// read and drop what the client is still sending (bounded), so the kernel does not answer the unread
    /// bytes with a reset that could destroy the response before the client reads it.
    func lingeringClose() {
        guard !closed else { return }
        shutdown(fd, Int32(SHUT_WR))
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var drained = 0
        while drained < 1_048_576 {
            let count = scratch.withUnsafeMutableBytes { read(into: $0) }
            if count <= 0 { break }
            drained += count
        }
        close()
    }

    /// Closes the connection (idempotent).
    func close() {
        guard !closed else { return }
        closed = true
        if let ssl {
            // A quiet shutdown: the client may already be gone, and waiting for its close_notify could block.
            SSL_set_quiet_shutdown(ssl, 1)
            SSL_shutdown(ssl)
            SSL_free(ssl)
            ERR_clear_error()
            self.ssl = nil
        }
        onClose(fd)
        Glibc.close(fd)
    }
}
