internal import CRdKafka

/// Topic metadata lookups.
enum Metadata {
    /// The partition numbers of `topic`, sorted.
    static func partitions(of topic: String, handle: OpaquePointer, timeout: Duration) throws(KafkaError) -> [Int32] {
        guard let topicHandle = rd_kafka_topic_new(handle, topic, nil) else {
            throw KafkaError(rd_kafka_last_error(), context: "opening topic \(topic)")
        }
        defer { rd_kafka_topic_destroy(topicHandle) }
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let result = rd_kafka_metadata(handle, 0, topicHandle, &metadata, Int32(timeout.milliseconds))
        if let error = KafkaError.from(result, context: "fetching metadata of \(topic)") { throw error }
        guard let metadata else { return [] }
        defer { rd_kafka_metadata_destroy(metadata) }
        return try partitions(of: topic, in: metadata) ?? []
    }

    /// The partition numbers of each of `topics` that exists, sorted, read from one request for the metadata of every
    /// topic: a request that names no topic creates none, where one naming a topic may make a broker with
    /// `auto.create.topics.enable` create it (librdkafka 2.0.2 asks so from a producer even with
    /// `allow.auto.create.topics=false`). A missing topic (not listed, or listed with `unknownTopicOrPartition`) has no
    /// entry; another error of a topic's own is thrown.
    static func partitions(ofExisting topics: [String], handle: OpaquePointer, timeout: Duration) throws(KafkaError)
        -> [String: [Int32]]
    {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let result = rd_kafka_metadata(handle, 1, nil, &metadata, Int32(timeout.milliseconds))
        if let error = KafkaError.from(result, context: "fetching metadata of every topic") { throw error }
        guard let metadata else { return [:] }
        defer { rd_kafka_metadata_destroy(metadata) }
        var found: [String: [Int32]] = [:]
        for topic in topics {
            do {
                found[topic] = try partitions(of: topic, in: metadata)
            } catch let error where error.code == .unknownTopicOrPartition {
                continue
            }
        }
        return found
    }

    /// The partition numbers of `topic` in `metadata`, sorted; nil when `metadata` does not list it, the topic's own
    /// error thrown when the brokers answered one.
    private static func partitions(of topic: String, in metadata: UnsafePointer<rd_kafka_metadata>) throws(KafkaError)
        -> [Int32]?
    {
        let topics = UnsafeBufferPointer(start: metadata.pointee.topics, count: Int(metadata.pointee.topic_cnt))
        guard let entry = topics.first(where: { String(libraryText: $0.topic) == topic }) else { return nil }
        if let error = KafkaError.from(entry.err, context: "fetching metadata of \(topic)") { throw error }
        let partitions = UnsafeBufferPointer(start: entry.partitions, count: Int(entry.partition_cnt))
        return partitions.map(\.id).sorted()
    }
}
