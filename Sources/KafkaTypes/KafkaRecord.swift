/// A record read from Kafka: what a consumer polls and the pipeline's record source hands out, as it is.
public struct KafkaRecord: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]
    /// Milliseconds since the Unix epoch (create time or log-append time), if the record has one.
    public var timestampMilliseconds: Int64?

    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader] = [],
        timestampMilliseconds: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMilliseconds = timestampMilliseconds
    }

    /// The partition this record came from.
    public var topicPartition: TopicPartition { TopicPartition(topic, partition) }

    /// The offset after this record's, where reading goes on (saturating: an offset is the broker's word,
    /// and `Int64.max + 1` would trap).
    public var nextOffset: Int64 { offset == .max ? .max : offset + 1 }
}
