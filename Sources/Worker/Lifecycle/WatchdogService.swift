import Lifecycle
import PushPipeline

/// The watchdog as a service: when polling stalls it reports it and ends the group at once with
/// `WorkerExitCode.stalled`, committing nothing (the stuck pipeline is not asked to drain).
struct WatchdogService: Service {
    let watchdog: Watchdog
    let pipeline: Pipeline<ProviderSend>
    let observer: any PipelineObserver

    func run() async throws(ServiceGroupExit) {
        guard let last = await watchdog.watch(lastPollMicros: { [pipeline] in pipeline.lastPollMicros }) else {
            return
        }
        observer.observe(.stalled(sinceMillis: last / 1000))
        throw ServiceGroupExit(code: WorkerExitCode.stalled, mode: .immediately)
    }
}
