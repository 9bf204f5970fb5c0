import Dispatch
import Observability
import PushPipeline

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGTERM and SIGINT: the first starts the graceful shutdown, a second one exits at once.
final class SignalHandler {
    private let sources: [any DispatchSourceSignal]

    init(logger: Logger, shutdown: @escaping @Sendable () -> Void) {
        let received = SharedInt32()
        sources = [SIGTERM, SIGINT].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                if received.increment() > 1 {
                    logger.warning("second signal, exiting at once")
                    exit(WorkerExitCode.forced)
                }
                logger.notice("signal received, shutting down", metadata: ["signal": .init(signalNumber)])
                shutdown()
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
