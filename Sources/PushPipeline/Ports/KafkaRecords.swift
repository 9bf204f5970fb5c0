import KafkaTypes

/// One header of a Kafka record.
public struct RecordHeader: Sendable, Equatable {
    public var name: String
    public var value: [UInt8]

    public init(_ name: String, _ value: [UInt8]) {
        self.name = name
        self.value = value
    }

    /// A header whose value is the UTF-8 bytes of `text`.
    public init(_ name: String, text: String) {
        self.init(name, Array(text.utf8))
    }
}

extension [RecordHeader] {
    /// The value of the first header called `name`, decoded as UTF-8.
    public func text(_ name: String) -> String? {
        first { $0.name == name }.map { String(decoding: $0.value, as: UTF8.self) }
    }
}

/// A record consumed from an input or retry topic.
public struct InputRecord: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [RecordHeader]
    /// The record's timestamp in epoch milliseconds, when the broker gave one.
    public var timestampMillis: Int64?

    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8],
        headers: [RecordHeader] = [], timestampMillis: Int64? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestampMillis = timestampMillis
    }

    public var topicPartition: TopicPartition { TopicPartition(topic, partition) }
}

/// A record to produce: a receipt, a retry record or a dead-letter record.
public struct OutputRecord: Sendable, Equatable {
    public var topic: String
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [RecordHeader]

    public init(topic: String, key: [UInt8]?, value: [UInt8], headers: [RecordHeader] = []) {
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
    }
}
