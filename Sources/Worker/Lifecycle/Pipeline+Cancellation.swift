import PushPipeline

extension Pipeline {
    /// Runs until the task is cancelled (a `ServiceGroup` shutting the pipeline down), which asks for `shutdown()`:
    /// the pipeline then drains within its grace period, flushes, commits and closes its source.
    /// `onCancel` runs first, at once (e.g. taking the worker out of rotation). The pipeline runs in a task of its
    /// own: the cancellation must not cut short the drain's waits (sleeps, limiters, flushes, the commit).
    func runUntilCancelled(onCancel: @escaping @Sendable () -> Void = {}) async -> PipelineStop {
        let running = Task { await run() }
        return await withTaskCancellationHandler {
            await running.value
        } onCancel: {
            onCancel()
            shutdown()
        }
    }
}
