public import KafkaTypes

/// Where records come from: a Kafka consumer in a group, with manual offset storing.
public protocol RecordSource: Sendable {
    /// Up to `maxRecords` records and the assignment changes since the last poll, waiting at most `timeout` for
    /// the first record.
    func poll(maxRecords: Int, timeout: Duration) async throws -> ConsumerPoll
    /// Records `offset` (the next one to read) as the position to commit for `partition`.
    func storeOffset(_ offset: Int64, for partition: TopicPartition) throws
    /// Stops fetching from `partitions`. Returns at once (it is called from the pipeline's actor): a source applies
    /// it before its next poll at the latest.
    func pause(_ partitions: [TopicPartition]) throws
    /// Fetches from `partitions` again; only called for partitions that were paused. Returns at once, as `pause`.
    func resume(_ partitions: [TopicPartition]) throws
    /// Makes `offset` the next record `partition` hands out: records after it already handed out come again.
    /// Returns at once, as `pause`.
    func seek(_ partition: TopicPartition, to offset: Int64) throws
    /// Commits the stored offsets of `partitions` (revoking, see `RebalanceEvent.revoking`) and waits for the
    /// broker's answer, then gives the partitions up. Called once per revoking partition.
    func finishRevoke(_ partitions: [TopicPartition]) async throws
    /// Whether the source commits the stored offsets by itself, periodically, skipping the moments its group
    /// rebalances (librdkafka's auto-commit).
    var commitsPeriodically: Bool { get }
    /// Whether every offset stored so far has been committed, periodically or by `commit()`; commit answers
    /// arrive through `poll`.
    var storedOffsetsCommitted: Bool { get }
    /// Commits the stored offsets now and waits for the broker's answer.
    func commit() async throws
    /// Leaves the group and releases the consumer.
    func close() async
}
