/// What a `ServiceGroup` decides, as a pure state machine: each input (a signal, a service that ended, the
/// shutdown budget running out) returns the actions to take. Services are numbered in start order; shutdown
/// requests the highest running one's shutdown and waits until it ends before the next. Services are cancelled only
/// when the group stops waiting for them: the budget spent, a second signal, or an immediate exit.
struct ServiceGroupStateMachine {
    enum Input: Sendable {
        case signal(UnixSignal)
        /// Service `index` returned (`exit == nil`) or threw (`exit` is what the error asks for).
        case ended(index: Int, exit: ServiceGroupExit?)
        case budgetExpired
    }

    enum Action: Equatable {
        /// Request service `index`'s graceful shutdown and wait for it to end.
        case requestShutdown(index: Int)
        /// Cancel service `index`: the group no longer waits for it.
        case cancel(index: Int)
        /// Start the one shutdown budget.
        case startBudget
        /// Tell the process's log what happened.
        case report(ServiceGroupEvent)
        /// The group is over: return `code`.
        case exit(code: Int32)
    }

    private enum Phase {
        case running
        case shuttingDown(code: Int32, stopping: Int?)
        case over
    }

    private var running: Set<Int>
    private var phase = Phase.running
    private let codes: ServiceGroup.ExitCodes

    init(serviceCount: Int, codes: ServiceGroup.ExitCodes) {
        running = Set(0..<serviceCount)
        self.codes = codes
    }

    mutating func handle(_ input: Input) -> [Action] {
        switch (input, phase) {
        case (_, .over):
            return []
        case (.signal(let signal), .running):
            return [.report(.shutdownRequested(signal))] + beginShutdown(code: codes.signal)
        case (.signal(let signal), .shuttingDown):
            return [.report(.forced(signal))] + giveUp(code: codes.forced)
        case (.ended(let index, let exit), .running):
            running.remove(index)
            let code = exit?.code ?? codes.finished
            let report = Action.report(.serviceEnded(index: index, exitCode: code))
            if exit?.mode == .immediately { return [report] + giveUp(code: code) }
            return [report] + beginShutdown(code: code)
        case (.ended(let index, _), .shuttingDown(let code, let stopping)):
            running.remove(index)
            return index == stopping ? stopNext(code: code) : []
        case (.budgetExpired, .shuttingDown):
            return [.report(.budgetExceeded)] + giveUp(code: codes.forced)
        case (.budgetExpired, .running):
            return []
        }
    }

    private mutating func beginShutdown(code: Int32) -> [Action] {
        [.startBudget] + stopNext(code: code)
    }

    /// Requests the shutdown of the last-started service still running, or ends the group when none is left.
    private mutating func stopNext(code: Int32) -> [Action] {
        guard let last = running.max() else {
            phase = .over
            return [.exit(code: code)]
        }
        phase = .shuttingDown(code: code, stopping: last)
        return [.requestShutdown(index: last)]
    }

    /// Ends the group at once with `code`, cancelling the services still running (the last started first).
    private mutating func giveUp(code: Int32) -> [Action] {
        phase = .over
        return running.sorted(by: >).map { .cancel(index: $0) } + [.exit(code: code)]
    }
}
