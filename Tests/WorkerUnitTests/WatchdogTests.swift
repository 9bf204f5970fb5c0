import Lifecycle
import PushPipeline
import TestSupport
import Testing

@testable import Adapters
@testable import Worker

/// The watchdog: the poll loop called stalled only past its limit, and the last poll reported once it is.
@Suite struct WatchdogTests {
    @Test(arguments: [(0, false), (299_999, false), (300_000, false), (300_001, true)])
    func theWatchdogCallsPollingStalledOnlyPastTheLimit(elapsedMillis: Int64, stalled: Bool) {
        #expect(
            Watchdog.isStalled(
                lastPollMicros: 1_000_000, nowMicros: 1_000_000 + elapsedMillis * 1000, limit: .seconds(300))
                == stalled)
    }

    @Test func theWatchdogReportsTheLastPollOnceItStalls() async {
        let clock = TestClock()
        let lastPoll = clock.nowMicros()
        let reported = await TestExecutor().run(on: clock) {
            await Watchdog(limit: .seconds(10), clock: clock).watch { lastPoll }
        }
        #expect(reported == lastPoll)
    }
}

/// The watchdog as a service of `run`'s group.
@Suite struct WatchdogServiceTests {
    @Test func aStalledPollLoopEndsTheGroupAtOnceWithCode4AfterReportingIt() async {
        let clock = TestClock()
        let lastPoll = clock.nowMicros()
        let observer = RecordingObserver()
        let service = WatchdogService(
            watchdog: Watchdog(limit: .seconds(10), clock: clock), lastPollMicros: { lastPoll }, observer: observer)
        let exit = await TestExecutor().run(on: clock) { () async -> ServiceGroupExit? in
            do {
                try await service.run(shutdown: GracefulShutdown())
                return nil
            } catch {
                return error as? ServiceGroupExit
            }
        }
        #expect(exit == ServiceGroupExit(code: WorkerExitCode.stalled, mode: .immediately))
        #expect(
            observer.all.contains {
                if case .stalled = $0 { true } else { false }
            })
    }

    @Test func askedToShutDownItReturnsWithoutEndingTheGroup() async throws {
        let clock = TestClock()
        let service = WatchdogService(
            watchdog: Watchdog(limit: .seconds(10), clock: clock), lastPollMicros: { clock.nowMicros() },
            observer: RecordingObserver())
        let shutdown = GracefulShutdown()
        let watching = Task { try await service.run(shutdown: shutdown) }
        shutdown.request()
        try await watching.value
    }
}
