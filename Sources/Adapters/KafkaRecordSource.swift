public import Kafka
public import KafkaTypes
public import PushPipeline

/// The record-source port over a `KafkaConsumer` in a consumer group, with revokes the pipeline acknowledges:
/// a revoked partition stays owned until the pipeline drained it, stored its offsets and called `finishRevoke`.
public final class KafkaRecordSource: RecordSource {
    private let consumer: KafkaConsumer
    private let closeTimeout: Duration

    /// Creates the consumer and subscribes it to `topics`.
    public init(
        configuration: KafkaConfiguration, topics: [String], closeTimeout: Duration = .seconds(10),
        errorHandler: KafkaConsumer.ErrorHandler? = nil, logHandler: KafkaLogHandler? = nil
    ) async throws(KafkaError) {
        consumer = try KafkaConsumer(configuration: configuration, errorHandler: errorHandler, logHandler: logHandler)
        self.closeTimeout = closeTimeout
        try await consumer.subscribe(topics: topics, revokes: .acknowledged)
    }

    /// The fatal error that made the consumer unusable, if one was raised.
    public var fatalError: KafkaError? { consumer.fatalError }

    /// Group and broker state from librdkafka's latest statistics; nil before the first.
    public var health: ConsumerHealth? { consumer.health }

    /// Commit answers (automatic or explicit) since the start.
    public var commits: CommitCounts { consumer.commits }

    /// Records not yet consumed per owned partition, from librdkafka's latest statistics.
    public var lag: [(topic: String, partition: Int32, records: Int64)] {
        consumer.lag.map { (topic: $0.key.topic, partition: $0.key.partition, records: $0.value) }
    }

    /// The consumer's poll as it is: the port speaks the consumer's records and rebalance events.
    public func poll(maxRecords: Int, timeout: Duration) async throws -> ConsumerPoll {
        try await consumer.pollWithRebalances(maxRecords: maxRecords, timeout: timeout)
    }

    public func storeOffset(_ offset: Int64, for partition: TopicPartition) throws {
        try consumer.storeOffset(offset, for: partition)
    }

    public func pause(_ partitions: [TopicPartition]) throws {
        try consumer.pause(partitions)
    }

    public func resume(_ partitions: [TopicPartition]) throws {
        try consumer.resume(partitions)
    }

    public func seek(_ partition: TopicPartition, to offset: Int64) throws {
        try consumer.seek(partition, to: offset)
    }

    public func finishRevoke(_ partitions: [TopicPartition]) async throws {
        try await consumer.finishRevoke(partitions)
    }

    public var commitsPeriodically: Bool { consumer.commitsPeriodically }

    public var storedOffsetsCommitted: Bool { consumer.storedOffsetsCommitted }

    public func commit() async throws {
        try await consumer.commit()
    }

    public func close() async {
        _ = await consumer.close(timeout: closeTimeout)
    }
}
