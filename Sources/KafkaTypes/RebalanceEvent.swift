/// A change of a group consumer's assignment, handed out by a poll beside the records (by a consumer whose
/// application acknowledges revokes, as the pipeline's source does).
public enum RebalanceEvent: Sendable, Equatable {
    /// These partitions are now owned by this consumer (in addition to those it had).
    case assigned([TopicPartition])
    /// These partitions are to be given up. They stay owned, their offsets can still be stored, and no record
    /// of theirs is handed out any more, until the revoke is finished (`finishRevoke` of the consumer or of the
    /// pipeline's record source), which commits their stored offsets and lets them go: finish or abandon their
    /// in-flight work, store, then finish the revoke; the next owner starts at what was committed then.
    case revoking([TopicPartition])
    /// These partitions were already lost (session timeout, fatal error): their offsets can no longer be
    /// committed, another member may already be processing them.
    case lost([TopicPartition])
}

/// What one poll returned: the assignment changes, then records of partitions owned and not revoking when it
/// returned.
public struct ConsumerPoll: Sendable {
    public var events: [RebalanceEvent]
    public var records: [KafkaRecord]

    public init(events: [RebalanceEvent] = [], records: [KafkaRecord] = []) {
        self.events = events
        self.records = records
    }
}
