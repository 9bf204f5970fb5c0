/// librdkafka properties as a string map, with documented defaults.
///
/// Any librdkafka property may be set (`properties["socket.timeout.ms"] = "10000"`); the defaults below
/// only fill what is not given. Printing a configuration redacts secrets.
public struct KafkaConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// The librdkafka properties, by their librdkafka names.
    public var properties: [String: String]

    public init(_ properties: [String: String] = [:]) {
        self.properties = properties
    }

    public subscript(property: String) -> String? {
        get { properties[property] }
        set { properties[property] = newValue }
    }

    /// This configuration with `other`'s properties added, `other` winning where both set one.
    public func merging(_ other: KafkaConfiguration) -> KafkaConfiguration {
        KafkaConfiguration(properties.merging(other.properties) { _, new in new })
    }

    /// Defaults for every client: where the brokers are.
    public static let clientDefaults: [String: String] = [
        "bootstrap.servers": "localhost:9092"
    ]

    /// Consumer defaults, chosen for at-least-once processing in a horizontally scaled group.
    ///
    /// - `group.id=push-worker`
    /// - `partition.assignment.strategy=cooperative-sticky`: a group cannot mix eager and cooperative
    ///   assignors, so it is chosen from the first release; a rebalance only moves the partitions that change.
    /// - `enable.auto.commit=true`: librdkafka commits the *stored* offsets periodically and when partitions are
    ///   unassigned.
    /// - `auto.commit.interval.ms=250`: a crash repeats the work done since the last commit, so the cadence bounds
    ///   what a kill sends twice to what was in flight plus a quarter of a second of completed work (librdkafka's
    ///   5000 repeats up to five seconds). Each commit is one small `OffsetCommit` request per consumer; at this
    ///   cadence it costs neither measurable throughput nor broker CPU (docs/performance.md).
    /// - `auto.offset.reset=earliest`: a partition without a committed offset starts at its oldest record.
    /// - `statistics.interval.ms=5000`: feeds `KafkaConsumer.lag`.
    /// - `enable.auto.offset.store=false` is always set, whatever is configured: the application stores an
    ///   offset only when its record is done (`KafkaConsumer.storeOffset`).
    public static let consumerDefaults: [String: String] = clientDefaults.merging([
        "group.id": "push-worker",
        "partition.assignment.strategy": "cooperative-sticky",
        "enable.auto.commit": "true",
        "auto.commit.interval.ms": "250",
        "auto.offset.reset": "earliest",
        "statistics.interval.ms": "5000",
    ]) { _, new in new }

    /// Defaults for a consumer whose records feed the pipeline (the live group's and a replay's), under the
    /// consumer's own:
    ///
    /// - `queued.max.messages.kbytes=8192`. librdkafka fetches ahead until its queue holds 64 MiB (or 100,000
    ///   records); the pipeline takes at most `PUSH_MAX_IN_FLIGHT` records at a time, so the rest of that queue only
    ///   held memory: 16 MB of the worker's peak in the 25,000-event benchmark backlog, and up to 64 MiB behind a real
    ///   broker's backlog. 8 MiB is about 16,000 chat events, a second of work; 2 MiB left a replay short of input
    ///   (0.6–0.7× the sends/s of 64 MiB), 8 MiB did not.
    /// - `fetch.queue.backoff.ms=100`, where librdkafka has the property (2.4 and later): how long a partition whose
    ///   queue reached that bound waits before it is fetched again, 1000 ms by librdkafka's default. A worker drains
    ///   8 MiB in under a second and then waited, idle, for the rest of it: in the one-device benchmark a 0.2–0.3 s
    ///   stall every 1.2 s (docs/kafka.md, "Configuration").
    /// - Where librdkafka has no such property (before 2.4, e.g. Debian's 2.0.2, whose wait is a fixed second),
    ///   `queued.max.messages.kbytes=32768` instead: a queue that holds more than that second of work. One-device
    ///   benchmark on 2.0.2, 4 alternating rounds: 1.16× the pushes/s of 8 MiB at 0.86× the CPU per push, peak RSS
    ///   +11–14 MB.
    public static let pipelineInputDefaults: [String: String] =
        if check(property: "fetch.queue.backoff.ms", value: "100") == .valid {
            ["queued.max.messages.kbytes": "8192", "fetch.queue.backoff.ms": "100"]
        } else {
            ["queued.max.messages.kbytes": "32768"]
        }

    /// This configuration with `pipelineInputDefaults` where it sets none of their properties.
    public var forPipelineInput: KafkaConfiguration {
        KafkaConfiguration(Self.pipelineInputDefaults.merging(properties) { _, given in given })
    }

    /// Producer defaults: `enable.idempotence=true` and `acks=all`, so librdkafka's retries never duplicate
    /// or reorder records within a partition and a delivery report means the write is on every in-sync replica.
    public static let producerDefaults: [String: String] = clientDefaults.merging([
        "enable.idempotence": "true",
        "acks": "all",
    ]) { _, new in new }

    /// Whether a property holds a secret that must never be printed: librdkafka's own sensitive properties
    /// (`sensitiveProperties`), and any name that speaks of a password, secret, private key or JAAS/OAuth
    /// configuration, so that a property added by a later librdkafka is redacted too.
    public static func isSecret(_ property: String) -> Bool {
        sensitiveProperties.contains(property)
            || ["password", "secret", "jaas", "oauthbearer.config", ".key.", "token"].contains { property.contains($0) }
    }

    /// The properties sorted by name, with secret values shown as `<redacted>`.
    public var description: String {
        properties.keys.sorted().map { name in
            "\(name)=\(Self.isSecret(name) ? "<redacted>" : properties[name] ?? "")"
        }.joined(separator: ", ")
    }
}
