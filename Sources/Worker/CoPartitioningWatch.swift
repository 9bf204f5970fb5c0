import Adapters
import Configuration
import Essentials
import Kafka
import Lifecycle
import Observability
import PushCore

/// The co-partitioning of the fan-out topic with the registry topics (`CoPartitioning`), read from the brokers'
/// metadata: checked before the `assigned` scope starts, and again every `interval` as a service, which ends the
/// group with `WorkerExitCode.configuration` when the counts no longer match (a topic's partitions were added).
struct CoPartitioningWatch: Service {
    let producer: KafkaProducer
    let fanoutTopic: String
    let registry: RegistryConfiguration
    /// The count the worker started with.
    let partitions: Int
    let interval: Duration
    let clock: any WallClock
    let logger: Logger

    /// The three topics' common partition count, or the mismatch; a topic whose metadata cannot be read counts as
    /// missing.
    static func check(producer: KafkaProducer, fanoutTopic: String, registry: RegistryConfiguration) async -> Result<
        Int, CoPartitioning.Mismatch
    > {
        var topics: [CoPartitioning.Topic] = []
        for name in [fanoutTopic, registry.devicesTopic, registry.clientsTopic] {
            let partitions = try? await producer.partitions(of: name)
            topics.append(
                CoPartitioning.Topic(name: name, partitions: partitions.flatMap { $0.isEmpty ? nil : $0.count }))
        }
        return CoPartitioning.check(fanout: topics[0], devices: topics[1], clients: topics[2])
    }

    func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest {
            while (try? await clock.sleep(for: interval)) != nil {
                let result = await Self.check(producer: producer, fanoutTopic: fanoutTopic, registry: registry)
                if case .success(partitions) = result { continue }
                let reason =
                    switch result {
                    case .failure(let mismatch): mismatch.description
                    case .success(let count): "the topics now have \(count) partitions, not \(partitions)"
                    }
                logger.critical(
                    "registry topics no longer co-partitioned, stopping", metadata: ["error": .string(reason)])
                throw ServiceGroupExit(code: WorkerExitCode.configuration, mode: .graceful)
            }
        }
    }
}
