import Essentials
import Lifecycle
import Observability
import PushPipeline

/// The pipeline as a service: it starts last (after the clients it uses and the helpers that watch it) and is
/// therefore shut down first. The shutdown request takes the worker out of rotation at once, then the pipeline
/// drains within its grace period, flushes, commits and closes its source.
struct PipelineService<Request: Sendable>: Service {
    let pipeline: Pipeline<Request>
    let readiness: HealthChecks
    let logger: Logger
    /// The table of known invalid tokens the start waits for, with the longest wait; `nil` when not skipping.
    let invalidTokens: (table: InvalidTokenTable, limit: Duration)?
    let clock: any WallClock
    /// The status server's port, for the `started` line.
    let port: Int

    func run(shutdown: GracefulShutdown) async {
        if let invalidTokens {
            await waitForInvalidTokens(invalidTokens.table, limit: invalidTokens.limit, shutdown: shutdown)
            logger.info(
                "invalid-token table loaded",
                metadata: [
                    "push.invalid_tokens": .init(invalidTokens.table.count),
                    "push.invalid_tokens_complete": .bool(invalidTokens.table.isLoaded),
                ])
        }
        if !shutdown.isRequested {
            readiness.set("pipeline", passing: true, detail: "running")
            logger.info("started", metadata: ["http.port": .init(port)])
        }
        let stop = await pipeline.run(until: shutdown) { [readiness] in
            // Out of rotation at once: a rollout sees the pod go unready while it drains, not after.
            readiness.set("pipeline", passing: false, detail: "shutting down")
        }
        readiness.set("pipeline", passing: false, detail: "shutting down")
        if case .shutDown(let unfinished) = stop, unfinished > 0 {
            logger.warning("records left for redelivery", metadata: ["push.unfinished": .init(unfinished)])
        }
    }

    /// Waits until the invalid-token table holds what its topic held at the start, at most `limit` (or until the
    /// shutdown is requested): past it the worker starts anyway (the table keeps filling; sends to dead tokens
    /// meanwhile only cost a 410).
    private func waitForInvalidTokens(_ table: InvalidTokenTable, limit: Duration, shutdown: GracefulShutdown) async {
        let deadline = clock.nowMicros() + limit.wholeMilliseconds * 1000
        try? await shutdown.cancelOnRequest { [clock] in
            while !table.isLoaded, !Task.isCancelled, clock.nowMicros() < deadline {
                try? await clock.sleep(for: .milliseconds(20))
            }
        }
    }
}
