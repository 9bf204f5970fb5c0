import Essentials
public import Foundation

/// Turns a record value in IMKIT's Message Model into an `IMKITMessage`, with errors that name the field.
///
/// Pure and reusable: the pipeline decodes the input topic's IMKIT records with it, and an HTTP ingress can validate
/// IMKIT's posts with it before accepting them.
public struct IMKITMessageDecoder: Sendable {
    public var limits: EventLimits

    public init(limits: EventLimits = EventLimits()) {
        self.limits = limits
    }

    /// Whether a parsed record is an IMKIT message (it has `messageType`) rather than a chat-message event.
    public static func isIMKITMessage(_ root: JSONValue) -> Bool {
        root["messageType"] != nil
    }

    /// Decodes one record value; `now` bounds the message time (see `EventTime`).
    public func decode(_ bytes: [UInt8], now: Date) throws(EventError) -> IMKITMessage {
        try decode(try limits.parse(bytes), now: now)
    }

    /// Decodes an already parsed message.
    public func decode(_ root: JSONValue, now: Date) throws(EventError) -> IMKITMessage {
        let message = try Fields(root, path: "")
        let id = try identifier(of: message)
        let type = try message.requiredString("messageType", maxLength: EventLimits.maximumTypeLength)
        let sender = try person(try message.object("sender"))
        let clients = try recipients(message, excluding: sender.id)
        var assembled: IMKITMessage.Assembled?
        if message.value("pushToClients") == nil {
            assembled = .init(
                badge: try message.optionalInteger("badge", in: 0...Int(Int32.max)),
                alert: try message.optionalString("alert", maxLength: nil))
        }
        return IMKITMessage(
            id: id,
            type: type,
            content: message.value("message")?.stringValue,
            room: .init(
                id: try room(message),
                name: try message.optionalString("roomName", maxLength: EventLimits.maximumNameLength)),
            sender: sender,
            target: try target(message, type: type),
            createdAt: try createdAt(message, now: now),
            appID: try message.optionalString("appID", maxLength: EventLimits.maximumIDLength) ?? "",
            clients: clients,
            assembled: assembled,
            original: root)
    }

    /// `_id`, else `id`.
    private func identifier(of fields: Fields) throws(EventError) -> String {
        if let value = fields.value("_id"), value != .null {
            return try fields.requiredString("_id", maxLength: EventLimits.maximumIDLength)
        }
        return try fields.requiredString("id", maxLength: EventLimits.maximumIDLength)
    }

    private func person(_ fields: Fields) throws(EventError) -> ChatMessageEvent.Person {
        .init(
            id: try identifier(of: fields),
            nickname: try fields.optionalString("nickname", maxLength: EventLimits.maximumNameLength))
    }

    /// `room` is the room's id; an expanded room object gives its `_id` / `id`.
    private func room(_ message: Fields) throws(EventError) -> String {
        if case .object = message.value("room") { return try identifier(of: try message.object("room")) }
        return try message.requiredString("room", maxLength: EventLimits.maximumIDLength)
    }

    /// The `$2` person: `member`, else the list `extra.invitees` (addMembers) or `extra.members` (deleteMembers).
    private func target(_ message: Fields, type: String) throws(EventError) -> ChatMessageEvent.Person? {
        if let member = try message.optionalObject("member") { return try person(member) }
        let listKey: MemberKey
        switch type {
        case "addMembers": listKey = "invitees"
        case "deleteMembers": listKey = "members"
        default: return nil
        }
        guard let extra = try message.optionalObject("extra"), let value = extra.value(listKey), value != .null else {
            return nil
        }
        let people = try extra.array(listKey).enumerated().map { (index, value) throws(EventError) in
            try person(try Fields(value, path: extra.path("\(listKey)[\(index)]")))
        }
        guard let first = people.first else { return nil }
        let nicknames = people.compactMap(\.nickname).filter { !$0.isEmpty }
        return .init(id: first.id, nickname: nicknames.isEmpty ? nil : nicknames.joined(separator: ", "))
    }

    /// `pushToClients` (v2), else `toClient` (v1): each client once, in order, without the sender.
    private func recipients(_ message: Fields, excluding sender: String) throws(EventError) -> [String] {
        let listed: [String]
        if message.value("pushToClients") != nil {
            let values = try message.array("pushToClients")
            guard values.count <= limits.maximumRecipients else {
                throw EventError(
                    .decodeError, path: "pushToClients",
                    "lists \(values.count) clients, more than the limit of \(limits.maximumRecipients)")
            }
            listed = try values.enumerated().map { (index, element) throws(EventError) in
                guard case .string(let client) = element, !client.isEmpty,
                    client.unicodeScalars.count <= EventLimits.maximumIDLength
                else {
                    throw EventError(
                        .decodeError, path: "pushToClients[\(index)]",
                        "must be a client id of 1 to \(EventLimits.maximumIDLength) characters")
                }
                return client
            }
        } else if message.value("toClient") != nil {
            listed = [try message.requiredString("toClient", maxLength: EventLimits.maximumIDLength)]
        } else {
            throw EventError(.decodeError, path: "pushToClients", "required (or toClient)")
        }
        var seen: Set<ByteID> = [ByteID(sender)]
        return listed.filter { seen.insert(ByteID($0)).inserted }
    }

    /// `messageTimeMS`, else `createdAtMS` (epoch milliseconds), else `messageTime` (RFC 3339).
    private func createdAt(_ message: Fields, now: Date) throws(EventError) -> Date? {
        var date: Date?
        for key: MemberKey in ["messageTimeMS", "createdAtMS"] where date == nil {
            guard let milliseconds = try message.optionalInteger(key, in: Int(Int64.min)...Int(Int64.max)) else {
                continue
            }
            date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            guard let date, EventTime.isPlausible(date, now: now) else {
                throw EventError(.decodeError, path: key.description, "must be within 100 years of now")
            }
        }
        if date == nil, let text = try message.optionalString("messageTime", maxLength: nil) {
            guard let parsed = RFC3339.parse(text), EventTime.isPlausible(parsed, now: now) else {
                throw EventError(
                    .decodeError, path: "messageTime", "must be an RFC 3339 date-time within 100 years of now")
            }
            date = parsed
        }
        return date
    }
}
