import KafkaTypes

/// A change of a group consumer's assignment, handed out by `KafkaConsumer.pollWithRebalances` beside the records
/// (for a consumer subscribed with `RevokeHandling.acknowledged`).
public enum RebalanceEvent: Sendable, Equatable {
    /// These partitions are now owned by this consumer (in addition to those it had).
    case assigned([TopicPartition])
    /// These partitions are to be given up. They stay owned, their offsets can still be stored, and no record
    /// of theirs is handed out any more, until `KafkaConsumer.finishRevoke` commits their stored offsets and
    /// lets them go: finish or abandon their in-flight work, store, then finish the revoke.
    case revoking([TopicPartition])
    /// These partitions were already lost (session timeout, fatal error): their offsets can no longer be
    /// committed, another member may already be processing them.
    case lost([TopicPartition])
}

/// Who lets revoked partitions go.
public enum RevokeHandling: Sendable, Equatable {
    /// The consumer, at once: it commits what was stored for them and unassigns them during the poll.
    case immediate
    /// The application: the poll hands out `RebalanceEvent.revoking`, and the partitions stay owned until
    /// `KafkaConsumer.finishRevoke`.
    case acknowledged
}

/// What one `KafkaConsumer.pollWithRebalances` returned: the assignment changes, then records of partitions owned
/// and not revoking when it returned.
public struct ConsumerPoll: Sendable {
    public var events: [RebalanceEvent]
    public var records: [KafkaRecord]
}
