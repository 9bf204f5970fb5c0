/// Driving a `TestClock` while a task runs on it, in virtual time only.
extension TestClock {
    /// Advances the clock by `step`, yields to the other tasks, and again, until `task` has finished; its value.
    /// Whatever the task sleeps on this clock ends within one step; a task that never finishes is ended by the
    /// test's time limit.
    public func advance<Value: Sendable>(by step: Duration, until task: Task<Value, Never>) async -> Value {
        let finished = Shared(false)
        let waiter = Task {
            let value = await task.value
            finished.update { $0 = true }
            return value
        }
        while !finished.value {
            advance(by: step)
            await Task.yield()
        }
        return await waiter.value
    }
}
