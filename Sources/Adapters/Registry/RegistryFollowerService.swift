package import Configuration
package import DeviceRegistry
package import Kafka
import KafkaTypes
package import Lifecycle
package import Observability
import PushCore

/// Follows the device registry and the client settings topics into `RegistryTables` while the worker runs, from the
/// offsets its store holds (a disk-backed store resumes; a memory one starts from the beginning), logging a sample of
/// the records it ignores (`RegistryRecordLog`) and each Kafka or store failure before retrying (counted, the waits
/// growing: `FollowRetries`). Its shutdown stops following.
package struct RegistryFollowerService: Service {
    let configuration: KafkaConfiguration
    let registry: RegistryConfiguration
    let tables: RegistryTables
    let logger: Logger
    let recordLog: RegistryRecordLog
    /// Called each time both topics are read up to where they ended when the follower (re)connected.
    var loaded: @Sendable () -> Void = {}

    package init(
        configuration: KafkaConfiguration, registry: RegistryConfiguration, tables: RegistryTables, logger: Logger,
        loaded: @escaping @Sendable () -> Void = {}
    ) {
        self.configuration = configuration
        self.registry = registry
        self.tables = tables
        self.logger = logger
        recordLog = RegistryRecordLog(logger: logger)
        self.loaded = loaded
    }

    package func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest { await follow() }
    }

    private func follow() async {
        await withTaskGroup(of: Void.self) { group in
            for (topic, name) in [
                (RegistryTables.Topic.devices, registry.devicesTopic), (.clients, registry.clientsTopic),
            ] {
                let follower = follower(topic, name: name)
                group.addTask { [logger, tables] in
                    await follower.run { error in
                        tables.countFollowFailure(of: topic)
                        logger.warning(
                            "cannot follow the registry topic",
                            metadata: ["kafka.topic": .string(name), "error": .string(error)])
                    }
                }
            }
        }
    }

    private func follower(_ topic: RegistryTables.Topic, name: String) -> TopicTableFollower {
        let tables = tables
        let logger = logger
        let recordLog = recordLog
        let loaded = loaded
        return TopicTableFollower(
            configuration: configuration, topic: name, start: { tables.store.offsets(of: name) },
            caughtUp: {
                if let error = tables.markLoaded(topic) {
                    logger.warning(
                        "cannot finish the device store's load", metadata: ["error": .string(error.description)])
                }
                if tables.isLoaded {
                    loaded()
                    // The load's decoding freed far more than an idle worker's allocations would ever return.
                    FreedMemory.release()
                }
            }, remaining: { tables.setLag($0, of: topic) },
            apply: { records in try tables.apply(records, of: topic, named: name, log: recordLog) })
    }
}
