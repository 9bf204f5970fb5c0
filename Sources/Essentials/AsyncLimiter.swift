import Synchronization

/// A counting semaphore for async code: at most `limit` holders at once, waiters served in FIFO order.
///
/// `release()` hands its permit straight to the longest waiter, so a newcomer never overtakes one. A waiter
/// fails with `.cancelled` when its task is cancelled and with `.closed` when the limiter is closed; after
/// `close()` every `acquire()` fails. Taking a free permit and returning one without waiters lock once and
/// allocate nothing; cancelling a waiter finds it by binary search.
public final class AsyncLimiter: Sendable {
    /// Why `acquire()` gave no permit.
    public enum Refusal: Error, Sendable, Equatable {
        /// The waiting task was cancelled.
        case cancelled
        /// The limiter was closed.
        case closed
    }

    /// A task waiting for a permit; `continuation` is nil once it was served, cancelled or closed.
    private struct Waiter {
        let ticket: UInt64
        var continuation: CheckedContinuation<Refusal?, Never>?
    }

    private struct State {
        var available: Int
        var isClosed = false
        /// In ticket order; the entries before `head` were served.
        var waiters: [Waiter] = []
        var head = 0
        var nextTicket: UInt64 = 0

        /// Takes a permit if one is free. A free permit means nobody waits: `release()` hands permits to waiters.
        mutating func takeIfFree() -> Bool {
            guard available > 0 else { return false }
            available -= 1
            return true
        }

        /// The longest waiter still waiting, taken out of the queue.
        mutating func popFirstWaiter() -> CheckedContinuation<Refusal?, Never>? {
            while head < waiters.count {
                let continuation = waiters[head].continuation
                waiters[head].continuation = nil
                head += 1
                if let continuation {
                    if head > 64, head * 2 > waiters.count {
                        waiters.removeFirst(head)
                        head = 0
                    }
                    return continuation
                }
            }
            waiters.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }

        /// The waiter with `ticket`, taken out of the queue, if it still waits.
        mutating func removeWaiter(_ ticket: UInt64) -> CheckedContinuation<Refusal?, Never>? {
            var (low, high) = (head, waiters.count)
            while low < high {
                let middle = (low + high) / 2
                if waiters[middle].ticket < ticket { low = middle + 1 } else { high = middle }
            }
            guard low < waiters.count, waiters[low].ticket == ticket else { return nil }
            defer { waiters[low].continuation = nil }
            return waiters[low].continuation
        }
    }

    /// What the first look at the limiter decided.
    private enum Entry {
        case admitted
        case refused(Refusal)
        case wait(ticket: UInt64)
    }

    private let state: Mutex<State>

    /// A limiter of `limit` permits (at least one).
    public init(limit: Int) {
        state = Mutex(State(available: max(1, limit)))
    }

    /// Takes a permit, waiting in line while none is free; throws if the task is cancelled or the limiter
    /// closed before one was handed over. Every successful `acquire()` needs one `release()`.
    public func acquire() async throws(Refusal) {
        let entry: Entry = state.withLock { state in
            if state.isClosed { return .refused(.closed) }
            if state.takeIfFree() { return .admitted }
            state.nextTicket += 1
            return .wait(ticket: state.nextTicket)
        }
        switch entry {
        case .admitted: return
        case .refused(let refusal): throw refusal
        case .wait(let ticket):
            if let refusal = await wait(ticket) { throw refusal }
        }
    }

    /// Waits for a permit handed over by `release()`; the refusal if cancelled or closed first. Checking
    /// cancellation under the lock closes the race with the cancellation handler.
    private func wait(_ ticket: UInt64) async -> Refusal? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let decided: Refusal?? = state.withLock { state in
                    if state.isClosed { return .some(.closed) }
                    if Task.isCancelled { return .some(.cancelled) }
                    if state.takeIfFree() { return .some(nil) }
                    state.waiters.append(Waiter(ticket: ticket, continuation: continuation))
                    return nil
                }
                if let decided { continuation.resume(returning: decided) }
            }
        } onCancel: {
            state.withLock { $0.removeWaiter(ticket) }?.resume(returning: .cancelled)
        }
    }

    /// How many tasks wait for a permit now (for tests).
    var waitingCount: Int {
        state.withLock { state in state.waiters[state.head...].count { $0.continuation != nil } }
    }

    /// Returns a permit, handing it straight to the longest waiter if there is one.
    public func release() {
        let waiter = state.withLock { state in
            let waiter = state.popFirstWaiter()
            if waiter == nil { state.available += 1 }
            return waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Fails every waiter and every later `acquire()` with `.closed`.
    public func close() {
        let waiting = state.withLock { state in
            state.isClosed = true
            var waiting: [CheckedContinuation<Refusal?, Never>] = []
            while let waiter = state.popFirstWaiter() { waiting.append(waiter) }
            return waiting
        }
        for waiter in waiting { waiter.resume(returning: .closed) }
    }
}
