public import PushPipeline

/// Where a worker resolves IMKIT messages and custom pushes (`PUSH_REGISTRY_SCOPE`), and the fan-out between its two
/// stages when it holds only its share of the registry (docs/partitioned-registry.md).
public struct FanoutConfiguration: Sendable, Equatable {
    /// How much of the device registry each worker holds.
    public enum Scope: String, Sendable, Equatable, CaseIterable {
        /// Every worker holds the whole registry and resolves recipients where it reads the message.
        case all
        /// Each worker holds the registry partitions of the fan-out partitions it is assigned: the input consumer
        /// writes one fan-out record per recipient client, a second consumer group resolves and sends them.
        case assigned
    }

    public var scope: Scope = .all
    /// `PUSH_FANOUT_TOPIC` (default `push.fanout`): one record per recipient client, keyed `appID/clientId`,
    /// co-partitioned with the registry topics.
    public var topic = "push.fanout"
    /// `PUSH_FANOUT_GROUP_ID`: the consumer group of the fan-out stage (default the worker's `KAFKA_GROUP_ID` with
    /// `.fanout` appended).
    public var group: String
    /// `PUSH_FANOUT_MAX_BYTES` (default 64 MiB): the most bytes the fan-out records of one input record may hold;
    /// a message over it is dead-lettered `fanout_too_large`.
    public var budget = FanoutBudget()

    public init(group: String) {
        self.group = group
    }
}

extension SettingReader {
    /// `PUSH_REGISTRY_SCOPE`, `PUSH_FANOUT_TOPIC`, `PUSH_FANOUT_GROUP_ID`, `PUSH_FANOUT_MAX_BYTES`. The fan-out topic
    /// differs from every topic in `taken` (input, output and registry topics, by the variable that names each) and
    /// its group from the input's `group`.
    func fanoutConfiguration(group: String, taken: [(variable: String, topic: String)]) throws(InvalidSetting)
        -> FanoutConfiguration
    {
        var fanout = FanoutConfiguration(group: try text("PUSH_FANOUT_GROUP_ID", default: group + ".fanout"))
        fanout.scope = try choice("PUSH_REGISTRY_SCOPE", default: FanoutConfiguration.Scope.all)
        fanout.topic = try topic("PUSH_FANOUT_TOPIC", default: fanout.topic)
        fanout.budget.maximumBytes = try integer(
            "PUSH_FANOUT_MAX_BYTES", default: FanoutBudget.defaultMaximumBytes, in: 1_024...(1 << 40))
        if let clash = taken.first(where: { $0.topic == fanout.topic }) {
            throw InvalidSetting(
                variable: "PUSH_FANOUT_TOPIC", reason: "'\(fanout.topic)' is also \(clash.variable)'s topic")
        }
        guard fanout.group != group else {
            throw InvalidSetting(variable: "PUSH_FANOUT_GROUP_ID", reason: "must differ from KAFKA_GROUP_ID")
        }
        return fanout
    }
}
