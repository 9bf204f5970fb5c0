import KafkaTypes
import TestSupport
import Testing

@testable import PushPipeline

@Suite struct PipelineLifecycleTests {
    @Test func aRevokedPartitionIsDrainedAndStoredBeforeItIsLetGo() async {
        let harness = Harness()
        harness.sender.hold("m1/a")
        harness.source.add([record("m0;a", offset: 0, key: "room-0"), record("m1;a", offset: 1, key: "room-1")])
        let running = harness.start()
        #expect(await eventually { harness.sender.sent.contains("m1/a") && harness.stored() == 1 })
        harness.source.revokeOnNextPoll([TopicPartition("chat", 0)])
        try? await Task.sleep(for: .milliseconds(20))
        #expect(!harness.source.snapshot.revokeDone)
        harness.sender.release("m1/a")
        #expect(await eventually { harness.source.snapshot.revokeDone })
        #expect(harness.stored() == 2)
        #expect(harness.observer.all.contains(.revoked([TopicPartition("chat", 0)], unfinished: 0)))
        _ = await harness.stop(running)
    }

    @Test func aRevokeDrainGivesUpAfterItsTimeoutWithoutStoringUnfinishedRecords() async {
        var harness = Harness()
        harness.settings.revokeDrainTimeout = .seconds(3)
        harness.sender.hold("m0/a")
        harness.source.add([record("m0;a", offset: 0)])
        let running = harness.start()
        #expect(await eventually { harness.sender.sent.contains("m0/a") })
        harness.source.revokeOnNextPoll([TopicPartition("chat", 0)])
        // Time passes (in steps, so the drain's timer is surely waiting) until the revoke gives up.
        for _ in 0..<1_000 where !harness.source.snapshot.revokeDone {
            harness.clock.advance(by: .milliseconds(100))
            try? await Task.sleep(for: .milliseconds(2))
        }
        #expect(harness.source.snapshot.revokeDone)
        #expect(harness.stored() == nil)
        #expect(harness.observer.all.contains(.revoked([TopicPartition("chat", 0)], unfinished: 1)))
        harness.sender.release("m0/a")
        _ = await harness.stop(running)
        #expect(harness.stored() == nil)
    }

    @Test func shutdownFinishesInFlightWorkThenFlushesCommitsAndCloses() async {
        let harness = Harness()
        let stop = await harness.shutDownDuringTheOnlySend()
        #expect(stop == .shutDown(unfinished: 0))
        #expect(harness.stored() == 1)
        let snapshot = harness.source.snapshot
        #expect(snapshot.commits == 1 && snapshot.closed)
        #expect(harness.sink.state.withLock { $0.flushed })
    }

    @Test func shutdownGivesUpOnWorkStillRunningAfterTheGracePeriod() async {
        var harness = Harness()
        harness.settings.shutdownGracePeriod = .seconds(2)
        harness.sender.hold("m1/a")
        harness.source.add([record("m0;a", offset: 0, key: "x"), record("m1;a", offset: 1, key: "y")])
        let running = harness.start()
        #expect(await eventually { harness.sender.sent.contains("m1/a") && harness.stored() == 1 })
        let stop = await harness.stop(running)
        #expect(stop == .shutDown(unfinished: 1))
        #expect(harness.stored() == 1)
        #expect(harness.source.snapshot.closed)
        harness.sender.release("m1/a")
    }

    @Test func shutdownHandsFailingSendsToTheRetryTopicInsteadOfWaiting() async {
        let harness = Harness()
        harness.sender.script("m0/a", [.retry(status: 503, reason: "ServiceUnavailable", after: nil)])
        #expect(await harness.shutDownDuringTheOnlySend() == .shutDown(unfinished: 0))
        #expect(harness.retryRecords().count == 1)
        #expect(harness.stored() == 1)
    }

    @Test func recordsArrivingAfterShutdownAreNotStored() async {
        let harness = Harness()
        let running = harness.start()
        running.0.shutdown()
        harness.source.add([record("m0;a", offset: 0)])
        _ = await running.1.value
        #expect(harness.stored() == nil)
    }
}
