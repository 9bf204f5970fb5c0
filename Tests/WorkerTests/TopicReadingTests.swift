import Kafka
import KafkaTypes
import Testing

@Suite struct TopicReadingTests {
    @Test func recordsAreReadFromEveryPartitionOfTheTopic() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("six", partitions: 6)
        let kafka = KafkaConfiguration(["bootstrap.servers": cluster.bootstrapServers])
        let producer = try KafkaProducer(configuration: kafka)
        for partition: Int32 in 0..<6 {
            _ = try await producer.send(
                KafkaProducerRecord(topic: "six", partition: partition, key: nil, value: Array("\(partition)".utf8)))
        }
        await producer.close()
        let records = try await readRecords(kafka, topic: "six", count: 6, within: .seconds(30))
        #expect(Set(records.map(\.partition)) == Set(0..<6))
    }
}
