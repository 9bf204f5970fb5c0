import Glibc
public import PushCore

/// The device registry and the client settings every worker follows as tables, for IMKIT messages.
public struct RegistryConfiguration: Sendable, Equatable {
    /// Where the tables are kept (`PUSH_DEVICE_STORE`).
    public enum Store: Sendable, Equatable {
        /// In memory, read from the topics' start at every boot.
        case memory
        /// In an LMDB file in the directory `path`, resumed after a restart from the offsets stored with the data.
        case lmdb(path: String)
        /// Not followed: IMKIT messages find no devices (every client `no_devices`).
        case none
    }

    public var store: Store = .memory
    /// The LMDB store's map to start with, in bytes (`PUSH_DEVICE_STORE_MAP_MB`); it doubles when full.
    public var mapBytes = 1024 * 1024 * 1024
    /// `PUSH_DEVICES_TOPIC` (default `push.devices`, compacted).
    public var devicesTopic = "push.devices"
    /// `PUSH_CLIENTS_TOPIC` (default `push.clients`, compacted).
    public var clientsTopic = "push.clients"
    /// How long the start waits for both tables to be read (`PUSH_DEVICES_LOAD_MS`).
    public var loadTimeout: Duration = .seconds(30)
    /// Where the worker's and the `devices` command's records of `devicesTopic` go (`PUSH_REGISTRY_PARTITIONING`).
    public var partitioning = RegistryPartitioning.key
    /// With `PUSH_REGISTRY_SCOPE=assigned` and an LMDB store, how many copies of partitions no longer assigned are
    /// kept for a quick return (`PUSH_REGISTRY_RETAINED_COPIES`); the least recently used beyond are removed.
    public var retainedCopies = 4

    public init() {}
}

extension SettingReader {
    /// `PUSH_DEVICE_STORE`, `PUSH_DEVICE_STORE_MAP_MB`, `PUSH_DEVICES_TOPIC`, `PUSH_CLIENTS_TOPIC`,
    /// `PUSH_DEVICES_LOAD_MS`, `PUSH_REGISTRY_PARTITIONING`, `PUSH_REGISTRY_RETAINED_COPIES`; the two topics must differ from each other and from `inputTopics`.
    func registryConfiguration(inputTopics: [String]) throws(InvalidSetting) -> RegistryConfiguration {
        var registry = RegistryConfiguration()
        registry.store = try deviceStore("PUSH_DEVICE_STORE")
        registry.mapBytes = try integer("PUSH_DEVICE_STORE_MAP_MB", default: 1024, in: 1...1_048_576) * 1024 * 1024
        registry.devicesTopic = try topic("PUSH_DEVICES_TOPIC", default: registry.devicesTopic)
        registry.clientsTopic = try topic("PUSH_CLIENTS_TOPIC", default: registry.clientsTopic)
        registry.loadTimeout = try milliseconds(
            "PUSH_DEVICES_LOAD_MS", default: registry.loadTimeout, in: 0...3_600_000)
        registry.partitioning = try registryPartitioning()
        registry.retainedCopies = try retainedRegistryCopies()
        guard registry.devicesTopic != registry.clientsTopic else {
            throw InvalidSetting(variable: "PUSH_CLIENTS_TOPIC", reason: "must differ from PUSH_DEVICES_TOPIC")
        }
        for (name, topic) in [
            ("PUSH_DEVICES_TOPIC", registry.devicesTopic), ("PUSH_CLIENTS_TOPIC", registry.clientsTopic),
        ]
        where inputTopics.contains(topic) {
            throw InvalidSetting(variable: name, reason: "'\(topic)' is also an input topic in PUSH_TOPICS")
        }
        return registry
    }

    /// `memory`, `none` or `lmdb:/path` with `path` a directory the worker can write.
    private func deviceStore(_ name: String) throws(InvalidSetting) -> RegistryConfiguration.Store {
        guard let text = optional(name) else { return .memory }
        switch text {
        case "memory": return .memory
        case "none": return .none
        default: break
        }
        guard text.hasPrefix("lmdb:") else {
            throw InvalidSetting(variable: name, reason: "'\(text)' is not one of memory, none, lmdb:/path")
        }
        let path = String(text.dropFirst("lmdb:".count))
        guard !path.isEmpty else {
            throw InvalidSetting(variable: name, reason: "lmdb: names no directory (lmdb:/path)")
        }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw InvalidSetting(variable: name, reason: "'\(path)' is not a directory")
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw InvalidSetting(variable: name, reason: "'\(path)' is not a directory the worker can write")
        }
        return .lmdb(path: path)
    }
}
