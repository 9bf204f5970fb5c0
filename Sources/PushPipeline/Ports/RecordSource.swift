import KafkaTypes

/// Told about partition assignment changes by the record source, on its polling thread.
public protocol RebalanceListener: Sendable {
    /// Partitions newly given to this consumer.
    func partitionsAssigned(_ partitions: [TopicPartition]) async
    /// Partitions about to be taken away; the source lets them go only after this returns,
    /// so the listener drains their in-flight work and stores their offsets first.
    func partitionsRevoking(_ partitions: [TopicPartition]) async
}

/// Where records come from: a Kafka consumer in a group, with manual offset storing.
public protocol RecordSource: Sendable {
    /// Up to `maxRecords` records, waiting at most `timeout` for the first; rebalance callbacks
    /// reach `listener` during this call.
    func poll(maxRecords: Int, timeout: Duration, listener: any RebalanceListener) async throws -> [InputRecord]
    /// Records `offset` (the next one to read) as the position to commit for `partition`.
    func storeOffset(_ offset: Int64, for partition: TopicPartition) throws
    /// Stops fetching from `partitions`.
    func pause(_ partitions: [TopicPartition]) throws
    /// Fetches from `partitions` again; only called for partitions that were paused.
    func resume(_ partitions: [TopicPartition]) throws
    /// Commits the stored offsets now and waits for the broker's answer.
    func commit() async throws
    /// Leaves the group and releases the consumer.
    func close() async
}
