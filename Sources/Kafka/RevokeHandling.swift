/// Who lets revoked partitions go.
public enum RevokeHandling: Sendable, Equatable {
    /// The consumer, at once: it commits what was stored for them and unassigns them during the poll.
    case immediate
    /// The application: the poll hands out `RebalanceEvent.revoking`, and the partitions stay owned until
    /// `KafkaConsumer.finishRevoke`.
    case acknowledged
}
