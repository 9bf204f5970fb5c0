import PushCore

/// Where the device registry and the client settings are kept on a pod: the port the follower writes through and
/// the planner reads through (`MemoryDeviceStore`; a disk-backed store can stand behind the same port).
public protocol DeviceStore: DeviceDirectory {
    /// Applies one record of the device registry: a subscription replaces what its key held; a delete unsubscribes.
    func apply(_ change: RegistryChange<DeviceKey, Subscription>)
    /// Applies one record of the client settings: a delete resets the client to the defaults.
    func apply(_ change: RegistryChange<ClientKey, ClientSettings>)
    /// The token the registry holds for `key` now; `nil` when it holds none.
    func token(of key: DeviceKey) -> String?
    /// The keys of `clientID`'s devices, in any app, that hold `token` on `platform` now.
    func keys(ofClient clientID: String, holding token: String, on platform: Platform) -> [DeviceKey]
    /// What the store holds.
    var statistics: RegistryStatistics { get }
}

/// What a device store holds: counts and an estimate of its memory.
public struct RegistryStatistics: Sendable, Equatable {
    /// Subscriptions.
    public var devices: Int
    /// Clients with at least one subscription.
    public var clients: Int
    /// Clients with a settings record.
    public var settings: Int
    /// The bytes of the stored text (ids, tokens, topics, rooms): a lower bound of the store's memory.
    public var bytes: Int
    /// Subscriptions per app and type.
    public var devicesByAppAndType: [AppAndType: Int]

    public struct AppAndType: Sendable, Hashable, Comparable {
        public var appID: String
        public var type: SubscriptionType

        public init(appID: String, type: SubscriptionType) {
            self.appID = appID
            self.type = type
        }

        public static func < (lhs: AppAndType, rhs: AppAndType) -> Bool {
            (lhs.appID, lhs.type.rawValue) < (rhs.appID, rhs.type.rawValue)
        }
    }

    public init(
        devices: Int = 0, clients: Int = 0, settings: Int = 0, bytes: Int = 0,
        devicesByAppAndType: [AppAndType: Int] = [:]
    ) {
        self.devices = devices
        self.clients = clients
        self.settings = settings
        self.bytes = bytes
        self.devicesByAppAndType = devicesByAppAndType
    }
}
