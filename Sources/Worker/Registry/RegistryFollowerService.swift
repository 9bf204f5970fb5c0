import DeviceRegistry
import Kafka
import Lifecycle
import Observability

/// Follows the device registry and the client settings topics into `RegistryTables` while the worker runs, logging
/// each record it ignores (never its value: it holds a token) and each Kafka failure before retrying. Its shutdown
/// stops following.
struct RegistryFollowerService: Service {
    let configuration: KafkaConfiguration
    let registry: RegistryConfiguration
    let tables: RegistryTables
    let logger: Logger

    func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest { await follow() }
    }

    private func follow() async {
        await withTaskGroup(of: Void.self) { group in
            for (topic, name) in [
                (RegistryTables.Topic.devices, registry.devicesTopic), (.clients, registry.clientsTopic),
            ] {
                let follower = follower(topic, name: name)
                group.addTask { [logger] in
                    await follower.run { error in
                        logger.warning(
                            "cannot read the registry topic",
                            metadata: ["kafka.topic": .string(name), "error": .string(error)])
                    }
                }
            }
        }
    }

    private func follower(_ topic: RegistryTables.Topic, name: String) -> TopicTableFollower {
        let tables = tables
        let logger = logger
        return TopicTableFollower(
            configuration: configuration, topic: name, caughtUp: { tables.markLoaded(topic) },
            remaining: { tables.setLag($0, of: topic) },
            apply: { records in
                for record in records {
                    let error =
                        switch topic {
                        case .devices: tables.applyDevice(key: record.key, value: record.value)
                        case .clients: tables.applyClient(key: record.key, value: record.value)
                        }
                    guard let error else { continue }
                    logger.warning(
                        "registry record ignored",
                        metadata: [
                            "kafka.topic": .string(name), "kafka.partition": .init(Int(record.partition)),
                            "kafka.offset": .init(Int(record.offset)),
                            "registry.reason": .string(error.reason.rawValue),
                            "error": .string(error.message),
                        ])
                }
            })
    }
}
