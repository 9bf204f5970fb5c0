import Testing

@testable import Lifecycle

/// The group's decisions alone, without tasks: what each input asks for.
@Suite struct ServiceGroupStateMachineTests {
    typealias Machine = ServiceGroupStateMachine

    @Test func aServiceEndingDuringShutdownOutOfTurnDoesNotSkipTheOneBeingStopped() {
        var machine = Machine(serviceCount: 3, codes: ServiceGroup.ExitCodes())
        #expect(
            machine.handle(.signal(.terminate)) == [
                .report(.shutdownRequested(.terminate)), .startBudget, .requestShutdown(index: 2),
            ])
        // Service 0 ends on its own while 2 is still stopping: nothing happens until 2 has ended.
        #expect(machine.handle(.ended(index: 0, exit: nil)) == [])
        // Then 1, the last one still running, and the end with the signal's code.
        #expect(machine.handle(.ended(index: 2, exit: nil)) == [.requestShutdown(index: 1)])
        #expect(machine.handle(.ended(index: 1, exit: nil)) == [.exit(code: 0)])
        #expect(machine.handle(.signal(.interrupt)) == [])
    }

    @Test func theFirstCauseKeepsItsCodeThroughTheShutdown() {
        var machine = Machine(serviceCount: 2, codes: ServiceGroup.ExitCodes())
        let fatal = ServiceGroupExit(code: 1, mode: .graceful)
        #expect(
            machine.handle(.ended(index: 1, exit: fatal)) == [
                .report(.serviceEnded(index: 1, exitCode: 1)), .startBudget, .requestShutdown(index: 0),
            ])
        #expect(machine.handle(.ended(index: 0, exit: ServiceGroupExit(code: 9, mode: .graceful))) == [.exit(code: 1)])
    }

    @Test func theBudgetCountsOnlyOnceTheShutdownBeganAndThenCancelsWhatStillRunsLastStartedFirst() {
        var machine = Machine(serviceCount: 3, codes: ServiceGroup.ExitCodes())
        #expect(machine.handle(.budgetExpired) == [])
        _ = machine.handle(.signal(.terminate))
        #expect(machine.handle(.ended(index: 2, exit: nil)) == [.requestShutdown(index: 1)])
        #expect(
            machine.handle(.budgetExpired) == [
                .report(.budgetExceeded), .cancel(index: 1), .cancel(index: 0), .exit(code: 130),
            ])
        #expect(machine.handle(.ended(index: 1, exit: nil)) == [])
    }

    @Test func nothingIsCancelledDuringAGracefulShutdownThatEndsWithinItsBudget() {
        var machine = Machine(serviceCount: 2, codes: ServiceGroup.ExitCodes())
        let actions =
            machine.handle(.signal(.terminate)) + machine.handle(.ended(index: 1, exit: nil))
            + machine.handle(.ended(index: 0, exit: nil)) + machine.handle(.budgetExpired)
        #expect(
            actions == [
                .report(.shutdownRequested(.terminate)), .startBudget, .requestShutdown(index: 1),
                .requestShutdown(index: 0), .exit(code: 0),
            ])
    }

    @Test func aSecondSignalCancelsEveryServiceStillRunningAndExitsWithTheForcedCode() {
        var machine = Machine(serviceCount: 2, codes: ServiceGroup.ExitCodes())
        _ = machine.handle(.signal(.terminate))
        #expect(
            machine.handle(.signal(.interrupt)) == [
                .report(.forced(.interrupt)), .cancel(index: 1), .cancel(index: 0), .exit(code: 130),
            ])
    }

    @Test func anImmediateExitCancelsTheOthersWithoutAskingThemToShutDown() {
        var machine = Machine(serviceCount: 3, codes: ServiceGroup.ExitCodes())
        #expect(
            machine.handle(.ended(index: 1, exit: ServiceGroupExit(code: 4, mode: .immediately))) == [
                .report(.serviceEnded(index: 1, exitCode: 4)), .cancel(index: 2), .cancel(index: 0), .exit(code: 4),
            ])
        #expect(machine.handle(.signal(.terminate)) == [])
    }
}
