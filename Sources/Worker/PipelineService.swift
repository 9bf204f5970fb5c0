import Adapters
import DeviceRegistry
import Essentials
import Lifecycle
import Observability
import PushPipeline

/// The pipeline as a service: it starts last (after the clients it uses and the helpers that watch it) and is
/// therefore shut down first. The shutdown request takes the worker out of rotation at once, then the pipeline
/// drains within its grace period, flushes, commits and closes its source.
struct PipelineService<Request: Sendable>: Service {
    var pipeline: Pipeline<Request>
    let readiness: HealthChecks
    /// The readiness condition the service sets: `pipeline`, or `fanout.pipeline` for the fan-out stage's.
    var condition = "pipeline"
    let logger: Logger
    /// The table of known invalid tokens the start waits for, with the longest wait; `nil` when not skipping.
    let invalidTokens: (table: InvalidTokenTable, limit: Duration)?
    /// The device registry and client settings the start waits for, with the longest wait; `nil` when not followed.
    var registry: (tables: RegistryTables, limit: Duration)? = nil
    let clock: any WallClock
    /// The status server's port, for the `started` line.
    let port: Int

    func run(shutdown: GracefulShutdown) async {
        if let invalidTokens {
            await waitUntilLoaded({ invalidTokens.table.isLoaded }, limit: invalidTokens.limit, shutdown: shutdown)
            logger.info(
                "invalid-token table loaded",
                metadata: [
                    "push.invalid_tokens": .init(invalidTokens.table.count),
                    "push.invalid_tokens_complete": .bool(invalidTokens.table.isLoaded),
                ])
        }
        if let registry {
            await waitUntilLoaded({ registry.tables.isLoaded }, limit: registry.limit, shutdown: shutdown)
            let statistics = registry.tables.store.statistics
            logger.info(
                "device registry loaded",
                metadata: [
                    "push.registry_devices": .init(statistics.devices),
                    "push.registry_clients": .init(statistics.clients),
                    "push.registry_complete": .bool(registry.tables.isLoaded),
                ])
        }
        if !shutdown.isRequested {
            readiness.set(condition, passing: true, detail: "running")
            logger.info("started", metadata: ["http.port": .init(port)])
        }
        let stop = await pipeline.run(until: shutdown) { [readiness, condition] in
            // Out of rotation at once: a rollout sees the pod go unready while it drains, not after.
            readiness.set(condition, passing: false, detail: "shutting down")
        }
        readiness.set(condition, passing: false, detail: "shutting down")
        if case .shutDown(let unfinished) = stop, unfinished > 0 {
            logger.warning("records left for redelivery", metadata: ["push.unfinished": .init(unfinished)])
        }
    }

    /// Waits until a table holds what its topic held at the start, at most `limit` (or until the shutdown is
    /// requested): past it the worker starts anyway and the table keeps filling (sends to dead tokens meanwhile only
    /// cost a 410; an IMKIT client whose devices are not read yet gets `no_devices`).
    private func waitUntilLoaded(
        _ isLoaded: @escaping @Sendable () -> Bool, limit: Duration, shutdown: GracefulShutdown
    ) async {
        let deadline = clock.nowMicros() + limit.wholeMilliseconds * 1000
        try? await shutdown.cancelOnRequest { [clock] in
            while !isLoaded(), !Task.isCancelled, clock.nowMicros() < deadline {
                try? await clock.sleep(for: .milliseconds(20))
            }
        }
    }
}
