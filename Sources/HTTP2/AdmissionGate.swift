import HTTPTypes
import Synchronization

/// A counting gate that bounds the requests a client holds: `enter()` waits while the gate is full, in FIFO
/// order, and fails at once when the waiting task is cancelled or the gate is closed.
final class AdmissionGate: Sendable {
    private struct State {
        var admitted = 0
        var isClosed = false
        var nextTicket: UInt64 = 0
        var queue = RingBuffer<UInt64>()
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]

        /// Takes a place if one is free and nobody waits for it.
        mutating func admitIfFree(capacity: Int) -> Bool {
            guard admitted < capacity && waiters.isEmpty else { return false }
            admitted += 1
            return true
        }
    }

    /// What the first look at the gate decided.
    private enum Entry {
        case admitted
        case closed
        case wait(ticket: UInt64)
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Takes a place, waiting for one if the gate is full; throws `.cancelled` if cancelled or closed meanwhile.
    func enter() async throws(HTTPError) {
        let entry: Entry = state.withLock { state in
            if state.isClosed { return .closed }
            if state.admitIfFree(capacity: capacity) { return .admitted }
            state.nextTicket += 1
            return .wait(ticket: state.nextTicket)
        }
        switch entry {
        case .admitted: return
        case .closed: throw HTTPError(.cancelled, "the HTTP/2 client is shut down")
        case .wait(let ticket):
            guard await wait(ticket) else {
                throw HTTPError(.cancelled, "the request was cancelled while waiting for room")
            }
        }
    }

    /// Waits for a place handed over by `leave()`; false if cancelled or closed first. Checking cancellation
    /// under the lock closes the race with the cancellation handler.
    private func wait(_ ticket: UInt64) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let decided: Bool? = state.withLock { state in
                    if state.isClosed || Task.isCancelled { return false }
                    if state.admitIfFree(capacity: capacity) { return true }
                    state.queue.append(ticket)
                    state.waiters[ticket] = continuation
                    return nil
                }
                if let decided { continuation.resume(returning: decided) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: ticket) }?.resume(returning: false)
        }
    }

    /// Gives a place back, handing it to the longest waiter if there is one.
    func leave() {
        let next: CheckedContinuation<Bool, Never>? = state.withLock { state in
            while let ticket = state.queue.popFirst() {
                if let waiter = state.waiters.removeValue(forKey: ticket) { return waiter }
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
            _ = state.queue.removeAll()
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiting { waiter.resume(returning: false) }
    }
}
