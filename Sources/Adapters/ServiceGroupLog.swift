public import Lifecycle
public import Observability
import PushPipeline

extension Logger {
    /// Writes what a `ServiceGroup` reports: the signal that starts the shutdown, a second one, a service that
    /// ended on its own, a shutdown past its budget; starts and stops of each service at debug level.
    public var serviceGroupReport: @Sendable (ServiceGroupEvent, _ service: String?) -> Void {
        { [self] event, service in
            let named: Logger.Metadata = service.map { ["service": .string($0)] } ?? [:]
            switch event {
            case .shutdownRequested(let signal):
                notice("signal received, shutting down", metadata: ["signal": .init(signal.rawValue)])
            case .forced:
                warning("second signal, exiting at once")
            case .serviceEnded(_, let exitCode):
                notice("service ended, shutting down", metadata: named.merging(["exit_code": .init(exitCode)]) { $1 })
            case .budgetExceeded:
                error("shutdown took longer than its budget, exiting at once")
            case .starting:
                debug("starting", metadata: named)
            case .stopping:
                debug("stopping", metadata: named)
            }
        }
    }
}
