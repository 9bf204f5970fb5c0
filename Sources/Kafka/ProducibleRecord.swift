/// A record `KafkaProducer` queues as it is, its parts read in place: `KafkaProducerRecord`, or a caller's own
/// record type, which then needs no conversion (and no copy of its headers) per record.
public protocol ProducibleRecord: Sendable {
    var topic: String { get }
    /// The partition to write to; `nil` lets the partitioner choose from the key.
    var partition: Int32? { get }
    var key: [UInt8]? { get }
    /// The value; an empty one is written as null, a tombstone that compaction removes with its key.
    var value: [UInt8] { get }
    /// Milliseconds since the Unix epoch; `nil` means "now".
    var timestampMilliseconds: Int64? { get }
    var headerCount: Int { get }
    /// Calls `body` with the name and the value (`nil`: none) of each header, in order.
    func forEachHeader(_ body: (_ name: String, _ value: [UInt8]?) -> Void)
}

extension ProducibleRecord {
    /// The partitioner's choice.
    public var partition: Int32? { nil }
    /// Now.
    public var timestampMilliseconds: Int64? { nil }
}
