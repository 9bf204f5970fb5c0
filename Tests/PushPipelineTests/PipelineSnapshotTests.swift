import Essentials
import KafkaTypes
import TestSupport
import Testing

@testable import PushPipeline

/// What the pipeline publishes for readers outside its actor: its partitions, the retry records it holds, its last
/// poll, all in one value.
@Suite struct PipelineSnapshotTests {
    @Test func theSnapshotShowsTheOwnedAndPausedPartitionsAndTheRecordsHeldUntilDue() async {
        let harness = Harness()
        let now = harness.clock.nowMillis()
        harness.source.add(
            [
                record(
                    "r0;a", offset: 0, key: "room-r", topic: "retry-600000",
                    headers: [
                        KafkaHeader(name: "x-retry-due", text: String(now + 540_000)),
                        KafkaHeader(name: "x-attempts", text: "1"),
                    ])
            ])
        harness.source.add([record("m0;a", offset: 0, key: "room-0")])
        let started = harness.clock.nowMicros()
        let running = harness.start()
        #expect(await eventually { harness.stored() == 1 })
        #expect(await eventually { running.0.snapshot.recordsWaitingForDueTime == 1 })
        let snapshot = running.0.snapshot
        #expect(snapshot.partitionsAssigned == 2)
        #expect(snapshot.partitionsPaused == 1)
        #expect(snapshot.recordsInFlight == 0)
        #expect(snapshot.devicesInFlight == 0)
        #expect(snapshot.openBreakers.isEmpty)
        #expect(snapshot.lastPollMicros >= started)
        _ = await harness.stop(running)
    }
}
