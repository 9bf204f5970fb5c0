internal import CRdKafka

extension String {
    /// The text of a C string librdkafka returned or passed to a callback, or nil when the pointer is NULL.
    ///
    /// librdkafka may return NULL where its header promises a string: `rd_kafka_rebalance_protocol` does while a
    /// consumer closes (2.16), and a name or message may be missing in a callback. `String(cString:)` traps on NULL,
    /// so every C string from librdkafka goes through this.
    init?(libraryText pointer: UnsafePointer<CChar>?) {
        guard let pointer else { return nil }
        self.init(cString: pointer)
    }

    /// The name of the topic behind a message's topic handle, or nil when it has none.
    init?(topicOf topicHandle: OpaquePointer?) {
        guard let topicHandle else { return nil }
        self.init(libraryText: rd_kafka_topic_name(topicHandle))
    }
}
