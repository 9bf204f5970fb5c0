/// Bounds on what one event may contain; larger events are dead-lettered instead of exhausting memory.
///
/// The record size limit leaves room below the producer's `message.max.bytes` for the headers of a dead letter, so
/// any accepted event can go to the dead-letter topic whole. The length limits are part of the event contract
/// (`schemas/chat-message.schema.json`, `maxLength`), counted in characters (Unicode scalars) as JSON Schema does.
public struct EventLimits: Sendable, Equatable {
    /// librdkafka's default `message.max.bytes`: the largest record the producer sends.
    public static let producerMessageMaxBytes = 1_000_000
    /// What a dead letter may add to the event: its headers and the record overhead.
    public static let deadLetterHeadroomBytes = 100_000
    /// The longest id: the message id, `room.id`, `sender.id`, `target.id`, `recipients[].userId`.
    public static let maximumIDLength = 256
    /// The longest message `type`.
    public static let maximumTypeLength = 64
    /// The longest display name: `room.name`, `sender.nickname`, `target.nickname`.
    public static let maximumNameLength = 256

    /// The largest record value accepted, in bytes (default 900,000: `producerMessageMaxBytes` minus
    /// `deadLetterHeadroomBytes`).
    public var maximumRecordBytes: Int
    /// The most recipients one event may list.
    public var maximumRecipients: Int
    /// The most devices one recipient may list.
    public var maximumDevicesPerRecipient: Int

    public init(
        maximumRecordBytes: Int = producerMessageMaxBytes - deadLetterHeadroomBytes, maximumRecipients: Int = 10_000,
        maximumDevicesPerRecipient: Int = 100
    ) {
        self.maximumRecordBytes = maximumRecordBytes
        self.maximumRecipients = maximumRecipients
        self.maximumDevicesPerRecipient = maximumDevicesPerRecipient
    }
}
