import Essentials
public import PushCore

/// What finds the registry keys that hold a token a provider called dead (`UnsubscribingDeadTokens`): a whole
/// registry's store, or the registry partitions a pod holds.
public protocol TokenHolders: Sendable {
    /// The keys of `clientID`'s devices, in any app, that hold `token` on `platform` now.
    func keys(ofClient clientID: String, holding token: String, on platform: Platform) -> [DeviceKey]
}

/// Where the device registry and the client settings are kept on a pod: the port the follower writes through and
/// the planner reads through (`MemoryDeviceStore`, or `LMDBDeviceStore` on disk).
public protocol DeviceStore: DeviceDirectory, TokenHolders {
    /// Applies the changes of one batch of a registry topic's records and, with them at once, the offsets they
    /// bring the topic to: a store that outlives the process resumes from exactly what it holds. On failure
    /// nothing of the batch is applied.
    func apply(_ batch: RegistryBatch) throws(RegistryStoreError)
    /// The next offset to read, per partition, of the topic named `topic`, as the store's last batch of it left
    /// them; empty for a topic it never applied (read it from the beginning).
    func offsets(of topic: String) -> [Int32: Int64]
    /// The token the registry holds for `key` now; `nil` when it holds none.
    func token(of key: DeviceKey) -> String?
    /// What the store holds.
    var statistics: RegistryStatistics { get }
    /// Called each time both topics have been read up to where they ended at the start: a store may then finish
    /// what it deferred during the load (a disk-backed one flushes) and give back what the load used.
    func loaded() throws(RegistryStoreError)
}

extension DeviceStore {
    public func loaded() throws(RegistryStoreError) {}
}

/// Why a store could not apply a batch or open its file (a disk-backed store: full, unwritable, corrupt).
public struct RegistryStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// An LMDB write that found the map full: the environment grows it and writes again.
    var isMapFull = false

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
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

        /// Apps are compared as bytes (`ByteID`), as the registry's keys are.
        public static func == (lhs: AppAndType, rhs: AppAndType) -> Bool {
            lhs.type == rhs.type && ByteID(lhs.appID) == ByteID(rhs.appID)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(ByteID(appID))
            hasher.combine(type)
        }

        public static func < (lhs: AppAndType, rhs: AppAndType) -> Bool {
            (ByteID(lhs.appID), lhs.type.rawValue) < (ByteID(rhs.appID), rhs.type.rawValue)
        }

        /// The apps that hold devices in `counts`, each once, in byte order.
        static func apps(in counts: [AppAndType: Int]) -> [String] {
            Set(counts.keys.map { ByteID($0.appID) }).sorted().map(\.text)
        }

        /// Adds `delta` to this pair's count in `counts`; a count that reaches 0 is dropped, so the keys are the apps
        /// and types that hold devices.
        func count(by delta: Int, in counts: inout [AppAndType: Int]) {
            let count = counts[self, default: 0] + delta
            counts[self] = count > 0 ? count : nil
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

/// The changes of one batch of records of one registry topic, and the next offset to read per partition after it.
public struct RegistryBatch: Sendable, Equatable {
    /// The topic's name.
    public var topic: String
    public var devices: [RegistryChange<DeviceKey, Subscription>]
    public var clients: [RegistryChange<ClientKey, ClientSettings>]
    /// The next offset to read, per partition the batch read (ignored records count: they are read).
    public var offsets: [Int32: Int64]

    public init(
        topic: String, devices: [RegistryChange<DeviceKey, Subscription>] = [],
        clients: [RegistryChange<ClientKey, ClientSettings>] = [], offsets: [Int32: Int64] = [:]
    ) {
        self.topic = topic
        self.devices = devices
        self.clients = clients
        self.offsets = offsets
    }
}
