public import Essentials
import PushCore
import PushPipeline
import Synchronization

/// Virtual time: it moves only when the test calls `advance`, and `sleep` waits until it has moved far enough.
///
/// Every sleep has an entry under the clock's lock from before it can be cancelled until it ended, so a cancellation
/// is never lost: cancelled before its sleeper is registered, the sleep ends as soon as it gets there; cancelled
/// after, the handler takes the sleeper out and ends it.
public final class TestClock: WallClock {
    /// One sleep, from its start to its end.
    private enum Entry {
        /// Started, not registered yet.
        case starting
        /// Registered: it ends when the clock reaches `deadline`.
        case sleeping(deadline: Int64, CheckedContinuation<Void, any Error>)
        /// Cancelled before it was registered: it ends with `CancellationError` when it gets there.
        case cancelled
        /// Woken before it was registered (`wake`): it ends at once when it gets there.
        case woken
    }

    private struct State {
        var now: Int64 = 1_800_000_000_000_000
        var entries: [Int: Entry] = [:]
        var nextId = 0

        var deadlines: [Int64] {
            entries.values.compactMap {
                if case .sleeping(let deadline, _) = $0 { deadline } else { nil }
            }
        }
    }

    private let state = Mutex(State())

    public init() {}

    public func nowMicros() -> Int64 { state.withLock { $0.now } }

    /// How many tasks sleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.deadlines.count } }

    /// How long until the earliest sleeper is due (zero when one is due already); nil when nobody sleeps.
    public var untilNextDeadline: Duration? {
        state.withLock { state in state.deadlines.min().map { .microseconds(max(0, $0 - state.now)) } }
    }

    public func sleep(for duration: Duration) async throws {
        try await sleep(for: duration, alarm: reserveAlarm())
    }

    /// A handle for a sleep that `wake` can end before its deadline (`sleep(for:alarm:)`).
    public struct Alarm: Sendable, Equatable {
        fileprivate let id: Int
    }

    /// An alarm for one sleep: reserve it under the lock that decides whether to sleep, so that a `wake` after that
    /// decision is never lost.
    public func reserveAlarm() -> Alarm {
        state.withLock { state in
            state.nextId += 1
            state.entries[state.nextId] = .starting
            return Alarm(id: state.nextId)
        }
    }

    /// Sleeps until the clock has moved by `duration`, `alarm` is woken (`wake`) or the task is cancelled
    /// (`CancellationError`). A zero duration only yields.
    public func sleep(for duration: Duration, alarm: Alarm) async throws {
        let id = alarm.id
        // The clock counts whole milliseconds; a positive wait under one (a backoff's jitter may be) waits for one,
        // so that it, like any other, runs only once the test moves the clock, never at once.
        let micros = duration > .zero ? max(1, duration.wholeMilliseconds) * 1000 : 0
        if micros <= 0 {
            state.withLock { _ = $0.entries.removeValue(forKey: id) }
            await Task.yield()
            try Task.checkCancellation()
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Under the lock, where the cancellation handler and `wake` decide too: nothing falls in a gap.
                let early = state.withLock { state -> Entry? in
                    switch state.entries[id] {
                    case .starting:
                        state.entries[id] = .sleeping(deadline: state.now + micros, continuation)
                        return nil
                    case let entry:
                        state.entries[id] = nil
                        return entry
                    }
                }
                switch early {
                case nil: break
                case .cancelled: continuation.resume(throwing: CancellationError())
                default: continuation.resume()
                }
            }
        } onCancel: {
            let sleeping = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                switch state.entries[id] {
                case .starting:
                    state.entries[id] = .cancelled
                    return nil
                case .sleeping(_, let continuation):
                    state.entries[id] = nil
                    return continuation
                default:
                    // Ended already.
                    return nil
                }
            }
            sleeping?.resume(throwing: CancellationError())
        }
    }

    /// Ends the sleep of `alarm` now, as if its deadline had come; a sleep not registered yet ends when it gets there.
    public func wake(_ alarm: Alarm) {
        let sleeping = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            switch state.entries[alarm.id] {
            case .starting:
                state.entries[alarm.id] = .woken
                return nil
            case .sleeping(_, let continuation):
                state.entries[alarm.id] = nil
                return continuation
            default:
                return nil
            }
        }
        sleeping?.resume()
    }

    /// Moves time forward and wakes every sleeper whose deadline passed.
    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now += duration.wholeMilliseconds * 1000
            var due: [CheckedContinuation<Void, any Error>] = []
            for (id, entry) in state.entries {
                guard case .sleeping(let deadline, let continuation) = entry, deadline <= state.now else { continue }
                state.entries[id] = nil
                due.append(continuation)
            }
            return due
        }
        for continuation in due { continuation.resume() }
    }
}
