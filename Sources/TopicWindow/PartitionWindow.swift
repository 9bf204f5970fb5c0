import Kafka
public import KafkaTypes

/// The records of one partition a window reads: offsets `start..<end`, less those outside the time bounds.
public struct PartitionWindow: Sendable, Equatable {
    public var partition: Int32
    public var start: Int64
    public var end: Int64
    /// Records with an older timestamp are skipped (`--from TIME`: create times may be out of order, and a
    /// broker that cannot look a time up is read from the beginning).
    public var notBeforeMillis: Int64?
    /// Records at or after this timestamp are skipped (`--to TIME`).
    public var beforeMillis: Int64?

    public init(partition: Int32, start: Int64, end: Int64, notBeforeMillis: Int64? = nil, beforeMillis: Int64? = nil) {
        self.partition = partition
        self.start = start
        self.end = end
        self.notBeforeMillis = notBeforeMillis
        self.beforeMillis = beforeMillis
    }

    /// How many offsets the window spans (an upper bound on its records).
    /// (Watermarks are the broker's word: an absurd pair saturates instead of trapping.)
    public var count: Int64 {
        guard end > start else { return 0 }
        let (difference, overflow) = end.subtractingReportingOverflow(start)
        return overflow ? .max : difference
    }

    /// Whether `record` (of this partition) is inside the window.
    public func contains(_ record: KafkaRecord) -> Bool {
        guard record.offset >= start, record.offset < end else { return false }
        guard let timestamp = record.timestampMilliseconds else { return true }
        if let notBeforeMillis, timestamp < notBeforeMillis { return false }
        if let beforeMillis, timestamp >= beforeMillis { return false }
        return true
    }

    /// The window of `partition` between `from` and `to`, given its watermarks and the offsets the broker
    /// named for the positions that are times (`nil` where it named none). Pure.
    public static func between(
        _ from: TopicPosition, _ to: TopicPosition, partition: Int32, watermarks: Watermarks,
        fromTimeOffset: Int64?, toTimeOffset: Int64?
    ) -> PartitionWindow {
        var window = PartitionWindow(partition: partition, start: watermarks.low, end: watermarks.high)
        if case .time(let millis) = from {
            window.start = min(max(fromTimeOffset ?? watermarks.low, watermarks.low), watermarks.high)
            window.notBeforeMillis = millis
        } else if let offset = from.offset(in: partition, watermarks: watermarks, unlisted: watermarks.low) {
            window.start = offset
        }
        if case .time(let millis) = to {
            window.end = min(max(toTimeOffset ?? watermarks.high, watermarks.low), watermarks.high)
            window.beforeMillis = millis
        } else if let offset = to.offset(in: partition, watermarks: watermarks, unlisted: watermarks.high) {
            window.end = offset
        }
        return window
    }
}
