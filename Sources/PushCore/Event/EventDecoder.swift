import Essentials
public import Foundation

/// Turns a record value into a `ChatMessageEvent`, enforcing required fields, types, token syntax and limits.
public struct EventDecoder: Sendable {
    public var limits: EventLimits

    public init(limits: EventLimits = EventLimits()) {
        self.limits = limits
    }

    /// Decodes one record value. Unknown fields are ignored (and kept in `source`); `now` bounds `createdAt` (see
    /// `EventTime`).
    ///
    /// The record is read in place (`JSONTape`): only the fields an event has become values of their own, and no
    /// tree of the whole record is built.
    public func decode(_ bytes: [UInt8], now: Date) throws(EventError) -> ChatMessageEvent {
        try limits.tape(bytes).withRoot { (root) throws(EventError) in try decode(root, source: bytes, now: now) }
    }

    private func decode<Value: JSONReadable>(
        _ root: Value, source: [UInt8], now: Date
    ) throws(EventError) -> ChatMessageEvent {
        let event = try ObjectFields(root, path: "")
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
            payload: event.value("payload").flatMap { $0.isNull ? nil : $0.tree },
            invalidDevices: invalidDevices,
            source: source
        )
    }

    private func person<Value>(_ fields: ObjectFields<Value>) throws(EventError) -> ChatMessageEvent.Person {
        .init(
            id: try fields.requiredString("id", maxLength: EventLimits.maximumIDLength),
            nickname: try fields.optionalString("nickname", maxLength: EventLimits.maximumNameLength))
    }

    private func createdAt<Value>(_ event: ObjectFields<Value>, now: Date) throws(EventError) -> Date? {
        guard let value = event.value("createdAt"), !value.isNull else { return nil }
        let date: Date
        if let text = value.string {
            guard let parsed = RFC3339.parse(text) else {
                throw EventError(.decodeError, path: event.path("createdAt"), "must be an RFC 3339 date-time")
            }
            date = parsed
        } else if let literal = value.numberLiteral {
            // Only an integer literal that fits Int64: no fraction, exponent or huge number reaches a conversion.
            guard let milliseconds = Int64(literal) else {
                throw EventError(
                    .decodeError, path: event.path("createdAt"),
                    "must be whole epoch milliseconds within 100 years of now")
            }
            date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        } else {
            throw EventError(
                .decodeError, path: event.path("createdAt"),
                "must be an RFC 3339 string or epoch milliseconds, not \(value.typeName)")
        }
        guard EventTime.isPlausible(date, now: now) else {
            throw EventError(.decodeError, path: event.path("createdAt"), "must be within 100 years of now")
        }
        return date
    }

    func decodeRecipient<Value: JSONReadable>(
        _ value: Value, index: Int, invalidDevices: inout [DeviceAddress: EventError]
    ) throws(EventError) -> ChatMessageEvent.Recipient {
        let recipient = try ObjectFields(value, element: index, of: "recipients")
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
    private func decodeDevice<Value: JSONReadable>(_ value: Value) throws(EventError) -> Device {
        let device = try ObjectFields(value, path: "")
        let platformName = try device.requiredString("platform", maxLength: nil)
        guard let platform = Platform(rawValue: platformName) else {
            throw EventError(.decodeError, path: device.path("platform"), "must be one of apns, apns-voip, fcm, web")
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
