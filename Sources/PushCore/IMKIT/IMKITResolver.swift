import Essentials
import Foundation

/// A client's device, or the client itself, that gets no send, and why: one `skipped` receipt each.
public struct UnsentDevice: Sendable, Equatable {
    public var clientID: String
    /// `apns`, `apns-voip`, `fcm`, `web`, or `none` for a client without devices.
    public var platform: String
    /// The device token; `nil` for a client without devices.
    public var token: String?
    public var reason: SkipReason

    public init(clientID: String, platform: String, token: String?, reason: SkipReason) {
        self.clientID = clientID
        self.platform = platform
        self.token = token
        self.reason = reason
    }
}

/// An IMKIT message with its clients looked up: a chat-message event to the devices that may get a push, and the
/// clients and devices that get none.
public struct IMKITResolution: Sendable {
    /// A chat-message event (`schemas/chat-message.schema.json`) whose recipients are the reachable devices, one
    /// recipient per client and language; the whole IMKIT message is its `payload`. Narrowed, it is the retry and
    /// dead-letter record, so a retry sends to the devices resolved the first time.
    public var event: JSONValue
    /// How many devices `event` lists.
    public var deviceCount: Int
    /// In the order of the message's clients.
    public var unsent: [UnsentDevice]
}

/// Resolves an IMKIT message's clients through the device registry and the client settings.
///
/// Per client: its devices in the message's app (`ClientDevices`: `no_devices`, `notifications_off` and `platform`
/// for those that get no send). The rest become recipients with the
/// client's mute of the room (the planner skips them `muted`, silent pushes still go), the badge of IMKIT v1's
/// message, else the client's, and the language of the device, else the client's, else the default. Pure.
public struct IMKITResolver: Sendable {
    /// The most devices of one client that are pushed to (the event contract's limit per recipient); the rest, in
    /// the registry's order, are left out so one client cannot take the pipeline's device budget.
    public var maximumDevicesPerClient: Int

    public init(maximumDevicesPerClient: Int = EventLimits().maximumDevicesPerRecipient) {
        self.maximumDevicesPerClient = maximumDevicesPerClient
    }

    public func resolve(_ message: IMKITMessage, in directory: some DeviceDirectory) -> IMKITResolution {
        var recipients: [JSONValue] = []
        var unsent: [UnsentDevice] = []
        var deviceCount = 0
        for clientID in message.clients {
            let lookup = ClientDevices(
                of: ClientKey(appID: message.appID, clientID: clientID), in: directory,
                maximumDevices: maximumDevicesPerClient)
            unsent += lookup.unsent
            let settings = lookup.settings
            var byLanguage: [(locale: LanguageTag?, devices: [Device])] = []
            for (device, locale) in lookup.reachable {
                if let index = byLanguage.firstIndex(where: { $0.locale == locale }) {
                    byLanguage[index].devices.append(device)
                } else {
                    byLanguage.append((locale, [device]))
                }
            }
            let badge = message.assembled?.badge ?? settings?.badge
            let muted = settings?.mutedRooms.contains(message.room.id) ?? false
            for group in byLanguage {
                deviceCount += group.devices.count
                recipients.append(
                    Self.recipient(clientID, badge: badge, muted: muted, locale: group.locale, devices: group.devices))
            }
        }
        return IMKITResolution(
            event: Self.event(message, recipients: recipients), deviceCount: deviceCount, unsent: unsent)
    }

    private static func event(_ message: IMKITMessage, recipients: [JSONValue]) -> JSONValue {
        var members: [JSONMember] = [
            JSONMember("id", .string(message.id)),
            JSONMember("type", .string(message.type)),
            JSONMember("room", .object(optional([("id", message.room.id), ("name", message.room.name)]))),
            JSONMember("sender", person(message.sender)),
        ]
        if let content = message.content { members.append(JSONMember("content", .string(content))) }
        if let target = message.target { members.append(JSONMember("target", person(target))) }
        if let createdAt = message.createdAt {
            let milliseconds = Int64(clampingRoundedDown: (createdAt.timeIntervalSince1970 * 1000).rounded())
            members.append(JSONMember("createdAt", .number(String(milliseconds))))
        }
        if let alert = message.assembled?.alert { members.append(JSONMember("alert", .string(alert))) }
        if !message.appID.isEmpty { members.append(JSONMember("appID", .string(message.appID))) }
        members.append(JSONMember("recipients", .array(recipients)))
        members.append(JSONMember("payload", message.original))
        return .object(members)
    }

    private static func person(_ person: ChatMessageEvent.Person) -> JSONValue {
        .object(optional([("id", person.id), ("nickname", person.nickname)]))
    }

    private static func optional(_ fields: [(String, String?)]) -> [JSONMember] {
        fields.compactMap { key, value in value.map { JSONMember(key, .string($0)) } }
    }

    private static func recipient(
        _ clientID: String, badge: Int?, muted: Bool, locale: LanguageTag?, devices: [Device]
    ) -> JSONValue {
        var members = [JSONMember("userId", .string(clientID))]
        if let badge { members.append(JSONMember("badge", .number(String(badge)))) }
        if muted { members.append(JSONMember("muted", .bool(true))) }
        if let locale { members.append(JSONMember("locale", .string(locale.description))) }
        members.append(
            JSONMember(
                "devices",
                .array(
                    devices.map { device in
                        var fields = [
                            JSONMember("platform", .string(device.platform.rawValue)),
                            JSONMember("token", .string(device.token)),
                        ]
                        if let topic = device.topic { fields.append(JSONMember("topic", .string(topic))) }
                        if device.sandbox { fields.append(JSONMember("sandbox", .bool(true))) }
                        return .object(fields)
                    })))
        return .object(members)
    }
}
