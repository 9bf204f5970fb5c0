import Testing

@testable import Lifecycle

/// The group's decisions alone, without tasks: what each input asks for.
@Suite struct ServiceGroupStateMachineTests {
    typealias Machine = ServiceGroupStateMachine

    @Test func aServiceEndingDuringShutdownOutOfTurnDoesNotSkipTheOneBeingStopped() {
        var machine = Machine(serviceCount: 3, codes: ServiceGroup.ExitCodes())
        #expect(
            machine.handle(.signal(.terminate)) == [
                .report(.shutdownRequested(.terminate)), .startBudget, .cancel(index: 2),
            ])
        // Service 0 ends on its own while 2 is still stopping: nothing happens until 2 has ended.
        #expect(machine.handle(.ended(index: 0, exit: nil)) == [])
        // Then 1, the last one still running, and the end with the signal's code.
        #expect(machine.handle(.ended(index: 2, exit: nil)) == [.cancel(index: 1)])
        #expect(machine.handle(.ended(index: 1, exit: nil)) == [.exit(code: 0)])
        #expect(machine.handle(.signal(.interrupt)) == [])
    }

    @Test func theFirstCauseKeepsItsCodeThroughTheShutdown() {
        var machine = Machine(serviceCount: 2, codes: ServiceGroup.ExitCodes())
        let fatal = ServiceGroupExit(code: 1, mode: .graceful)
        #expect(
            machine.handle(.ended(index: 1, exit: fatal)) == [
                .report(.serviceEnded(index: 1, exitCode: 1)), .startBudget, .cancel(index: 0),
            ])
        #expect(machine.handle(.ended(index: 0, exit: ServiceGroupExit(code: 9, mode: .graceful))) == [.exit(code: 1)])
    }

    @Test func theBudgetCountsOnlyOnceTheShutdownBegan() {
        var machine = Machine(serviceCount: 1, codes: ServiceGroup.ExitCodes())
        #expect(machine.handle(.budgetExpired) == [])
        _ = machine.handle(.signal(.terminate))
        #expect(machine.handle(.budgetExpired) == [.report(.budgetExceeded), .exit(code: 130)])
    }
}
