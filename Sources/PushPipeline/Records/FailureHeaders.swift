import KafkaTypes
public import PushCore

/// The headers of dead-letter and retry records, and how they are built. Pure.
public enum FailureHeaders {
    public static let reason = "x-dlq-reason"
    public static let error = "x-dlq-error"
    public static let status = "x-dlq-status"
    public static let sourceTopic = "x-source-topic"
    public static let sourcePartition = "x-source-partition"
    public static let sourceOffset = "x-source-offset"
    public static let sourceTimestamp = "x-source-timestamp"
    public static let sourceGroup = "x-source-group"
    public static let attempts = "x-attempts"
    public static let firstFailure = "x-first-failure"
    public static let worker = "x-worker"
    /// When the retry tier gives the record back (epoch ms).
    public static let retryDue = "x-retry-due"
    /// The real due time of a retry record whose wait is longer than the longest tier (epoch ms).
    public static let retryNotBefore = "x-retry-not-before"
    /// Carried from input to receipts when an operator replays a range.
    public static let replayRunId = "x-replay-run-id"

    /// The headers of the smallest dead letter: why and where from, with no text that could be long.
    static let minimal: Set<String> = [
        reason, sourceTopic, sourcePartition, sourceOffset, sourceTimestamp, attempts, firstFailure, retryDue,
        KafkaProducerRecord.droppedValueHeader,
    ]

    /// The headers a retry record keeps when it moves on to another tier: those the worker wrote on it, less the
    /// due times the move writes anew.
    static let movedOn: Set<String> = [
        reason, error, status, sourceTopic, sourcePartition, sourceOffset, sourceTimestamp, sourceGroup, attempts,
        firstFailure, worker, replayRunId, TraceParent.header,
    ]

    /// The headers for a record that failed at `source`; `retryDueMillis` only on retry records. Every text
    /// is bounded to `OutputLimits.headerValueBytes`.
    static func make(
        failure: DeliveryFailure, source: SourcePosition, group: String, worker: String, retryDueMillis: Int64? = nil
    ) -> [KafkaHeader] {
        var headers = [
            KafkaHeader(name: reason, boundedText: failure.reason.code),
            KafkaHeader(name: error, boundedText: failure.message),
        ]
        if let status = failure.status { headers.append(KafkaHeader(name: Self.status, text: String(status))) }
        headers += [
            KafkaHeader(name: sourceTopic, boundedText: source.topic),
            KafkaHeader(name: sourcePartition, text: String(source.partition)),
            KafkaHeader(name: sourceOffset, text: String(source.offset)),
        ]
        if let timestamp = source.timestampMillis {
            headers.append(KafkaHeader(name: sourceTimestamp, text: String(timestamp)))
        }
        headers += [
            KafkaHeader(name: sourceGroup, boundedText: group),
            KafkaHeader(name: attempts, text: String(failure.attempts)),
        ]
        if let first = failure.firstFailureMillis {
            headers.append(KafkaHeader(name: firstFailure, text: String(first)))
        }
        headers.append(KafkaHeader(name: Self.worker, boundedText: worker))
        if let retryDueMillis { headers.append(KafkaHeader(name: retryDue, text: String(retryDueMillis))) }
        return headers
    }
}

/// Why a device (or a whole record) could not be delivered, for headers and receipts.
public struct DeliveryFailure: Sendable, Equatable {
    /// Why: `decode_error`, `payload_too_large`, `retries_exhausted`, `transient_failure`, …
    public var reason: DeadLetterReason
    /// What went wrong, without tokens or secrets.
    public var message: String
    /// The provider's HTTP status, if one answered.
    public var status: Int?
    public var attempts: Int
    public var firstFailureMillis: Int64?

    public init(
        reason: DeadLetterReason, message: String, status: Int? = nil, attempts: Int = 0,
        firstFailureMillis: Int64? = nil
    ) {
        self.reason = reason
        self.message = message
        self.status = status
        self.attempts = attempts
        self.firstFailureMillis = firstFailureMillis
    }
}
