import Synchronization

/// A budget of units for async code: holders take any number of units at once, waiters are served in FIFO order.
/// `AsyncLimiter` is this budget taken one unit at a time.
///
/// A request for more than the whole budget is cut to the whole budget, so it waits until every unit is back and
/// then runs alone: nothing ever waits for units that can never come. A newcomer never overtakes a waiter, even
/// one it would fit beside. A waiter fails with `.cancelled` when its task is cancelled and with `.closed` when
/// the budget is closed; after `close()` every `acquire` fails. Taking units that are free and giving units back
/// without waiters lock once and allocate nothing; cancelling a waiter finds it by binary search.
///
/// `withUnits` holds units for the length of a scope, so that no throw can leak them. There a request for more than
/// the whole budget does not wait in line: it takes the whole budget at once (what is free goes below zero) when no
/// other such request holds it, so it stops the others only while its own work runs, not while it waits.
public final class AsyncBudget: Sendable {
    /// Why `acquire` gave no units.
    public enum Refusal: Error, Sendable, Equatable {
        /// The waiting task was cancelled.
        case cancelled
        /// The budget was closed.
        case closed
    }

    private typealias Continuation = CheckedContinuation<Refusal?, Never>

    /// A task waiting for `units`; `continuation` is nil once it was served or cancelled.
    private struct Waiter {
        let ticket: UInt64
        let units: Int
        var continuation: Continuation?
    }

    private struct State {
        var available: Int
        var isClosed = false
        /// In ticket order; the entries before `head` were served or cancelled.
        var waiters: [Waiter] = []
        var head = 0
        var nextTicket: UInt64 = 0
        /// Whether a `withUnits` request for more than the whole budget holds it now.
        var oversizeHeld = false

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

        /// The waiter with `ticket` if it still waits, taken out of the queue, with the waiters its leaving lets in.
        mutating func remove(_ ticket: UInt64) -> (removed: Continuation?, served: [Continuation]) {
            var (low, high) = (head, waiters.count)
            while low < high {
                let middle = (low + high) / 2
                if waiters[middle].ticket < ticket { low = middle + 1 } else { high = middle }
            }
            guard low < waiters.count, waiters[low].ticket == ticket else { return (nil, []) }
            let removed = waiters[low].continuation
            waiters[low].continuation = nil
            // The first waiter leaving may let the next ones fit.
            return (removed, serve())
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
    public func acquire(_ wanted: Int) async throws(Refusal) -> Int {
        let units = units(for: wanted)
        let ticket: Result<UInt64?, Refusal> = state.withLock { state in
            if state.isClosed { return .failure(.closed) }
            if units == 0 { return .success(nil) }
            if !state.hasWaiters, state.available >= units {
                state.available -= units
                return .success(nil)
            }
            state.nextTicket += 1
            return .success(state.nextTicket)
        }
        guard let ticket = try ticket.get() else { return units }
        if let refusal = await wait(ticket, units: units) { throw refusal }
        return units
    }

    /// Takes up to `wanted` units that are free now, without waiting and without overtaking a waiter; returns how
    /// many (none while a waiter is in line or after `close()`), which `release(_:)` must give back.
    public func takeFree(upTo wanted: Int) -> Int {
        guard wanted > 0 else { return 0 }
        return state.withLock { state in
            guard !state.isClosed, !state.hasWaiters, state.available > 0 else { return 0 }
            let taken = min(wanted, state.available)
            state.available -= taken
            return taken
        }
    }

    /// Takes `units` at once when they are free now and nobody waits in line (a newcomer never overtakes a waiter);
    /// returns whether it took them, to give back with `release(_:)`. Never waits: `false` for more than the whole
    /// budget, or when closed.
    public func tryAcquire(_ units: Int) -> Bool {
        guard units > 0 else { return units == 0 }
        guard units <= limit else { return false }
        return state.withLock { state in
            guard !state.isClosed, !state.hasWaiters, state.available >= units else { return false }
            state.available -= units
            return true
        }
    }

    /// Waits until `release(_:)` hands the units over; the refusal if cancelled first. Checking cancellation under
    /// the lock closes the race with the cancellation handler.
    private func wait(_ ticket: UInt64, units: Int) async -> Refusal? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let served: Result<[Continuation], Refusal> = state.withLock { state in
                    if state.isClosed { return .failure(.closed) }
                    if Task.isCancelled { return .failure(.cancelled) }
                    state.waiters.append(Waiter(ticket: ticket, units: units, continuation: continuation))
                    return .success(state.serve())
                }
                switch served {
                case .failure(let refusal): continuation.resume(returning: refusal)
                case .success(let served): for waiter in served { waiter.resume(returning: nil) }
                }
            }
        } onCancel: {
            let (cancelled, served) = state.withLock { $0.remove(ticket) }
            cancelled?.resume(returning: .cancelled)
            for waiter in served { waiter.resume(returning: nil) }
        }
    }

    /// Runs `body` holding `units(for: wanted)` units (see `acquire`, and the type's note on requests for more than
    /// the whole budget), given back when `body` returns or throws. `body` may change how many it holds
    /// (`Grant.resize`). Throws `Refusal` if the task is cancelled while it waits, or the budget is closed.
    public func withUnits<Result>(
        _ wanted: Int, isolation: isolated (any Actor)? = #isolation, _ body: (Grant) async throws -> Result
    ) async throws -> Result {
        let oversize =
            wanted > limit
            && state.withLock { state in
                guard !state.isClosed, !state.oversizeHeld else { return false }
                state.oversizeHeld = true
                state.available -= limit
                return true
            }
        let grant = Grant(budget: self, units: oversize ? limit : try await acquire(wanted))
        defer { giveBack(grant.units, oversize: oversize) }
        return try await body(grant)
    }

    private func giveBack(_ units: Int, oversize: Bool) {
        let served = state.withLock { state in
            state.available += units
            if oversize { state.oversizeHeld = false }
            return state.hasWaiters ? state.serve() : []
        }
        for waiter in served { waiter.resume(returning: nil) }
    }

    /// The units one `withUnits` scope holds.
    public final class Grant: Sendable {
        private let budget: AsyncBudget
        private let held: Atomic<Int>

        fileprivate init(budget: AsyncBudget, units: Int) {
            self.budget = budget
            held = Atomic(units)
        }

        /// The units held now.
        public var units: Int { held.load(ordering: .acquiring) }

        /// Holds `budget.units(for: wanted)` from now on: more are taken without waiting (a holder must not wait
        /// while holding units), fewer are given back.
        public func resize(to wanted: Int) {
            let units = budget.units(for: wanted)
            budget.change(held.exchange(units, ordering: .acquiringAndReleasing), to: units)
        }
    }

    /// For a holder of `held` units that holds `units(for: wanted)` from now on: more are taken without waiting (a
    /// holder must not wait while holding units), fewer are given back. Returns the units held now.
    @discardableResult
    public func resize(holding held: Int, to wanted: Int) -> Int {
        let units = units(for: wanted)
        change(held, to: units)
        return units
    }

    private func change(_ held: Int, to units: Int) {
        if units > held { takeWithoutWaiting(units - held) } else { release(held - units) }
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

    /// Fails every waiter and every later `acquire` with `.closed`.
    public func close() {
        let waiting = state.withLock { state in
            state.isClosed = true
            let waiting = state.waiters[state.head...].compactMap(\.continuation)
            state.waiters.removeAll()
            state.head = 0
            return waiting
        }
        for waiter in waiting { waiter.resume(returning: .closed) }
    }

    /// Units free now (for tests).
    var available: Int { state.withLock { $0.available } }

    /// The units held now (more than `limit` only while a taker exceeded its estimate), for metrics.
    public var held: Int { state.withLock { limit - $0.available } }

    /// How many tasks wait for units now.
    public var waitingCount: Int {
        state.withLock { state in state.waiters[state.head...].count { $0.continuation != nil } }
    }
}
