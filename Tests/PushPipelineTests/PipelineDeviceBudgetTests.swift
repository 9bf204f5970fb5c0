import KafkaTypes
import TestSupport
import Testing

@testable import PushPipeline

/// The device budget (`maxInFlightDevices`): records are planned only once their devices fit beside those of
/// unfinished records; one bigger than the whole budget takes it at once, and nothing else starts until it is done;
/// room order and progress are kept.
@Suite(.timeLimit(.minutes(1))) struct PipelineDeviceBudgetTests {
    @Test func plansARecordOnlyOnceItsDevicesFitBesideTheUnfinishedOnes() async {
        var harness = Harness()
        harness.settings.maxInFlightDevices = 4
        let planner = countingPlanner(harness)
        let running = await startHoldingM0(
            harness, planner, (0..<10).map { record("m\($0);a,b,c", offset: Int64($0), key: "room-\($0)") })
        // m0 holds 3 of the 4 units while its send is held: m1's 3 devices do not fit, so it waits unplanned.
        #expect(await harness.settled { running.0.recordsWaitingForDevices > 0 })
        #expect(planner.planned == 3)
        harness.sender.release("m0/a")
        #expect(await harness.settled { harness.stored() == 10 })
        _ = await harness.stop(running)
        #expect(harness.receipts().count == 30)
        #expect(planner.mostUnfinished <= 4)
    }

    @Test func aRecordBiggerThanTheBudgetTakesItAtOnceAndKeepsItsRoomsOrder() async {
        var harness = Harness()
        harness.settings.maxInFlightDevices = 2
        let planner = countingPlanner(harness)
        let running = await startHoldingM0(harness, planner, [record("m0;a", offset: 0, key: "room-a")])
        // m0 is planned and holds its unit when the big record and the one behind it in its room arrive.
        harness.source.add([record("m1;a,b,c,d,e", offset: 1, key: "room-b"), record("m2;a", offset: 2, key: "room-b")])
        // m1 does not wait for m0's unit: it is planned beside it and done; m2, behind it in its room, follows.
        #expect(await harness.settled { planner.planned == 7 && harness.sender.sent.last == "m2/a" })
        harness.sender.release("m0/a")
        #expect(await harness.settled { harness.stored() == 3 })
        _ = await harness.stop(running)
        #expect(harness.sender.sent.last == "m2/a")
        #expect(harness.sender.sent.count == 7)
        #expect(planner.mostUnfinished == 6)
    }

    @Test func undecodableRecordsAndSkippedDevicesGiveTheirUnitsBack() async {
        var harness = Harness()
        harness.settings.maxInFlightDevices = 2
        harness.source.add([
            record("not an event, with, commas", offset: 0, key: "room-a"),
            record("m1;skip1,old2", offset: 1, key: "room-b"),
            record("m2;a,b", offset: 2, key: "room-c"),
        ])
        #expect(await harness.run(untilStored: 3))
        #expect(harness.sender.sent.sorted() == ["m2/a", "m2/b"])
    }

    /// Starts the pipeline on `records` with the send of `m0/a` held; returns once it was sent.
    private func startHoldingM0(
        _ harness: Harness, _ planner: CountingPlanner, _ records: [KafkaRecord]
    ) async -> (Pipeline<String>, Task<PipelineStop, Never>) {
        harness.sender.hold("m0/a")
        harness.source.add(records)
        let running = harness.start(planner: planner)
        #expect(await harness.settled { harness.sender.sent.contains("m0/a") })
        return running
    }

    private func countingPlanner(_ harness: Harness) -> CountingPlanner {
        let sink = harness.sink
        return CountingPlanner { sink.records(on: "receipts").count }
    }
}
