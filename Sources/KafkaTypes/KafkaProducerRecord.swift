/// A record to write to Kafka: what the pipeline's sink takes (receipts, retry and dead-letter records) and the
/// producer queues, as it is.
public struct KafkaProducerRecord: Sendable, Equatable {
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
}
