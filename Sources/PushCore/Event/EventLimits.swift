/// Bounds on what one event may contain; larger events are dead-lettered instead of exhausting memory.
///
/// The record size limit leaves room below the producer's `message.max.bytes` for the key and headers of a dead
/// letter, so any accepted event can go to the dead-letter topic whole; the worker derives it from its producer's
/// setting with `maximumRecordBytes(messageMaxBytes:)`. The length limits are part of the event contract
/// (`schemas/chat-message.schema.json`, `maxLength`), counted in characters (Unicode scalars) as JSON Schema does.
public struct EventLimits: Sendable, Equatable {
    /// librdkafka's default `message.max.bytes`: the largest record the producer sends.
    public static let producerMessageMaxBytes = 1_000_000
    /// What a dead letter may add to the event: its key and failure headers (at most 1 KB of text each) with their
    /// names and Kafka's per-record framing, with room to spare.
    public static let deadLetterHeadroomBytes = 100_000
    /// The longest id: the message id, `room.id`, `sender.id`, `target.id`, `recipients[].userId`.
    public static let maximumIDLength = 256
    /// The longest message `type`.
    public static let maximumTypeLength = 64
    /// The longest display name: `room.name`, `sender.nickname`, `target.nickname`.
    public static let maximumNameLength = 256

    /// The largest record value accepted, in bytes (default 900,000: for librdkafka's default `message.max.bytes`).
    public var maximumRecordBytes: Int
    /// The most recipients one event may list.
    public var maximumRecipients: Int
    /// The most devices one recipient may list.
    public var maximumDevicesPerRecipient: Int

    public init(
        maximumRecordBytes: Int = maximumRecordBytes(messageMaxBytes: producerMessageMaxBytes),
        maximumRecipients: Int = 10_000, maximumDevicesPerRecipient: Int = 100
    ) {
        self.maximumRecordBytes = maximumRecordBytes
        self.maximumRecipients = maximumRecipients
        self.maximumDevicesPerRecipient = maximumDevicesPerRecipient
    }

    /// The largest event accepted for a producer whose `message.max.bytes` is `messageMaxBytes`: that less
    /// `deadLetterHeadroomBytes`, so any accepted event fits in its own dead letter; at least 1 KiB.
    public static func maximumRecordBytes(messageMaxBytes: Int) -> Int {
        let (difference, overflow) = messageMaxBytes.subtractingReportingOverflow(deadLetterHeadroomBytes)
        return overflow ? 1024 : max(1024, difference)
    }
}

extension EventLimits {
    /// The JSON of a record value: `record_too_large` beyond `maximumRecordBytes` (not parsed), `decode_error` with
    /// the parser's path when it is not JSON.
    func parse(_ bytes: [UInt8]) throws(EventError) -> JSONValue {
        try tape(bytes).withRoot { $0.tree }
    }

    /// The same, read in place (`JSONTape`) rather than into a tree.
    func tape(_ bytes: [UInt8]) throws(EventError) -> JSONTape {
        guard bytes.count <= maximumRecordBytes else {
            throw EventError(
                .recordTooLarge, path: "",
                "record is \(bytes.count) bytes, more than the limit of \(maximumRecordBytes)")
        }
        do {
            return try JSONTape(parsing: bytes)
        } catch {
            throw EventError(.decodeError, path: error.path, error.description)
        }
    }
}
