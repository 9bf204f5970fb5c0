public import Essentials
import KafkaTypes
import Synchronization

/// The worker's pipeline: consume → plan → send → receipts / retry / dead-letter → store offsets.
///
/// The one place that knows every stage; it talks to them through ports (`RecordSource`,
/// `RecordSink`, `EventPlanner`, `PushSender`, `RetryDelayPolicy`, `WallClock`). Guarantees:
/// - at least once: a record's offset is stored only when all its devices have a terminal outcome
///   (or were handed to the retry topic) and its output records were acknowledged, as a contiguous
///   watermark per partition;
/// - per-room order: records with the same key on an input topic are sent in offset order, each waiting
///   for the previous one's in-process retries (`RoomOrdering.strict`) or only its first attempts
///   (`.firstAttempt`); a hand-off to the retry topic lets the room go on; rooms run in parallel;
/// - bounded memory: at `maxInFlightRecords`, or while a provider's breaker is open, every partition
///   is paused; a retry-tier partition holding a record not yet due is paused (that one record is held, the rest
///   fetched again when it is due), and such a record counts against no limit; a record is planned only once its
///   devices fit in `maxInFlightDevices` beside those of unfinished records (records wait in FIFO order; one
///   bigger than the whole budget takes it at once and runs while nobody else starts);
/// - rebalances: records of a partition not assigned, or revoking, are never started; a revoke is finished (its
///   offsets committed, then the partitions let go) once their running work ended, or after `revokeDrainTimeout`.
///
/// Every decision is `PipelineCore`'s; this actor performs its actions and runs each record's work in a task.
public actor Pipeline<Request: Sendable> {
    private let source: any RecordSource
    private let sink: any RecordSink
    private let processor: RecordProcessor<Request>
    private let breakers: ProviderBreakers
    private let clock: any WallClock
    private let observer: any PipelineObserver
    private let settings: PipelineSettings
    private let stopFlag = StopFlag()
    /// The executor the tasks the pipeline starts prefer; `nil`: the global one.
    private let taskExecutor: (any TaskExecutor)?
    /// The actor's part of `snapshot`, published whenever it changes.
    private let published: Mutex<PipelineSnapshot>

    /// Every decision: partitions, lanes, admission, waiting retry records, pauses, revokes. Published once per
    /// change: the inputs of one turn go in one `handle`.
    private var core: PipelineCore {
        didSet {
            let (inFlight, waiting) = (core.inFlight, core.waitingForDueTime)
            let (assigned, paused) = (core.assignedCount, core.pausedCount)
            published.withLock {
                $0.recordsInFlight = inFlight
                $0.recordsWaitingForDueTime = waiting
                $0.partitionsAssigned = assigned
                $0.partitionsPaused = paused
            }
        }
    }
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var nextTaskId = 0
    /// The run loop waiting for a record to end (`waitForRoom`), and which wait it is.
    private var roomWaiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
    private var nextRoomWait = 0

    /// `invalidations` is the token-invalidation guard every provider answer is counted in (`nil`: every "invalid
    /// token" answer is acted on). `taskExecutor` is the executor the record tasks and timers the pipeline starts
    /// prefer (`nil`: the global one); a test passes one it watches, to know when every task is suspended.
    public init(
        source: any RecordSource, sink: any RecordSink, planner: any EventPlanner<Request>,
        sender: any PushSender<Request>, retryPolicy: any RetryDelayPolicy, clock: any WallClock,
        observer: any PipelineObserver, settings: PipelineSettings, invalidations: TokenInvalidationWatch? = nil,
        taskExecutor: (any TaskExecutor)? = nil
    ) {
        let breakers = ProviderBreakers(
            threshold: settings.providerFailureThreshold, probeInterval: settings.probeInterval)
        let stopFlag = self.stopFlag
        let delivery = DeviceDelivery(
            sender: sender, retryPolicy: retryPolicy, clock: clock, breakers: breakers,
            globalLimit: AsyncLimiter(limit: settings.maxConcurrentSends),
            providerLimits: Dictionary(
                uniqueKeysWithValues: PushProvider.allCases.map {
                    ($0, AsyncLimiter(limit: settings.maxSendsPerProvider))
                }
            ),
            originLimits: OriginLimits(limit: settings.maxSendsPerOrigin), settings: settings, observer: observer,
            isStopping: { stopFlag.isSet })
        self.source = source
        self.sink = sink
        self.processor = RecordProcessor(
            planner: planner, delivery: delivery, sink: sink, clock: clock, observer: observer,
            outputs: RecordOutputs(settings: settings),
            produceBackoff: Backoff(base: settings.produceRetryBase, cap: settings.produceRetryCap),
            deviceBudget: AsyncBudget(limit: settings.maxInFlightDevices), invalidations: invalidations)
        self.breakers = breakers
        self.clock = clock
        self.observer = observer
        self.settings = settings
        self.core = PipelineCore(settings: settings)
        self.taskExecutor = taskExecutor
        self.published = Mutex(PipelineSnapshot(lastPollMicros: clock.nowMicros()))
    }

    /// Asks the pipeline to stop: no new records, in-flight work finishes within the grace period.
    public nonisolated func shutdown() {
        stopFlag.set()
    }

    /// The pipeline's state now: what the actor published, with the device budget and the breakers, which its
    /// record tasks change outside the actor, read at the same time.
    public nonisolated var snapshot: PipelineSnapshot {
        var snapshot = published.withLock { $0 }
        snapshot.devicesInFlight = processor.deviceBudget.held
        snapshot.openBreakers = PushProvider.allCases.filter(breakers.isOpen)
        snapshot.openOriginBreakers = breakers.openOrigins
        return snapshot
    }

    /// `snapshot`'s records admitted and not yet done or dropped.
    public nonisolated var recordsInFlight: Int { published.withLock { $0.recordsInFlight } }

    /// `snapshot`'s retry records held until their due time.
    public nonisolated var recordsWaitingForDueTime: Int { published.withLock { $0.recordsWaitingForDueTime } }

    /// Records waiting for room in the device budget before they are planned (tests wait for this point instead of
    /// sleeping).
    nonisolated var recordsWaitingForDevices: Int { processor.deviceBudget.waitingCount }

    /// Consumes until `shutdown()`, then drains within the grace period, commits and closes the source.
    ///
    /// Compiled once more for the worker's request type (`@_specialize`: the compiler enters that copy when
    /// `Request` is `ProviderSend`), so the poll loop, the record tasks, the record processor and device delivery run
    /// without run-time type metadata lookups and witness-table copies per record. Tests' fakes run the generic code.
    @_specialize(where Request == ProviderSend)
    public func run() async -> PipelineStop {
        while !stopFlag.isSet {
            await perform(core.handle(.tick(nowMicros: clock.nowMicros(), breakersOpen: breakers.anyOpen)))
            if core.waitsForRoom {
                await waitForRoom(upTo: settings.pollTimeout)
                continue
            }
            await pollOnce()
        }
        return await drainAndClose()
    }

    /// One poll, its assignment changes and records handed to the core; whether it brought an assignment change.
    @discardableResult
    private func pollOnce() async -> Bool {
        do {
            let polled = try await source.poll(maxRecords: settings.batchSize, timeout: settings.pollTimeout)
            let now = clock.nowMicros()
            published.withLock { $0.lastPollMicros = now }
            observe(polled)
            await perform(core.handle(.polled(polled, nowMicros: clock.nowMicros())))
            return !polled.events.isEmpty
        } catch {
            observer.observe(.pollFailed(String(describing: error)))
            try? await clock.sleep(for: settings.pollTimeout)
            return false
        }
    }

    private func observe(_ polled: ConsumerPoll) {
        for event in polled.events {
            if case .assigned(let partitions) = event { observer.observe(.assigned(partitions)) }
            if case .lost(let partitions) = event { observer.observe(.lost(partitions)) }
        }
        guard !polled.records.isEmpty else { return }
        var counts: [String: Int] = [:]
        for record in polled.records { counts[record.topic, default: 0] += 1 }
        for (topic, count) in counts { observer.observe(.polled(topic: topic, count: count)) }
    }

    // MARK: Actions

    /// Performs `actions` in order; the records they start begin once the others were performed (`start`), and of the
    /// offsets stored for a partition only the last is, before a revoke is finished and at the end (`store`): the
    /// records that end in one turn store one offset per partition, not one each. `adopting`: the records of input
    /// topics it would start together are returned instead, for the group asking to run them itself.
    @discardableResult
    private func perform(_ actions: consuming [PipelineCore.Action], adopting: Bool = false) async -> [Start] {
        var starting: [Start] = []
        var stores: [(partition: TopicPartition, offset: Int64)] = []
        // Moved out, so that a started record moves on with its action rather than being copied.
        for action in actions.moved() {
            switch consume action {
            case .start(let record, let ticket, let inLane):
                starting.append(Start(record: record, ticket: ticket, inLane: inLane))
            case .store(let partition, let offset):
                if let index = stores.firstIndex(where: { $0.partition == partition }) {
                    stores[index].offset = offset
                } else {
                    stores.append((partition, offset))
                }
            case .pause(let partitions):
                change(partitions) { try $0.pause(partitions) }
                observer.observe(.paused(partitions))
            case .resume(let partitions):
                change(partitions) { try $0.resume(partitions) }
                observer.observe(.resumed(partitions))
            case .seek(let partition, let offset):
                change([partition]) { try $0.seek(partition, to: offset) }
            case .finishRevoke(let partitions, let unfinished):
                store(stores)
                stores = []
                do {
                    try await source.finishRevoke(partitions)
                } catch {
                    observer.observe(.commitFailed(String(describing: error)))
                }
                observer.observe(.revoked(partitions, unfinished: unfinished))
            }
        }
        store(stores)
        return start(consume starting, adopting: adopting)
    }

    /// Stores each partition's offset.
    private func store(_ offsets: [(partition: TopicPartition, offset: Int64)]) {
        for (partition, offset) in offsets {
            do {
                try source.storeOffset(offset, for: partition)
                observer.observe(.offsetStored(partition, offset))
            } catch {
                observer.observe(.storeFailed(partition, String(describing: error)))
            }
        }
    }

    private func change(_ partitions: [TopicPartition], _ call: (any RecordSource) throws -> Void) {
        do {
            try call(source)
        } catch {
            observer.observe(.pollFailed(String(describing: error)))
        }
    }

    /// A record the core started, and whether it is its room lane's head.
    private struct Start: Sendable {
        let record: KafkaRecord
        let ticket: RecordTicket
        let inLane: Bool
    }

    /// Runs the records started together: those of input topics in one task when there are several (`together`),
    /// the others in a task each (`spawn`). A retry record goes alone: it may move on unsent
    /// (`RecordProcessor.process`). `adopting`: those of input topics are returned, not started (`perform`).
    @discardableResult
    private func start(_ records: consuming [Start], adopting: Bool = false) -> [Start] {
        var together: [Start] = []
        for record in records.moved() {
            if settings.isRetryTopic(record.record.topic) { spawn(record) } else { together.append(record) }
        }
        if adopting {
            return together
        } else if together.count == 1 {
            spawn(together[0])
        } else if !together.isEmpty {
            track { id in await self.work(together: together, taskId: id) }
        }
        return []
    }

    /// Runs a record's work in its own task. A record in a room lane reports `roomFreed` once the next record of
    /// its room may start, at its `StartedRecord.roomFreedPoint`: after its devices are settled (`RoomOrdering.strict`)
    /// or after its first attempts (`.firstAttempt`); a record that forwards, at its end.
    private func spawn(_ start: Start) {
        track { id in await self.work(on: start.record, start.ticket, inLane: start.inLane, taskId: id) }
    }

    /// Starts `body` in a task of the pipeline's (`task`), kept in `tasks` under the id it is handed until it ends.
    private func track(_ body: sending @escaping (_ id: Int) async -> Void) {
        let id = nextTaskId
        nextTaskId += 1
        tasks[id] = task { await body(id) }
    }

    /// A task the pipeline starts: preferring `taskExecutor` when there is one, else a plain task. Not
    /// `Task(executorPreference: nil)`: a task made so carries an executor preference record all the same (and
    /// hands it to its child tasks), which the runtime then reads under the task's status lock every time the task
    /// is enqueued or switches executors, several times per send.
    private func task(_ operation: sending @escaping () async -> Void) -> Task<Void, Never> {
        guard let taskExecutor else { return Task(operation: operation) }
        return Task(executorPreference: taskExecutor, operation: operation)
    }

    /// The body of a record's task (`spawn`).
    private func work(on record: KafkaRecord, _ ticket: RecordTicket, inLane: Bool, taskId id: Int) async {
        let processor = processor
        let order = settings.roomOrder
        let done: Bool
        do {
            if inLane {
                try await processor.withStarted(record) { started in
                    let freedPoint = started.roomFreedPoint(order)
                    if freedPoint == .firstAttempts { await self.roomFreed(ticket) }
                    let outputs = try await processor.settle(started)
                    if freedPoint == .settled { await self.roomFreed(ticket) }
                    try await processor.produceUntilAcknowledged(outputs, eventTimeMillis: started.eventTimeMillis)
                }
            } else {
                try await processor.process(record)
            }
            done = true
        } catch {
            done = false
        }
        await ended(taskId: id, ticket, done: done)
    }

    /// The records a group runs: each one's plan until it goes on, what its room and its end are reported by, and
    /// the progress of their first attempts.
    private struct Group {
        var plans: [PlannedRecord<Request>?] = []
        var members: [Member] = []
        var progress = GroupProgress<Request>()
    }

    /// A record of a group once planned: its ticket, and whether it heads a room lane.
    private struct Member {
        let ticket: RecordTicket
        let inLane: Bool
    }

    /// The most records one group takes on: its bookkeeping grows by each (a few words), and is dropped when it ends.
    private static var groupRecordLimit: Int { 4_096 }

    /// The body of the task of records started together (`start`): they are planned in one pass and their first
    /// attempts made together (`DeviceDelivery.attemptAll`); as the answers arrive, the records they complete go on
    /// together (`goOn`). The records their rooms let start join the group (`join`), up to `groupRecordLimit`, rather
    /// than start a task each. A record whose devices do not fit in the device budget now goes alone (`spawn`), as
    /// does one whose first attempts did not settle it, from there on (`work(settling:)`).
    private func work(together records: [Start], taskId id: Int) async {
        var group = Group()
        let arrivals = ArrivalQueue<Attempt>(producers: 0)
        // Discarding: a group runs for as long as records join it, and a child's task is freed as it ends.
        await withDiscardingTaskGroup { children in
            var ready = join(records, to: &group, arrivals, &children)
            while true {
                while !ready.isEmpty {
                    let started = await goOn(ready, &group, adopting: true, children: &children)
                    ready = join(started, to: &group, arrivals, &children)
                }
                guard group.progress.isWaiting, let bunch = await arrivals.next() else { break }
                ready = bunch.compactMap { group.progress.arrived($0.index, $0.value) }
            }
            // Sends never answered: the group was cancelled, or the sender broke its word.
            let rest = group.progress.answerTheRest(with: DeviceDelivery<Request>.unanswered(to:))
            if !rest.isEmpty { await goOn(rest, &group, adopting: false, children: &children) }
        }
        tasks[id] = nil
    }

    /// Plans `records` into `group` and makes their first attempts in a child task, their answers numbered after
    /// the group's earlier sends; returns those of them with no send, ready at once. A record whose devices do not fit
    /// in the device budget now goes alone (`spawn`).
    private func join(
        _ records: [Start], to group: inout Group, _ arrivals: ArrivalQueue<Attempt>,
        _ children: inout DiscardingTaskGroup
    ) -> [Int] {
        guard !records.isEmpty else { return [] }
        let processor = processor
        let firstJoining = group.plans.count
        // Read in place (`for record in records` copies each); the plan holds the one copy of its record.
        for index in records.indices {
            guard let plan = processor.planNow(records[index].record) else {
                spawn(records[index])
                continue
            }
            group.plans.append(plan)
            group.members.append(Member(ticket: records[index].ticket, inLane: records[index].inLane))
        }
        let joined = group.progress.add(group.plans[firstJoining...], unsent: processor.unsentResults)
        guard !joined.sends.isEmpty else { return joined.ready }
        let (delivery, sends, first) = (processor.delivery, PendingSends(joined.sends), joined.firstSend)
        arrivals.addProducer()
        children.addTask {
            try? await delivery.attemptAll(sends) { arrivals.put(first + $0, $1) }
            arrivals.finish()
        }
        return joined.ready
    }

    /// The records of a group at `ready` have their first attempts: each is settled without waiting when they settled
    /// it, else goes on alone (`work(settling:)`); their rooms are freed at each one's `roomFreedPoint`, and the
    /// outputs of those settled are produced in one call in a child task, which then reports their end. Once the task
    /// is cancelled (shutdown's grace period is over) they end undone, as a record alone does. The group forgets each
    /// record that went on (`plans`, `progress`), so that one slow answer holds no other record's plan.
    ///
    /// `adopting`: returns the records of input topics the freed rooms let start, for the group to take on, while it
    /// holds fewer than `groupRecordLimit`; they start as usual otherwise.
    @discardableResult
    private func goOn(
        _ ready: [Int], _ group: inout Group, adopting: Bool, children: inout DiscardingTaskGroup
    ) async -> [Start] {
        let processor = processor
        if Task.isCancelled {
            var ended: [(ticket: RecordTicket, done: Bool)] = []
            for index in ready {
                guard let planned = group.plans[index].take() else { continue }
                processor.release(planned)
                ended.append((group.members[index].ticket, false))
            }
            await recordsEnded(ended)
            return []
        }
        var outputs: [KafkaProducerRecord] = []
        var units = 0
        var tickets: [RecordTicket] = []
        var eventTimes: [Int64] = []
        var freed: [Member] = []
        for index in ready {
            guard let planned = group.plans[index].take() else { continue }
            let plannedUnits = planned.units
            let started = processor.started(consume planned, devices: group.progress.take(index))
            let member = group.members[index]
            let freedPoint = started.roomFreedPoint(settings.roomOrder)
            if freedPoint == .firstAttempts { freed.append(member) }
            switch processor.settleNow(started) {
            case .settled(let produced):
                outputs += produced
                units += plannedUnits
                tickets.append(member.ticket)
                if let created = started.eventTimeMillis { eventTimes.append(created) }
                if freedPoint == .settled { freed.append(member) }
            case .unsettled(let rest):
                track { id in await self.work(settling: rest, member, holding: plannedUnits, taskId: id) }
            }
        }
        let adopted = await roomsFreed(freed, adopting: adopting && group.plans.count < Self.groupRecordLimit)
        guard !tickets.isEmpty else { return adopted }
        children.addTask { [outputs] in
            var done = true
            do {
                try await processor.produceUntilAcknowledged(outputs)
                for created in eventTimes { processor.observeEndToEnd(sinceEventAt: created) }
            } catch {
                done = false
            }
            processor.deviceBudget.release(units)
            await self.recordsEnded(tickets.map { ($0, done) })
        }
        return adopted
    }

    /// The body of the task of a record started with others whose first attempts did not settle it: it is sent
    /// again within the retry budget, then its outputs are produced, as a record alone is.
    private func work(
        settling rest: UnsettledRecord<Request>, _ member: Member, holding units: Int,
        taskId id: Int
    ) async {
        let processor = processor
        let done: Bool
        do {
            let outputs = try await processor.settle(rest)
            if member.inLane, rest.started.roomFreedPoint(settings.roomOrder) == .settled {
                await roomFreed(member.ticket)
            }
            try await processor.produceUntilAcknowledged(outputs, eventTimeMillis: rest.started.eventTimeMillis)
            done = true
        } catch {
            done = false
        }
        processor.deviceBudget.release(units)
        await ended(taskId: id, member.ticket, done: done)
    }

    private func roomFreed(_ ticket: RecordTicket) async {
        await perform(core.handle(.roomFreed(ticket)))
    }

    /// `roomFreed` for each of `records` in a room lane, in one turn: the records they let start begin together, or,
    /// `adopting`, those of input topics are returned (`perform`).
    private func roomsFreed(_ records: [Member], adopting: Bool) async -> [Start] {
        await perform(core.handle(records.filter(\.inLane).map { .roomFreed($0.ticket) }), adopting: adopting)
    }

    private func ended(taskId: Int, _ ticket: RecordTicket, done: Bool) async {
        tasks[taskId] = nil
        await recordsEnded([(ticket, done)])
    }

    /// The end of records, each done or not, in one turn: the records their ends let start begin together.
    private func recordsEnded(_ records: [(ticket: RecordTicket, done: Bool)]) async {
        let actions = core.handle(records.map { .ended($0.ticket, done: $0.done) })
        if core.inFlight < settings.maxInFlightRecords { wakeRoomWaiter() }
        await perform(actions)
    }

    // MARK: Flow control

    /// Returns when a record ends below the limit, or after `timeout`.
    private func waitForRoom(upTo timeout: Duration) async {
        observer.observe(.waitedForRoom)
        nextRoomWait += 1
        let id = nextRoomWait
        let clock = clock
        let timer = task {
            try? await clock.sleep(for: timeout)
            await self.wakeRoomWaiter(id)
        }
        await withCheckedContinuation { roomWaiter = (id, $0) }
        timer.cancel()
    }

    /// Resumes the run loop's wait for room: wait `id` only, or whichever is waiting.
    private func wakeRoomWaiter(_ id: Int? = nil) {
        guard let waiter = roomWaiter, id == nil || waiter.id == id else { return }
        roomWaiter = nil
        waiter.continuation.resume()
    }

    // MARK: Shutdown

    /// Pauses everything, lets running records and revokes finish within the grace period (still polling so the
    /// group stays healthy), then flushes, commits the stored offsets and closes the source.
    private func drainAndClose() async -> PipelineStop {
        observer.observe(.shutdownStarted(inFlight: core.inFlight))
        await perform(core.handle(.shutdown))
        let deadline = clock.nowMicros() + settings.shutdownGracePeriod.wholeMilliseconds * 1000
        while !core.isIdle, clock.nowMicros() < deadline {
            // Records that still arrive are not admitted: their offsets are never stored.
            await pollOnce()
            await perform(core.handle(.tick(nowMicros: clock.nowMicros(), breakersOpen: breakers.anyOpen)))
        }
        await perform(core.handle(.graceExpired))
        let unfinished = core.inFlight
        for task in tasks.values { task.cancel() }
        await sink.flush(timeout: .seconds(10))
        await commitStoredOffsets(waitingAtLeastUntil: deadline)
        await source.close()
        observer.observe(.shutdownFinished(unfinished: unfinished))
        return .shutDown(unfinished: unfinished)
    }

    /// Commits the stored offsets. A source that commits periodically is left to do it, for `finalCommitWindow` or
    /// until `graceEnd` (the end of the grace period, in `clock` microseconds), whichever is later, while the
    /// pipeline polls (records polled now are not admitted), which lets the consumer take part in a rebalance:
    /// librdkafka's periodic commit waits a rebalance out, whereas a commit sent while the consumer rejoins (workers
    /// scaled in together: one leaving starts a rebalance the others run into) is answered only after the rejoin, for
    /// the old generation; librdkafka then calls the assignment lost and the next owner sends the finished records
    /// again. Rebalances can follow one another (the mock cluster held two for 10 s in all), so what the drain left
    /// of the grace period is waited too. What is still uncommitted after that is committed directly.
    private func commitStoredOffsets(waitingAtLeastUntil graceEnd: Int64) async {
        if source.commitsPeriodically {
            let deadline = max(graceEnd, clock.nowMicros() + settings.finalCommitWindow.wholeMilliseconds * 1000)
            while !source.storedOffsetsCommitted, clock.nowMicros() < deadline { await pollOnce() }
            if source.storedOffsetsCommitted { return }
            observer.observe(.finalCommitWaitExpired)
        }
        do {
            try await source.commit()
        } catch {
            observer.observe(.commitFailed(String(describing: error)))
        }
    }
}
