package import Kafka
package import KafkaTypes
package import PushCore
import Synchronization

/// The records of the device registry's topic as its producers write them: keyed `appID/clientId/type/deviceId`,
/// and with `RegistryPartitioning.client` given the partition of their client, for which the topic's partition count
/// is asked once, at the first record.
package final class RegistryPlacement: Sendable {
    package let topic: String
    package let partitioning: RegistryPartitioning
    private let partitionCount: @Sendable () async throws -> Int
    private let known = Mutex<Int?>(nil)

    /// `partitionCount` tells the topic's partition count; it is asked only for `client` partitioning.
    package init(
        topic: String, partitioning: RegistryPartitioning, partitionCount: @escaping @Sendable () async throws -> Int
    ) {
        self.topic = topic
        self.partitioning = partitioning
        self.partitionCount = partitionCount
    }

    /// The placement of `topic`'s records through `producer`, which reads the partition count from the metadata.
    package convenience init(topic: String, partitioning: RegistryPartitioning, producer: KafkaProducer) {
        self.init(topic: topic, partitioning: partitioning) { try await producer.partitions(of: topic).count }
    }

    /// The record of `key` holding `value` (empty: the tombstone).
    package func record(_ key: DeviceKey, value: [UInt8]) async throws -> KafkaProducerRecord {
        record(key, value: value, partitions: partitioning == .key ? 0 : try await partitions())
    }

    /// The record of `key` holding `value` in a topic of `partitions` partitions, known already (the co-partitioned
    /// count of the `assigned` scope).
    package func record(_ key: DeviceKey, value: [UInt8], partitions: Int) -> KafkaProducerRecord {
        KafkaProducerRecord(
            topic: topic, partition: partitioning.partition(of: key.client, partitions: partitions),
            key: Array(key.description.utf8), value: value)
    }

    private func partitions() async throws -> Int {
        if let count = known.withLock({ $0 }) { return count }
        let count = try await partitionCount()
        guard count > 0 else { throw RegistryPlacementError(topic: topic) }
        known.withLock { $0 = count }
        return count
    }
}

/// The registry's topic has no partition to place a record in (it does not exist).
package struct RegistryPlacementError: Error, CustomStringConvertible {
    package let topic: String

    package var description: String { "\(topic) has no partitions" }
}
