import Essentials
import KafkaTypes

/// One admitted record: where it is from, and which assignment of its partition admitted it.
struct RecordTicket: Hashable, Sendable {
    let partition: TopicPartition
    let offset: Int64
    /// The assignment of `partition` that admitted the record: work ending after a revoke, or after the
    /// partition came back in a newer assignment, never stores an offset.
    let generation: Int

    /// Without the topic's text: tickets in flight differ by offset, and it is hashed several times per record.
    func hash(into hasher: inout Hasher) {
        hasher.combine(offset)
        hasher.combine(partition.partition)
        hasher.combine(generation)
    }
}

/// A room lane's key: the record key's bytes, hashed as one run of bytes (an array of bytes hashes byte by byte).
private struct LaneKey: Hashable {
    let bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// The pipeline's decisions, as a pure state machine: partitions and their offsets, room lanes, admission,
/// retry records waiting for their due time, pauses and revokes. Each input (a poll, a record's room freed
/// or its work ended, time passing, shutdown) returns the actions to take, in order; `Pipeline` performs them.
///
/// Invariants:
/// - a record is started only while its partition is assigned and not revoking, with the assignment's
///   generation; its offset is stored only by that generation, as the partition's contiguous watermark;
/// - a revoke is finished (`finishRevoke`) once the revoked partitions run nothing, or when
///   `revokeDrainTimeout` passed; every store of their finished work comes before it;
/// - `inFlight` counts records started or queued in a room lane and not ended; a retry record waiting for its
///   due time is not in it, and at most one waits per partition (the rest are sought back to and fetched again);
/// - at most one record per room key runs up to its ordering point (`roomFreed`) at once, in offset order.
struct PipelineCore {
    enum Input {
        /// A poll returned: its assignment changes first, then its records.
        case polled(ConsumerPoll, nowMicros: Int64)
        /// The record reached its room's ordering point: the room's next record may start.
        case roomFreed(RecordTicket)
        /// The record's work ended; `done` when all its outcomes are durable.
        case ended(RecordTicket, done: Bool)
        /// Time passed; `breakersOpen` when a provider's breaker is open.
        case tick(nowMicros: Int64, breakersOpen: Bool)
        /// Stop admitting records; pause everything; drop retry records waiting for their due time.
        case shutdown
        /// The shutdown's grace period is over: revokes still draining are finished as they are.
        case graceExpired
    }

    enum Action: Equatable {
        /// Start the record's work; when `inLane`, report `roomFreed` at the room's ordering point.
        case start(KafkaRecord, RecordTicket, inLane: Bool)
        case store(TopicPartition, Int64)
        case pause([TopicPartition])
        case resume([TopicPartition])
        /// Fetch `partition` again from this offset (records after a waiting retry record).
        case seek(TopicPartition, Int64)
        /// Commit the stored offsets of these revoking partitions, then let them go; `unfinished` records
        /// were abandoned and will be delivered to the next owner.
        case finishRevoke([TopicPartition], unfinished: Int)
    }

    private struct PartitionState {
        let generation: Int
        var tracker = OffsetTracker()
        /// Records started and not ended.
        var running = 0
        /// A retry record not yet due, and when it is due (epoch ms); the partition is paused meanwhile.
        var waiting: DueRecord?
        /// Where the partition was sought back to, until a record from there on arrives. librdkafka 2.0.2's pause
        /// moves the fetch position to one past the last record handed out, undoing the seek: every pause in the
        /// meantime seeks again.
        var soughtTo: Int64?
        var paused = false
        var revoking = false
    }

    /// A retry record held until it is due.
    private struct DueRecord {
        let record: KafkaRecord
        let dueMillis: Int64
    }

    /// A room's record running up to its ordering point, and the room's records waiting for it, oldest first.
    private struct Lane {
        var head: RecordTicket
        /// The room's records waiting, oldest first: a hot room holds dozens, and each start takes the oldest.
        var queue = RingBuffer<QueuedRecord>()
    }

    /// A record waiting in its room's lane, with the ticket it starts with.
    private struct QueuedRecord {
        let record: KafkaRecord
        let ticket: RecordTicket

        /// The action starting this record at the head of its lane; the record moves into it.
        consuming func start() -> Action { .start(record, ticket, inLane: true) }
    }

    private struct Revocation {
        var partitions: [TopicPartition]
        let deadlineMicros: Int64
        /// Records dropped from lanes before they started.
        var dropped: Int
    }

    let settings: PipelineSettings
    private var partitions: [TopicPartition: PartitionState] = [:]
    private var lanes: [LaneKey: Lane] = [:]
    /// The lane key of each lane head.
    private var heads: [RecordTicket: LaneKey] = [:]
    private var revocations: [Revocation] = []
    private var nextGeneration = 0
    private var stopping = false
    private var breakersOpen = false
    /// Since when (epoch µs) records have been at `maxInFlightRecords`; nil below the limit.
    private var fullSinceMicros: Int64?

    /// Records started or queued in a lane and not ended (`maxInFlightRecords` counts these).
    private(set) var inFlight = 0

    init(settings: PipelineSettings) {
        self.settings = settings
    }

    /// Retry records held until their due time (at most one per retry-tier partition).
    var waitingForDueTime: Int { partitions.values.count { $0.waiting != nil } }

    /// The partitions assigned now (revoking ones included), and how many of them are paused.
    var assignedCount: Int { partitions.count }
    var pausedCount: Int { partitions.values.count { $0.paused } }

    /// Whether nothing runs and no revoke waits to be finished.
    var isIdle: Bool { inFlight == 0 && revocations.isEmpty }

    /// The partitions assigned now (revoking ones included).
    var assigned: Set<TopicPartition> { Set(partitions.keys) }

    /// `handle` of each of `inputs` in order, the actions of all of them.
    mutating func handle(_ inputs: [Input]) -> [Action] {
        var actions: [Action] = []
        for input in inputs { handle(input, into: &actions) }
        return actions
    }

    mutating func handle(_ input: Input) -> [Action] {
        var actions: [Action] = []
        handle(input, into: &actions)
        return actions
    }

    /// `handle(_:)`, its actions appended to `actions`: the per-record inputs add one action or none, without an
    /// array of their own.
    private mutating func handle(_ input: Input, into actions: inout [Action]) {
        switch input {
        case .polled(let poll, let now):
            for event in poll.events { actions += apply(event, nowMicros: now) }
            admit(poll.records, nowMillis: now / 1000, into: &actions)
        case .roomFreed(let ticket):
            freeRoom(of: ticket, into: &actions)
        case .ended(let ticket, let done):
            end(ticket, done: done, into: &actions)
        case .tick(let now, let breakersOpen):
            self.breakersOpen = breakersOpen
            actions += releaseDueRecords(nowMillis: now / 1000)
            noteTheInFlightLimit(nowMicros: now)
            actions += finishOverdueRevokes(nowMicros: now)
            actions += pauses()
        case .shutdown:
            stopping = true
            for partition in Array(partitions.keys) { partitions[partition]?.waiting = nil }
            actions += pauses()
        case .graceExpired:
            let overdue = revocations
            revocations = []
            for revocation in overdue { actions.append(finish(revocation)) }
        }
    }

    /// True while records are at `maxInFlightRecords` and have not been for `inFlightPauseDelay` yet (as of the last
    /// tick): the loop then waits for room instead of polling. Pausing at once would make librdkafka purge what it
    /// prefetched and fetch it again on resume, which holds throughput to the in-flight limit over the fetch latency.
    var waitsForRoom: Bool { inFlight >= settings.maxInFlightRecords && !pausesForTheInFlightLimit }

    /// Whether the in-flight limit has held for `inFlightPauseDelay`: every partition is then paused, and the loop
    /// polls (serving rebalances) without getting records.
    private var pausesForTheInFlightLimit = false

    private mutating func noteTheInFlightLimit(nowMicros: Int64) {
        guard inFlight >= settings.maxInFlightRecords else {
            fullSinceMicros = nil
            pausesForTheInFlightLimit = false
            return
        }
        let since = fullSinceMicros ?? nowMicros
        fullSinceMicros = since
        pausesForTheInFlightLimit =
            nowMicros - since >= settings.inFlightPauseDelay.wholeMilliseconds.multipliedClamped(by: 1000)
    }

    // MARK: Assignment

    private mutating func apply(_ event: RebalanceEvent, nowMicros: Int64) -> [Action] {
        switch event {
        case .assigned(let assigned):
            var actions: [Action] = []
            for partition in assigned {
                // Only a source that broke its word assigns a partition still revoking: let the old one go first.
                if partitions[partition]?.revoking == true { actions += abandonRevoke(of: partition) }
                nextGeneration += 1
                partitions[partition] = PartitionState(generation: nextGeneration)
            }
            return actions
        case .revoking(let revoked):
            var dropped = 0
            for partition in revoked where partitions[partition] != nil {
                partitions[partition]?.revoking = true
                partitions[partition]?.waiting = nil
                dropped += dropQueued(of: partition)
            }
            revocations.append(
                Revocation(
                    partitions: revoked,
                    deadlineMicros: nowMicros.addingClamped(
                        settings.revokeDrainTimeout.wholeMilliseconds.multipliedClamped(by: 1000)),
                    dropped: dropped))
            return finishDrainedRevokes()
        case .lost(let lost):
            for partition in lost where partitions[partition] != nil {
                _ = dropQueued(of: partition)
                partitions[partition] = nil
            }
            // A revoke whose partitions were lost meanwhile has nothing left to wait for.
            return finishDrainedRevokes()
        }
    }

    /// Takes the records of `partition` out of the room lanes (they have not started); returns how many.
    private mutating func dropQueued(of partition: TopicPartition) -> Int {
        var dropped = 0
        for lane in lanes.indices {
            dropped += lanes.values[lane].queue.removeAll { $0.ticket.partition == partition }
        }
        inFlight -= dropped
        return dropped
    }

    private mutating func finishDrainedRevokes() -> [Action] {
        finishRevokes { core, revocation in
            revocation.partitions.allSatisfy { (core.partitions[$0]?.running ?? 0) == 0 }
        }
    }

    private mutating func finishOverdueRevokes(nowMicros: Int64) -> [Action] {
        finishRevokes { _, revocation in revocation.deadlineMicros <= nowMicros }
    }

    /// Finishes, in order, the revocations `isDue` picks.
    private mutating func finishRevokes(where isDue: (PipelineCore, Revocation) -> Bool) -> [Action] {
        let pending = revocations
        revocations = []
        var actions: [Action] = []
        for revocation in pending {
            if isDue(self, revocation) { actions.append(finish(revocation)) } else { revocations.append(revocation) }
        }
        return actions
    }

    /// Forgets the revocation's partitions; their running work is abandoned (it ends with a stale generation).
    private mutating func finish(_ revocation: Revocation) -> Action {
        var unfinished = revocation.dropped
        for partition in revocation.partitions {
            unfinished += partitions.removeValue(forKey: partition)?.running ?? 0
        }
        return .finishRevoke(revocation.partitions, unfinished: unfinished)
    }

    private mutating func abandonRevoke(of partition: TopicPartition) -> [Action] {
        guard let index = revocations.firstIndex(where: { $0.partitions.contains(partition) }) else { return [] }
        return [finish(revocations.remove(at: index))]
    }

    // MARK: Admission

    /// Admits `records`, each looking its partition up once.
    private mutating func admit(_ records: [KafkaRecord], nowMillis: Int64, into actions: inout [Action]) {
        var soughtBack: [TopicPartition: Int64] = [:]
        for record in records {
            let partition = record.topicPartition
            guard let state = partitions.index(forKey: partition) else { continue }
            if let sought = partitions.values[state].soughtTo, record.offset >= sought {
                partitions.values[state].soughtTo = nil
            }
            // Records of a partition not assigned now, revoking, or after shutdown are never sent.
            guard !stopping, !partitions.values[state].revoking else { continue }
            guard settings.isRetryTopic(record.topic) else {
                start(record, of: state, inLane: record.key != nil, into: &actions)
                continue
            }
            if let waiting = partitions.values[state].waiting {
                soughtBack[partition] = waiting.record.offset.addingClamped(1)
                continue
            }
            let due = FailureHistory.retryDueMillis(of: record, settings: settings, nowMillis: nowMillis) ?? 0
            if due > nowMillis {
                partitions.values[state].tracker.begin(record.offset)
                partitions.values[state].waiting = DueRecord(record: record, dueMillis: due)
                soughtBack[partition] = record.offset.addingClamped(1)
                if !partitions.values[state].paused {
                    partitions.values[state].paused = true
                    actions.append(.pause([partition]))
                }
            } else {
                start(record, of: state, inLane: false, into: &actions)
            }
        }
        for (partition, offset) in soughtBack.sorted(by: { $0.key < $1.key }) {
            partitions[partition]?.soughtTo = offset
            actions.append(.seek(partition, offset))
        }
    }

    /// Admits a record of the assigned partition at `state`: it starts now, or waits in its room's lane.
    private mutating func start(
        _ record: KafkaRecord, of state: [TopicPartition: PartitionState].Index, inLane: Bool,
        into actions: inout [Action]
    ) {
        let generation = partitions.values[state].generation
        let ticket = RecordTicket(partition: record.topicPartition, offset: record.offset, generation: generation)
        partitions.values[state].tracker.begin(record.offset)
        inFlight += 1
        guard inLane, let bytes = record.key else {
            partitions.values[state].running += 1
            actions.append(.start(record, ticket, inLane: false))
            return
        }
        let key = LaneKey(bytes: bytes)
        if let lane = lanes.index(forKey: key) {
            lanes.values[lane].queue.append(QueuedRecord(record: record, ticket: ticket))
            return
        }
        lanes[key] = Lane(head: ticket)
        heads[ticket] = key
        partitions.values[state].running += 1
        actions.append(.start(record, ticket, inLane: true))
    }

    /// Retry records whose due time came start; their partitions resume with the next `pauses()`.
    private mutating func releaseDueRecords(nowMillis: Int64) -> [Action] {
        guard !stopping else { return [] }
        // The due ones found first, in place: this runs every turn, and sorting every partition's state copied each.
        var due: [Dictionary<TopicPartition, PartitionState>.Index] = []
        for index in partitions.indices where !partitions.values[index].revoking {
            if let dueMillis = partitions.values[index].waiting?.dueMillis, dueMillis <= nowMillis { due.append(index) }
        }
        guard !due.isEmpty else { return [] }
        var actions: [Action] = []
        for index in due.sorted(by: { partitions.keys[$0] < partitions.keys[$1] }) {
            guard let waiting = partitions.values[index].waiting.take() else { continue }
            let ticket = RecordTicket(
                partition: partitions.keys[index], offset: waiting.record.offset,
                generation: partitions.values[index].generation)
            partitions.values[index].running += 1
            inFlight += 1
            actions.append(.start(waiting.record, ticket, inLane: false))
        }
        return actions
    }

    // MARK: Work ending

    /// Starts the next record of the room `ticket` heads. The lane is changed where it is stored: a copy taken out of
    /// `lanes` would share its queue, and taking the first record would then copy the whole rest of it (a hot room
    /// holds dozens).
    private mutating func freeRoom(of ticket: RecordTicket, into actions: inout [Action]) {
        guard let key = heads.removeValue(forKey: ticket), let lane = lanes.index(forKey: key) else { return }
        guard let next = lanes.values[lane].queue.popFirst() else {
            lanes.remove(at: lane)
            return
        }
        let ticket = next.ticket
        lanes.values[lane].head = ticket
        heads[ticket] = key
        // Through its index: `partitions[…]?.running += 1` moved the partition's whole state out and back.
        if let state = partitions.index(forKey: ticket.partition) { partitions.values[state].running += 1 }
        actions.append(next.start())
    }

    private mutating func end(_ ticket: RecordTicket, done: Bool, into actions: inout [Action]) {
        inFlight -= 1
        freeRoom(of: ticket, into: &actions)
        guard let state = partitions.index(forKey: ticket.partition),
            partitions.values[state].generation == ticket.generation
        else { return }
        partitions.values[state].running -= 1
        if done, let mark = partitions.values[state].tracker.complete(ticket.offset) {
            actions.append(.store(ticket.partition, mark))
        }
        if partitions.values[state].revoking { actions += finishDrainedRevokes() }
    }

    // MARK: Flow control

    /// Pauses every partition under back-pressure (the in-flight limit held for `inFlightPauseDelay`, an open breaker,
    /// shutdown) and those holding a
    /// retry record not yet due; resumes the others that were paused. Revoking partitions are left as they are.
    private mutating func pauses() -> [Action] {
        let backPressure = stopping || pausesForTheInFlightLimit || breakersOpen
        var toPause: [TopicPartition] = []
        var toResume: [TopicPartition] = []
        for (partition, state) in partitions where !state.revoking {
            let wanted = backPressure || state.waiting != nil
            if wanted, !state.paused { toPause.append(partition) }
            if !wanted, state.paused { toResume.append(partition) }
        }
        for partition in toPause { partitions[partition]?.paused = true }
        for partition in toResume { partitions[partition]?.paused = false }
        var actions: [Action] = []
        if !toPause.isEmpty { actions.append(.pause(toPause.sorted())) }
        for partition in toPause.sorted() {
            if let sought = partitions[partition]?.soughtTo { actions.append(.seek(partition, sought)) }
        }
        if !toResume.isEmpty { actions.append(.resume(toResume.sorted())) }
        return actions
    }
}
