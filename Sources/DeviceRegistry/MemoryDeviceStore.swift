public import PushCore
import Synchronization

/// The device registry and the client settings in memory (`PUSH_DEVICE_STORE=memory`): every pod holds the whole of
/// both topics, indexed by client, and reads them from their start at every boot. Thread-safe; a lookup takes one
/// lock, two dictionary reads and the decoding of the client's list.
public final class MemoryDeviceStore: DeviceStore {
    private struct State {
        /// Per client, its subscriptions (IMKIT's one subscription per type + deviceId) in one compact list.
        var devices: [ClientKey: DeviceList] = [:]
        var settings: [ClientKey: ClientSettings] = [:]
        var deviceCount = 0
        var byAppAndType: [RegistryStatistics.AppAndType: Int] = [:]
        var bytes = 0
        /// Per topic, the next offset to read per partition: a reconnection resumes there.
        var offsets: [String: [Int32: Int64]] = [:]
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
            var list = state.devices.removeValue(forKey: key.client) ?? DeviceList()
            state.bytes -= list.bytes.count
            if list.put(subscription) {
                state.deviceCount += 1
                RegistryStatistics.AppAndType(appID: key.appID, type: key.type).count(by: 1, in: &state.byAppAndType)
            }
            state.bytes += list.bytes.count
            state.devices[key.client] = list
        case .delete(let key):
            guard var list = state.devices.removeValue(forKey: key.client) else { return }
            state.bytes -= list.bytes.count
            if list.remove(type: key.type, deviceID: key.deviceID) {
                state.deviceCount -= 1
                RegistryStatistics.AppAndType(appID: key.appID, type: key.type).count(
                    by: -1, in: &state.byAppAndType)
            }
            state.bytes += list.bytes.count
            if !list.isEmpty { state.devices[key.client] = list }
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
        state.withLock { $0.devices[client]?.subscriptions(of: client) ?? [] }
    }

    public func settings(of client: ClientKey) -> ClientSettings? {
        state.withLock { $0.settings[client] }
    }

    public func token(of key: DeviceKey) -> String? {
        state.withLock { $0.devices[key.client]?.subscription(key)?.token }
    }

    public func keys(ofClient clientID: String, holding token: String, on platform: Platform) -> [DeviceKey] {
        state.withLock { state in
            RegistryStatistics.AppAndType.apps(in: state.byAppAndType).flatMap { app in
                let client = ClientKey(appID: app, clientID: clientID)
                return (state.devices[client]?.subscriptions(of: client) ?? []).filter {
                    $0.token == token && $0.type.platform == platform
                }.map(\.key)
            }
        }
    }

    /// What the store holds; `bytes` counts the clients' device lists and what the settings records take.
    public var statistics: RegistryStatistics {
        state.withLock { state in
            RegistryStatistics(
                devices: state.deviceCount, clients: state.devices.count, settings: state.settings.count,
                bytes: state.bytes, devicesByAppAndType: state.byAppAndType)
        }
    }

    /// What one settings record takes in the table: its slot in the dictionary (key and value, at a hash table's
    /// load of at most 3/4), the ids' text where it does not fit inline, and the muted rooms' arrays.
    private static func bytes(of settings: ClientSettings) -> Int {
        (MemoryLayout<ClientKey>.stride + MemoryLayout<ClientSettings>.stride) * 4 / 3 + heapBytes(settings.appID)
            + heapBytes(settings.clientID) + settings.mutedRooms.storageBytes
    }

    /// A native string's heap storage: none up to 15 UTF-8 bytes (stored inline), else a 32-byte header, the bytes
    /// and a terminating NUL.
    private static func heapBytes(_ text: String) -> Int {
        let count = text.utf8.count
        return count <= 15 ? 0 : 32 + count + 1
    }
}
