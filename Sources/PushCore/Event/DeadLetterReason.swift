/// A stable code for why a record or a device send went to the dead-letter topic, or to a retry topic: the
/// `x-dlq-reason` header, the dead-lettered receipt's `reason` and the `push_dlq_total` label.
public struct DeadLetterReason: Sendable, Hashable, CustomStringConvertible {
    public let code: String

    public init(_ code: String) {
        self.code = code
    }

    /// The record is not a chat-message event: bad JSON, a missing or mistyped field, an invalid token.
    public static let decodeError = DeadLetterReason("decode_error")
    /// The record is larger than the configured record size limit.
    public static let recordTooLarge = DeadLetterReason("record_too_large")
    /// The `assigned` scope's fan-out records of one message would hold more bytes than `PUSH_FANOUT_MAX_BYTES`.
    public static let fanoutTooLarge = DeadLetterReason("fanout_too_large")
    /// The message type is not in the rules table and the table's policy is to dead-letter it.
    public static let unknownType = DeadLetterReason("unknown_type")
    /// The request cannot be made to fit the provider's size limit.
    public static let payloadTooLarge = DeadLetterReason("payload_too_large")
    /// Transient failures continued past the retry budget.
    public static let retriesExhausted = DeadLetterReason("retries_exhausted")
    /// A fan-out record read from a partition its client does not belong to (`ClientPartitioner`): a forged record or
    /// one from a producer that does not partition by client, never resolved against another client's partition.
    public static let misplacedFanout = DeadLetterReason("misplaced_fanout")
    /// On a retry record: a transient failure, to be sent again when its tier's delay has passed.
    public static let transientFailure = DeadLetterReason("transient_failure")

    public var description: String { code }
}
