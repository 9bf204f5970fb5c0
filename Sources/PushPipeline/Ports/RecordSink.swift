public import KafkaTypes

/// Where receipts, retry records and dead-letter records go: an idempotent Kafka producer.
public protocol RecordSink: Sendable {
    /// Produces `records` and returns once Kafka acknowledged every one of them. Throws
    /// `OutputRejected` when Kafka refused some for good (too large) and acknowledged all others;
    /// `ProduceFailed` (or any other error) means some were not acknowledged (the caller produces them all
    /// again), unless it `isFatal`.
    func produce(_ records: [KafkaProducerRecord]) async throws
    /// Waits up to `timeout` for every produced record to be acknowledged.
    func flush(timeout: Duration) async
}

/// Kafka refused some records for good (larger than the broker or producer allows) and
/// acknowledged every other record of the call.
public struct OutputRejected: Error, Sendable, Equatable {
    /// Positions of the refused records in the call's array.
    public var indices: [Int]
    /// Why, as Kafka said.
    public var reason: String

    public init(indices: [Int], reason: String) {
        self.indices = indices
        self.reason = reason
    }
}

/// Kafka did not acknowledge some records of a call.
public struct ProduceFailed: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code for metrics and logs, e.g. librdkafka's `_MSG_TIMED_OUT`.
    public var reason: String
    /// What went wrong, in words.
    public var message: String
    /// The producer is unusable for good (a fatal librdkafka error): producing again cannot help.
    public var isFatal: Bool

    public init(reason: String, message: String, isFatal: Bool = false) {
        self.reason = reason
        self.message = message
        self.isFatal = isFatal
    }

    public var description: String { message }
}

extension KafkaProducerRecord {
    /// Header on a record whose value Kafka would not take: the size of the value that was dropped.
    public static let droppedValueHeader = "x-value-dropped"

    /// This record with an empty value and `x-value-dropped` naming the original size, so that the
    /// reason and the source position still reach the topic.
    func droppingValue() -> KafkaProducerRecord {
        var record = self
        record.headers.append(KafkaHeader(name: Self.droppedValueHeader, text: String(value.count)))
        record.value = []
        return record
    }

    /// The smallest form of this record, for when Kafka refused it even without its value: no value, the key
    /// only when short, and only the headers that say why and where from (`FailureHeaders.minimal`).
    func minimal() -> KafkaProducerRecord {
        var record = value.isEmpty ? self : droppingValue()
        if let key, key.count > OutputLimits.headerValueBytes { record.key = nil }
        record.headers = record.headers.filter { FailureHeaders.minimal.contains($0.name) }
        return record
    }
}
