import Essentials
import KafkaTypes
import PushCore
import Synchronization
import TestSupport
import Testing

@testable import PushPipeline

@Suite(.timeLimit(.minutes(1))) struct PipelineLifecycleTests {
    @Test func aRevokedPartitionIsDrainedAndStoredBeforeItIsLetGo() async {
        let harness = Harness()
        harness.sender.hold("m1/a")
        harness.source.add([record("m0;a", offset: 0, key: "room-0"), record("m1;a", offset: 1, key: "room-1")])
        let running = harness.start()
        #expect(await harness.settled { harness.sender.sent.contains("m1/a") && harness.stored() == 1 })
        harness.source.revokeOnNextPoll([TopicPartition("chat", 0)])
        // The pipeline goes on polling while the revoke waits for the held send: each poll ends at its timeout.
        #expect(await harness.settled { harness.source.snapshot.pendingEvents.isEmpty })
        let polls = harness.source.snapshot.polls
        for _ in 0..<10 {
            harness.clock.advance(by: harness.settings.pollTimeout)
            _ = await harness.settled()
        }
        #expect(harness.source.snapshot.polls >= polls + 10)
        #expect(!harness.source.snapshot.revokeDone)
        harness.sender.release("m1/a")
        #expect(await harness.settled { harness.source.snapshot.revokeDone })
        #expect(harness.stored() == 2)
        #expect(harness.observer.all.contains(.revoked([TopicPartition("chat", 0)], unfinished: 0)))
        _ = await harness.stop(running)
    }

    @Test func aLostPartitionIsReportedAsLostNotAsRevoked() async {
        let harness = Harness()
        harness.source.add([record("m0;a", offset: 0)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 1 })
        harness.source.loseOnNextPoll([TopicPartition("chat", 0)])
        #expect(await harness.settled { harness.observer.all.contains(.lost([TopicPartition("chat", 0)])) })
        #expect(!harness.observer.all.contains { if case .revoked = $0 { true } else { false } })
        _ = await harness.stop(running)
    }

    @Test func aRevokeDrainGivesUpAfterItsTimeoutWithoutStoringUnfinishedRecords() async {
        var harness = Harness()
        harness.settings.revokeDrainTimeout = .seconds(3)
        let started = harness.clock.nowMillis()
        let running = await harness.startAndAbandonTheOnlySendOnRevoke()
        #expect(harness.clock.nowMillis() - started >= 3_000)
        #expect(harness.stored() == nil)
        #expect(harness.observer.all.contains(.revoked([TopicPartition("chat", 0)], unfinished: 1)))
        harness.sender.release("m0/a")
        _ = await harness.stop(running)
        #expect(harness.stored() == nil)
    }

    /// The read of the code: records handed out in the poll that revokes their partition came back after the
    /// partition's state was gone, were sent in a new one, and their offsets failed to store.
    @Test func recordsOfARevokedPartitionArrivingWithItsRevokeAreNeverSent() async {
        let harness = Harness()
        harness.source.state.withLock { $0.handsOutRevokingRecords = true }
        harness.source.add([record("m0;a", offset: 0)])
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 1 })
        harness.source.revokeOnNextPoll([TopicPartition("chat", 0)])
        harness.source.add([record("m1;a", offset: 1), record("m2;b", offset: 2, key: "room-b")])
        #expect(await harness.settled { harness.source.snapshot.revokeDone })
        // Polls after the revoke hand out nothing more.
        let polls = harness.source.snapshot.polls
        for _ in 0..<10 {
            harness.clock.advance(by: harness.settings.pollTimeout)
            _ = await harness.settled()
        }
        #expect(harness.source.snapshot.polls >= polls + 10)
        _ = await harness.stop(running)
        #expect(harness.sender.sent == ["m0/a"])
        #expect(harness.stored() == 1)
    }

    @Test func aPartitionAssignedAgainStartsAfreshFromWhatWasCommitted() async {
        var harness = Harness()
        harness.settings.revokeDrainTimeout = .seconds(1)
        let running = await harness.startAndAbandonTheOnlySendOnRevoke()
        // The partition comes back: offset 0 was never stored, so it comes again, after the abandoned send of its
        // room (room order holds across assignments).
        harness.source.assignAgain(TopicPartition("chat", 0), from: 0)
        #expect(
            await harness.settled { harness.observer.all.filter { $0 == .polled(topic: "chat", count: 1) }.count == 2 })
        #expect(harness.sender.sent == ["m0/a"])
        harness.sender.release("m0/a")
        #expect(await harness.settled { harness.sender.sent.count == 2 && harness.stored() == 1 })
        _ = await harness.stop(running)
        #expect(harness.stored() == 1)
        #expect(harness.receipts().count == 2)
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
        #expect(await harness.settled { harness.sender.sent.contains("m1/a") && harness.stored() == 1 })
        let started = harness.clock.nowMillis()
        let stop = await harness.stop(running)
        #expect(harness.clock.nowMillis() - started >= 2_000)
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
        #expect(await harness.settled { harness.source.snapshot.isPollWaiting })
        running.0.shutdown()
        harness.source.add([record("m0;a", offset: 0)])
        #expect(await harness.advancing { harness.finished.value })
        #expect(await running.1.value == .shutDown(unfinished: 0))
        #expect(harness.stored() == nil)
    }
}

extension Harness {
    /// Starts the pipeline on `m0;a` with its send held, revokes `chat` partition 0 and moves the clock on until the
    /// revoke's drain gave up on that send; the running pipeline.
    fileprivate func startAndAbandonTheOnlySendOnRevoke() async -> (Pipeline<String>, Task<PipelineStop, Never>) {
        sender.hold("m0/a")
        source.add([record("m0;a", offset: 0)])
        let running = start()
        #expect(await settled { sender.sent.contains("m0/a") })
        source.revokeOnNextPoll([TopicPartition("chat", 0)])
        #expect(await advancing { source.snapshot.revokeDone })
        return running
    }
}
