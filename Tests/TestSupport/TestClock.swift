import Essentials
import PushCore
import PushPipeline
import Synchronization

/// Virtual time: `sleep` waits until the test (or the fake source, when idle) advances the clock.
public final class TestClock: WallClock {
    private struct Sleeper {
        let deadline: Int64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Int64 = 1_800_000_000_000_000
        var sleepers: [Int: Sleeper] = [:]
        var nextId = 0
    }

    private let state = Mutex(State())

    public init() {}

    public func nowMicros() -> Int64 { state.withLock { $0.now } }

    public func sleep(for duration: Duration) async throws {
        let micros = duration.wholeMilliseconds * 1000
        if micros <= 0 { return await Task.yield() }
        let id = state.withLock { state in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = Task.isCancelled
                state.withLock { state in
                    state.sleepers[id] = Sleeper(deadline: state.now + micros, continuation: continuation)
                }
                if cancelled { resume(id, throwing: CancellationError()) }
            }
        } onCancel: {
            resume(id, throwing: CancellationError())
        }
    }

    private func resume(_ id: Int, throwing error: (any Error)?) {
        let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
        if let error { sleeper?.continuation.resume(throwing: error) } else { sleeper?.continuation.resume() }
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
