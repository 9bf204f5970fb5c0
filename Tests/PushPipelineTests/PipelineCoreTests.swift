import Essentials
import KafkaTypes
import PushCore
import TestSupport
import Testing

@testable import PushPipeline

/// The pipeline's decisions without threads: every interleaving of polls, rebalances, work ending, time and
/// shutdown that matters, as inputs and the actions they return.
@Suite struct PipelineCoreTests {
    static let chat = TopicPartition("chat", 0)
    static let other = TopicPartition("chat", 1)
    static let retry = TopicPartition("retry-600000", 0)
    static let now: Int64 = 1_800_000_000_000_000

    let settings = Harness().settings

    func core(maxInFlightRecords: Int? = nil) -> PipelineCore {
        var settings = settings
        if let maxInFlightRecords { settings.maxInFlightRecords = maxInFlightRecords }
        return PipelineCore(settings: settings)
    }

    func poll(_ events: [RebalanceEvent] = [], _ records: [KafkaRecord] = [], at now: Int64 = now) -> PipelineCore.Input
    {
        .polled(ConsumerPoll(events: events, records: records), nowMicros: now)
    }

    func ticket(_ record: KafkaRecord, generation: Int = 1) -> RecordTicket {
        RecordTicket(partition: record.topicPartition, offset: record.offset, generation: generation)
    }

    func started(_ actions: [PipelineCore.Action]) -> [Int64] {
        actions.compactMap { if case .start(let record, _, _) = $0 { record.offset } else { nil } }
    }

    /// A core with `assigned` assigned, `m0;a` (offset 0 of `chat`) running, and `chat` revoking.
    func revokingWhileOneRuns(assigned: [TopicPartition] = [chat]) -> (PipelineCore, running: KafkaRecord) {
        var core = core()
        let first = record("m0;a", offset: 0)
        _ = core.handle(poll([.assigned(assigned)], [first]))
        _ = core.handle(poll([.revoking([Self.chat])]))
        return (core, first)
    }

    /// The actions of `first` ending done while its partition revokes: its store, then the revoke's end.
    static let storedThenFinished: [PipelineCore.Action] = [
        .store(chat, 1), .finishRevoke([chat], unfinished: 0),
    ]

    func retryRecord(offset: Int64, dueInMillis: Int64) -> KafkaRecord {
        let due = Self.now / 1000 + dueInMillis
        return record(
            "m\(offset);a", offset: offset, topic: Self.retry.topic,
            headers: [KafkaHeader(name: "x-retry-due", text: String(due)), KafkaHeader(name: "x-attempts", text: "1")])
    }

    // MARK: Rebalances

    @Test func recordsOfAPartitionRevokedInTheSamePollAreNeverStarted() {
        var core = core()
        _ = core.handle(poll([.assigned([Self.chat])]))
        let actions = core.handle(
            poll([.revoking([Self.chat])], [record("m0;a", offset: 0), record("m1;a", offset: 1, key: "room-b")]))
        #expect(actions == [.finishRevoke([Self.chat], unfinished: 0)])
        #expect(core.inFlight == 0)
    }

    @Test func recordsOfAPartitionNotAssignedAreDroppedNotStartedInANewState() {
        var core = core()
        let actions = core.handle(poll([], [record("m0;a", offset: 0)]))
        #expect(actions.isEmpty)
        #expect(core.assigned.isEmpty)
        #expect(core.inFlight == 0)
    }

    @Test func recordsPolledAfterTheRevokeWasFinishedAreDropped() {
        var core = core()
        _ = core.handle(poll([.assigned([Self.chat])]))
        _ = core.handle(poll([.revoking([Self.chat])]))
        #expect(core.handle(poll([], [record("m0;a", offset: 0)])).isEmpty)
    }

    @Test func aRevokeWaitsForRunningWorkThenStoresItsOffsetBeforeFinishing() {
        var (core, first) = revokingWhileOneRuns()
        #expect(core.inFlight == 1)
        #expect(core.handle(.ended(ticket(first), done: true)) == Self.storedThenFinished)
        #expect(core.isIdle)
    }

    @Test func workFinishingAfterTheRevokeGaveUpStoresNothing() {
        var (core, first) = revokingWhileOneRuns()
        let timeout = settings.revokeDrainTimeout.wholeMilliseconds * 1000
        #expect(core.handle(.tick(nowMicros: Self.now + timeout - 1, breakersOpen: false)).isEmpty)
        #expect(
            core.handle(.tick(nowMicros: Self.now + timeout, breakersOpen: false)) == [
                .finishRevoke([Self.chat], unfinished: 1)
            ])
        #expect(core.inFlight == 1)
        #expect(core.handle(.ended(ticket(first), done: true)).isEmpty)
        #expect(core.isIdle)
    }

    @Test func workOfAnEarlierAssignmentNeverStoresIntoTheNewOne() {
        var (core, old) = revokingWhileOneRuns()
        let timeout = settings.revokeDrainTimeout.wholeMilliseconds * 1000
        _ = core.handle(.tick(nowMicros: Self.now + timeout, breakersOpen: false))
        // The group gives the partition back; the next owner's position is offset 0 again.
        let again = record("m0;a", offset: 0, key: "room-b")
        let actions = core.handle(poll([.assigned([Self.chat])], [again]))
        #expect(actions.count == 1)
        guard case .start(_, let newTicket, _)? = actions.first else { return }
        #expect(newTicket.generation == 2)
        #expect(core.handle(.ended(ticket(old), done: true)).isEmpty)
        #expect(core.handle(.ended(newTicket, done: true)) == [.store(Self.chat, 1)])
    }

    @Test func lostPartitionsAreForgottenWithoutARevokeToFinish() {
        var core = core()
        let first = record("m0;a", offset: 0)
        _ = core.handle(poll([.assigned([Self.chat])], [first]))
        #expect(core.handle(poll([.lost([Self.chat])])).isEmpty)
        #expect(core.handle(.ended(ticket(first), done: true)).isEmpty)
        #expect(core.isIdle)
    }

    @Test func aRevokeWhosePartitionIsLostMeanwhileIsFinishedAtOnce() {
        var (core, first) = revokingWhileOneRuns()
        #expect(core.handle(poll([.lost([Self.chat])])) == [.finishRevoke([Self.chat], unfinished: 0)])
        #expect(core.handle(.ended(ticket(first), done: true)).isEmpty)
        #expect(core.isIdle)
    }

    @Test func aRevokedPartitionsQueuedRoomRecordsAreDroppedAndTheRoomGoesOn() {
        var core = core()
        let head = record("m0;a", offset: 0, partition: 1)
        let queued = record("m1;a", offset: 0)
        let later = record("m2;a", offset: 1, partition: 1)
        _ = core.handle(poll([.assigned([Self.chat, Self.other])], [head, queued, later]))
        #expect(core.inFlight == 3)
        #expect(core.handle(poll([.revoking([Self.chat])])) == [.finishRevoke([Self.chat], unfinished: 1)])
        #expect(core.inFlight == 2)
        let actions = core.handle(.roomFreed(ticket(head, generation: 2)))
        #expect(started(actions) == [1])
    }

    @Test func aRevokeWhileARetryRecordWaitsDropsItAndFinishesAtOnce() {
        var core = core()
        _ = core.handle(poll([.assigned([Self.retry])], [retryRecord(offset: 5, dueInMillis: 60_000)]))
        #expect(core.waitingForDueTime == 1)
        #expect(core.handle(poll([.revoking([Self.retry])])) == [.finishRevoke([Self.retry], unfinished: 0)])
        #expect(core.waitingForDueTime == 0)
        #expect(core.handle(.tick(nowMicros: Self.now + 61_000_000, breakersOpen: false)).isEmpty)
    }

    @Test func revokingPartitionsAreNeitherPausedNorResumed() {
        var (core, _) = revokingWhileOneRuns(assigned: [Self.chat, Self.other])
        #expect(core.handle(.tick(nowMicros: Self.now, breakersOpen: true)) == [.pause([Self.other])])
    }

    // MARK: Shutdown

    @Test func shutdownDuringARevokeStillStoresAndFinishesItWhenTheWorkEnds() {
        var (core, first) = revokingWhileOneRuns(assigned: [Self.chat, Self.other])
        #expect(core.handle(.shutdown) == [.pause([Self.other])])
        #expect(!core.isIdle)
        #expect(core.handle(.ended(ticket(first), done: true)) == Self.storedThenFinished)
        #expect(core.isIdle)
    }

    @Test func shutdownDuringARevokeFinishesItWhenTheGracePeriodIsOver() {
        var (core, _) = revokingWhileOneRuns()
        _ = core.handle(.shutdown)
        #expect(core.handle(.graceExpired) == [.finishRevoke([Self.chat], unfinished: 1)])
        #expect(core.handle(.graceExpired).isEmpty)
    }

    @Test func recordsPolledAfterShutdownAreNotStarted() {
        var core = core()
        _ = core.handle(poll([.assigned([Self.chat])]))
        _ = core.handle(.shutdown)
        #expect(core.handle(poll([], [record("m0;a", offset: 0)])).isEmpty)
    }

    // MARK: Rooms

    @Test func aRoomsNextRecordStartsAtTheOrderingPointOrWhenThePreviousEnded() {
        var core = core()
        let records = (0..<3).map { record("m\($0);a", offset: Int64($0)) }
        #expect(started(core.handle(poll([.assigned([Self.chat])], records))) == [0])
        #expect(started(core.handle(.roomFreed(ticket(records[0])))) == [1])
        // A record whose work failed before its ordering point frees the room too.
        #expect(started(core.handle(.ended(ticket(records[1]), done: false))) == [2])
        #expect(core.handle(.ended(ticket(records[0]), done: true)) == [.store(Self.chat, 1)])
        #expect(core.handle(.ended(ticket(records[2]), done: true)).isEmpty)
        #expect(core.isIdle)
    }

    @Test func recordsWithoutAKeyStartAtOnce() {
        var core = core()
        let records = (0..<3).map { record("m\($0);a", offset: Int64($0), key: nil) }
        #expect(started(core.handle(poll([.assigned([Self.chat])], records))) == [0, 1, 2])
    }

    // MARK: Retry records waiting for their due time

    @Test func aRetryRecordNotDueIsHeldAloneTheRestIsSoughtBackAndNothingElseIsHeldUp() {
        var core = core(maxInFlightRecords: 2)
        let actions = core.handle(
            poll(
                [.assigned([Self.chat, Self.retry])],
                [
                    retryRecord(offset: 5, dueInMillis: 600_000), retryRecord(offset: 6, dueInMillis: 600_000),
                    retryRecord(offset: 7, dueInMillis: 600_000),
                ]))
        #expect(actions == [.pause([Self.retry]), .seek(Self.retry, 6)])
        #expect(core.waitingForDueTime == 1)
        #expect(core.inFlight == 0)
        #expect(core.handle(.tick(nowMicros: Self.now, breakersOpen: false)).isEmpty)
        // Records fetched before the seek took effect are dropped and sought back to again.
        #expect(core.handle(poll([], [retryRecord(offset: 6, dueInMillis: 600_000)])) == [.seek(Self.retry, 6)])
        // Fresh events start, and the input partition is never paused for it.
        #expect(started(core.handle(poll([], [record("m0;a", offset: 0)]))) == [0])
    }

    @Test func aRetryRecordStartsAtItsDueTimeAndItsPartitionResumes() {
        var core = core()
        let waiting = retryRecord(offset: 5, dueInMillis: 60_000)
        _ = core.handle(poll([.assigned([Self.retry])], [waiting]))
        #expect(core.handle(.tick(nowMicros: Self.now + 59_999_000, breakersOpen: false)).isEmpty)
        let actions = core.handle(.tick(nowMicros: Self.now + 60_000_000, breakersOpen: false))
        #expect(actions == [.start(waiting, ticket(waiting), inLane: false), .resume([Self.retry])])
        #expect(core.handle(.ended(ticket(waiting), done: true)) == [.store(Self.retry, 6)])
    }

    /// librdkafka 2.0.2's pause moves the fetch position to one past the last record handed out: a pause between the
    /// resume and the records sought back to would skip them, and their offsets would be stored past them.
    @Test func aPauseBeforeTheSoughtBackRecordsCameAgainSeeksThereAgain() {
        var core = core()
        let waiting = retryRecord(offset: 5, dueInMillis: 60_000)
        _ = core.handle(poll([.assigned([Self.retry])], [waiting, retryRecord(offset: 6, dueInMillis: 60_000)]))
        _ = core.handle(.tick(nowMicros: Self.now + 60_000_000, breakersOpen: false))
        #expect(
            core.handle(.tick(nowMicros: Self.now + 60_000_000, breakersOpen: true)) == [
                .pause([Self.retry]), .seek(Self.retry, 6),
            ])
        _ = core.handle(.tick(nowMicros: Self.now + 60_000_000, breakersOpen: false))
        _ = core.handle(poll([], [retryRecord(offset: 6, dueInMillis: 0)]))
        #expect(core.handle(.tick(nowMicros: Self.now + 60_000_000, breakersOpen: true)) == [.pause([Self.retry])])
    }

    @Test func aRetryRecordAlreadyDueStartsAtOnceOutsideTheRoomLanes() {
        var core = core()
        let due = retryRecord(offset: 5, dueInMillis: 0)
        #expect(core.handle(poll([.assigned([Self.retry])], [due])) == [.start(due, ticket(due), inLane: false)])
    }

    @Test func shutdownDropsWaitingRetryRecordsWithoutStoringPastThem() {
        var core = core()
        let waiting = retryRecord(offset: 5, dueInMillis: 60_000)
        _ = core.handle(poll([.assigned([Self.retry])], [waiting]))
        _ = core.handle(.shutdown)
        #expect(core.waitingForDueTime == 0)
        #expect(core.isIdle)
        #expect(core.handle(.tick(nowMicros: Self.now + 60_000_000, breakersOpen: false)).isEmpty)
    }

    // MARK: Back-pressure

    @Test func atTheInFlightLimitForThePauseDelayEveryPartitionPausesAndResumesBelowIt() {
        var core = core(maxInFlightRecords: 1)
        let first = record("m0;a", offset: 0)
        _ = core.handle(poll([.assigned([Self.chat, Self.other])], [first]))
        let delay = settings.inFlightPauseDelay.wholeMilliseconds * 1000
        #expect(core.handle(.tick(nowMicros: Self.now, breakersOpen: false)).isEmpty)
        #expect(core.waitsForRoom)
        #expect(
            core.handle(.tick(nowMicros: Self.now + delay, breakersOpen: false)) == [.pause([Self.chat, Self.other])])
        #expect(!core.waitsForRoom)
        _ = core.handle(.ended(ticket(first), done: true))
        #expect(core.handle(.tick(nowMicros: Self.now, breakersOpen: false)) == [.resume([Self.chat, Self.other])])
        #expect(core.handle(.tick(nowMicros: Self.now, breakersOpen: true)) == [.pause([Self.chat, Self.other])])
    }

    @Test func waitsForRoomAtTheLimitOnlyUntilThePauseDelayPassed() {
        var core = core(maxInFlightRecords: 1)
        _ = core.handle(poll([.assigned([Self.chat])], [record("m0;a", offset: 0)]))
        let delay = settings.inFlightPauseDelay.wholeMilliseconds * 1000
        var waits: [Bool] = []
        for now in [Self.now, Self.now + delay - 1, Self.now + delay] {
            _ = core.handle(.tick(nowMicros: now, breakersOpen: false))
            waits.append(core.waitsForRoom)
        }
        #expect(waits == [true, true, false])
    }
}
