import Dispatch
import Kafka
import KafkaTypes
import PushPipeline
import Synchronization

/// The record-source port over a `KafkaConsumer` in a consumer group.
///
/// The consumer's rebalance handler runs on its own poll thread and may block: it hands each
/// rebalance to the pipeline's listener and waits for it, so revoked partitions are drained and
/// stored before librdkafka lets them go.
public final class KafkaRecordSource: RecordSource {
    private let consumer: KafkaConsumer
    private let listener = ListenerSlot()
    private let closeTimeout: Duration

    /// Creates the consumer and subscribes it to `topics`.
    public init(
        configuration: KafkaConfiguration, topics: [String], closeTimeout: Duration = .seconds(10),
        errorHandler: KafkaConsumer.ErrorHandler? = nil, logHandler: KafkaLogHandler? = nil
    ) async throws(KafkaError) {
        let listener = self.listener
        consumer = try KafkaConsumer(configuration: configuration, errorHandler: errorHandler, logHandler: logHandler)
        self.closeTimeout = closeTimeout
        try await consumer.subscribe(topics: topics) { event in
            guard let target = listener.current else { return }
            Self.deliver(event, to: target)
        }
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

    /// Runs the listener for `event` and blocks the poll thread (never the cooperative pool) until it is done.
    private static func deliver(_ event: RebalanceEvent, to listener: any RebalanceListener) {
        let done = DispatchSemaphore(value: 0)
        Task {
            switch event {
            case .assigned(let partitions):
                await listener.partitionsAssigned(partitions)
            case .revoked(let partitions), .lost(let partitions):
                await listener.partitionsRevoking(partitions)
            }
            done.signal()
        }
        done.wait()
    }

    public func poll(maxRecords: Int, timeout: Duration, listener: any RebalanceListener) async throws -> [InputRecord]
    {
        self.listener.current = listener
        return try await consumer.poll(maxRecords: maxRecords, timeout: timeout).map { record in
            InputRecord(
                topic: record.topic, partition: record.partition, offset: record.offset, key: record.key,
                value: record.value, headers: record.headers.map { RecordHeader($0.name, $0.value ?? []) },
                timestampMillis: record.timestampMilliseconds)
        }
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

    public func commit() async throws {
        try await consumer.commit()
    }

    public func close() async {
        _ = await consumer.close(timeout: closeTimeout)
    }
}

/// Where the rebalance handler finds the pipeline: set by the first poll.
private final class ListenerSlot: Sendable {
    private let slot = Mutex<(any RebalanceListener)?>(nil)

    var current: (any RebalanceListener)? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
}
