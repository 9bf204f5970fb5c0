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
/// Metadata that cannot be read (a broker away, a timeout, a refused request) says nothing about the counts: the
/// service logs it and checks again at the next interval. Only a topic the brokers say does not exist, or counts that
/// differ, are a mismatch.
struct CoPartitioningWatch: Service {
    /// The partitions of those of the topics named that exist, from one request for the brokers' metadata
    /// (`KafkaProducer.partitions(ofExisting:)`: it creates none).
    let partitionsOf: @Sendable ([String]) async throws(KafkaError) -> [String: [Int32]]
    let fanoutTopic: String
    let registry: RegistryConfiguration
    /// The count the worker started with.
    let partitions: Int
    let interval: Duration
    let clock: any WallClock
    let logger: Logger

    /// The three topics' common partition count, or the mismatch (a topic that does not exist among them), from one
    /// metadata request; throws the error when the metadata cannot be read (a timeout, a broker away, a refused
    /// request).
    static func check(
        partitionsOf: @Sendable ([String]) async throws(KafkaError) -> [String: [Int32]], fanoutTopic: String,
        registry: RegistryConfiguration
    ) async throws(KafkaError) -> Result<Int, CoPartitioning.Mismatch> {
        let names = [fanoutTopic, registry.devicesTopic, registry.clientsTopic]
        let existing = try await partitionsOf(names)
        let topics = names.map { name in
            CoPartitioning.Topic(name: name, partitions: existing[name].flatMap { $0.isEmpty ? nil : $0.count })
        }
        return CoPartitioning.check(fanout: topics[0], devices: topics[1], clients: topics[2])
    }

    func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest {
            while (try? await clock.sleep(for: interval)) != nil {
                let result: Result<Int, CoPartitioning.Mismatch>
                do throws(KafkaError) {
                    result = try await Self.check(
                        partitionsOf: partitionsOf, fanoutTopic: fanoutTopic, registry: registry)
                } catch {
                    logger.warning(
                        "cannot read the co-partitioned topics' metadata; checking again later",
                        metadata: ["error": .string(error.description)])
                    continue
                }
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
