import Synchronization

/// Values arriving one by one from any thread (the answers of a group's sends), taken in bunches by the one task
/// waiting for them: a value put while the task waits resumes it, the values put before it runs again are taken
/// with it, so a burst of answers costs one resume, not one each.
final class ArrivalQueue<Value: Sendable>: Sendable {
    private typealias Waiter = UnsafeContinuation<[(index: Int, value: Value)]?, Never>

    private struct State {
        var arrived: [(index: Int, value: Value)] = []
        var waiter: Waiter?
        var finished = false
    }

    private let state = Mutex(State())

    init() {}

    /// Hands over the value of item `index`.
    func put(_ index: Int, _ value: Value) {
        let resumed: (Waiter, [(index: Int, value: Value)])? = state.withLock { state in
            state.arrived.append((index, value))
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            defer { state.arrived = [] }
            return (waiter, state.arrived)
        }
        if let (waiter, bunch) = resumed { waiter.resume(returning: bunch) }
    }

    /// No value comes any more: `next` returns `nil` once the arrived ones were taken.
    func finish() {
        let waiter: Waiter? = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Every value that arrived since the last call, waiting for one when none did; `nil` once `finish` was called
    /// and every value was taken. One task at a time may wait.
    func next() async -> [(index: Int, value: Value)]? {
        if let ready = take(orWaitWith: nil) { return ready }
        return await withUnsafeContinuation { (waiter: Waiter) in
            if let ready = take(orWaitWith: waiter) { waiter.resume(returning: ready) }
        }
    }

    /// The values arrived, taken, or `.some(nil)` when finished and empty; else `nil`, leaving `waiter` (when there
    /// is one) to be resumed by the next `put` or `finish`.
    private func take(orWaitWith waiter: Waiter?) -> [(index: Int, value: Value)]?? {
        state.withLock { state in
            if !state.arrived.isEmpty {
                defer { state.arrived = [] }
                return .some(state.arrived)
            }
            if state.finished { return .some(nil) }
            state.waiter = waiter
            return nil
        }
    }
}
