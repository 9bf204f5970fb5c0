import PushCore
import Synchronization

/// The device registry and the client settings in memory (`PUSH_DEVICE_STORE=memory`): every pod holds the whole of
/// both topics, indexed by client, and reads them from their start at every boot. Thread-safe; a lookup takes one
/// lock and two dictionary reads.
public final class MemoryDeviceStore: DeviceStore {
    private struct State {
        /// Per client, its subscriptions by type and device id (IMKIT's one subscription per type + deviceId).
        var devices: [ClientKey: [DeviceSlot: Subscription]] = [:]
        var settings: [ClientKey: ClientSettings] = [:]
        var deviceCount = 0
        /// The apps devices were ever subscribed in: few, so a search across apps is a handful of lookups.
        var apps: Set<String> = []
        var bytes = 0
        /// Per topic, the next offset to read per partition: a reconnection resumes there.
        var offsets: [String: [Int32: Int64]] = [:]
    }

    private struct DeviceSlot: Hashable, Comparable {
        var type: SubscriptionType
        var deviceID: String

        static func < (lhs: DeviceSlot, rhs: DeviceSlot) -> Bool {
            (lhs.type.rawValue, lhs.deviceID) < (rhs.type.rawValue, rhs.deviceID)
        }
    }

    private let state = Mutex(State())

    public init() {}

    /// Applies one record of the device registry: a subscription replaces what its key held; a delete unsubscribes.
    public func apply(_ change: RegistryChange<DeviceKey, Subscription>) {
        state.withLock { Self.apply(change, to: &$0) }
    }

    /// Applies one record of the client settings: a delete resets the client to the defaults.
    public func apply(_ change: RegistryChange<ClientKey, ClientSettings>) {
        state.withLock { Self.apply(change, to: &$0) }
    }

    public func apply(_ batch: RegistryBatch) {
        state.withLock { state in
            for change in batch.devices { Self.apply(change, to: &state) }
            for change in batch.clients { Self.apply(change, to: &state) }
            state.offsets[batch.topic, default: [:]].merge(batch.offsets) { $1 }
        }
    }

    public func offsets(of topic: String) -> [Int32: Int64] {
        state.withLock { $0.offsets[topic] ?? [:] }
    }

    private static func apply(_ change: RegistryChange<DeviceKey, Subscription>, to state: inout State) {
        switch change {
        case .put(let key, let subscription):
            let slot = DeviceSlot(type: key.type, deviceID: key.deviceID)
            state.apps.insert(key.appID)
            let previous = state.devices[key.client, default: [:]].updateValue(subscription, forKey: slot)
            if let previous {
                state.bytes -= bytes(of: previous)
            } else {
                state.deviceCount += 1
            }
            state.bytes += bytes(of: subscription)
        case .delete(let key):
            let slot = DeviceSlot(type: key.type, deviceID: key.deviceID)
            guard let removed = state.devices[key.client]?.removeValue(forKey: slot) else { return }
            if state.devices[key.client]?.isEmpty == true { state.devices[key.client] = nil }
            state.deviceCount -= 1
            state.bytes -= bytes(of: removed)
        }
    }

    private static func apply(_ change: RegistryChange<ClientKey, ClientSettings>, to state: inout State) {
        switch change {
        case .put(let key, let settings):
            if let previous = state.settings.updateValue(settings, forKey: key) {
                state.bytes -= bytes(of: previous)
            }
            state.bytes += bytes(of: settings)
        case .delete(let key):
            if let removed = state.settings.removeValue(forKey: key) { state.bytes -= bytes(of: removed) }
        }
    }

    public func subscriptions(of client: ClientKey) -> [Subscription] {
        state.withLock { state in
            guard let slots = state.devices[client] else { return [] }
            return slots.sorted { $0.key < $1.key }.map(\.value)
        }
    }

    public func settings(of client: ClientKey) -> ClientSettings? {
        state.withLock { $0.settings[client] }
    }

    public func token(of key: DeviceKey) -> String? {
        state.withLock { $0.devices[key.client]?[DeviceSlot(type: key.type, deviceID: key.deviceID)]?.token }
    }

    public func keys(ofClient clientID: String, holding token: String, on platform: Platform) -> [DeviceKey] {
        state.withLock { state in
            state.apps.sorted().flatMap { app in
                let client = ClientKey(appID: app, clientID: clientID)
                return (state.devices[client] ?? [:]).filter { slot, subscription in
                    subscription.token == token && slot.type.platform == platform
                }.keys.sorted().map { DeviceKey(appID: app, clientID: clientID, type: $0.type, deviceID: $0.deviceID) }
            }
        }
    }

    public var statistics: RegistryStatistics {
        state.withLock { state in
            var byAppAndType: [RegistryStatistics.AppAndType: Int] = [:]
            for (client, slots) in state.devices {
                for slot in slots.keys {
                    byAppAndType[.init(appID: client.appID, type: slot.type), default: 0] += 1
                }
            }
            return RegistryStatistics(
                devices: state.deviceCount, clients: state.devices.count, settings: state.settings.count,
                bytes: state.bytes, devicesByAppAndType: byAppAndType)
        }
    }

    private static func bytes(of subscription: Subscription) -> Int {
        subscription.appID.utf8.count + subscription.clientID.utf8.count + subscription.token.utf8.count
            + subscription.deviceID.utf8.count + (subscription.topic?.utf8.count ?? 0)
    }

    private static func bytes(of settings: ClientSettings) -> Int {
        settings.appID.utf8.count + settings.clientID.utf8.count + settings.mutedRooms.reduce(0) { $0 + $1.utf8.count }
    }
}
