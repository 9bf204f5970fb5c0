import Synchronization

/// The request to stop that a `ServiceGroup` gives each of its services, apart from cancellation, as
/// swift-service-lifecycle separates them.
///
/// The group requests a service's shutdown when its turn comes (in the reverse of the start order); the service then
/// finishes or hands off its work, releases what it holds and returns, and its waits meanwhile (a drain, a flush, a
/// commit) run to their end. Cancellation comes only when the group stops waiting: the shutdown budget is spent, a
/// second signal, or another service asked for an immediate exit.
///
/// A service awaits the request (`wait()`), checks it (`isRequested`), runs work with a handler called when it comes
/// (`withHandler(_:onRequest:)`), or, when it has nothing to finish, lets the request cancel its work
/// (`cancelOnRequest(_:)`). The request is made once and never taken back.
public final class GracefulShutdown: Sendable {
    private struct State {
        var isRequested = false
        var nextHandlerID = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether the shutdown was requested.
    public var isRequested: Bool { state.withLock { $0.isRequested } }

    /// Requests the shutdown: each handler registered now runs once, on the caller's thread; a later request does
    /// nothing.
    public func request() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.isRequested else { return [] }
            state.isRequested = true
            defer { state.handlers = [:] }
            return Array(state.handlers.values)
        }
        for handler in handlers { handler() }
    }

    /// Runs `operation`; `onRequest` runs once if the shutdown is requested before `operation` returns (at once when
    /// it already was). `onRequest` must not block: it runs on the thread that requests the shutdown.
    public func withHandler<Success>(
        isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> Success,
        onRequest: @escaping @Sendable () -> Void
    ) async rethrows -> Success {
        let id = state.withLock { state -> Int? in
            guard !state.isRequested else { return nil }
            defer { state.nextHandlerID += 1 }
            state.handlers[state.nextHandlerID] = onRequest
            return state.nextHandlerID
        }
        guard let id else {
            onRequest()
            return try await operation()
        }
        defer { _ = state.withLock { $0.handlers.removeValue(forKey: id) } }
        return try await operation()
    }

    /// Suspends until the shutdown is requested, or until the task is cancelled.
    public func wait() async {
        let (ended, end) = AsyncStream.makeStream(of: Never.self)
        await withTaskCancellationHandler {
            await withHandler {
                for await _ in ended {}
            } onRequest: {
                end.finish()
            }
        } onCancel: {
            end.finish()
        }
    }

    /// Runs `operation` until it returns or throws, cancelling it when the shutdown is requested: for work that has
    /// nothing to finish (a loop that sleeps between checks), whose stop is to stop waiting. Rethrows what
    /// `operation` throws, before or after the request.
    public func cancelOnRequest(_ operation: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(operation: operation)
            group.addTask { await self.wait() }
            try await group.next()
            group.cancelAll()
            try await group.waitForAll()
        }
    }
}
