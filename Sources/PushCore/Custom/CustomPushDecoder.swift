import Essentials
import Foundation

/// Turns a custom-push record (`{"clients": [...], "payload": {...}, "appID"?, "id"?}`) into a `CustomPush`, with
/// errors that name the field.
///
/// The ingress checks `push2clients` bodies with it and the workers decode the input topic's custom pushes with it,
/// so the ingress refuses whatever a worker would dead-letter.
public struct CustomPushDecoder: Sendable {
    public var limits: EventLimits

    /// The latest `expiry` taken: the end of year 9999, as far as an RFC 3339 time goes.
    public static let latestExpiry: Int64 = 253_402_300_799

    public init(limits: EventLimits = EventLimits()) {
        self.limits = limits
    }

    /// Whether a parsed record is a custom push: an object with `clients` and without the `sender` that chat-message
    /// events and IMKIT messages require, so an event with an unknown `clients` member stays an event.
    public static func isCustomPush(_ root: JSONValue) -> Bool {
        root["clients"] != nil && root["sender"] == nil
    }

    /// Decodes one record value.
    public func decode(_ bytes: [UInt8]) throws(EventError) -> CustomPush {
        try decode(try limits.parse(bytes))
    }

    /// Decodes an already parsed record.
    public func decode(_ root: JSONValue) throws(EventError) -> CustomPush {
        let record = try Fields(root, path: "")
        for member: MemberKey in ["sender", "messageType"] where record.value(member) != nil {
            throw EventError(
                .decodeError, path: member.description,
                "must be absent: a record with it is a chat-message event or an IMKIT message")
        }
        let clients = try self.clients(record)
        let payload = try self.payload(try record.object("payload"))
        let id = try nonEmpty(record, "id", maxLength: EventLimits.maximumIDLength) ?? Self.derivedID(of: root)
        var invalidDevices: [DeviceAddress: EventError] = [:]
        var recipients: [ChatMessageEvent.Recipient]?
        if let values = record.value("recipients"), values != .null {
            let listed = try record.array("recipients")
            guard listed.count <= limits.maximumRecipients else {
                throw EventError(
                    .decodeError, path: "recipients",
                    "lists \(listed.count) recipients, more than the limit of \(limits.maximumRecipients)")
            }
            let events = EventDecoder(limits: limits)
            recipients = try listed.enumerated().map { (index, value) throws(EventError) in
                try events.decodeRecipient(value, index: index, invalidDevices: &invalidDevices)
            }
        }
        return CustomPush(
            id: id,
            appID: try record.optionalString("appID", maxLength: EventLimits.maximumIDLength) ?? "",
            clients: clients, payload: payload, recipients: recipients, invalidDevices: invalidDevices,
            original: root)
    }

    /// `clients`: 1 to `maximumRecipients` client ids, each once, in order.
    private func clients(_ record: Fields) throws(EventError) -> [String] {
        let values = try record.array("clients")
        guard !values.isEmpty, values.count <= limits.maximumRecipients else {
            throw EventError(
                .decodeError, path: "clients", "must list 1 to \(limits.maximumRecipients) clients, not \(values.count)"
            )
        }
        var seen: Set<ByteID> = []
        var clients: [String] = []
        for (index, value) in values.enumerated() {
            guard case .string(let client) = value, !client.isEmpty,
                client.unicodeScalars.count <= EventLimits.maximumIDLength
            else {
                throw EventError(
                    .decodeError, path: "clients[\(index)]",
                    "must be a client id of 1 to \(EventLimits.maximumIDLength) characters")
            }
            if seen.insert(ByteID(client)).inserted { clients.append(client) }
        }
        return clients
    }

    private func payload(_ payload: Fields) throws(EventError) -> CustomPayload {
        let topic = try nonEmpty(payload, "topic", maxLength: nil)
        if let topic, !TokenSyntax.isTopic(topic) {
            throw EventError(
                .decodeError, path: payload.path("topic"), "must be a bundle id of 1 to 255 printable characters")
        }
        let expiry = try payload.optionalInteger("expiry", in: 0...Int(Self.latestExpiry))
        return CustomPayload(
            type: try nonEmpty(payload, "type", maxLength: EventLimits.maximumTypeLength),
            expiry: expiry.map(Int64.init),
            alert: try alert(payload),
            badge: try payload.optionalInteger("badge", in: 0...Int(Int32.max)),
            sound: try nonEmpty(payload, "sound", maxLength: EventLimits.maximumNameLength),
            topic: topic,
            title: try nonEmpty(payload, "title", maxLength: nil),
            body: try nonEmpty(payload, "body", maxLength: nil),
            icon: try nonEmpty(payload, "icon", maxLength: EventLimits.maximumNameLength),
            collapseKey: try nonEmpty(payload, "collapseKey", maxLength: EventLimits.maximumIDLength),
            object: payload.object)
    }

    /// `alert`: a string, or `{"loc-key": key, "loc-args": [strings]}`. IMKIT's API does not require `loc-key`; an
    /// object without one has nothing to show and counts as no alert.
    private func alert(_ payload: Fields) throws(EventError) -> CustomPayload.Alert? {
        switch payload.value("alert") {
        case nil, .null?:
            return nil
        case .string(let text)?:
            return text.isEmpty ? nil : .text(text)
        case .object?:
            let alert = try payload.object("alert")
            let key = try nonEmpty(alert, "loc-key", maxLength: EventLimits.maximumIDLength)
            var arguments: [String] = []
            if let value = alert.value("loc-args"), value != .null {
                arguments = try alert.array("loc-args").enumerated().map { (index, value) throws(EventError) in
                    guard case .string(let argument) = value else {
                        throw EventError(.decodeError, path: alert.path("loc-args[\(index)]"), "must be a string")
                    }
                    return argument
                }
            }
            return key.map { .localized(key: $0, arguments: arguments) }
        case let other?:
            throw EventError(
                .decodeError, path: payload.path("alert"),
                "must be a string or an object with loc-key, not \(other.typeName)")
        }
    }

    /// An optional string; the empty string counts as absent.
    private func nonEmpty(_ fields: Fields, _ key: MemberKey, maxLength: Int?) throws(EventError) -> String? {
        guard let text = try fields.optionalString(key, maxLength: maxLength), !text.isEmpty else { return nil }
        return text
    }

    /// The id of a record without one: a UUID from the SHA-256 of its JSON, the same for every delivery of it.
    private static func derivedID(of root: JSONValue) -> String {
        DeterministicUUID.make(from: String(decoding: JSONWriter.encode(root), as: UTF8.self))
    }
}
