import Essentials
import KafkaTypes
import PushCore

/// A record after its first attempts: what is known per device, and what is left to do.
struct StartedRecord<Request: Sendable>: Sendable {
    enum Device: Sendable {
        case done(DeviceResult)
        /// Sent once, to the attempt's provider (the request is the plan's, `PlannedDevice.decision`).
        case attempted(Attempt)
    }

    enum Content: Sendable {
        case undecodable(UndecodableEvent)
        case event(PlannedEvent<Request>, [Device])
    }

    let record: KafkaRecord
    let source: SourcePosition
    let content: Content
    /// The event's `createdAt`, when it was decoded and has one (for the end-to-end latency). Kept apart: read out of
    /// `content`, it copied the whole event.
    let eventTimeMillis: Int64?
    /// Whether its plan passes records on (`PlannedEvent.forwarded`, the fan-out records): where they land in their
    /// topic is where their recipients get them in order, so its room is freed only once Kafka acknowledged them.
    let forwards: Bool

    /// A record whose value could not be planned.
    init(record: KafkaRecord, source: SourcePosition, undecodable: UndecodableEvent) {
        self.record = record
        self.source = source
        content = .undecodable(undecodable)
        eventTimeMillis = nil
        forwards = false
    }

    /// A planned event and what is known of each of its devices.
    init(record: KafkaRecord, source: SourcePosition, event: PlannedEvent<Request>, devices: [Device]) {
        self.record = record
        self.source = source
        eventTimeMillis = event.eventTimeMillis
        forwards = !event.forwarded.isEmpty
        content = .event(event, devices)
    }

    /// The point at which its room lane lets the room's next record start: as `order` says, except that a record that
    /// forwards keeps its room until its end, once Kafka acknowledged its outputs (the end frees any room still held).
    func roomFreedPoint(_ order: RoomOrdering) -> RoomFreedPoint {
        if forwards { return .end }
        switch order {
        case .strict: return .settled
        case .firstAttempt: return .firstAttempts
        }
    }
}

/// When a record in a room lane frees its room (`StartedRecord.roomFreedPoint`).
enum RoomFreedPoint: Sendable {
    /// Once its devices' first attempts answered.
    case firstAttempts
    /// Once every device has a result, before its outputs are produced.
    case settled
    /// At its end: its outputs were acknowledged (or it ended undone).
    case end
}

/// Processes one record in three steps: `withStarted` plans it and makes every device's first attempt, `settle`
/// retries in process until every device has a result, `produceUntilAcknowledged` writes the outputs.
/// A room's next record waits for the first attempts or `settle`, as `PipelineSettings.roomOrder` says, and for the
/// acknowledgement of a record that forwards (`StartedRecord.roomFreedPoint`).
///
/// A class: every record's task and each of its sends' closures holds it, and a reference is one retain where a copy
/// of these fields was one each.
final class RecordProcessor<Request: Sendable>: Sendable {
    let planner: any EventPlanner<Request>
    let delivery: DeviceDelivery<Request>
    let sink: any RecordSink
    let clock: any WallClock
    let observer: any PipelineObserver
    let outputs: RecordOutputs
    /// Backoff between produce calls that Kafka did not acknowledge.
    let produceBackoff: any RetryDelayPolicy
    /// Planned devices of records not yet finished (`maxInFlightDevices`).
    let deviceBudget: AsyncBudget
    /// Counts every provider answer and tells which "invalid token" answers are suspect; `nil`: none is.
    let invalidations: TokenInvalidationWatch?

    init(
        planner: any EventPlanner<Request>, delivery: DeviceDelivery<Request>, sink: any RecordSink,
        clock: any WallClock, observer: any PipelineObserver, outputs: RecordOutputs,
        produceBackoff: any RetryDelayPolicy, deviceBudget: AsyncBudget, invalidations: TokenInvalidationWatch?
    ) {
        self.planner = planner
        self.delivery = delivery
        self.sink = sink
        self.clock = clock
        self.observer = observer
        self.outputs = outputs
        self.produceBackoff = produceBackoff
        self.deviceBudget = deviceBudget
        self.invalidations = invalidations
    }

    /// Plans `record`, makes the first attempt of each send concurrently (a single send in the calling task, without a
    /// task group), and runs `body` on the result while the record holds its devices in the device budget. A record's
    /// sends go in at most `maxConcurrentSends` lanes, a task each, that take the next send as they finish one
    /// (`concurrently`): a group chat's thousand devices start 199 child tasks, not a thousand.
    ///
    /// Before planning, the record waits in line for its devices in the device budget (the planner's bound; see
    /// `AsyncBudget.withUnits` for one bigger than the whole budget); after planning it holds one unit per device and
    /// per started 4 KiB of each forwarded record (`FanoutBudget.units`), until `body` returns or throws, so planned
    /// requests, their results, receipts and the fan-out records stay within the budget.
    func withStarted<Result>(
        _ record: KafkaRecord, isolation: isolated (any Actor)? = #isolation,
        _ body: (StartedRecord<Request>) async throws -> Result
    ) async throws -> Result {
        let source = sourcePosition(of: record)
        let prepared = planner.prepare(record)
        return try await deviceBudget.withUnits(prepared.deviceBound) { grant in
            switch prepared.plan(nowMillis: clock.nowMillis()) {
            case .failure(let undecodable):
                grant.resize(to: 0)
                return try await body(StartedRecord(record: record, source: source, undecodable: undecodable))
            case .success(let event):
                grant.resize(to: Self.units(of: event))
                return try await body(try await attemptFirst(event, of: record, source: source))
            }
        }
    }

    /// Where `record` was read, as its outputs name it (a retry record's headers say where its event was first read).
    func sourcePosition(of record: KafkaRecord) -> SourcePosition {
        SourcePosition(of: record, trustingHeaders: outputs.settings.isRetryTopic(record.topic))
    }

    /// The device budget's units a planned event holds: one per device and per started 4 KiB of each forwarded
    /// record (`FanoutBudget.units`).
    static func units(of event: PlannedEvent<Request>) -> Int {
        event.devices.count + FanoutBudget.units(of: event.forwarded)
    }

    /// Every send's first attempt, at most `maxConcurrentSends` at once.
    private func attemptFirst(
        _ event: PlannedEvent<Request>, of record: KafkaRecord, source: SourcePosition
    ) async throws -> StartedRecord<Request> {
        var devices = unsentResults(of: event)
        let sends = event.devices.indices.filter { devices[$0] == nil }
        if sends.count == 1 {
            devices[sends[0]] = try await attemptFirst(event, sends[0])
        } else if !sends.isEmpty {
            let attempted = try await concurrently(sends) { index in
                (index, try await self.attemptFirst(event, index))
            }
            for (index, device) in attempted { devices[index] = device }
        }
        observeFailedSends(devices, event, of: record)
        return StartedRecord(record: record, source: source, event: event, devices: devices.compactMap { $0 })
    }

    /// The first attempt of the `index`-th device of `event`, which is a send.
    private func attemptFirst(
        _ event: PlannedEvent<Request>, _ index: Int
    ) async throws -> StartedRecord<Request>.Device {
        guard case .send(let provider, let request) = event.devices[index].decision else {
            preconditionFailure("only sends are attempted")
        }
        return .attempted(try await delivery.attempt(request, to: provider))
    }

    /// The result of every device of `event` that is not a send (skipped, expired, rejected, dead-lettered by its
    /// plan); `nil` for the sends. Synchronous and not inlined: its values stay off the async frames of the records
    /// in flight.
    @inline(never)
    func unsentResults(of event: PlannedEvent<Request>) -> [StartedRecord<Request>.Device?] {
        event.devices.map { device in
            switch device.decision {
            case .send: nil
            case .skipped(let reason): .done(.finished(FinishedDevice(.skipped, reason: reason.code)))
            case .expired: .done(.finished(FinishedDevice(.expired, reason: "time_to_live_exceeded")))
            case .rejected(let reason): .done(.finished(FinishedDevice(.rejected, reason: reason)))
            case .deadLetter(let reason, let message):
                .done(
                    .deadLettered(
                        DeliveryFailure(reason: reason, message: message, firstFailureMillis: clock.nowMillis())))
            }
        }
    }

    /// Observes each first attempt among `devices` that failed as `sendFailed`, naming the message, room and device;
    /// the record's trace context is read from its headers once, at the first failure.
    @inline(never)
    func observeFailedSends(
        _ devices: [StartedRecord<Request>.Device?], _ event: PlannedEvent<Request>, of record: KafkaRecord
    ) {
        var traceParent: String?? = nil
        for (index, device) in devices.enumerated() {
            guard case .attempted(let attempt) = device, !DeviceDelivery<Request>.delivered(attempt.outcome) else {
                continue
            }
            let trace = self.traceParent(of: record, known: &traceParent)
            if let context = context(event, index, traceParent: trace) {
                observer.observe(.sendFailed(attempt.outcome, context))
            }
        }
    }

    /// A record outside any room lane, from its plan to its acknowledged outputs. A retry record taken up
    /// before its real due time (`x-retry-not-before`) moves on, unsent, to the tier that covers the rest.
    func process(_ record: KafkaRecord) async throws {
        if let moved = outputs.movingOn(record, nowMillis: clock.nowMillis()) {
            try await produceUntilAcknowledged([moved])
            observer.observe(.retryMovedOn(from: record.topic, to: moved.topic))
        } else {
            try await withStarted(record) { started in
                try await produceUntilAcknowledged(try await settle(started), eventTimeMillis: started.eventTimeMillis)
            }
        }
    }

    /// Settles every device (in-process retries within the budget, then the hand-off to the retry topic or
    /// the dead-letter topic) and returns the receipts, retry and dead-letter records to produce.
    /// Throws only when cancelled: the record is then not done.
    func settle(_ started: StartedRecord<Request>) async throws -> [KafkaProducerRecord] {
        switch settleNow(started) {
        case .settled(let outputs): outputs
        case .unsettled(let rest): try await settle(rest)
        }
    }

    /// `settle` as far as it goes without waiting: the outputs when the plan and the first attempts settled every
    /// device (the usual case, which needs no task), else what is left to send again (`settle(_: UnsettledRecord)`).
    func settleNow(_ started: StartedRecord<Request>) -> Settlement<Request> {
        guard case .event(let event, let devices) = started.content else {
            return .settled(undecodableOutputs(started))
        }
        let history = FailureHistory(of: started.record, settings: outputs.settings, nowMillis: clock.nowMillis())
        let settled = settledByFirstAttempts(devices, history: history, of: started.record)
        if settled.contains(where: { $0 == nil }) {
            return .unsettled(
                UnsettledRecord(started: started, event: event, devices: devices, history: history, settled: settled))
        }
        return .settled(outputs(of: started, event, settled.compactMap { $0 }))
    }

    /// Settles the devices of `rest` whose first attempt did not settle them, concurrently, and returns the record's
    /// outputs.
    func settle(_ rest: UnsettledRecord<Request>) async throws -> [KafkaProducerRecord] {
        var settled = rest.settled
        try await settleAgain(&settled, rest.event, rest.devices, history: rest.history, of: rest.started.record)
        return outputs(of: rest.started, rest.event, settled.compactMap { $0 })
    }

    /// Settles the devices `settled` has no result for, concurrently (`DeviceDelivery.settle`). Not inlined: the
    /// usual record does without, and its async frame would otherwise hold this one's values.
    @inline(never)
    private func settleAgain(
        _ settled: inout [DeviceResult?], _ event: PlannedEvent<Request>, _ devices: [StartedRecord<Request>.Device],
        history: FailureHistory, of record: KafkaRecord
    ) async throws {
        let unsettled = settled.indices.filter { settled[$0] == nil }
        let traceParent = traceParent(of: record)
        let results = try await concurrently(unsettled) { index in
            (
                index,
                try await self.settleAgain(event, index, devices[index], history: history, traceParent: traceParent)
            )
        }
        for (index, result) in results { settled[index] = result }
    }

    /// The outputs of a record that is not an event: its dead-letter record.
    @inline(never)
    private func undecodableOutputs(_ started: StartedRecord<Request>) -> [KafkaProducerRecord] {
        guard case .undecodable(let problem) = started.content else { return [] }
        let record = started.record
        let failure = DeliveryFailure(
            reason: problem.reason, message: problem.message, firstFailureMillis: clock.nowMillis())
        observer.observe(.deadLettered(reason: problem.reason))
        observer.observe(.recordDeadLettered(failure, record.topicPartition, offset: record.offset))
        return outputs.forUndecodable(record: record, source: started.source, failure: failure)
    }

    /// Each device's result when its first attempt (or its plan) settled it; `nil` for those to send again. Observes
    /// the headers of `record` that were ignored.
    @inline(never)
    private func settledByFirstAttempts(
        _ devices: [StartedRecord<Request>.Device], history: FailureHistory, of record: KafkaRecord
    ) -> [DeviceResult?] {
        for ignored in history.ignored {
            observer.observe(
                .headerIgnored(record.topicPartition, offset: record.offset, header: ignored.name, ignored.reason))
        }
        return devices.map { device in
            switch device {
            case .done(let result):
                return result
            case .attempted(let first):
                guard
                    case .final(let result) = DeviceDelivery<Request>.verdict(
                        on: first, attempts: history.priorAttempts + 1)
                else { return nil }
                return result
            }
        }
    }

    /// Carries the `index`-th device of `event`, whose first attempt did not settle it, to a result
    /// (`DeviceDelivery.settle`).
    private func settleAgain(
        _ event: PlannedEvent<Request>, _ index: Int, _ device: StartedRecord<Request>.Device,
        history: FailureHistory, traceParent: String?
    ) async throws -> DeviceResult {
        guard case .attempted(let first) = device, case .send(_, let request) = event.devices[index].decision
        else { preconditionFailure("only attempted sends are settled again") }
        return try await delivery.settle(
            request, to: first.provider, first: first, priorAttempts: history.priorAttempts,
            firstFailureMillis: history.firstFailureMillis, context: context(event, index, traceParent: traceParent))
    }

    /// Observes every device's result and makes the receipts, retry and dead-letter records of `event`.
    @inline(never)
    private func outputs(
        of started: StartedRecord<Request>, _ event: PlannedEvent<Request>, _ results: [DeviceResult]
    ) -> [KafkaProducerRecord] {
        let record = started.record
        var traceParent: String?? = nil
        for (index, result) in results.enumerated() { observe(result, event, index, of: record, &traceParent) }
        return outputs.forEvent(
            record: record, source: started.source, messageId: event.messageId, appID: event.appID, room: event.roomId,
            type: event.type, eventTimeMillis: event.eventTimeMillis, results: results,
            target: { event.devices[$0].target },
            narrow: event.narrowed, nowMillis: clock.nowMillis(), suspect: suspectAnswers(event, results),
            forwarded: event.forwarded)
    }

    /// Counts each provider answer among `results` (a final one, after a send) in `invalidations`, and returns the
    /// indices of the "invalid token" answers that are suspect.
    private func suspectAnswers(_ event: PlannedEvent<Request>, _ results: [DeviceResult]) -> Set<Int> {
        guard let invalidations else { return [] }
        let nowMillis = clock.nowMillis()
        var suspect: Set<Int> = []
        for (index, result) in results.enumerated() {
            guard case .finished(let finished) = result, let provider = finished.attempt?.provider else { continue }
            let scope = TokenInvalidationGuard.Scope(app: event.appID, provider: provider)
            let invalid = finished.status == .invalidToken
            if invalidations.answer(scope, invalid: invalid, nowMillis: nowMillis), invalid { suspect.insert(index) }
        }
        return suspect
    }

    /// `work` for every item, concurrently, in at most `maxConcurrentSends` lanes (no more sends can be in flight),
    /// each taking the next item as it finishes one (`inConcurrentLanes`). The outputs come in the order they
    /// finished. Not inlined, so that the async frames of records with a single send do not hold the lanes' values.
    @inline(never)
    private func concurrently<Item: Sendable, Output: Sendable>(
        _ items: [Item], _ work: @escaping @Sendable (Item) async throws -> Output
    ) async throws -> [Output] {
        try await inConcurrentLanes(items, width: delivery.settings.maxConcurrentSends, work)
    }

    /// Observes the result of the `index`-th device of `event`; one handed off or dead-lettered also with what a log
    /// line about it names. `traceParent` is the record's trace context once read (`nil`: not yet): the record's
    /// devices share it, so its headers are read once.
    private func observe(
        _ result: DeviceResult, _ event: PlannedEvent<Request>, _ index: Int, of record: KafkaRecord,
        _ traceParent: inout String??
    ) {
        switch result {
        case .finished(let finished):
            observer.observe(.receipt(finished.status))
        case .retryLater(let failure, _):
            observer.observe(.retryScheduled(attempts: failure.attempts))
            let trace = self.traceParent(of: record, known: &traceParent)
            if let context = context(event, index, traceParent: trace) {
                observer.observe(.deviceHandedOff(failure, context))
            }
        case .deadLettered(let failure):
            observer.observe(.deadLettered(reason: failure.reason))
            let trace = self.traceParent(of: record, known: &traceParent)
            if let context = context(event, index, traceParent: trace) {
                observer.observe(.deviceDeadLettered(failure, context))
            }
            observer.observe(.receipt(.deadLettered))
        }
    }

    /// The trace context `record` carries (`traceparent`), as a log line names it.
    private func traceParent(of record: KafkaRecord) -> String? {
        CarriedHeaders(of: record, settings: outputs.settings).traceParent?.description
    }

    /// `traceParent(of: record)`, read once: `known` holds it after the first call (`nil` before).
    private func traceParent(of record: KafkaRecord, known: inout String??) -> String? {
        if let read = known { return read }
        let read = traceParent(of: record)
        known = .some(read)
        return read
    }

    /// What a log line about the `index`-th device of `event` names: its provider when it is sent, and the record's
    /// `traceParent`.
    private func context(_ event: PlannedEvent<Request>, _ index: Int, traceParent: String?) -> SendContext? {
        guard event.devices.indices.contains(index) else { return nil }
        let device = event.devices[index]
        var provider: PushProvider?
        if case .send(let planned, _) = device.decision { provider = planned }
        return SendContext(
            provider: provider, messageId: event.messageId, room: event.roomId, tokenHash: device.target.tokenHash,
            traceParent: traceParent)
    }

    /// Produces `records` again and again, backing off with jitter (`produceBackoff`), until Kafka acknowledges
    /// them all. A record refused for good as too large goes again without its value, then in its minimal form
    /// (`KafkaProducerRecord.minimal`); a minimal record still refused is backed off like any failure. Throws when
    /// cancelled or when the sink is unusable for good (`ProduceFailed.isFatal`). With the event's
    /// `eventTimeMillis`, the time from it to the acknowledgement is observed as the end-to-end latency.
    func produceUntilAcknowledged(_ records: [KafkaProducerRecord], eventTimeMillis: Int64? = nil) async throws {
        guard !records.isEmpty else { return }
        var pending = records
        var failures = 0
        while true {
            do {
                try await sink.produce(pending)
                if failures > 0 { observer.observe(.produceRecovered) }
                if let created = eventTimeMillis { observeEndToEnd(sinceEventAt: created) }
                return
            } catch let rejected as OutputRejected {
                let refused = rejected.indices.filter(pending.indices.contains).map { pending[$0] }
                pending = refused.map { $0.value.isEmpty ? $0.minimal() : $0.droppingValue() }
                if pending.isEmpty { return }
                failures += 1
                observer.observe(.produceRetrying(topics: Self.topics(of: pending), reason: "message_too_large"))
                // A smaller form goes at once; one that cannot shrink further waits like any failure.
                if pending != refused { continue }
            } catch let failed as ProduceFailed where failed.isFatal {
                // Producing again cannot help; the service stops on the producer's fatal error.
                throw failed
            } catch {
                try Task.checkCancellation()
                failures += 1
                let reason = (error as? ProduceFailed)?.reason ?? "other"
                observer.observe(.produceRetrying(topics: Self.topics(of: pending), reason: reason))
            }
            try await clock.sleep(for: produceBackoff.delay(afterAttempts: failures, retryAfter: nil))
        }
    }

    /// Observes the time from an event's `createdAt` (epoch ms) to now, when its outputs were acknowledged, as the
    /// end-to-end latency.
    func observeEndToEnd(sinceEventAt created: Int64) {
        // In doubles: an event time from the input can be anything, and must not trap.
        observer.observe(.endToEnd(latencyMillis: Double(clock.nowMillis()) - Double(created)))
    }

    private static func topics(of records: [KafkaProducerRecord]) -> [String] {
        var topics: [String] = []
        for record in records where !topics.contains(record.topic) { topics.append(record.topic) }
        return topics
    }
}
