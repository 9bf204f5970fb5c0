internal import CRdKafka
import KafkaTypes

/// The one owner of an `rd_kafka_topic_partition_list_t` made on the Swift side, destroyed in `deinit`.
final class RDKafkaTopicPartitionList {
    let pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    init(capacity: Int = 1) {
        pointer = rd_kafka_topic_partition_list_new(Int32(clamping: max(capacity, 1)))
    }

    /// A list of `offsets`, one entry per partition.
    convenience init(_ offsets: [TopicPartition: Int64]) {
        self.init(capacity: offsets.count)
        for (partition, offset) in offsets.sorted(by: { $0.key < $1.key }) { add(partition, offset: offset) }
    }

    /// A list of `partitions` with no offsets.
    convenience init(_ partitions: [TopicPartition]) {
        self.init(capacity: partitions.count)
        for partition in partitions { add(partition, offset: pw_rd_kafka_offset_invalid) }
    }

    deinit {
        rd_kafka_topic_partition_list_destroy(pointer)
    }

    func add(_ partition: TopicPartition, offset: Int64) {
        let element = rd_kafka_topic_partition_list_add(pointer, partition.topic, partition.partition)
        element?.pointee.offset = offset
    }

    /// The entries: partition, offset and per-partition error.
    var entries: [Entry] { Self.entries(of: pointer) }

    struct Entry {
        let partition: TopicPartition
        let offset: Int64
        let error: rd_kafka_resp_err_t
    }

    /// The entries of a list owned by librdkafka (as passed to a callback).
    static func entries(of list: UnsafePointer<rd_kafka_topic_partition_list_t>?) -> [Entry] {
        guard let list, let elements = list.pointee.elems else { return [] }
        return UnsafeBufferPointer(start: elements, count: Int(list.pointee.cnt)).map { element in
            Entry(
                partition: TopicPartition(String(libraryText: element.topic) ?? "", element.partition),
                offset: element.offset,
                error: element.err
            )
        }
    }

    /// The first per-partition error, as a `KafkaError` naming the partition.
    func firstError(context: String, file: String = #fileID, line: UInt = #line) -> KafkaError? {
        guard let failed = entries.first(where: { $0.error != RD_KAFKA_RESP_ERR_NO_ERROR }) else { return nil }
        return KafkaError(failed.error, context: "\(context) \(failed.partition)", file: file, line: line)
    }
}
