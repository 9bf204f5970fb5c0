/// The device registry and the client settings every worker follows as tables, for IMKIT messages.
public struct RegistryConfiguration: Sendable, Equatable {
    /// Where the tables are kept (`PUSH_DEVICE_STORE`).
    public enum Store: String, Sendable, Equatable, CaseIterable {
        /// In memory, read from the topics' start at every boot.
        case memory
        /// Not followed: IMKIT messages find no devices (every client `no_devices`).
        case none
    }

    public var store: Store = .memory
    /// `PUSH_DEVICES_TOPIC` (default `push.devices`, compacted).
    public var devicesTopic = "push.devices"
    /// `PUSH_CLIENTS_TOPIC` (default `push.clients`, compacted).
    public var clientsTopic = "push.clients"
    /// How long the start waits for both tables to be read (`PUSH_DEVICES_LOAD_MS`).
    public var loadTimeout: Duration = .seconds(30)

    public init() {}
}

extension SettingReader {
    /// `PUSH_DEVICE_STORE`, `PUSH_DEVICES_TOPIC`, `PUSH_CLIENTS_TOPIC`, `PUSH_DEVICES_LOAD_MS`; the two topics must
    /// differ from each other and from `inputTopics`.
    func registryConfiguration(inputTopics: [String]) throws(InvalidSetting) -> RegistryConfiguration {
        var registry = RegistryConfiguration()
        registry.store = try choice("PUSH_DEVICE_STORE", default: registry.store)
        registry.devicesTopic = try topic("PUSH_DEVICES_TOPIC", default: registry.devicesTopic)
        registry.clientsTopic = try topic("PUSH_CLIENTS_TOPIC", default: registry.clientsTopic)
        registry.loadTimeout = try milliseconds(
            "PUSH_DEVICES_LOAD_MS", default: registry.loadTimeout, in: 0...3_600_000)
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
}
