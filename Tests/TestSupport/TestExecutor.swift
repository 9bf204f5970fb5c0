import Dispatch
import Synchronization

/// A task executor that runs its jobs one at a time and knows when none is left to run: `settle()` returns once every
/// task preferring it (`Task(executorPreference:)`, and their child tasks) is suspended, waiting for something only
/// the test can do (move a `TestClock`, release a held send, add records) or finished.
///
/// A job is counted from its `enqueue` to its end, and a continuation resumed by the test enqueues its task before
/// `resume` returns: so what the test's last action started is counted by the time the test asks to settle.
public final class TestExecutor: TaskExecutor {
    private struct State {
        /// Jobs enqueued and not finished.
        var pending = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waits cancelled before they were registered.
        var cancelled: Set<Int> = []
        var nextWaiter = 0
    }

    private let queue = DispatchQueue(label: "TestExecutor")
    private let state = Mutex(State())

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        state.withLock { $0.pending += 1 }
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            let settled = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.pending -= 1
                guard state.pending == 0 else { return [] }
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in settled { waiter.resume() }
        }
    }

    /// Whether a job is waiting or running now.
    public var isBusy: Bool { state.withLock { $0.pending > 0 } }

    /// Returns once no job is waiting or running (at once when none is), or when the calling task is cancelled.
    public func settle() async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.pending == 0 || state.cancelled.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil as CheckedContinuation<Void, Never>?
                }
                return waiter
            }
            waiter?.resume()
        }
    }
}
