import Essentials
import Testing

/// The system clock's sleep, in real time.
@Suite struct SystemWallClockSleepTests {
    @Test func theSystemClockSleepsAtLeastTheDurationAndStopsWhenCancelled() async throws {
        let clock = SystemWallClock()
        let start = ContinuousClock.now
        try await clock.sleep(for: .milliseconds(20))
        #expect(ContinuousClock.now - start >= .milliseconds(20))
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
