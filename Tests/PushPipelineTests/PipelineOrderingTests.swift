import Essentials
import PushCore
import TestSupport
import Testing

@testable import PushPipeline

@Suite(.timeLimit(.minutes(1))) struct PipelineOrderingTests {
    @Test func aRoomsNextRecordWaitsForThePreviousFirstAttemptWhileOtherRoomsGoOn() async {
        let harness = Harness()
        let running = harness.startHoldingTheFirstOfThree(rooms: ["room-a", "room-a", "room-b"])
        #expect(await harness.settled { harness.sender.sent.contains("m3/c") })
        #expect(!harness.sender.sent.contains("m2/b"))
        harness.sender.release("m1/a")
        #expect(await harness.settled { harness.stored() == 3 })
        _ = await harness.stop(running)
        let sent = harness.sender.sent
        #expect(sent.firstIndex(of: "m1/a")! < sent.firstIndex(of: "m2/b")!)
    }

    /// m1 (room a) is retried in process after 5 s; m2 is room a's next record, m3 another room's.
    @Test(arguments: RoomOrdering.allCases)
    func inStrictOrderARoomsNextRecordWaitsForThePreviousOnesInProcessRetriesOtherwiseOnlyForItsFirstAttempts(
        order: RoomOrdering
    ) async throws {
        var harness = Harness()
        harness.settings.roomOrder = order
        harness.sender.script("m1/a", [.retry(status: 503, reason: "ServiceUnavailable", after: .seconds(5))])
        harness.source.add([
            record("m1;a", offset: 0, key: "room-a"), record("m2;b", offset: 1, key: "room-a"),
            record("m3;c", offset: 2, key: "room-c"),
        ])
        #expect(await harness.run(untilStored: 3))
        let sent = harness.sender.sent
        #expect(sent.filter { $0 == "m1/a" }.count == 2)
        let retried = try #require(sent.lastIndex(of: "m1/a"))
        let next = try #require(sent.firstIndex(of: "m2/b"))
        #expect(try #require(sent.firstIndex(of: "m3/c")) < retried)
        switch order {
        case .strict: #expect(retried < next)
        case .firstAttempt: #expect(next < retried)
        }
        #expect(harness.retryRecords().isEmpty)
    }

    @Test(arguments: RoomOrdering.allCases)
    func aHandOffToTheRetryTopicLetsTheRoomsNextRecordGo(order: RoomOrdering) async {
        var harness = Harness()
        harness.settings.roomOrder = order
        harness.sender.script("m1/a", [.retry(status: 503, reason: "ServiceUnavailable", after: .seconds(60))])
        harness.source.add([record("m1;a", offset: 0), record("m2;b", offset: 1)])
        let started = harness.clock.nowMillis()
        #expect(await harness.run(untilStored: 2))
        #expect(harness.sender.sent == ["m1/a", "m2/b"])
        #expect(harness.retryRecords().map(\.text) == ["m1;a"])
        #expect(harness.clock.nowMillis() - started < 60_000)
    }

    @Test func inStrictOrderARoomWaitsForInProcessRetriesOnlyWithinTheBudget() async {
        var harness = Harness()
        harness.settings.retryBudget = .seconds(3)
        harness.sender.script(
            "m1/a", Array(repeating: .retry(status: 500, reason: "InternalServerError", after: nil), count: 3))
        harness.source.add([record("m1;a", offset: 0), record("m2;b", offset: 1)])
        let started = harness.clock.nowMillis()
        #expect(await harness.run(untilStored: 2))
        // 1 s then 2 s of backoff fill the 3 s budget; the next 3 s would not fit, so m1 goes to the retry topic.
        #expect(harness.sender.sent == ["m1/a", "m1/a", "m1/a", "m2/b"])
        #expect(harness.retryRecords().map(\.text) == ["m1;a"])
        #expect(harness.clock.nowMillis() - started < 10_000)
    }

    @Test func theWatermarkWaitsForAnUnfinishedEarlierRecord() async {
        let harness = Harness()
        let running = harness.startHoldingTheFirstOfThree(rooms: ["room-a", "room-b", "room-c"])
        #expect(await harness.settled { harness.receipts().count == 2 })
        #expect(harness.stored() == nil)
        harness.sender.release("m1/a")
        #expect(await harness.settled { harness.stored() == 3 })
        _ = await harness.stop(running)
    }

    /// At the limit the loop stops polling (librdkafka keeps what it prefetched, where a pause would purge it) and
    /// pauses every partition only once the limit has held for `inFlightPauseDelay`.
    @Test func stopsPollingAtTheInFlightLimitPausesEveryPartitionIfItHoldsAndResumesBelowIt() async {
        var harness = Harness()
        harness.settings.maxInFlightRecords = 2
        harness.settings.batchSize = 2
        harness.sender.hold("m0/a")
        harness.sender.hold("m1/a")
        harness.source.add((0..<5).map { record("m\($0);a", offset: Int64($0), key: "room-\($0)") })
        harness.source.add([record("n0;a", offset: 0, partition: 1)])
        let running = harness.start()
        #expect(await harness.settled { harness.sender.sent.count == 2 })
        // The loop now waits for room, on the clock (its timer) or for a record to end: neither comes by itself.
        #expect(await harness.settled { harness.observer.all.contains(.waitedForRoom) })
        #expect(harness.clock.sleeperCount > 0)
        let pollsAtTheLimit = harness.source.snapshot.polls
        // Short of `inFlightPauseDelay`, its timer ends wait after wait: no poll, no pause.
        let short = harness.settings.inFlightPauseDelay - harness.settings.pollTimeout
        #expect(await harness.advancing(within: short) { false } == false)
        #expect(harness.source.snapshot.paused.isEmpty)
        #expect(harness.source.snapshot.polls == pollsAtTheLimit)
        #expect(harness.observer.all.filter { $0 == .waitedForRoom }.count > 1)
        harness.clock.advance(by: harness.settings.pollTimeout)
        #expect(await harness.settled { harness.source.snapshot.paused.count == 2 })
        #expect(harness.sender.sent.count == 2)
        harness.sender.release("m0/a")
        harness.sender.release("m1/a")
        // Below the limit, the loop resumes the partitions at its next turn.
        #expect(await harness.advancing { harness.stored() == 5 && harness.stored("chat", 1) == 1 })
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
