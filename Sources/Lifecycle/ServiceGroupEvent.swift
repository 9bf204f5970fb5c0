/// What a `ServiceGroup` tells its owner, to log: the group itself knows no logger.
public enum ServiceGroupEvent: Sendable, Equatable {
    /// Service `index` (in start order) is being started.
    case starting(index: Int)
    /// The first signal: the services are being shut down in reverse order.
    case shutdownRequested(UnixSignal)
    /// A signal during shutdown: the group cancels what still runs and returns the forced exit code at once.
    case forced(UnixSignal)
    /// Service `index` (in start order) returned or threw on its own; the group ends with `exitCode`.
    case serviceEnded(index: Int, exitCode: Int32)
    /// Service `index` was asked to shut down.
    case stopping(index: Int)
    /// The shutdown took longer than the budget: the group cancels what still runs and returns the forced exit code.
    case budgetExceeded
}
