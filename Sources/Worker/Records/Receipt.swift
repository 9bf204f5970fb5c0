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

    /// The original position of `record`: its `x-source-*` headers when it carries them, else its own.
    public init(of record: InputRecord) {
        let headers = record.headers
        if let topic = headers.text(FailureHeaders.sourceTopic),
            let partition = headers.text(FailureHeaders.sourcePartition).flatMap({ Int32($0) }),
            let offset = headers.text(FailureHeaders.sourceOffset).flatMap({ Int64($0) })
        {
            let timestamp = headers.text(FailureHeaders.sourceTimestamp).flatMap { Int64($0) }
            self.init(topic: topic, partition: partition, offset: offset, timestampMillis: timestamp)
        } else {
            self.init(
                topic: record.topic, partition: record.partition, offset: record.offset,
                timestampMillis: record.timestampMillis)
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
    public var worker: String
    /// APNs' time (epoch ms) since which an invalid token is no longer valid, when it says.
    public var tokenInvalidSinceMillis: Int64?

    /// The receipt as JSON; `invalid_token` receipts also carry the raw token and APNs' timestamp.
    public func json() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.string("messageId", messageId)
        writer.string("room", room)
        writer.string("type", type)
        writer.string("userId", device.userId)
        writer.string("platform", device.platform)
        writer.string("tokenHash", device.tokenHash)
        writer.string("status", status.rawValue)
        writer.string("reason", reason)
        writer.string("providerMessageId", providerMessageId)
        writer.integer("attempts", Int64(attempts))
        writer.beginObject("source")
        writer.string("topic", source.topic)
        writer.integer("partition", Int64(source.partition))
        writer.integer("offset", source.offset)
        writer.endObject()
        writer.string("eventTime", eventTimeMillis.map { RFC3339.format(epochMillis: $0) })
        writer.string("sentAt", sentAtMicros.map { RFC3339.format(epochMillis: $0 / 1000) })
        writer.milliseconds("latencyMs", latencyMillis)
        writer.string("replayRunId", replayRunId)
        writer.string("worker", worker)
        if status == .invalidToken {
            writer.string("token", device.token)
            writer.string("tokenTimestamp", tokenInvalidSinceMillis.map { RFC3339.format(epochMillis: $0) })
        }
        writer.endObject()
        return writer.bytes
    }
}
