public import Lifecycle
public import PushPipeline

extension Pipeline {
    /// Runs until `shutdown` is requested, which calls `onRequest` at once (e.g. taking the worker out of rotation)
    /// and then `shutdown()`: the pipeline drains within its grace period, flushes, commits and closes its source.
    /// Nothing is cancelled meanwhile, so the drain's waits (sleeps, limiters, flushes, the commit) run to their end.
    public func run(until shutdown: GracefulShutdown, onRequest: @escaping @Sendable () -> Void = {}) async
        -> PipelineStop
    {
        await shutdown.withHandler {
            await run()
        } onRequest: {
            onRequest()
            self.shutdown()
        }
    }
}
