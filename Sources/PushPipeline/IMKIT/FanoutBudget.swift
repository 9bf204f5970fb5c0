public import KafkaTypes

/// What the fan-out records of the `assigned` scope may hold in memory (docs/partitioned-registry.md, "Sizing"): the
/// records of one input record at most `maximumBytes` of values (a message over it is dead-lettered
/// `fanout_too_large`, before any record is made), and every record in flight a unit of the device budget per started
/// `unitBytes` of its value, so that `PUSH_MAX_IN_FLIGHT_DEVICES` bounds the fan-out bytes too. Pure.
public struct FanoutBudget: Sendable, Equatable {
    /// The value bytes of a fan-out record that count as one device: about what a planned device's request holds
    /// (a push payload is at most 4 KiB on APNs, FCM and Web Push).
    public static let unitBytes = 4096
    /// The default `maximumBytes` (`PUSH_FANOUT_MAX_BYTES`): 64 MiB, 10,000 clients of a 6.7 KB message.
    public static let defaultMaximumBytes = 64 << 20

    /// The most bytes the fan-out record values of one input record may add up to.
    public var maximumBytes: Int

    public init(maximumBytes: Int = Self.defaultMaximumBytes) {
        self.maximumBytes = maximumBytes
    }

    /// The device-budget units of a fan-out record whose value is `bytes` long: one per started `unitBytes`.
    public static func units(ofValueBytes bytes: Int) -> Int {
        max(1, bytes / unitBytes + (bytes % unitBytes == 0 ? 0 : 1))
    }

    /// The device-budget units `records` hold until Kafka acknowledged them.
    public static func units(of records: [KafkaProducerRecord]) -> Int {
        records.reduce(0) { $0 + units(ofValueBytes: $1.value.count) }
    }
}
