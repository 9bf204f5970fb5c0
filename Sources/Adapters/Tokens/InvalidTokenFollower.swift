public import Kafka
public import PushPipeline

/// Reads the invalid-token topic into an `InvalidTokenTable` from its beginning, then follows it while the
/// worker runs (every pod keeps the whole table), so that a token any pod found dead is skipped by all.
public struct InvalidTokenFollower: Sendable {
    let follower: TopicTableFollower

    public init(configuration: KafkaConfiguration, topic: String, table: InvalidTokenTable) {
        follower = TopicTableFollower(
            configuration: configuration, topic: topic, caughtUp: { table.isLoaded = true }, remaining: { _ in },
            apply: { table.apply($0) })
    }

    /// Follows the topic until the task is cancelled; `table.isLoaded` turns true once it has read what the
    /// topic held at the start. A Kafka failure (a missing topic, a broker away) is told to `onFailure` and retried
    /// after a growing wait (`FollowRetries`).
    public func run(onFailure: @Sendable (String) -> Void) async {
        await follower.run(onFailure: onFailure)
    }
}
