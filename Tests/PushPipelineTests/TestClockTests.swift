import TestSupport
import Testing

/// The virtual clock the pipeline tests drive: it never moves by itself, and no cancellation strands a sleeper.
@Suite struct TestClockTests {
    @Test func aSleepEndsOnlyOnceTheClockIsAdvancedPastItsDeadline() async throws {
        let clock = TestClock()
        let before = clock.nowMillis()
        let sleeping = Task { try await clock.sleep(for: .seconds(5)) }
        #expect(await eventually { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await sleeping.value
        #expect(clock.nowMillis() - before == 5_000)
    }

    /// Cancelled at any moment, before or while it registers, a sleep ends with `CancellationError` and leaves no
    /// sleeper behind.
    @Test func aSleepCancelledAtAnyMomentEndsAtOnce() async {
        let clock = TestClock()
        for _ in 0..<500 {
            let sleeping = Task { try await clock.sleep(for: .seconds(60)) }
            sleeping.cancel()
            await #expect(throws: CancellationError.self) { try await sleeping.value }
        }
        #expect(clock.sleeperCount == 0)
    }
}
