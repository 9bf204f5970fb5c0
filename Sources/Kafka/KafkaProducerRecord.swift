/// A record to write to Kafka.
public struct KafkaProducerRecord: ProducibleRecord, Equatable {
    public var topic: String
    /// The partition to write to; `nil` lets the partitioner choose from the key (records with the same key
    /// go to the same partition).
    public var partition: Int32?
    public var key: [UInt8]?
    /// The value; an empty one is written as null, a tombstone that compaction removes with its key.
    public var value: [UInt8]
    public var headers: [KafkaHeader]
    /// Milliseconds since the Unix epoch; `nil` means "now".
    public var timestampMilliseconds: Int64?

    public init(
        topic: String, partition: Int32? = nil, key: [UInt8]? = nil, value: [UInt8], headers: [KafkaHeader] = [],
        timestampMilliseconds: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
    }

    public var headerCount: Int { headers.count }

    public func forEachHeader(_ body: (String, [UInt8]?) -> Void) {
        for header in headers { body(header.name, header.value) }
    }
}

/// Where Kafka stored a produced record, from its delivery report.
public struct KafkaDeliveryReport: Sendable, Equatable {
    public let topic: String
    public let partition: Int32
    public let offset: Int64

    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}
