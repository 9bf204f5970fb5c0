/// A long-running part of a process (a server, a consumer loop, a client's connections) run by a `ServiceGroup`.
///
/// `run(shutdown:)` works until `shutdown` is requested, then finishes or hands off its work, releases what it holds
/// and returns; the group requests the shutdown of one service at a time, in the reverse of the order they were
/// started. Cancellation means that the group stopped waiting (see `GracefulShutdown`): return as soon as possible. A
/// service that returns or throws on its own ends the whole group (a thrown `ServiceGroupExit` chooses the exit code).
public protocol Service: Sendable {
    /// Runs until `shutdown` is requested (then shuts down and returns) or finished.
    func run(shutdown: GracefulShutdown) async throws
}

/// A service that only holds a resource for the group's lifetime: it waits for its shutdown, then runs `close`
/// (a client's explicit shutdown, a server's stop), so that the resource is released in the group's order.
public struct ResourceService: Service {
    private let close: @Sendable () async -> Void

    /// `close` runs once, when the group shuts this service down (or, cancelled, stops waiting for it).
    public init(close: @escaping @Sendable () async -> Void) {
        self.close = close
    }

    public func run(shutdown: GracefulShutdown) async {
        await shutdown.wait()
        await close()
    }
}
