import Essentials

/// One device of one client, the value of a device-registry record (`schemas/subscription.schema.json`).
public struct Subscription: Sendable, Equatable {
    /// The app; the empty string for the default app.
    public var appID: String
    public var clientID: String
    public var type: SubscriptionType
    /// The provider's device token; never log it.
    public var token: String
    public var deviceID: String
    /// A development-build APNs token, sent to the sandbox host.
    public var sandbox: Bool
    /// An APNs topic (bundle id) other than the app's default.
    public var topic: String?
    /// The device's language, before the client's.
    public var locale: LanguageTag?
    /// When the client subscribed, in epoch milliseconds, if the record says.
    public var updatedAtMS: Int64?

    public init(
        appID: String, clientID: String, type: SubscriptionType, token: String, deviceID: String,
        sandbox: Bool = false, topic: String? = nil, locale: LanguageTag? = nil, updatedAtMS: Int64? = nil
    ) {
        self.appID = appID
        self.clientID = clientID
        self.type = type
        self.token = token
        self.deviceID = deviceID
        self.sandbox = sandbox
        self.topic = topic
        self.locale = locale
        self.updatedAtMS = updatedAtMS
    }

    /// The record key of this subscription.
    public var key: DeviceKey { DeviceKey(appID: appID, clientID: clientID, type: type, deviceID: deviceID) }

    /// The device to send to.
    public var device: Device { Device(platform: type.platform, token: token, topic: topic, sandbox: sandbox) }
}

/// The settings of one client, the value of a client-settings record (`schemas/client-settings.schema.json`).
public struct ClientSettings: Sendable, Equatable {
    public var appID: String
    public var clientID: String
    /// The rooms the client muted: their messages push nothing to this client (silent pushes still go).
    public var mutedRooms: MutedRooms
    /// `false` when the client turned notifications off altogether.
    public var notificationEnabled: Bool
    /// The client's language, used for devices without their own.
    public var locale: LanguageTag?
    /// The client's unread count, for the badge of a push that does not carry one.
    public var badge: Int?

    public init(
        appID: String, clientID: String, mutedRooms: MutedRooms = [], notificationEnabled: Bool = true,
        locale: LanguageTag? = nil, badge: Int? = nil
    ) {
        self.appID = appID
        self.clientID = clientID
        self.mutedRooms = mutedRooms
        self.notificationEnabled = notificationEnabled
        self.locale = locale
        self.badge = badge
    }

    /// The record key of these settings.
    public var key: ClientKey { ClientKey(appID: appID, clientID: clientID) }
}

extension Subscription {
    /// The record value of this subscription (`schemas/subscription.schema.json`).
    public func json() -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256)
        writer.beginObject()
        writer.field("appID", appID)
        writer.field("clientId", clientID)
        writer.field("type", type.rawValue)
        writer.field("token", token)
        writer.field("deviceId", deviceID)
        if sandbox {
            writer.key("sandbox")
            writer.bool(true)
        }
        if let topic { writer.field("topic", topic) }
        if let locale { writer.field("locale", locale.description) }
        if let updatedAtMS {
            writer.key("updatedAtMS")
            writer.integer(updatedAtMS)
        }
        writer.endObject()
        return writer.bytes
    }
}
