import Adapters
import Lifecycle
import PushPipeline

/// The watchdog as a service: when polling stalls it reports it and ends the group at once with
/// `WorkerExitCode.stalled`, committing nothing (the stuck pipeline is not asked to drain). Its shutdown stops the
/// watch.
struct WatchdogService: Service {
    let watchdog: Watchdog
    /// When the pipeline's last poll returned, in epoch microseconds (`PipelineSnapshot.lastPollMicros`).
    let lastPollMicros: @Sendable () -> Int64
    let observer: any PipelineObserver

    func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest { [watchdog, lastPollMicros, observer] in
            guard let last = await watchdog.watch(lastPollMicros: lastPollMicros) else { return }
            observer.observe(.stalled(sinceMillis: last / 1000))
            throw ServiceGroupExit(code: WorkerExitCode.stalled, mode: .immediately)
        }
    }
}
