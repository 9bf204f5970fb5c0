import Synchronization

/// A counting gate that bounds the requests a client holds: `enter()` waits while the gate is full, in FIFO
/// order, and fails at once when the waiting task is cancelled or the gate is closed.
final class AdmissionGate: Sendable {
    private struct State {
        var admitted = 0
        var isClosed = false
        var nextWaiter: UInt64 = 0
        var waiters = RingBuffer<UInt64>()
        var continuations: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Takes a place, waiting for one if the gate is full; throws `.cancelled` if cancelled or closed meanwhile.
    func enter() async throws(HTTPError) {
        let waiter: UInt64? = state.withLock { state in
            guard !state.isClosed else { return nil }
            if state.admitted < capacity && state.continuations.isEmpty {
                state.admitted += 1
                return nil
            }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let waiter else {
            if state.withLock({ $0.isClosed }) { throw HTTPError(.cancelled, "the HTTP/2 client is shut down") }
            return
        }
        let admitted = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let admittedNow: Bool? = state.withLock { state in
                    if state.isClosed || Task.isCancelled { return false }
                    if state.admitted < capacity && state.continuations.isEmpty {
                        state.admitted += 1
                        return true
                    }
                    state.waiters.append(waiter)
                    state.continuations[waiter] = continuation
                    return nil
                }
                if let admittedNow { continuation.resume(returning: admittedNow) }
            }
        } onCancel: {
            state.withLock { $0.continuations.removeValue(forKey: waiter) }?.resume(returning: false)
        }
        guard admitted else { throw HTTPError(.cancelled, "the request was cancelled while waiting for room") }
    }

    /// Gives a place back, handing it to the longest waiter if there is one.
    func leave() {
        let next: CheckedContinuation<Bool, Never>? = state.withLock { state in
            while let waiter = state.waiters.popFirst() {
                if let continuation = state.continuations.removeValue(forKey: waiter) { return continuation }
            }
            state.admitted -= 1
            return nil
        }
        next?.resume(returning: true)
    }

    /// Fails every waiter and every later `enter()`.
    func close() {
        let waiting = state.withLock { state in
            state.isClosed = true
            _ = state.waiters.removeAll()
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        for continuation in waiting { continuation.resume(returning: false) }
    }
}
