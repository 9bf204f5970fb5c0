import KafkaTypes
import TestSupport
import Testing

@testable import PushPipeline

/// The fake consumer under an idle pipeline: a poll with nothing to hand out waits on the test clock, neither
/// spinning nor moving the clock, until records come or its timeout is reached.
@Suite(.timeLimit(.minutes(1))) struct FakeSourceTests {
    @Test func anIdlePollWaitsWithoutMovingTheClockUntilRecordsComeOrItsTimeout() async {
        let harness = Harness()
        let started = harness.clock.nowMicros()
        let running = harness.start()
        #expect(await harness.settled { harness.source.snapshot.isPollWaiting })
        let polls = harness.source.snapshot.polls
        #expect(harness.clock.sleeperCount == 1)
        #expect(harness.clock.untilNextDeadline == harness.settings.pollTimeout)
        // Nothing happens while the test does nothing.
        #expect(await harness.settled { harness.source.snapshot.polls == polls })
        #expect(harness.clock.nowMicros() == started)
        // Its timeout on the clock ends it: one more poll, which waits again.
        harness.clock.advance(by: harness.settings.pollTimeout)
        #expect(await harness.settled { harness.source.snapshot.polls == polls + 1 })
        #expect(harness.source.snapshot.isPollWaiting)
        // Records end the wait at once, without the clock.
        let now = harness.clock.nowMicros()
        harness.source.add([record("m0;a", offset: 0)])
        #expect(await harness.settled { harness.stored() == 1 })
        #expect(harness.clock.nowMicros() == now)
        _ = await harness.stop(running)
    }

    @Test func aCancelledPollReturnsEmptyAtOnce() async throws {
        let clock = TestClock()
        let source = FakeSource(clock: clock)
        let polling = Task { try await source.poll(maxRecords: 10, timeout: .seconds(60)) }
        polling.cancel()
        let polled = try await polling.value
        #expect(polled.records.isEmpty && polled.events.isEmpty)
        #expect(clock.sleeperCount == 0)
        #expect(!source.snapshot.isPollWaiting)
    }
}
