/// A long-running part of a process (a server, a consumer loop, a client's connections) run by a `ServiceGroup`.
///
/// `run()` works until the task running it is cancelled, then releases what it holds and returns; the group cancels
/// services one at a time, in the reverse of the order they were started. A service that returns or throws on its
/// own ends the whole group (a thrown `ServiceGroupExit` chooses the exit code).
public protocol Service: Sendable {
    /// Runs until cancelled (then shuts down and returns) or finished.
    func run() async throws
}

/// A service that only holds a resource for the group's lifetime: it waits until cancelled, then runs `close`
/// (a client's explicit shutdown, a server's stop), so that the resource is released in the group's order.
/// `close` runs in a task of its own: the cancellation that asked for the shutdown does not cut its waits short.
public struct ResourceService: Service {
    private let close: @Sendable () async -> Void

    /// `close` runs once, when the group shuts this service down.
    public init(close: @escaping @Sendable () async -> Void) {
        self.close = close
    }

    public func run() async {
        await Task.waitUntilCancelled()
        await Task { await close() }.value
    }
}

extension Task where Success == Never, Failure == Never {
    /// Suspends until the current task is cancelled.
    public static func waitUntilCancelled() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Never.self)
        await withTaskCancellationHandler {
            for await _ in stream {}
        } onCancel: {
            continuation.finish()
        }
    }
}
