import Essentials
import TestSupport
import Testing

/// The virtual clock the pipeline tests drive: it never moves by itself, and no cancellation strands a sleeper.
@Suite(.timeLimit(.minutes(1))) struct TestClockTests {
    @Test func aSleepEndsOnlyOnceTheClockIsAdvancedPastItsDeadline() async throws {
        let clock = TestClock()
        let executor = TestExecutor()
        let before = clock.nowMillis()
        let sleeping = Task(executorPreference: executor) { try await clock.sleep(for: .seconds(5)) }
        await executor.settle()
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(4))
        await executor.settle()
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await sleeping.value
        #expect(clock.nowMillis() - before == 5_000)
    }

    /// Cancelled at any moment, before or while it registers, a sleep ends with `CancellationError` and leaves no
    /// sleeper behind.
    @Test func aSleepCancelledAtAnyMomentEndsAtOnce() async {
        let clock = TestClock()
        let executor = TestExecutor()
        let cancelled = Shared(0)
        for _ in 0..<500 {
            let sleeping = Task(executorPreference: executor) {
                do {
                    try await clock.sleep(for: .seconds(60))
                } catch is CancellationError {
                    cancelled.increment()
                } catch {}
            }
            sleeping.cancel()
        }
        await executor.settle()
        #expect(cancelled.value == 500)
        #expect(clock.sleeperCount == 0)
        // Ends any sleep a lost cancellation left behind.
        clock.advance(by: .seconds(60))
    }

    /// Many sleeps cancelled from other threads while they start and register: every one ends with
    /// `CancellationError` though the clock never moves (a cancellation lost in a gap leaves its sleeper waiting).
    @Test func sleepsCancelledConcurrentlyAllEndWithoutTheClockMoving() async {
        let clock = TestClock()
        let executor = TestExecutor()
        let cancelled = Shared(0)
        let before = clock.nowMicros()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2_000 {
                let sleeping = Task(executorPreference: executor) {
                    do {
                        try await clock.sleep(for: .seconds(3_600))
                    } catch is CancellationError {
                        cancelled.increment()
                    } catch {}
                }
                group.addTask { sleeping.cancel() }
            }
        }
        await executor.settle()
        #expect(cancelled.value == 2_000)
        #expect(clock.sleeperCount == 0)
        #expect(clock.nowMicros() == before)
        clock.advance(by: .seconds(3_600))
    }

    /// A sleep whose alarm is woken ends without the clock moving, woken before or after it registered.
    @Test func aWokenAlarmEndsItsSleepAtOnce() async throws {
        let clock = TestClock()
        let executor = TestExecutor()
        let early = clock.reserveAlarm()
        clock.wake(early)
        try await clock.sleep(for: .seconds(60), alarm: early)
        let late = clock.reserveAlarm()
        let sleeping = Task(executorPreference: executor) { try await clock.sleep(for: .seconds(60), alarm: late) }
        await executor.settle()
        #expect(clock.sleeperCount == 1)
        clock.wake(late)
        try await sleeping.value
        #expect(clock.sleeperCount == 0)
        #expect(clock.untilNextDeadline == nil)
    }
}
