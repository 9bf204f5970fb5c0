import Essentials

/// One record of an IMKIT message or custom push per recipient client, for the `assigned` registry scope: the record
/// as received with its clients narrowed to the one client, keyed by the client's registry key (`appID/clientId`,
/// percent-encoded, as `push.clients` is keyed). Each is itself a valid IMKIT message or custom push that resolves to
/// exactly that client, so the fan-out stage plans it as the `all` scope plans the whole message, with the same
/// message id and the same receipt ids. Pure.
public enum RecipientFanout {
    /// One recipient client's record.
    public struct Record: Sendable, Equatable {
        public var client: ClientKey
        /// The client's registry key bytes: the record key.
        public var key: [UInt8]
        public var value: [UInt8]
    }

    /// `message` narrowed to each of its clients (never the sender: the decoder left it out), in the message's order.
    /// A v1 message (`toClient`) already names one client and goes as it is.
    public static func records(of message: IMKITMessage) -> [Record] {
        guard case .object(let members) = message.original, members.contains(where: { $0.key == "pushToClients" })
        else {
            return message.clients.map { record(message.appID, $0, JSONWriter.encode(message.original)) }
        }
        return message.clients.map { client in
            let narrowed = members.map { member in
                member.key == "pushToClients" ? JSONMember("pushToClients", .array([.string(client)])) : member
            }
            return record(message.appID, client, JSONWriter.encode(.object(narrowed)))
        }
    }

    /// `push` narrowed to each of its clients, in order, each record carrying the push's `id` (a push without one has
    /// an id derived from its whole text, which the narrowed records would not share).
    public static func records(of push: CustomPush) -> [Record] {
        guard case .object(let members) = push.original else { return [] }
        let kept = members.filter { $0.key != "clients" && $0.key != "id" }
        return push.clients.map { client in
            let narrowed =
                kept + [JSONMember("id", .string(push.id)), JSONMember("clients", .array([.string(client)]))]
            return record(push.appID, client, JSONWriter.encode(.object(narrowed)))
        }
    }

    /// The value size of each record `records(of: message)` makes, in the same order, without making them: the
    /// message with an empty `pushToClients` is written once and each client's quoted id added to it.
    public static func valueBytes(of message: IMKITMessage) -> [Int] {
        guard case .object(let members) = message.original, members.contains(where: { $0.key == "pushToClients" })
        else {
            let whole = JSONWriter.encode(message.original).count
            return message.clients.map { _ in whole }
        }
        let emptied = members.map { member in
            member.key == "pushToClients" ? JSONMember("pushToClients", .array([])) : member
        }
        return valueBytes(emptied: .object(emptied), clients: message.clients)
    }

    /// The value size of each record `records(of: push)` makes, in the same order, without making them.
    public static func valueBytes(of push: CustomPush) -> [Int] {
        guard case .object(let members) = push.original else { return [] }
        let kept = members.filter { $0.key != "clients" && $0.key != "id" }
        let emptied = kept + [JSONMember("id", .string(push.id)), JSONMember("clients", .array([]))]
        return valueBytes(emptied: .object(emptied), clients: push.clients)
    }

    /// The size of `emptied` (a record whose one-client list is empty) with each of `clients` in its list.
    private static func valueBytes(emptied: JSONValue, clients: [String]) -> [Int] {
        let base = JSONWriter.encode(emptied).count
        return clients.map { base + JSONWriter.encode(.string($0)).count }
    }

    private static func record(_ appID: String, _ clientID: String, _ value: [UInt8]) -> Record {
        let client = ClientKey(appID: appID, clientID: clientID)
        return Record(client: client, key: Array(client.description.utf8), value: value)
    }
}
