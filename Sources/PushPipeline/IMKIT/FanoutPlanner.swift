import Foundation
import KafkaTypes
public import PushCore

/// The input stage's planner port of the `assigned` registry scope: an IMKIT message or a custom push sends nothing
/// here; it becomes one record per recipient client on the fan-out topic (`RecipientFanout`), placed in the partition
/// `placement` gives the client, which the fan-out stage resolves against the registry partition of the same number.
/// The plan has no devices and those records as `forwarded`, so the input offset is committed once Kafka acknowledged
/// them. Every other record goes to `events` untouched: chat-message events list their devices, and the retry
/// records of both stages (chat-message events, custom pushes with `recipients`) list the devices resolved the first
/// time.
///
/// A message whose fan-out would not fit is dead-lettered whole, before any record is made: larger than the decoder's
/// `maximumRecordBytes` itself or in one of its records (`record_too_large`: the producer would refuse the record), or
/// its records together over `budget.maximumBytes` (`fanout_too_large`).
public struct FanoutPlanner<Request: Sendable>: EventPlanner {
    let events: any EventPlanner<Request>
    let topic: String
    let placement: @Sendable (ClientKey) -> Int32
    let budget: FanoutBudget
    let imkitDecoder: IMKITMessageDecoder
    let customDecoder: CustomPushDecoder

    public init(
        events: any EventPlanner<Request>, topic: String, placement: @escaping @Sendable (ClientKey) -> Int32,
        budget: FanoutBudget = FanoutBudget(), imkitDecoder: IMKITMessageDecoder = IMKITMessageDecoder(),
        customDecoder: CustomPushDecoder = CustomPushDecoder()
    ) {
        self.events = events
        self.topic = topic
        self.placement = placement
        self.budget = budget
        self.imkitDecoder = imkitDecoder
        self.customDecoder = customDecoder
    }

    public func deviceBound(_ value: [UInt8]) -> Int { prepare(value).deviceBound }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<Request>, UndecodableEvent> {
        prepare(value).plan(nowMillis: nowMillis)
    }

    /// A record fanned out sends nothing; it holds the device-budget units of its fan-out records
    /// (`FanoutBudget.units`) until Kafka acknowledged them.
    public func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<Request> {
        if scan.namesMessageType, value.count > imkitDecoder.limits.maximumRecordBytes {
            // Refused unparsed, as the decoder refuses it (an event naming `messageType` is refused alike).
            return PreparedPlan(deviceBound: 1) { nowMillis in
                fannedOut(
                    decoded { () throws(EventError) in try imkitDecoder.decode(value, now: Self.date(nowMillis)) },
                    valueBytes: value.count)
            }
        }
        if scan.namesMessageType, let root = try? JSONParser.parse(value), IMKITMessageDecoder.isIMKITMessage(root) {
            return PreparedPlan(deviceBound: Self.estimatedUnits(root, valueBytes: value.count)) { nowMillis in
                fannedOut(
                    decoded { () throws(EventError) in try imkitDecoder.decode(root, now: Self.date(nowMillis)) },
                    valueBytes: value.count)
            }
        }
        guard scan.namesClients else { return events.prepare(value, scan: scan) }
        let push: Result<CustomPush, UndecodableEvent>
        if value.count > customDecoder.limits.maximumRecordBytes {
            push = decoded { () throws(EventError) in try customDecoder.decode(value) }
        } else if let root = try? JSONParser.parse(value), CustomPushDecoder.isCustomPush(root) {
            push = decoded { () throws(EventError) in try customDecoder.decode(root) }
        } else {
            return events.prepare(value, scan: scan)
        }
        if case .success(let listed) = push, listed.recipients != nil { return events.prepare(value, scan: scan) }
        let sizes = (try? push.get()).map(RecipientFanout.valueBytes(of:)) ?? []
        let refused = refusal(sizes, limit: customDecoder.limits.maximumRecordBytes)
        return PreparedPlan(deviceBound: refused == nil ? Self.units(sizes) : 1) { _ in
            if let refused { return .failure(refused) }
            return push.map { push in
                fannedOut(
                    RecipientFanout.records(of: push), messageId: push.id, roomId: push.id,
                    type: push.payload.type ?? CustomPushPlanner.defaultType, appID: push.appID)
            }
        }
    }

    /// The plan of a decoded IMKIT message of `valueBytes`: its fan-out records, unless they would not fit. A record
    /// is at most 3 times the message (the writer spells `\b` as `\u0008`, and drops what else it may): a message
    /// whose records surely fit, the usual one, is written once per client and no more; any other is measured first
    /// (`RecipientFanout.valueBytes`), so that no record is made of one refused.
    private func fannedOut(_ message: Result<IMKITMessage, UndecodableEvent>, valueBytes: Int) -> Result<
        PlannedEvent<Request>, UndecodableEvent
    > {
        message.flatMap { message in
            let limit = imkitDecoder.limits.maximumRecordBytes
            let surelyFits =
                valueBytes <= limit / 3 && valueBytes <= budget.maximumBytes / 3 / max(1, message.clients.count)
            if !surelyFits, let refused = refusal(RecipientFanout.valueBytes(of: message), limit: limit) {
                return .failure(refused)
            }
            return .success(
                fannedOut(
                    RecipientFanout.records(of: message), messageId: message.id, roomId: message.room.id,
                    type: message.type, appID: message.appID))
        }
    }

    /// Why fan-out records whose values are `sizes` bytes long would not fit: one longer than `limit`, the largest
    /// record accepted (`record_too_large`), or all together more than `budget.maximumBytes` (`fanout_too_large`).
    private func refusal(_ sizes: [Int], limit: Int) -> UndecodableEvent? {
        if let largest = sizes.max(), largest > limit {
            return UndecodableEvent(
                reason: .recordTooLarge,
                message: "a fan-out record would be \(largest) bytes, more than the limit of \(limit)")
        }
        let total = sizes.reduce(0, +)
        guard total > budget.maximumBytes else { return nil }
        let limit = budget.maximumBytes
        return UndecodableEvent(
            reason: .fanoutTooLarge,
            message: "the fan-out to \(sizes.count) clients would be \(total) bytes, more than the limit of \(limit)")
    }

    /// The device-budget units of fan-out records whose values are `sizes` bytes long; at least one.
    private static func units(_ sizes: [Int]) -> Int {
        max(1, sizes.reduce(0) { $0 + FanoutBudget.units(ofValueBytes: $1) })
    }

    /// The units of an IMKIT message's fan-out records before it is decoded: one record per entry of its
    /// `pushToClients` (one for a v1 message), each estimated as the message (`valueBytes`) less every entry's text
    /// but its own.
    private static func estimatedUnits(_ root: JSONValue, valueBytes: Int) -> Int {
        guard case .array(let entries)? = root["pushToClients"] else {
            return FanoutBudget.units(ofValueBytes: valueBytes)
        }
        // An entry's text: its characters, its quotes and a comma.
        let entryBytes = entries.map { ($0.stringValue?.utf8.count ?? 0) + 3 }
        let shared = max(0, valueBytes - entryBytes.reduce(0, +))
        return units(entryBytes.map { shared + $0 })
    }

    private static func date(_ nowMillis: Int64) -> Date { Date(timeIntervalSince1970: Double(nowMillis) / 1000) }

    private func fannedOut(
        _ records: [RecipientFanout.Record], messageId: String, roomId: String, type: String, appID: String
    ) -> PlannedEvent<Request> {
        var planned = PlannedEvent<Request>(
            messageId: messageId, roomId: roomId, type: type, eventTimeMillis: nil, devices: [], narrowed: { _ in [] })
        planned.appID = appID
        planned.forwarded = records.map { record in
            KafkaProducerRecord(
                topic: topic, partition: placement(record.client), key: record.key, value: record.value)
        }
        return planned
    }

    private func decoded<Decoded>(_ decode: () throws(EventError) -> Decoded) -> Result<Decoded, UndecodableEvent> {
        do {
            return .success(try decode())
        } catch {
            return .failure(UndecodableEvent(reason: error.reason, message: error.description))
        }
    }
}
