#if canImport(Glibc)
    import Glibc
#endif

/// A plain detached pthread (not the Swift concurrency pool) for a loop that blocks: the fetch engine's, the remote
/// cache's read loop, its upload workers, a card walk's reading ahead.
public enum DetachedThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts a thread running `body` (which it keeps alive until `body` returns).
    /// - Returns: `pthread_create`'s status: 0, or the error number when no thread could be started.
    public static func start(_ body: @escaping @Sendable () -> Void) -> Int32 {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let argument = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { argument in
                Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
                return nil
            }, argument)
        if status != 0 { Unmanaged<Body>.fromOpaque(argument).release() }
        return status
    }
}
