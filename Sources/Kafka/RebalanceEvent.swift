import KafkaTypes

/// A change of a group consumer's assignment, told to the application's rebalance handler.
///
/// The handler runs synchronously on the consumer's own poll thread (never on Swift's cooperative pool), so
/// it may block: for `revoked`, the partitions are still owned until the handler returns. Finish or hand off
/// their in-flight work, store their final offsets with `KafkaConsumer.storeOffset`, then return; the
/// consumer commits the stored offsets and only then gives the partitions up.
public enum RebalanceEvent: Sendable, Equatable {
    /// These partitions are now owned by this consumer (in addition to those it had).
    case assigned([TopicPartition])
    /// These partitions are about to be given up; they are owned until the handler returns.
    case revoked([TopicPartition])
    /// These partitions were already lost (session timeout, fatal error): their offsets can no longer be
    /// committed, another member may already be processing them.
    case lost([TopicPartition])
}
