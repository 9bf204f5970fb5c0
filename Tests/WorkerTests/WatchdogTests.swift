import TestSupport
import Testing

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
        let watching = Task { await Watchdog(limit: .seconds(10), clock: clock).watch { lastPoll } }
        for _ in 0..<200 {
            clock.advance(by: .seconds(1))
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(await watching.value == lastPoll)
    }
}
