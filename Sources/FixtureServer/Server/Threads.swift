import Glibc

/// Carries a closure through `pthread_create`'s `void *` argument.
private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Starts a POSIX thread running `body`.
///
/// Why pthreads rather than `Thread` or tasks: every connection blocks in `recv`/`SSL_read`, and blocking calls
/// must not sit on Swift's cooperative pool (2 cores here). A small stack keeps a few hundred connections cheap.
/// - Parameters:
///   - detached: a detached thread frees itself on exit; otherwise the caller must `pthread_join` it.
/// - Returns: the thread, for `pthread_join` when not detached.
func startThread(detached: Bool, stackSize: Int = 256 * 1024, _ body: @escaping @Sendable () -> Void) throws
    -> pthread_t
{
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, stackSize)
    if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
    let argument = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
        &thread, &attributes,
        { argument in
            let body = Unmanaged<ThreadBody>.fromOpaque(argument!).takeRetainedValue()
            body.body()
            return nil
        }, argument)
    guard status == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(argument).release()
        throw FixtureServerError("pthread_create: \(String(cString: strerror(status)))")
    }
    return thread
}

/// Sleeps for `milliseconds` unless `shouldStop` turns true first (checked every 20 ms), so a stop is prompt.
/// - Returns: `false` when it stopped early.
func sleep(milliseconds: Int, unless shouldStop: () -> Bool) -> Bool {
    var remaining = milliseconds
    while remaining > 0 {
        if shouldStop() { return false }
        let step = min(remaining, 20)
        usleep(UInt32(step * 1000))
        remaining -= step
    }
    return !shouldStop()
}
