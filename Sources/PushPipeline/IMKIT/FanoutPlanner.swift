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
public struct FanoutPlanner<Request: Sendable>: EventPlanner {
    let events: any EventPlanner<Request>
    let topic: String
    let placement: @Sendable (ClientKey) -> Int32
    let imkitDecoder: IMKITMessageDecoder
    let customDecoder: CustomPushDecoder

    public init(
        events: any EventPlanner<Request>, topic: String, placement: @escaping @Sendable (ClientKey) -> Int32,
        imkitDecoder: IMKITMessageDecoder = IMKITMessageDecoder(),
        customDecoder: CustomPushDecoder = CustomPushDecoder()
    ) {
        self.events = events
        self.topic = topic
        self.placement = placement
        self.imkitDecoder = imkitDecoder
        self.customDecoder = customDecoder
    }

    public func deviceBound(_ value: [UInt8]) -> Int { prepare(value).deviceBound }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<Request>, UndecodableEvent> {
        prepare(value).plan(nowMillis: nowMillis)
    }

    /// A record fanned out sends nothing; it holds a unit of the device budget per fan-out record (per client it
    /// lists) until Kafka acknowledged them.
    public func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<Request> {
        if scan.namesMessageType, let root = try? JSONParser.parse(value), IMKITMessageDecoder.isIMKITMessage(root) {
            return PreparedPlan(deviceBound: Self.listed(root["pushToClients"])) { nowMillis in
                let now = Date(timeIntervalSince1970: Double(nowMillis) / 1000)
                return decoded { () throws(EventError) in try imkitDecoder.decode(root, now: now) }.map { message in
                    fannedOut(
                        RecipientFanout.records(of: message), messageId: message.id, roomId: message.room.id,
                        type: message.type, appID: message.appID)
                }
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
        let clients = (try? push.get())?.clients.count ?? 1
        return PreparedPlan(deviceBound: max(1, clients)) { _ in
            push.map { push in
                fannedOut(
                    RecipientFanout.records(of: push), messageId: push.id, roomId: push.id,
                    type: push.payload.type ?? CustomPushPlanner.defaultType, appID: push.appID)
            }
        }
    }

    /// The fan-out records of a message whose `pushToClients` is `clients` (one for a v1 message): at most one per
    /// entry.
    private static func listed(_ clients: JSONValue?) -> Int {
        guard case .array(let clients)? = clients else { return 1 }
        return max(1, clients.count)
    }

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
