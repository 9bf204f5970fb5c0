import Essentials
import KafkaTypes
import PushCore

/// The records one input record turns into: receipts, at most one retry record, and dead-letter
/// records (one per reason, each the event narrowed to its devices). Pure.
struct RecordOutputs {
    let settings: PipelineSettings

    /// A device that goes to the retry or the dead-letter topic: its index among the event's devices, why, and
    /// (handed to a retry tier) when it is due.
    private struct HandedOff {
        let index: Int
        let failure: DeliveryFailure
        let dueMillis: Int64?
    }

    /// Receipts, retry and dead-letter records for a decoded event whose devices all have a result: `results[i]`
    /// is the result of the device whose target is `target(i)` (read where it lies: no array of targets, no copy of
    /// a device). `narrow` gives the event cut down to some devices (indices into `results`). The retry record goes
    /// to the tier that covers its wait from `nowMillis` (see `RetryTiers`). The `invalid_token` answers at the
    /// indices in `suspect` write no invalid-token record: their receipts say `"suspect": true`
    /// (`TokenInvalidationGuard`). The `forwarded` records (`PlannedEvent.forwarded`) come first, with the headers the
    /// input passes on. `appID` is the event's IMKIT app, written into its invalid-token records.
    func forEvent(
        record: KafkaRecord, source: SourcePosition, messageId: String, appID: String = "", room: String, type: String,
        eventTimeMillis: Int64?, results: [DeviceResult], target: (Int) -> DeviceTarget,
        narrow: ([Int]) -> [UInt8], nowMillis: Int64, suspect: Set<Int> = [], forwarded: [KafkaProducerRecord] = []
    ) -> [KafkaProducerRecord] {
        let carried = CarriedHeaders(of: record, settings: settings)
        let receiptKey = Array(messageId.utf8)
        var outputs: [KafkaProducerRecord] = []
        outputs.reserveCapacity(results.count + 1 + forwarded.count)
        for var passedOn in forwarded {
            passedOn.headers += carried.headers
            outputs.append(passedOn)
        }
        var retrying: [HandedOff] = []
        var deadLetters: [HandedOff] = []
        for (index, result) in results.enumerated() {
            let device = target(index)
            var receipt = Receipt(
                messageId: messageId, room: room, type: type, device: device, status: .skipped, reason: nil,
                providerMessageId: nil, attempts: 0, source: source, eventTimeMillis: eventTimeMillis,
                sentAtMicros: nil, latencyMillis: nil, replayRunId: carried.replayRunId, worker: settings.worker)
            receipt.traceParent = carried.traceParent
            switch result {
            case .finished(let finished):
                receipt.status = finished.status
                receipt.reason = finished.reason.map { OutputLimits.bounded($0) }
                receipt.attempts = finished.attempts
                receipt.sentAtMicros = finished.attempt?.sentAtMicros
                receipt.latencyMillis = finished.attempt?.latencyMillis
                // The provider's words (an apns-id header, an FCM name): a hostile answer's 70 KB are cut to 1 KB.
                if case .delivered(let id) = finished.attempt?.outcome {
                    receipt.providerMessageId = id.map { OutputLimits.bounded($0) }
                }
                if finished.status == .invalidToken, suspect.contains(index) {
                    receipt.suspect = true
                } else if finished.status == .invalidToken {
                    outputs.append(
                        invalidTokenRecord(
                            device, reason: finished.reason,
                            sinceMillis: finished.tokenInvalidSinceMillis ?? nowMillis, messageId: messageId,
                            appID: appID))
                }
            case .retryLater(let failure, let due):
                retrying.append(HandedOff(index: index, failure: failure, dueMillis: due))
                continue
            case .deadLettered(let failure):
                receipt.status = .deadLettered
                receipt.reason = failure.reason.code
                receipt.attempts = failure.attempts
                deadLetters.append(HandedOff(index: index, failure: failure, dueMillis: nil))
            }
            let receiptId = ReceiptID.make(
                messageId: messageId, device: device, attempts: receipt.attempts, replayRunId: receipt.replayRunId)
            outputs.append(
                KafkaProducerRecord(
                    topic: settings.receiptsTopic, key: receiptKey, value: receipt.json(receiptId: receiptId),
                    headers: [KafkaHeader(name: ReceiptID.header, text: receiptId)]))
        }
        if !retrying.isEmpty {
            let failure = retrying.max { $0.failure.attempts < $1.failure.attempts }?.failure ?? retrying[0].failure
            let due = retrying.compactMap(\.dueMillis).max() ?? nowMillis
            let route = settings.retryTiers.route(dueMillis: due, nowMillis: nowMillis)
            outputs.append(
                KafkaProducerRecord(
                    topic: route.topic, key: record.key, value: narrow(retrying.map(\.index)),
                    headers: headers(failure, source, retryDueMillis: route.takeUpMillis) + carried.headers
                        + Self.notBefore(route.notBeforeMillis)))
        }
        var reasons: [DeadLetterReason] = []
        for device in deadLetters where !reasons.contains(device.failure.reason) {
            reasons.append(device.failure.reason)
        }
        for reason in reasons {
            let group = deadLetters.filter { $0.failure.reason == reason }
            let failure = group.max { $0.failure.attempts < $1.failure.attempts }?.failure ?? group[0].failure
            outputs.append(
                KafkaProducerRecord(
                    topic: settings.deadLetterTopic, key: record.key, value: narrow(group.map(\.index)),
                    headers: headers(failure, source) + carried.headers))
        }
        return outputs
    }

    /// The record that tells every worker, and the token's owner, that `device`'s token is dead.
    private func invalidTokenRecord(
        _ device: DeviceTarget, reason: String?, sinceMillis: Int64, messageId: String, appID: String
    ) -> KafkaProducerRecord {
        let record = InvalidTokenRecord(
            platform: device.platform, token: device.token, tokenHash: device.tokenHash, userId: device.userId,
            app: device.app, appID: appID, reason: OutputLimits.bounded(reason ?? "invalid_token"),
            invalidSinceMillis: sinceMillis, messageId: messageId, worker: settings.worker)
        return KafkaProducerRecord(
            topic: settings.invalidTokensTopic, key: Array(record.key.utf8), value: record.json())
    }

    /// The dead-letter record for a value that is not an event: original key and bytes.
    func forUndecodable(record: KafkaRecord, source: SourcePosition, failure: DeliveryFailure) -> [KafkaProducerRecord]
    {
        [
            KafkaProducerRecord(
                topic: settings.deadLetterTopic, key: record.key, value: record.value,
                headers: headers(failure, source) + CarriedHeaders(of: record, settings: settings).headers)
        ]
    }

    /// The same retry record again on the tier that covers the rest of its wait, when `record` comes from a
    /// retry topic and was taken up before its `x-retry-not-before`; nil when it is due. A wait beyond
    /// `maxRetryDelay` (a forged header) is cut to it, so no record moves between tiers for ever. Only the headers
    /// the worker writes on a retry record go along, each bounded to `OutputLimits.headerValueBytes`.
    func movingOn(_ record: KafkaRecord, nowMillis: Int64) -> KafkaProducerRecord? {
        guard settings.isRetryTopic(record.topic),
            let notBefore = record.headers.text(FailureHeaders.retryNotBefore).flatMap({ Int64($0) }),
            notBefore > nowMillis
        else { return nil }
        let latest = nowMillis.addingClamped(settings.maxRetryDelay.wholeMilliseconds)
        let route = settings.retryTiers.route(dueMillis: min(notBefore, latest), nowMillis: nowMillis)
        let kept = record.headers.filter { FailureHeaders.movedOn.contains($0.name) }.map {
            KafkaHeader(name: $0.name, text: OutputLimits.bounded(String(decoding: $0.value ?? [], as: UTF8.self)))
        }
        return KafkaProducerRecord(
            topic: route.topic, key: record.key, value: record.value,
            headers: kept + [KafkaHeader(name: FailureHeaders.retryDue, text: String(route.takeUpMillis))]
                + Self.notBefore(route.notBeforeMillis))
    }

    private static func notBefore(_ millis: Int64?) -> [KafkaHeader] {
        millis.map { [KafkaHeader(name: FailureHeaders.retryNotBefore, text: String($0))] } ?? []
    }

    private func headers(_ failure: DeliveryFailure, _ source: SourcePosition, retryDueMillis: Int64? = nil)
        -> [KafkaHeader]
    {
        FailureHeaders.make(
            failure: failure, source: source, group: settings.group, worker: settings.worker,
            retryDueMillis: retryDueMillis)
    }
}
