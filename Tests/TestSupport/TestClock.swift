import Essentials
import PushCore
import PushPipeline
import Synchronization

/// Virtual time: it moves only when the test calls `advance`, and `sleep` waits until it has moved far enough.
public final class TestClock: WallClock {
    private struct Sleeper {
        let deadline: Int64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Int64 = 1_800_000_000_000_000
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they were registered: they end at once when they get there.
        var cancelledEarly: Set<Int> = []
        var nextId = 0
    }

    private let state = Mutex(State())

    public init() {}

    public func nowMicros() -> Int64 { state.withLock { $0.now } }

    /// How many tasks sleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// How long until the earliest sleeper is due (zero when one is due already); nil when nobody sleeps.
    public var untilNextDeadline: Duration? {
        state.withLock { state in
            state.sleepers.values.map(\.deadline).min().map { .microseconds(max(0, $0 - state.now)) }
        }
    }

    public func sleep(for duration: Duration) async throws {
        let micros = duration.wholeMilliseconds * 1000
        if micros <= 0 { return await Task.yield() }
        let id = state.withLock { state in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Under the lock, where the cancellation handler decides too: no cancellation falls in a gap.
                let cancelled = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return true }
                    state.sleepers[id] = Sleeper(deadline: state.now + micros, continuation: continuation)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return nil as Sleeper?
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline passed.
    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now += duration.wholeMilliseconds * 1000
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}
