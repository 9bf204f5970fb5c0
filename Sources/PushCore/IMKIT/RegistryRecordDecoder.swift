import Essentials

/// What one record of the device registry or the client settings topic says.
public enum RegistryChange<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// `key` now holds `value`.
    case put(Key, Value)
    /// The tombstone of `key`: unsubscribed, or settings reset.
    case delete(Key)
}

extension RegistryChange: Equatable where Value: Equatable {}

/// Why a registry record is ignored: a stable code for the warning's counter, and what is wrong (never a token).
public struct RegistryRecordError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: Reason
    public var message: String

    public enum Reason: String, Sendable, CaseIterable {
        /// The key is not of the form `appID/clientId[/type/deviceId]`.
        case badKey = "bad_key"
        /// The value is not a valid record.
        case badValue = "bad_value"
        /// The value names another app, client, type or device than the key.
        case keyMismatch = "key_mismatch"
        /// The token fails its platform's syntax.
        case badToken = "bad_token"
        /// A settings record lists more than `RegistryRecordDecoder.maximumMutedRooms` muted rooms: it is applied with
        /// the first ones, the others are ignored.
        case tooManyMutedRooms = "too_many_muted_rooms"
        /// The record's client belongs to another partition than the one it was read from (`RegistryPartition`):
        /// a producer that did not partition by client.
        case foreign
    }

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}

/// The language tags of the locales decoded so far (`LanguageTag(lenient:)`), for a batch of registry records: a
/// registry holds few distinct locales. At most `capacity` are kept; others are parsed each time.
public struct LocaleMemo: Sendable {
    public static let capacity = 256
    private var tags: [String: LanguageTag?] = [:]

    public init() {}

    /// `LanguageTag(lenient: text)`, parsed once per distinct text.
    public mutating func tag(_ text: String) -> LanguageTag? {
        if let known = tags[text] { return known }
        let tag = LanguageTag(lenient: text)
        if tags.count < Self.capacity { tags[text] = tag }
        return tag
    }
}

/// Decodes the records of the device registry (`push.devices`) and the client settings (`push.clients`).
///
/// A record is trusted only when its key and value agree: a value naming another device than its key would put a
/// token where the compaction of its own key can never remove it.
public enum RegistryRecordDecoder {
    /// The longest value accepted: a subscription or a settings record is far smaller.
    public static let maximumValueBytes = 64 * 1024
    /// The most muted rooms kept of one settings record: the first ones it lists; the others are ignored and the
    /// record counted (`tooManyMutedRooms`). A 64 KB value of short room ids lists up to about 16,000 of them;
    /// kept, they would cost a lookup and 4 bytes of memory each for a list no user keeps.
    public static let maximumMutedRooms = 1_000

    /// The change one device-registry record makes; `value == nil` is a tombstone.
    public static func subscription(key: [UInt8]?, value: [UInt8]?) throws(RegistryRecordError) -> RegistryChange<
        DeviceKey, Subscription
    > {
        var locales = LocaleMemo()
        return try subscription(key: key, value: value, locales: &locales)
    }

    /// As `subscription(key:value:)`, reading locales through `locales`: a batch of records decoded with one memo
    /// parses each distinct locale once.
    public static func subscription(key: [UInt8]?, value: [UInt8]?, locales: inout LocaleMemo)
        throws(RegistryRecordError) -> RegistryChange<DeviceKey, Subscription>
    {
        guard let key, let text = String(validating: key, as: UTF8.self), let deviceKey = DeviceKey(text: text) else {
            throw RegistryRecordError(.badKey, "the key must be appID/clientId/type/deviceId, percent-encoded")
        }
        guard let value else { return .delete(deviceKey) }
        let subscription = try readObject(value) { (fields) throws(EventError) in
            let typeName = try fields.requiredString("type", maxLength: nil)
            guard let type = SubscriptionType(rawValue: typeName) else {
                throw EventError(.decodeError, path: "type", "must be one of ios, ios-voip, android, fcm, web")
            }
            return Subscription(
                appID: try fields.optionalString("appID", maxLength: EventLimits.maximumIDLength) ?? "",
                clientID: try fields.requiredString("clientId", maxLength: EventLimits.maximumIDLength),
                type: type,
                token: try fields.requiredString("token", maxLength: nil),
                deviceID: try fields.requiredString("deviceId", maxLength: EventLimits.maximumIDLength),
                sandbox: try fields.optionalBool("sandbox") ?? false,
                topic: try fields.optionalString("topic", maxLength: nil),
                locale: try fields.optionalString("locale", maxLength: nil).flatMap { locales.tag($0) },
                updatedAtMS: try fields.optionalInteger("updatedAtMS", in: 0...Int.max).map { Int64($0) })
        }
        guard subscription.key == deviceKey else {
            throw RegistryRecordError(
                .keyMismatch, "the value's appID, clientId, type and deviceId differ from the key")
        }
        if let problem = TokenSyntax.problem(with: subscription.token, on: subscription.type.platform) {
            throw RegistryRecordError(.badToken, "token: \(problem)")
        }
        if let topic = subscription.topic, !TokenSyntax.isTopic(topic) {
            throw RegistryRecordError(.badValue, "topic: must be a bundle id of 1 to 255 printable characters")
        }
        return .put(deviceKey, subscription)
    }

    /// The change one client-settings record makes; `value == nil` is a tombstone.
    public static func settings(key: [UInt8]?, value: [UInt8]?) throws(RegistryRecordError) -> RegistryChange<
        ClientKey, ClientSettings
    > {
        var roomsLeftOut = 0
        return try settings(key: key, value: value, roomsLeftOut: &roomsLeftOut)
    }

    /// As `settings(key:value:)`, setting `roomsLeftOut` to how many of the record's muted rooms beyond
    /// `maximumMutedRooms` were left out.
    public static func settings(key: [UInt8]?, value: [UInt8]?, roomsLeftOut: inout Int) throws(RegistryRecordError)
        -> RegistryChange<ClientKey, ClientSettings>
    {
        guard let key, let text = String(validating: key, as: UTF8.self), let clientKey = ClientKey(text: text) else {
            throw RegistryRecordError(.badKey, "the key must be appID/clientId, percent-encoded")
        }
        guard let value else { return .delete(clientKey) }
        var leftOut = 0
        let settings = try readObject(value) { (fields) throws(EventError) in
            var muted: [String] = []
            if let mute = fields.value("mute"), !mute.isNull {
                let rooms = try fields.array("mute")
                for (index, room) in rooms.enumerated() {
                    guard let id = room.string, !id.isEmpty else {
                        throw EventError(.decodeError, path: "mute[\(index)]", "must be a non-empty string")
                    }
                    if muted.count < maximumMutedRooms { muted.append(id) } else { leftOut += 1 }
                }
            }
            return ClientSettings(
                appID: try fields.optionalString("appID", maxLength: EventLimits.maximumIDLength) ?? "",
                clientID: try fields.requiredString("clientId", maxLength: EventLimits.maximumIDLength),
                mutedRooms: MutedRooms(muted),
                notificationEnabled: try fields.optionalBool("notificationEnabled") ?? true,
                locale: try fields.optionalString("locale", maxLength: nil).flatMap { LanguageTag(lenient: $0) },
                badge: try fields.optionalInteger("badge", in: 0...Int(Int32.max)))
        }
        guard settings.key == clientKey else {
            throw RegistryRecordError(.keyMismatch, "the value's appID and clientId differ from the key")
        }
        roomsLeftOut = leftOut
        return .put(clientKey, settings)
    }

    /// What `read` makes of the fields of the JSON object `value`, read in place; a value that is not one, or that
    /// `read` refuses, is `badValue`.
    private static func readObject<Result>(
        _ value: [UInt8], _ read: (ObjectFields<JSONTape.Value>) throws(EventError) -> Result
    ) throws(RegistryRecordError) -> Result {
        guard value.count <= maximumValueBytes else {
            throw RegistryRecordError(.badValue, "the value is more than \(maximumValueBytes) bytes")
        }
        let tape: JSONTape
        do {
            tape = try JSONTape(parsing: value)
        } catch {
            throw RegistryRecordError(.badValue, error.description)
        }
        do {
            return try tape.withRoot { (root) throws(EventError) in try read(try ObjectFields(root, path: "")) }
        } catch {
            throw RegistryRecordError(.badValue, error.description)
        }
    }
}
