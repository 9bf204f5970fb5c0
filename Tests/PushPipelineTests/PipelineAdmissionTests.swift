import Essentials
import KafkaTypes
import PushCore
import TestSupport
import Testing

@testable import PushPipeline

/// Admission nobody can hold hostage: retry records waiting for their due time and records bigger than the device
/// budget never hold fresh events of other rooms. The test clock never moves here unless the test says so.
@Suite(.timeLimit(.minutes(1))) struct PipelineAdmissionTests {
    /// The first stall: retry records due in 9 and 50 minutes filled the in-flight limit and paused every
    /// partition, and fresh chat events got no receipt.
    @Test func retryRecordsWaitingForAFarDueTimeHoldNoFreshEventBack() async {
        var harness = Harness()
        harness.settings.maxInFlightRecords = 4
        let now = harness.clock.nowMillis()
        for (topic, dueIn) in [("retry-600000", Int64(540_000)), ("retry-3600000", Int64(3_000_000))] {
            harness.source.add(
                (0..<10).map { offset in
                    record(
                        "r\(offset);a", offset: Int64(offset), key: "room-r\(offset)", topic: topic,
                        headers: [
                            KafkaHeader(name: "x-retry-due", text: String(now + dueIn)),
                            KafkaHeader(name: "x-attempts", text: "1"),
                        ])
                })
        }
        let running = harness.start()
        #expect(await harness.settled { harness.source.snapshot.paused.count == 2 })
        // Fresh events arrive once the retry records were consumed, as after a restart.
        harness.source.add((0..<3).map { record("m\($0);a", offset: Int64($0), key: "room-\($0)") })
        #expect(await harness.settled { harness.stored() == 3 })
        #expect(harness.receipts().count == 3)
        #expect(running.0.recordsWaitingForDueTime == 2)
        #expect(running.0.recordsInFlight == 0)
        let snapshot = harness.source.snapshot
        #expect(snapshot.paused == [TopicPartition("retry-600000", 0), TopicPartition("retry-3600000", 0)])
        #expect(!snapshot.pauseCalls.joined().contains(TopicPartition("chat", 0)))
        _ = await harness.stop(running)
        #expect(harness.sender.sent.allSatisfy { $0.hasPrefix("m") })
    }

    /// A waiting retry record is the only one of its partition held: the others are fetched again once it is due,
    /// and every one is sent in order.
    @Test func aWaitingRetryRecordIsHeldAloneAndTheRestAreFetchedAgainWhenItIsDue() async {
        let harness = Harness()
        let due = harness.clock.nowMillis() + 30_000
        harness.source.add(
            (0..<5).map { offset in
                record(
                    "r\(offset);a", offset: Int64(offset), topic: "retry-60000",
                    headers: [
                        KafkaHeader(name: "x-retry-due", text: String(due)), KafkaHeader(name: "x-attempts", text: "1"),
                    ])
            })
        let running = harness.start()
        #expect(await harness.settled { running.0.recordsWaitingForDueTime == 1 })
        #expect(harness.source.snapshot.seeks.contains { $0.0 == TopicPartition("retry-60000", 0) && $0.1 == 1 })
        #expect(harness.sender.sent.isEmpty)
        harness.clock.advance(by: .seconds(30))
        #expect(await harness.settled { harness.stored("retry-60000", 0) == 5 })
        _ = await harness.stop(running)
        #expect(harness.sender.sent.sorted() == (0..<5).map { "r\($0)/a" })
    }

    /// The second stall: a record bigger than the whole device budget waited for every unit while another
    /// room's record retried in process, and every room behind it waited too. Now it runs at once, and the other
    /// rooms wait only while its own sends take.
    @Test func aRecordBiggerThanTheBudgetHoldsOtherRoomsOnlyWhileItsOwnSendsRun() async {
        var harness = Harness()
        harness.settings.maxInFlightDevices = 2
        harness.sender.script("m0/a", [.retry(status: 503, reason: "ServiceUnavailable", after: .seconds(5))])
        harness.source.add([
            record("m0;a", offset: 0, key: "room-a"),
            record("m1;a,b,c,d,e", offset: 1, key: "room-b"),
            record("m2;a", offset: 2, key: "room-c"),
        ])
        let running = harness.start()
        // m0 sleeps in its in-process retry (the clock does not move) holding one unit.
        #expect(await harness.settled { harness.sender.sent.contains("m2/a") })
        #expect(harness.sender.sent.filter { $0.hasPrefix("m1/") }.count == 5)
        #expect(harness.sender.sent.filter { $0 == "m0/a" }.count == 1)
        #expect(await harness.settled { harness.clock.sleeperCount > 0 })
        harness.clock.advance(by: .seconds(5))
        #expect(await harness.settled { harness.stored() == 3 })
        _ = await harness.stop(running)
        #expect(harness.receipts().count == 7)
    }
}
