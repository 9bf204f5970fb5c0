public import CLI
import PushPipeline

/// What `push-worker dev-broker` is configured with: its command line only (no environment).
public struct DevBrokerConfiguration: Sendable, Equatable {
    /// The fleet's default topics: input, receipts, dead letters, invalid tokens, the device registry and client
    /// settings, the fan-out of the `assigned` registry scope, and every default retry tier. A topic the mock cluster
    /// creates on first use has one partition.
    public static let defaultTopics =
        [
            "chat.messages", "push.receipts", "push.dlq", "push.invalid-tokens", "push.devices", "push.clients",
            "push.fanout",
        ]
        + RetryTiers(base: "push.retry").topics

    /// `--brokers` (1 to 32, default 3): broker ids 1…N.
    public var brokers: Int
    /// `--partitions` (1 to 1000, default 6): partitions of each topic.
    public var partitions: Int
    /// `--topics` (default `defaultTopics`).
    public var topics: [String]

    /// Reads and checks the options; the error names the option.
    public init(_ arguments: ParsedArguments) throws(UsageError) {
        brokers = try arguments.integer("--brokers", default: 3, in: 1...32)
        partitions = try arguments.integer("--partitions", default: 6, in: 1...1000)
        topics = try arguments.list("--topics", default: Self.defaultTopics)
    }
}
