import PushCore
import Synchronization
import TestSupport
import Testing

@testable import PushPipeline

/// Records started together (one poll's, in different rooms) run as one group: planned in one pass, their sends
/// handed over together, their outputs produced together; each still ends on its own.
@Suite(.timeLimit(.minutes(1))) struct PipelineGroupTests {
    /// The answers that arrived together have their records' receipts produced in one call: fewer calls than records
    /// (how the fake's answers bunch depends on the order its tasks run in).
    @Test func recordsStartedTogetherShareTheirProduceCalls() async {
        let harness = Harness()
        harness.source.add([
            record("m1;a", offset: 0, key: "room-a"), record("m2;b,c", offset: 1, key: "room-b"),
            record("m3;d", offset: 2, key: "room-c"),
        ])
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 3 })
        #expect(harness.receipts().count == 4)
        #expect(harness.sink.state.withLock { $0.attempts } < 3)
        // The records that end in one turn store their partition's offset once.
        let stores = harness.source.state.withLock { $0.storeCalls.map(\.1) }
        #expect(stores.count < 3)
        #expect(stores.last == 3)
        #expect(stores == stores.sorted())
        _ = await harness.stop(running)
    }

    /// A room's next records, started as the group frees the room, join the group: their sends are handed over
    /// together, not sent by a task of their own; the room's order holds.
    @Test func theRecordsAGroupsRoomsLetStartJoinTheGroup() async {
        let harness = Harness()
        harness.source.add([
            record("m1;a", offset: 0, key: "room-a"), record("m2;b", offset: 1, key: "room-b"),
            record("m3;c", offset: 2, key: "room-a"), record("m4;d", offset: 3, key: "room-a"),
        ])
        let running = harness.start()
        #expect(await harness.settled { harness.stored() == 4 })
        #expect(harness.sender.sentTogether.sorted() == ["m1/a", "m2/b", "m3/c", "m4/d"])
        let sent = harness.sender.sent
        #expect(sent.filter { ["m1/a", "m3/c", "m4/d"].contains($0) } == ["m1/a", "m3/c", "m4/d"])
        #expect(harness.receipts().count == 4)
        _ = await harness.stop(running)
    }

    @Test func aGroupSendsNoMoreAtOnceThanTheSendPermitsLetIn() async {
        var harness = Harness()
        harness.settings.maxConcurrentSends = 2
        let names = ["a", "b", "c", "d", "e"]
        for name in names { harness.sender.hold("m\(name)/\(name)") }
        harness.source.add(
            names.enumerated().map { record("m\($1);\($1)", offset: Int64($0), key: "room-\($1)") })
        let running = harness.start()
        #expect(await harness.settled { harness.sender.sent.count == 2 })
        #expect(harness.sender.sent == ["ma/a", "mb/b"])
        harness.sender.release("ma/a")
        #expect(await harness.settled { harness.sender.sent.count == 3 })
        #expect(harness.stored() == 1)
        for name in names { harness.sender.release("m\(name)/\(name)") }
        #expect(await harness.settled { harness.stored() == 5 })
        #expect(harness.receipts().count == 5)
        _ = await harness.stop(running)
    }

    /// Two records of six devices in a budget of ten: the first is planned with the group, the second waits in line
    /// for the budget alone, and goes once the first gave its devices back.
    @Test func aRecordWhoseDevicesAreNotFreeNowWaitsInLineAlone() async {
        var harness = Harness()
        harness.settings.maxInFlightDevices = 10
        harness.sender.hold("m1/a")
        harness.source.add([
            record("m1;a,b,c,d,e,f", offset: 0, key: "room-a"), record("m2;g,h,i,j,k,l", offset: 1, key: "room-b"),
        ])
        let running = harness.start()
        #expect(await harness.settled { harness.sender.sent.count == 6 })
        #expect(!harness.sender.sent.contains("m2/g"))
        harness.sender.release("m1/a")
        #expect(await harness.settled { harness.stored() == 2 })
        #expect(harness.receipts().count == 12)
        _ = await harness.stop(running)
    }

    /// One record of the group is retried in process: the others' receipts are out before its retry, and the
    /// watermark waits for it.
    @Test func aRecordRetriedInProcessGoesOnAloneWhileTheOthersEnd() async {
        let harness = Harness()
        harness.sender.script("m1/a", [.retry(status: 503, reason: "ServiceUnavailable", after: .seconds(5))])
        harness.source.add([
            record("m1;a", offset: 0, key: "room-a"), record("m2;b", offset: 1, key: "room-b"),
        ])
        let running = harness.start()
        #expect(await harness.settled { harness.receipts().count == 1 })
        #expect(harness.stored() == nil)
        #expect(await harness.advancing { harness.stored() == 2 })
        #expect(harness.sender.sent == ["m1/a", "m2/b", "m1/a"])
        _ = await harness.stop(running)
    }
}
