import Essentials
import Synchronization

/// When an event loop last started a turn, readable from any thread: more than a few seconds ago means the loop's
/// thread is stuck or gone (the worker's health check).
final class TurnWatch: Sendable {
    private let clock = ContinuousClock()
    private let born: ContinuousClock.Instant
    /// Nanoseconds from `born` to the start of the loop's latest turn.
    private let lastTurnNanoseconds = Atomic<Int64>(0)

    init() { born = clock.now }

    /// Notes that a turn starts now (the loop's thread), and returns now.
    func turnStarts() -> ContinuousClock.Instant {
        let now = clock.now
        lastTurnNanoseconds.store((now - born).wholeNanoseconds, ordering: .relaxed)
        return now
    }

    /// How long ago the latest turn started.
    var sinceLastTurn: Duration {
        clock.now - born - .nanoseconds(lastTurnNanoseconds.load(ordering: .relaxed))
    }
}
