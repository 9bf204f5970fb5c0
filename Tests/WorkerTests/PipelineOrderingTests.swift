import Testing

@testable import Worker

@Suite struct PipelineOrderingTests {
    @Test func aRoomsNextRecordWaitsForThePreviousFirstAttemptWhileOtherRoomsGoOn() async {
        let harness = Harness()
        let running = harness.startHoldingTheFirstOfThree(rooms: ["room-a", "room-a", "room-b"])
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
        #expect(await harness.run(untilStored: 2))
        let sent = harness.sender.sent
        #expect(sent.filter { $0 == "m1/a" }.count == 2)
        #expect(sent.firstIndex(of: "m2/b")! < sent.lastIndex(of: "m1/a")!)
    }

    @Test func theWatermarkWaitsForAnUnfinishedEarlierRecord() async {
        let harness = Harness()
        let running = harness.startHoldingTheFirstOfThree(rooms: ["room-a", "room-b", "room-c"])
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

extension Harness {
    /// Starts the pipeline on `m1;a`, `m2;b` and `m3;c` (offsets 0 to 2) keyed by `rooms`, the send of `m1/a` held.
    fileprivate func startHoldingTheFirstOfThree(rooms: [String]) -> (Pipeline<String>, Task<PipelineStop, Never>) {
        sender.hold("m1/a")
        source.add(
            zip(["m1;a", "m2;b", "m3;c"], rooms).enumerated().map { offset, event in
                record(event.0, offset: Int64(offset), key: event.1)
            })
        return start()
    }
}
