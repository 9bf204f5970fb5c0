#if canImport(Glibc)
    import Glibc
#endif

/// A dedicated POSIX thread running one blocking loop, outside Swift's cooperative pool, joined on demand.
struct ServerThread: Sendable {
    private let thread: pthread_t

    /// Starts `body` on a new thread, or returns nil when the system refuses one.
    static func start(_ body: @escaping @Sendable () -> Void) -> ServerThread? {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        return ServerThread(thread: thread)
    }

    /// Waits until the thread's loop has returned.
    func join() {
        pthread_join(thread, nil)
    }

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
