import Synchronization

/// A counting semaphore for async code: at most `limit` holders at once, waiters served in order.
final class AsyncLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
        var nextWaiter = 0
    }

    private let state: Mutex<State>

    init(limit: Int) {
        state = Mutex(State(available: max(1, limit)))
    }

    /// Waits for a permit.
    func acquire() async {
        let granted = state.withLock { state in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if granted { return }
        await withCheckedContinuation { continuation in
            let grantedNow = state.withLock { state in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if grantedNow { continuation.resume() }
        }
    }

    /// Returns a permit, handing it straight to the longest waiter if there is one.
    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.nextWaiter < state.waiters.count else {
                state.available += 1
                return nil
            }
            let waiter = state.waiters[state.nextWaiter]
            state.nextWaiter += 1
            if state.nextWaiter > 64, state.nextWaiter * 2 > state.waiters.count {
                state.waiters.removeFirst(state.nextWaiter)
                state.nextWaiter = 0
            }
            return waiter
        }
        waiter?.resume()
    }
}
