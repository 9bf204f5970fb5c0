import Essentials
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
///   is paused; a retry-tier partition is paused while its next record is not due; a record is planned only
///   once its devices fit in `maxInFlightDevices` beside those of unfinished records (records wait in FIFO
///   order; one bigger than the whole budget runs alone).
public actor Pipeline<Request: Sendable>: RebalanceListener {
    private let source: any RecordSource
    private let sink: any RecordSink
    private let processor: RecordProcessor<Request>
    private let breakers: ProviderBreakers
    private let clock: any WallClock
    private let observer: any PipelineObserver
    private let settings: PipelineSettings
    private let stopFlag = StopFlag()
    private let lastPoll: Atomic<Int64>

    private var partitions: [TopicPartition: PartitionState] = [:]
    /// Records of a room waiting for the room's previous record (see `RoomOrdering`), by record key.
    private var lanes: [[UInt8]: [(InputRecord, Int)]] = [:]
    /// Records admitted and neither done nor dropped (mirrored for `recordsInFlight`).
    private var inFlight = 0 {
        didSet { inFlightMirror.store(inFlight, ordering: .relaxed) }
    }
    private let inFlightMirror = Atomic<Int>(0)
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var nextTaskId = 0
    private var nextGeneration = 0
    private var drainWaiters: [Int: (partitions: [TopicPartition], continuation: CheckedContinuation<Void, Never>)] =
        [:]
    /// Since when (epoch µs) records have been at `maxInFlightRecords` without a pause; nil below the limit.
    private var fullSinceMicros: Int64?
    /// The run loop waiting for a record to end (`waitForRoom`), and which wait it is.
    private var roomWaiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
    private var nextRoomWait = 0

    public init(
        source: any RecordSource, sink: any RecordSink, planner: any EventPlanner<Request>,
        sender: any PushSender<Request>, retryPolicy: any RetryDelayPolicy, clock: any WallClock,
        observer: any PipelineObserver, settings: PipelineSettings
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
            settings: settings, observer: observer, isStopping: { stopFlag.isSet })
        self.source = source
        self.sink = sink
        self.processor = RecordProcessor(
            planner: planner, delivery: delivery, sink: sink, clock: clock, observer: observer,
            outputs: RecordOutputs(settings: settings),
            produceBackoff: Backoff(base: settings.produceRetryBase, cap: settings.produceRetryCap),
            deviceBudget: AsyncBudget(limit: settings.maxInFlightDevices))
        self.breakers = breakers
        self.clock = clock
        self.observer = observer
        self.settings = settings
        self.lastPoll = Atomic(clock.nowMicros())
    }

    /// Asks the pipeline to stop: no new records, in-flight work finishes within the grace period.
    public nonisolated func shutdown() {
        stopFlag.set()
    }

    /// Records admitted and not yet done or dropped (read by the metrics).
    public nonisolated var recordsInFlight: Int { inFlightMirror.load(ordering: .relaxed) }

    /// Planned devices of unfinished records: the device budget's units held (read by the metrics).
    public nonisolated var devicesInFlight: Int { processor.deviceBudget.held }

    /// When the last poll returned, in epoch microseconds (read by the watchdog).
    public nonisolated var lastPollMicros: Int64 { lastPoll.load(ordering: .relaxed) }

    /// Consumes until `shutdown()`, then drains within the grace period, commits and closes the source.
    public func run() async -> PipelineStop {
        while !stopFlag.isSet {
            releaseDueRecords()
            if atInFlightLimitBeforePausing() {
                await waitForRoom(upTo: settings.pollTimeout)
                continue
            }
            applyPauses()
            do {
                let records = try await source.poll(
                    maxRecords: settings.batchSize, timeout: settings.pollTimeout, listener: self)
                lastPoll.store(clock.nowMicros(), ordering: .relaxed)
                observePolled(records)
                for record in records { admit(record) }
            } catch {
                observer.observe(.pollFailed(String(describing: error)))
                try? await clock.sleep(for: settings.pollTimeout)
            }
        }
        return await drainAndClose()
    }

    private func observePolled(_ records: [InputRecord]) {
        guard !records.isEmpty else { return }
        var counts: [String: Int] = [:]
        for record in records { counts[record.topic, default: 0] += 1 }
        for (topic, count) in counts { observer.observe(.polled(topic: topic, count: count)) }
    }

    // MARK: Admission

    private func admit(_ record: InputRecord) {
        guard !stopFlag.isSet else { return }
        let partition = record.topicPartition
        if partitions[partition] == nil { partitions[partition] = newState() }
        guard partitions[partition]?.revoking == false else { return }
        let waitsForDueTime =
            settings.isRetryTopic(record.topic)
            && (partitions[partition]?.waiting.isEmpty == false || dueMillis(record) > clock.nowMillis())
        inFlight += 1
        let generation = modifyState(of: partition) { state in
            state.tracker.begin(record.offset)
            if waitsForDueTime { state.waiting.append(record) } else { state.running += 1 }
            return state.generation
        }
        if !waitsForDueTime, let generation { dispatch(record, generation: generation) }
    }

    /// Changes the state of `partition` in place. (A copy read out of the dictionary and written back
    /// would copy the offset tracker's window, thousands of entries, for every record.)
    private func modifyState<Result>(
        of partition: TopicPartition, _ change: (inout PartitionState) -> Result
    ) -> Result? {
        guard let index = partitions.index(forKey: partition) else { return nil }
        return change(&partitions.values[index])
    }

    private func newState() -> PartitionState {
        nextGeneration += 1
        return PartitionState(generation: nextGeneration)
    }

    private func dueMillis(_ record: InputRecord) -> Int64 {
        FailureHistory.retryDueMillis(of: record, settings: settings, nowMillis: clock.nowMillis()) ?? 0
    }

    /// Dispatches retry records whose due time has come, in order, per partition.
    private func releaseDueRecords() {
        let now = clock.nowMillis()
        for (partition, var state) in partitions where !state.waiting.isEmpty && !state.revoking {
            var released = 0
            while released < state.waiting.count, dueMillis(state.waiting[released]) <= now { released += 1 }
            guard released > 0 else { continue }
            let due = state.waiting.prefix(released)
            state.waiting.removeFirst(released)
            state.running += released
            partitions[partition] = state
            for record in due { dispatch(record, generation: state.generation) }
        }
    }

    /// Records of an input topic with a key go through their room's lane; others start at once.
    private func dispatch(_ record: InputRecord, generation: Int) {
        guard !settings.isRetryTopic(record.topic), let key = record.key else {
            spawn(record, generation) { [processor] in try await processor.process(record) }
            return
        }
        if lanes[key] != nil {
            lanes[key]?.append((record, generation))
        } else {
            lanes[key] = []
            spawnLane(key, first: (record, generation))
        }
    }

    /// Runs a room's records one after the other up to their first attempts (`.firstAttempt`) or until
    /// every device is settled (`.strict`); the rest of each record's work runs in its own task.
    private func spawnLane(_ key: [UInt8], first: (InputRecord, Int)) {
        let processor = self.processor
        let order = settings.roomOrder
        let id = nextTaskId
        nextTaskId += 1
        tasks[id] = Task {
            var next: (InputRecord, Int)? = first
            while let (record, generation) = next, !Task.isCancelled {
                do {
                    let started = try await processor.start(record)
                    switch order {
                    case .strict:
                        let outputs: [OutputRecord]
                        do {
                            outputs = try await processor.settle(started)
                        } catch {
                            processor.finish(started)
                            throw error
                        }
                        self.spawn(record, generation) {
                            defer { processor.finish(started) }
                            try await processor.produceUntilAcknowledged(
                                outputs, eventTimeMillis: started.eventTimeMillis)
                        }
                    case .firstAttempt:
                        self.spawn(record, generation) {
                            defer { processor.finish(started) }
                            try await processor.produceUntilAcknowledged(
                                try await processor.settle(started), eventTimeMillis: started.eventTimeMillis)
                        }
                    }
                } catch {
                    self.ended(taskId: nil, record: record, generation: generation, done: false)
                }
                next = self.nextInLane(key)
            }
            self.tasks[id] = nil
        }
    }

    private func nextInLane(_ key: [UInt8]) -> (InputRecord, Int)? {
        guard lanes[key]?.isEmpty == false else {
            lanes[key] = nil
            return nil
        }
        return lanes[key]?.removeFirst()
    }

    private func spawn(_ record: InputRecord, _ generation: Int, _ work: @escaping @Sendable () async throws -> Void) {
        let id = nextTaskId
        nextTaskId += 1
        tasks[id] = Task {
            let done: Bool
            do {
                try await work()
                done = true
            } catch {
                done = false
            }
            self.ended(taskId: id, record: record, generation: generation, done: done)
        }
    }

    /// A record's work ended: when it is done, its offset may advance the partition's watermark.
    private func ended(taskId: Int?, record: InputRecord, generation: Int, done: Bool) {
        if let taskId { tasks[taskId] = nil }
        inFlight -= 1
        if inFlight < settings.maxInFlightRecords { wakeRoomWaiter() }
        let partition = record.topicPartition
        guard partitions[partition]?.generation == generation else { return }
        let mark = modifyState(of: partition) { state in
            state.running -= 1
            return done ? state.tracker.complete(record.offset) : nil
        }
        if let mark = mark ?? nil { store(mark, for: partition) }
        resumeDrainedWaiters()
    }

    private func store(_ offset: Int64, for partition: TopicPartition) {
        do {
            try source.storeOffset(offset, for: partition)
            observer.observe(.offsetStored(partition, offset))
        } catch {
            observer.observe(.storeFailed(partition, String(describing: error)))
        }
    }

    // MARK: Flow control

    /// True while records are at `maxInFlightRecords` and have not been for `inFlightPauseDelay` yet: the loop then
    /// waits for room instead of polling. Pausing at once would make librdkafka purge what it prefetched and fetch it
    /// again on resume, which in the benchmark held throughput to the in-flight limit over the fetch latency.
    private func atInFlightLimitBeforePausing() -> Bool {
        guard inFlight >= settings.maxInFlightRecords else {
            fullSinceMicros = nil
            return false
        }
        let now = clock.nowMicros()
        let since = fullSinceMicros ?? now
        fullSinceMicros = since
        return now - since < settings.inFlightPauseDelay.wholeMilliseconds.multipliedClamped(by: 1000)
    }

    /// Returns when a record ends below the limit, or after `timeout`.
    private func waitForRoom(upTo timeout: Duration) async {
        observer.observe(.waitedForRoom)
        nextRoomWait += 1
        let id = nextRoomWait
        let clock = clock
        let timer = Task {
            try? await clock.sleep(for: timeout)
            self.wakeRoomWaiter(id)
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

    /// Pauses every partition under back-pressure (in-flight limit, an open breaker, shutdown) and
    /// retry partitions with records not yet due; resumes the others that were paused.
    private func applyPauses() {
        let backPressure = stopFlag.isSet || inFlight >= settings.maxInFlightRecords || breakers.anyOpen
        var toPause: [TopicPartition] = []
        var toResume: [TopicPartition] = []
        for (partition, state) in partitions where !state.revoking {
            let wanted = backPressure || !state.waiting.isEmpty
            if wanted, !state.pausedAtSource { toPause.append(partition) }
            if !wanted, state.pausedAtSource { toResume.append(partition) }
        }
        if !toPause.isEmpty { setPaused(toPause, true) }
        if !toResume.isEmpty { setPaused(toResume, false) }
    }

    private func setPaused(_ list: [TopicPartition], _ paused: Bool) {
        do {
            if paused { try source.pause(list) } else { try source.resume(list) }
            for partition in list { partitions[partition]?.pausedAtSource = paused }
            observer.observe(paused ? .paused(list) : .resumed(list))
        } catch {
            observer.observe(.pollFailed(String(describing: error)))
        }
    }

    // MARK: Rebalance

    public func partitionsAssigned(_ assigned: [TopicPartition]) async {
        for partition in assigned { partitions[partition] = newState() }
        observer.observe(.assigned(assigned))
    }

    /// Stops dispatching for `revoked`, waits (at most `revokeDrainTimeout`) until their running
    /// records are done and stored, then forgets them; unfinished ones are delivered again elsewhere.
    public func partitionsRevoking(_ revoked: [TopicPartition]) async {
        for partition in revoked {
            guard var state = partitions[partition] else { continue }
            state.revoking = true
            inFlight -= state.waiting.count
            state.waiting = []
            partitions[partition] = state
        }
        await waitUntilDrained(revoked, timeout: settings.revokeDrainTimeout)
        var unfinished = 0
        for partition in revoked {
            guard let state = partitions.removeValue(forKey: partition) else { continue }
            unfinished += state.running
            unfinished += dropLaneRecords(of: partition, generation: state.generation)
        }
        observer.observe(.revoked(revoked, unfinished: unfinished))
    }

    /// Drops queued lane records of a partition being let go; returns how many.
    private func dropLaneRecords(of partition: TopicPartition, generation: Int) -> Int {
        var dropped = 0
        for (key, queue) in lanes {
            let kept = queue.filter { $0.0.topicPartition != partition || $0.1 != generation }
            dropped += queue.count - kept.count
            lanes[key] = kept
        }
        inFlight -= dropped
        return dropped
    }

    private func waitUntilDrained(_ list: [TopicPartition], timeout: Duration) async {
        let id = nextTaskId
        nextTaskId += 1
        let timer = Task { [clock] in
            try? await clock.sleep(for: timeout)
            self.resumeDrainWaiter(id)
        }
        await withCheckedContinuation { continuation in
            drainWaiters[id] = (list, continuation)
            resumeDrainedWaiters()
        }
        timer.cancel()
    }

    private func isDrained(_ list: [TopicPartition]) -> Bool {
        list.allSatisfy { (partitions[$0]?.running ?? 0) <= 0 }
    }

    private func resumeDrainedWaiters() {
        for (id, waiter) in drainWaiters where isDrained(waiter.partitions) { resumeDrainWaiter(id) }
    }

    private func resumeDrainWaiter(_ id: Int) {
        drainWaiters.removeValue(forKey: id)?.continuation.resume()
    }

    // MARK: Shutdown

    /// Pauses everything, lets running records finish within the grace period (still polling so the
    /// group stays healthy), then flushes, commits the stored offsets and closes the source.
    private func drainAndClose() async -> PipelineStop {
        observer.observe(.shutdownStarted(inFlight: inFlight))
        for (partition, var state) in partitions where !state.waiting.isEmpty {
            inFlight -= state.waiting.count
            state.waiting = []
            partitions[partition] = state
        }
        let deadline = clock.nowMicros() + settings.shutdownGracePeriod.wholeMilliseconds * 1000
        applyPauses()
        while inFlight > 0, clock.nowMicros() < deadline {
            // Records that still arrive are not admitted: their offsets are never stored.
            _ = try? await source.poll(maxRecords: settings.batchSize, timeout: settings.pollTimeout, listener: self)
            lastPoll.store(clock.nowMicros(), ordering: .relaxed)
        }
        let unfinished = inFlight
        partitions = [:]
        for task in tasks.values { task.cancel() }
        await sink.flush(timeout: .seconds(10))
        do {
            try await source.commit()
        } catch {
            observer.observe(.commitFailed(String(describing: error)))
        }
        await source.close()
        observer.observe(.shutdownFinished(unfinished: unfinished))
        return .shutDown(unfinished: unfinished)
    }
}
