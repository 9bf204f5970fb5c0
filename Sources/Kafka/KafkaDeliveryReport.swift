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
