public import Testing

/// The mock cluster's rebalance race (docs/kafka.md, "librdkafka 2.0.2"): it completes a generation at the leader's
/// SyncGroup and answers a later follower `INVALID_REQUEST`, so the follower rejoins while the leader's revoke commits,
/// and the mock refuses that commit with `REBALANCE_IN_PROGRESS`, as a real broker does not. Its partitions are then
/// read again from their previous commit. Tests that count what a rebalance repeats record such a run as this known,
/// intermittent issue, detected from the refusal the consumer reports.
public enum MockClusterRefusedCommit {
    public static let comment: Comment = """
        the mock cluster refused the revoke-time commit: a member's late SyncGroup made it rebalance again \
        while the revoking member still owned its partitions (docs/kafka.md, "librdkafka 2.0.2")
        """

    /// Whether `report` (an error text or a worker's log) holds the mock's refusal of a revoke-time commit.
    public static func isReported(in report: String) -> Bool {
        report.contains("REBALANCE_IN_PROGRESS") && report.contains("revoked partitions")
    }
}
