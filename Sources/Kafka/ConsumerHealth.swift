/// A consumer's standing with the cluster, from librdkafka's latest statistics (every `statistics.interval.ms`).
public struct ConsumerHealth: Sendable, Equatable {
    /// The group's connection state (`up` once the coordinator is known); nil for a consumer without a group.
    public var groupState: String?
    /// The group's join state (`steady` between rebalances, `wait-join`, `wait-sync`, … during one).
    public var joinState: String?
    /// Brokers whose connection is up.
    public var brokersUp: Int

    public init(groupState: String?, joinState: String?, brokersUp: Int) {
        self.groupState = groupState
        self.joinState = joinState
        self.brokersUp = brokersUp
    }

    /// Whether the consumer is a settled member of its group: coordinator known and no join in progress.
    public var hasJoinedGroup: Bool { groupState == "up" && joinState == "steady" }
}

/// How many commits (automatic or explicit) the group coordinator accepted and refused, since the start.
public struct CommitCounts: Sendable, Equatable {
    public var succeeded: UInt64 = 0
    public var failed: UInt64 = 0

    public init(succeeded: UInt64 = 0, failed: UInt64 = 0) {
        self.succeeded = succeeded
        self.failed = failed
    }
}
