import Essentials
public import KafkaTypes
import PushCore

/// The status of one device send, as receipts name it.
public enum ReceiptStatus: String, Sendable, CaseIterable {
    case delivered
    case invalidToken = "invalid_token"
    case rejected
    case expired
    case skipped
    case deadLettered = "dead_lettered"
}

/// Where a record was first read: the input topic position, also for records that came back
/// through the retry topic (then read from its `x-source-*` headers).
public struct SourcePosition: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var timestampMillis: Int64?

    public init(topic: String, partition: Int32, offset: Int64, timestampMillis: Int64?) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.timestampMillis = timestampMillis
    }

    /// The original position of `record`: its `x-source-*` headers when they are trusted (a retry topic's
    /// record, written by the worker) and complete, else its own.
    public init(of record: borrowing KafkaRecord, trustingHeaders: Bool) {
        let headers = record.headers
        if trustingHeaders, let topic = headers.text(FailureHeaders.sourceTopic),
            let partition = headers.text(FailureHeaders.sourcePartition).flatMap({ Int32($0) }),
            let offset = headers.text(FailureHeaders.sourceOffset).flatMap({ Int64($0) })
        {
            let timestamp = headers.text(FailureHeaders.sourceTimestamp).flatMap { Int64($0) }
            self.init(topic: topic, partition: partition, offset: offset, timestampMillis: timestamp)
        } else {
            self.init(
                topic: record.topic, partition: record.partition, offset: record.offset,
                timestampMillis: record.timestampMilliseconds)
        }
    }
}

/// One receipt: the outcome of one device send, keyed by message id on the receipts topic.
public struct Receipt: Sendable, Equatable {
    public var messageId: String
    public var room: String
    public var type: String
    public var device: DeviceTarget
    public var status: ReceiptStatus
    public var reason: String?
    public var providerMessageId: String?
    public var attempts: Int
    public var source: SourcePosition
    public var eventTimeMillis: Int64?
    public var sentAtMicros: Int64?
    public var latencyMillis: Double?
    public var replayRunId: String?
    /// The input record's W3C trace context, when it had a well-formed one.
    public var traceParent: TraceParent?
    /// An `invalid_token` answer not acted on: its app's sends to the provider were mostly called dead, which is a
    /// misconfiguration rather than dead tokens (`TokenInvalidationGuard`). Written only when true.
    public var suspect = false
    public var worker: String

    /// The id every copy of this receipt shares (see `ReceiptID`).
    public var receiptId: String {
        ReceiptID.make(messageId: messageId, device: device, attempts: attempts, replayRunId: replayRunId)
    }

    /// The receipt as JSON. It never holds the raw token (analysts read receipts): an `invalid_token` send also
    /// writes an `InvalidTokenRecord`, which does.
    public func json() -> [UInt8] {
        json(receiptId: receiptId)
    }

    /// `json()` with its `receiptId` already made, by a caller that needs the id too (the record's header): the id
    /// is a SHA-256 of the receipt's parts, made once per receipt. Written into one buffer sized for the receipt.
    func json(receiptId id: String) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: estimatedSize(receiptId: id))
        writer.beginObject()
        writer.field(literal: "receiptId", id)
        writer.field(literal: "messageId", messageId)
        writer.field(literal: "room", room)
        writer.field(literal: "type", type)
        writer.field(literal: "userId", device.userId)
        writer.field(literal: "platform", device.platform)
        writer.optional("tokenHash", device.tokenHash.isEmpty ? nil : device.tokenHash)
        writer.field(literal: "status", status.rawValue)
        writer.optional("reason", reason)
        if suspect {
            writer.key(literal: "suspect")
            writer.bool(true)
        }
        writer.optional("providerMessageId", providerMessageId)
        writer.key(literal: "attempts")
        writer.integer(attempts)
        writer.key(literal: "source")
        writer.beginObject()
        writer.field(literal: "topic", source.topic)
        writer.key(literal: "partition")
        writer.integer(Int(source.partition))
        writer.key(literal: "offset")
        writer.integer(source.offset)
        writer.endObject()
        writer.optionalTimestamp("eventTime", eventTimeMillis)
        writer.optionalTimestamp("sentAt", sentAtMicros.map { $0 / 1000 })
        writer.key(literal: "latencyMs")
        if let latencyMillis {
            writer.number(literal: DecimalText.format(max(latencyMillis, 0)))
        } else {
            writer.null()
        }
        writer.optional("replayRunId", replayRunId)
        if let traceParent { writer.field(literal: "traceparent", traceParent.description) }
        writer.field(literal: "worker", worker)
        writer.endObject()
        return writer.bytes
    }

    /// The receipt's length in bytes when no text needs an escape: its keys, punctuation, numbers and times take
    /// at most 448 bytes.
    private func estimatedSize(receiptId id: String) -> Int {
        var size = 448 + id.utf8.count + messageId.utf8.count + room.utf8.count + type.utf8.count
        size += device.userId.utf8.count + device.platform.utf8.count + device.tokenHash.utf8.count
        size += (reason?.utf8.count ?? 0) + (providerMessageId?.utf8.count ?? 0) + source.topic.utf8.count
        size += (replayRunId?.utf8.count ?? 0) + (traceParent?.description.utf8.count ?? 0) + worker.utf8.count
        return size
    }
}

extension JSONWriter {
    /// Writes `"key": "value"`, or `"key": null` when `value` is `nil`.
    fileprivate mutating func optional(_ name: StaticString, _ value: String?) {
        key(literal: name)
        if let value { string(value) } else { null() }
    }

    /// Writes `"key": "<RFC 3339 time>"`, or `"key": null` when `epochMillis` is `nil`.
    fileprivate mutating func optionalTimestamp(_ name: StaticString, _ epochMillis: Int64?) {
        key(literal: name)
        if let epochMillis { timestamp(epochMillis: epochMillis) } else { null() }
    }
}
