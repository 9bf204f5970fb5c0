extension Pipeline {
    /// Runs until the task is cancelled (a `ServiceGroup` shutting the pipeline down), which asks for `shutdown()`:
    /// the pipeline then drains within its grace period, flushes, commits and closes its source.
    /// `onCancel` runs first, at once (e.g. taking the worker out of rotation).
    func runUntilCancelled(onCancel: @escaping @Sendable () -> Void = {}) async -> PipelineStop {
        await withTaskCancellationHandler {
            await run()
        } onCancel: {
            onCancel()
            shutdown()
        }
    }
}
