import Essentials
import Foundation

/// Turns a record value into a `ChatMessageEvent`, enforcing required fields, types, token syntax and limits.
public struct EventDecoder: Sendable {
    public var limits: EventLimits

    public init(limits: EventLimits = EventLimits()) {
        self.limits = limits
    }

    /// Decodes one record value. Unknown fields are ignored (and kept in `original`); `now` bounds `createdAt`.
    public func decode(_ bytes: [UInt8], now: Date) throws(EventError) -> ChatMessageEvent {
        try decode(try limits.parse(bytes), now: now)
    }

    /// Decodes an already parsed event object; `now` bounds `createdAt` (see `EventTime`).
    public func decode(_ root: JSONValue, now: Date) throws(EventError) -> ChatMessageEvent {
        let event = try Fields(root, path: "")
        let id = try event.requiredString("id", maxLength: EventLimits.maximumIDLength)
        let type = try event.requiredString("type", maxLength: EventLimits.maximumTypeLength)
        let room = try event.object("room")
        let sender = try event.object("sender")
        let recipientValues = try event.array("recipients")
        guard recipientValues.count <= limits.maximumRecipients else {
            throw EventError(
                .decodeError, path: "recipients",
                "lists \(recipientValues.count) recipients, more than the limit of \(limits.maximumRecipients)")
        }
        var invalidDevices: [DeviceAddress: EventError] = [:]
        var recipients: [ChatMessageEvent.Recipient] = []
        recipients.reserveCapacity(recipientValues.count)
        for (index, value) in recipientValues.enumerated() {
            recipients.append(try decodeRecipient(value, index: index, invalidDevices: &invalidDevices))
        }
        return ChatMessageEvent(
            id: id,
            type: type,
            room: .init(
                id: try room.requiredString("id", maxLength: EventLimits.maximumIDLength),
                name: try room.optionalString("name", maxLength: EventLimits.maximumNameLength)),
            sender: try person(sender),
            content: try event.optionalString("content", maxLength: nil),
            target: try event.optionalObject("target").map { (target) throws(EventError) in try person(target) },
            createdAt: try createdAt(event, now: now),
            alert: try event.optionalString("alert", maxLength: nil),
            appID: try event.optionalString("appID", maxLength: EventLimits.maximumIDLength) ?? "",
            recipients: recipients,
            payload: event.value("payload").flatMap { $0 == .null ? nil : $0 },
            invalidDevices: invalidDevices,
            original: root
        )
    }

    private func person(_ fields: Fields) throws(EventError) -> ChatMessageEvent.Person {
        .init(
            id: try fields.requiredString("id", maxLength: EventLimits.maximumIDLength),
            nickname: try fields.optionalString("nickname", maxLength: EventLimits.maximumNameLength))
    }

    private func createdAt(_ event: Fields, now: Date) throws(EventError) -> Date? {
        let date: Date
        switch event.value("createdAt") {
        case nil, .null?:
            return nil
        case .string(let text)?:
            guard let parsed = RFC3339.parse(text) else {
                throw EventError(.decodeError, path: event.path("createdAt"), "must be an RFC 3339 date-time")
            }
            date = parsed
        case .number(let literal)?:
            // Only an integer literal that fits Int64: no fraction, exponent or huge number reaches a conversion.
            guard let milliseconds = Int64(literal) else {
                throw EventError(
                    .decodeError, path: event.path("createdAt"),
                    "must be whole epoch milliseconds within 100 years of now")
            }
            date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        case let other?:
            throw EventError(
                .decodeError, path: event.path("createdAt"),
                "must be an RFC 3339 string or epoch milliseconds, not \(other.typeName)")
        }
        guard EventTime.isPlausible(date, now: now) else {
            throw EventError(.decodeError, path: event.path("createdAt"), "must be within 100 years of now")
        }
        return date
    }

    func decodeRecipient(
        _ value: JSONValue, index: Int, invalidDevices: inout [DeviceAddress: EventError]
    ) throws(EventError) -> ChatMessageEvent.Recipient {
        let recipient = try Fields(value, element: index, of: "recipients")
        let deviceValues = try recipient.array("devices")
        guard deviceValues.count <= limits.maximumDevicesPerRecipient else {
            throw EventError(
                .decodeError, path: recipient.path("devices"),
                "lists \(deviceValues.count) devices, more than the limit of \(limits.maximumDevicesPerRecipient)")
        }
        var devices: [Device?] = []
        devices.reserveCapacity(deviceValues.count)
        for (deviceIndex, deviceValue) in deviceValues.enumerated() {
            let address = DeviceAddress(recipient: index, device: deviceIndex)
            do {
                devices.append(try decodeDevice(deviceValue))
            } catch {
                // Paths are built only for a device that has a problem.
                invalidDevices[address] = error.within(address.description)
                devices.append(nil)
            }
        }
        let badge = try recipient.optionalInteger("badge", in: 0...Int(Int32.max))
        return .init(
            userID: try recipient.requiredString("userId", maxLength: EventLimits.maximumIDLength),
            badge: badge,
            muted: try recipient.optionalBool("muted") ?? false,
            locale: try recipient.optionalString("locale", maxLength: nil).flatMap { LanguageTag(lenient: $0) },
            devices: devices
        )
    }

    /// One device entry; errors name paths within the entry (`token`; empty for the entry itself).
    private func decodeDevice(_ value: JSONValue) throws(EventError) -> Device {
        let device = try Fields(value, path: "")
        let platformName = try device.requiredString("platform", maxLength: nil)
        guard let platform = Platform(rawValue: platformName) else {
            throw EventError(.decodeError, path: device.path("platform"), "must be one of apns, apns-voip, fcm")
        }
        let token = try device.requiredString("token", maxLength: nil)
        if let problem = TokenSyntax.problem(with: token, on: platform) {
            throw EventError(.decodeError, path: device.path("token"), problem)
        }
        let topic = try device.optionalString("topic", maxLength: nil)
        if let topic, !TokenSyntax.isTopic(topic) {
            throw EventError(
                .decodeError, path: device.path("topic"), "must be a bundle id of 1 to 255 printable characters")
        }
        return Device(
            platform: platform, token: token, topic: topic, sandbox: try device.optionalBool("sandbox") ?? false)
    }
}
