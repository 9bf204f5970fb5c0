import Glibc
import Lifecycle
import Synchronization
import Testing

@Suite struct ServiceGroupTests {
    /// The group's reports as text, in order.
    final class Reports: Sendable {
        private let lines = Mutex<[String]>([])
        var entries: [String] { lines.withLock { $0 } }
        func write(_ event: ServiceGroupEvent, _ service: String?) {
            lines.withLock { $0.append("\(event) \(service ?? "-")") }
        }
    }

    /// The group of `services`; the default budget is long, so that only the tests about the budget depend on it (a
    /// loaded machine can hold the test's threads for many seconds).
    static func group(_ services: [(String, any Service)], budget: Duration = .seconds(120), reports: Reports? = nil)
        -> ServiceGroup
    {
        ServiceGroup(
            services: services.map { ServiceGroup.Entry($0.0, $0.1) }, shutdownBudget: budget,
            report: { event, service in reports?.write(event, service) })
    }

    @Test func startsInOrderAndOnASignalShutsDownInReverseOrderOneAtATimeWithCode0() async {
        let journal = Journal()
        let reports = Reports()
        let signals = TestSignals()
        let group = Self.group(
            ["a", "b", "c"].map { ($0, WaitingService(name: $0, journal: journal)) }, reports: reports)
        async let code = group.run(signals: signals.sequence)
        await journal.waitFor(3)
        signals.send()
        #expect(await code == 0)
        #expect(Set(journal.entries.prefix(3)) == ["started a", "started b", "started c"])
        #expect(journal.entries.suffix(3) == ["stopped c", "stopped b", "stopped a"])
        #expect(
            reports.entries == [
                "starting(index: 0) a", "starting(index: 1) b", "starting(index: 2) c",
                "shutdownRequested(SIGTERM) -", "stopping(index: 2) c", "stopping(index: 1) b",
                "stopping(index: 0) a",
            ])
    }

    @Test func aServiceThatThrowsEndsTheGroupWithItsCodeAfterShuttingTheOthersDownInReverse() async {
        let journal = Journal()
        let group = Self.group([
            ("a", WaitingService(name: "a", journal: journal)),
            ("b", EndingService(name: "b", journal: journal, error: ServiceGroupExit(code: 7, mode: .graceful))),
            ("c", WaitingService(name: "c", journal: journal)),
        ])
        #expect(await group.run(signals: TestSignals().sequence) == 7)
        #expect(journal.entries.suffix(2) == ["stopped c", "stopped a"])
    }

    @Test func anyOtherErrorEndsTheGroupWithTheFailureCode() async {
        struct Broken: Error {}
        let journal = Journal()
        let group = Self.group([
            ("a", WaitingService(name: "a", journal: journal)),
            ("b", EndingService(name: "b", journal: journal, error: Broken())),
        ])
        #expect(await group.run(signals: TestSignals().sequence) == 1)
        #expect(journal.entries.last == "stopped a")
    }

    @Test func aServiceThatReturnsEndsTheGroupWithCode0() async {
        let journal = Journal()
        let group = Self.group([
            ("a", WaitingService(name: "a", journal: journal)),
            ("b", EndingService(name: "b", journal: journal, error: nil)),
        ])
        #expect(await group.run(signals: TestSignals().sequence) == 0)
        #expect(journal.entries.last == "stopped a")
    }

    @Test func anImmediateExitReturnsItsCodeAndCancelsTheOthersInsteadOfShuttingThemDown() async {
        let journal = Journal()
        let group = Self.group([
            ("a", DrainingService(name: "a", journal: journal, drain: .seconds(60))),
            ("b", EndingService(name: "b", journal: journal, error: ServiceGroupExit(code: 4, mode: .immediately))),
        ])
        #expect(await group.run(signals: TestSignals().sequence) == 4)
        await journal.waitFor(3)
        #expect(journal.entries.last == "cancelled a")
    }

    @Test func aServiceAskedToShutDownIsNotCancelledWhileItFinishesItsWorkAndTheNextWaitsForIt() async {
        let journal = Journal()
        let signals = TestSignals()
        let group = Self.group([
            ("a", WaitingService(name: "a", journal: journal)),
            ("b", DrainingService(name: "b", journal: journal, drain: .milliseconds(200))),
        ])
        async let code = group.run(signals: signals.sequence)
        await journal.waitFor(2)
        signals.send()
        #expect(await code == 0)
        #expect(journal.entries.suffix(2) == ["drained b", "stopped a"])
    }

    @Test func aShutdownPastItsBudgetCancelsTheServiceStillRunningAndReturnsTheForcedCode() async {
        let reports = Reports()
        let journal = Journal()
        let signals = TestSignals()
        let group = Self.group(
            [("stubborn", StubbornService(journal: journal))], budget: .milliseconds(200), reports: reports)
        async let code = group.run(signals: signals.sequence)
        signals.send()
        #expect(await code == 130)
        #expect(reports.entries.last == "budgetExceeded -")
        await journal.waitFor(2)
        #expect(journal.entries == ["asked stubborn", "cancelled stubborn"])
    }

    @Test func aSecondSignalDuringShutdownReturnsTheForcedCodeAtOnceWithoutWaitingForTheService() async {
        let reports = Reports()
        let journal = Journal()
        let signals = TestSignals()
        let group = Self.group([("blocked", BlockedService(journal: journal))], budget: .seconds(30), reports: reports)
        async let code = group.run(signals: signals.sequence)
        signals.send(.terminate)
        signals.send(.interrupt)
        #expect(await code == 130)
        #expect(journal.entries.isEmpty, "the group waited for the service")
        #expect(reports.entries.last == "forced(SIGINT) -")
    }

    @Test func theSignalSourceDeliversARealSignalInsteadOfItsDefaultAction() async {
        // SIGUSR1 would end the process by default: the source diverts it.
        let source = SignalSource([UnixSignal(rawValue: SIGUSR1)])
        // Dispatch may register the source a moment after `init`: send until it is seen.
        let sender = Task {
            while !Task.isCancelled {
                kill(getpid(), SIGUSR1)
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        defer { sender.cancel() }
        var received: UnixSignal?
        for await signal in source {
            received = signal
            break
        }
        #expect(received == UnixSignal(rawValue: SIGUSR1))
    }
}
