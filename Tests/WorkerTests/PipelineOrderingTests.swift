import Testing

@testable import Worker

@Suite struct PipelineOrderingTests {
    @Test func aRoomsNextRecordWaitsForThePreviousFirstAttemptWhileOtherRoomsGoOn() async {
        let harness = Harness()
        harness.sender.hold("m1/a")
        harness.source.add([
            record("m1;a", offset: 0, key: "room-a"),
            record("m2;b", offset: 1, key: "room-a"),
            record("m3;c", offset: 2, key: "room-b"),
        ])
        let running = harness.start()
        #expect(await eventually { harness.sender.sent.contains("m3/c") })
        #expect(!harness.sender.sent.contains("m2/b"))
        harness.sender.release("m1/a")
        #expect(await eventually { harness.stored() == 3 })
        _ = await harness.stop(running)
        let sent = harness.sender.sent
        #expect(sent.firstIndex(of: "m1/a")! < sent.firstIndex(of: "m2/b")!)
    }

    @Test func retriesOfOneRecordDoNotHoldUpTheRoom() async {
        let harness = Harness()
        harness.sender.script("m1/a", [.retry(reason: "ServiceUnavailable", status: 503, after: .seconds(5))])
        harness.source.add([record("m1;a", offset: 0), record("m2;b", offset: 1)])
        let running = harness.start()
        #expect(await eventually { harness.stored() == 2 })
        _ = await harness.stop(running)
        let sent = harness.sender.sent
        #expect(sent.filter { $0 == "m1/a" }.count == 2)
        #expect(sent.firstIndex(of: "m2/b")! < sent.lastIndex(of: "m1/a")!)
    }

    @Test func theWatermarkWaitsForAnUnfinishedEarlierRecord() async {
        let harness = Harness()
        harness.sender.hold("m1/a")
        harness.source.add([
            record("m1;a", offset: 0, key: "room-a"),
            record("m2;b", offset: 1, key: "room-b"),
            record("m3;c", offset: 2, key: "room-c"),
        ])
        let running = harness.start()
        #expect(await eventually { harness.receipts().count == 2 })
        #expect(harness.stored() == nil)
        harness.sender.release("m1/a")
        #expect(await eventually { harness.stored() == 3 })
        _ = await harness.stop(running)
    }

    @Test func pausesEveryPartitionAtTheInFlightLimitAndResumesBelowIt() async {
        var harness = Harness()
        harness.settings.maxInFlightRecords = 2
        harness.settings.batchSize = 2
        harness.sender.hold("m0/a")
        harness.sender.hold("m1/a")
        harness.source.add((0..<5).map { record("m\($0);a", offset: Int64($0), key: "room-\($0)") })
        harness.source.add([record("n0;a", offset: 0, partition: 1)])
        let running = harness.start()
        #expect(await eventually { harness.source.snapshot.paused.count == 2 && harness.sender.sent.count == 2 })
        try? await Task.sleep(for: .milliseconds(20))
        #expect(harness.sender.sent.count == 2)
        harness.sender.release("m0/a")
        harness.sender.release("m1/a")
        #expect(await eventually { harness.stored() == 5 && harness.stored("chat", 1) == 1 })
        _ = await harness.stop(running)
        #expect(!harness.source.snapshot.resumeCalls.isEmpty)
    }
}
