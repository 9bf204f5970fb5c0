import Essentials

/// Driving a `TestClock` while tasks run on a `TestExecutor`, in virtual time only.
extension TestExecutor {
    /// Settles (`settle()`) and checks `condition`; while it does not hold, moves `clock` to its earliest sleeper's
    /// deadline and settles again, so that each move happens only once everything that could happen before it did.
    /// False when nobody sleeps (nothing can happen any more) or once `limit` of virtual time has passed.
    public func advancing(
        _ clock: TestClock, within limit: Duration = .seconds(7_200), until condition: () -> Bool
    ) async -> Bool {
        let started = clock.nowMicros()
        while true {
            await settle()
            if condition() { return true }
            guard let next = clock.untilNextDeadline, clock.nowMicros() - started < limit.wholeMilliseconds * 1000
            else { return false }
            clock.advance(by: max(next, .milliseconds(1)))
        }
    }

    /// Runs `operation` in a task that prefers this executor, moving `clock` as `advancing` does until it returns;
    /// its value, or nil when it cannot return (nobody sleeps, or `limit` of virtual time passed: the task is then
    /// cancelled).
    public func run<Value: Sendable>(
        on clock: TestClock, within limit: Duration = .seconds(7_200),
        _ operation: sending @escaping () async -> Value
    ) async -> Value? {
        let returned = Shared<[Value]>([])
        let task = Task(executorPreference: self) {
            let value = await operation()
            returned.update { $0.append(value) }
        }
        guard await advancing(clock, within: limit, until: { !returned.value.isEmpty }) else {
            task.cancel()
            return nil
        }
        return returned.value.first
    }
}
