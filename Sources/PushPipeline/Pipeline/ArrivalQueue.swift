import Synchronization

/// Values arriving one by one from any thread (the answers of a group's sends), taken in bunches by the one task
/// waiting for them: a value put while the task waits resumes it, the values put before it runs again are taken
/// with it, so a burst of answers costs one resume, not one each. Several producers may put values (each then calls
/// `finish`): the values end once every producer finished.
final class ArrivalQueue<Value: Sendable>: Sendable {
    private typealias Waiter = UnsafeContinuation<[(index: Int, value: Value)]?, Never>

    private struct State {
        var arrived: [(index: Int, value: Value)] = []
        var waiter: Waiter?
        /// Producers not finished.
        var producers: Int
    }

    private let state: Mutex<State>

    /// A queue with `producers` producers to come (more may be added: `addProducer`).
    init(producers: Int = 1) {
        state = Mutex(State(producers: producers))
    }

    /// One more producer puts values and then calls `finish`. Called by the waiting task before it waits again: a
    /// queue whose producers had all finished takes values again.
    func addProducer() {
        state.withLock { $0.producers += 1 }
    }

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

    /// A producer puts no more values: once every one did, `next` returns `nil` when the arrived ones were taken.
    func finish() {
        let waiter: Waiter? = state.withLock { state in
            state.producers -= 1
            guard state.producers <= 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Every value that arrived since the last call, waiting for one when none did; `nil` once every producer
    /// finished and every value was taken. One task at a time may wait.
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
            if state.producers <= 0 { return .some(nil) }
            state.waiter = waiter
            return nil
        }
    }
}
