import Synchronization

/// A budget of units for async code: holders take any number of units at once, waiters are served in FIFO order.
///
/// A request for more than the whole budget is cut to the whole budget, so it waits until every unit is back and
/// then runs alone: nothing ever waits for units that can never come. A newcomer never overtakes a waiter, even
/// one it would fit beside. A waiter fails with `AsyncLimiter.Refusal.cancelled` when its task is cancelled.
/// Taking units that are free and giving units back without waiters lock once and allocate nothing.
public final class AsyncBudget: Sendable {
    private typealias Continuation = CheckedContinuation<AsyncLimiter.Refusal?, Never>

    /// A task waiting for `units`; `continuation` is nil once it was served or cancelled.
    private struct Waiter {
        let ticket: UInt64
        let units: Int
        var continuation: Continuation?
    }

    private struct State {
        var available: Int
        /// In ticket order; the entries before `head` were served or cancelled.
        var waiters: [Waiter] = []
        var head = 0
        var nextTicket: UInt64 = 0

        var hasWaiters: Bool { head < waiters.count }

        /// Hands units to the waiters at the front for as long as the first one fits; returns them to resume.
        mutating func serve() -> [Continuation] {
            var served: [Continuation] = []
            while head < waiters.count {
                guard let continuation = waiters[head].continuation else {
                    head += 1
                    continue
                }
                guard waiters[head].units <= available else { break }
                available -= waiters[head].units
                waiters[head].continuation = nil
                head += 1
                served.append(continuation)
            }
            if head == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 64, head * 2 > waiters.count {
                waiters.removeFirst(head)
                head = 0
            }
            return served
        }
    }

    /// The whole budget.
    public let limit: Int
    private let state: Mutex<State>

    /// A budget of `limit` units (at least one).
    public init(limit: Int) {
        self.limit = max(1, limit)
        state = Mutex(State(available: max(1, limit)))
    }

    /// The units a request for `wanted` takes: `wanted` cut to the whole budget, never negative.
    public func units(for wanted: Int) -> Int { min(max(0, wanted), limit) }

    /// Takes `units(for: wanted)` units, waiting in line until they are free; returns how many it took, which
    /// `release(_:)` must give back (in one call or several). Throws if the task is cancelled while it waits.
    public func acquire(_ wanted: Int) async throws(AsyncLimiter.Refusal) -> Int {
        let units = units(for: wanted)
        guard units > 0 else { return 0 }
        let ticket: UInt64? = state.withLock { state in
            if !state.hasWaiters, state.available >= units {
                state.available -= units
                return nil
            }
            state.nextTicket += 1
            return state.nextTicket
        }
        guard let ticket else { return units }
        if let refusal = await wait(ticket, units: units) { throw refusal }
        return units
    }

    /// Waits until `release(_:)` hands the units over; the refusal if cancelled first. Checking cancellation under
    /// the lock closes the race with the cancellation handler.
    private func wait(_ ticket: UInt64, units: Int) async -> AsyncLimiter.Refusal? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let served: [Continuation]? = state.withLock { state -> [Continuation]? in
                    if Task.isCancelled { return nil }
                    state.waiters.append(Waiter(ticket: ticket, units: units, continuation: continuation))
                    return state.serve()
                }
                guard let served else { return continuation.resume(returning: .cancelled) }
                for waiter in served { waiter.resume(returning: nil) }
            }
        } onCancel: {
            let (cancelled, served): (Continuation?, [Continuation]) = state.withLock { state in
                guard let index = state.waiters[state.head...].firstIndex(where: { $0.ticket == ticket }) else {
                    return (nil, [])
                }
                let cancelled = state.waiters[index].continuation
                state.waiters[index].continuation = nil
                // The first waiter leaving may let the next ones fit.
                return (cancelled, state.serve())
            }
            cancelled?.resume(returning: .cancelled)
            for waiter in served { waiter.resume(returning: nil) }
        }
    }

    /// Takes `units` at once, even beyond the budget (what is free may go below zero until they are back); for a
    /// holder that finds it needs more than it asked for, which must not wait while holding units.
    public func takeWithoutWaiting(_ units: Int) {
        guard units > 0 else { return }
        state.withLock { $0.available -= units }
    }

    /// Gives back `units` taken by `acquire(_:)` or `takeWithoutWaiting(_:)`, serving the waiters they make fit.
    public func release(_ units: Int) {
        guard units > 0 else { return }
        let served = state.withLock { state in
            state.available += units
            return state.hasWaiters ? state.serve() : []
        }
        for waiter in served { waiter.resume(returning: nil) }
    }

    /// Units free now (for tests).
    var available: Int { state.withLock { $0.available } }

    /// The units held now (more than `limit` only while a taker exceeded its estimate), for metrics.
    public var held: Int { state.withLock { limit - $0.available } }

    /// How many tasks wait for units now (for tests).
    var waitingCount: Int {
        state.withLock { state in state.waiters[state.head...].count { $0.continuation != nil } }
    }
}
